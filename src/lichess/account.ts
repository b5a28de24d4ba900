// Lichess's account and bot routes (DESIGN 2.13) on Lichess's paths. Each route is a few lines
// over the services.
import type { LichessDeps } from './deps.ts';
import { lichessRoute, OK, type LichessRoute } from './route.ts';

export function accountRoutes(d: LichessDeps): LichessRoute[] {
  const { services } = d;
  return [
    lichessRoute({
      method: 'post',
      path: '/api/bot/account/upgrade',
      auth: { anyOf: ['bot:play'] },
      handler: async ({ user }) => {
        await services.bots.upgrade(user!.id);
        return OK;
      },
    }),
  ];
}
