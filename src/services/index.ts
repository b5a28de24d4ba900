import type { AppContext, AuthUser } from '../context.ts';
import { AppError } from '../errors.ts';

/** The use cases of the service, built once per process from its context. */
export type Services = {
  ctx: AppContext;
  auth: {
    /** Verifies an access token and that its session is live; throws UNAUTHORIZED otherwise. */
    authenticate: (token: string) => Promise<AuthUser>;
  };
  close: () => Promise<void>;
};

export function createServices(ctx: AppContext): Services {
  return {
    ctx,
    auth: {
      authenticate: async () => {
        throw new AppError('UNAUTHORIZED', 'Invalid access token');
      },
    },
    close: async () => {},
  };
}
