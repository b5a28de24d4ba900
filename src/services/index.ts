import { createDomainCheck } from '../auth/emailDomain.ts';
import { createMailer } from '../auth/mailer.ts';
import { createSessions } from '../auth/sessions.ts';
import { createAccessTokens } from '../auth/tokens.ts';
import type { AppContext, AuthUser } from '../context.ts';
import { createAccounts, type Accounts } from './accounts.ts';
import { createAnalysisService, type AnalysisService } from './analysis.ts';
import { createGamesService, type GamesService } from './games.ts';
import { userNotifier } from './userEvents.ts';
import { createWebhooks, type Webhooks } from './webhooks.ts';
import { createUsers, type Users } from './users.ts';

/** The use cases of the service, built once per process from its context. */
export type Services = {
  ctx: AppContext;
  auth: {
    /** Verifies an access token and that its session is live; throws UNAUTHORIZED otherwise. */
    authenticate: (token: string) => Promise<AuthUser>;
    /** Whether a session is still live (a long-lived socket checks now and then). */
    sessionLive: (sessionId: string) => Promise<boolean>;
  };
  accounts: Accounts;
  users: Users;
  games: GamesService;
  analysis: AnalysisService;
  webhooks: Webhooks;
  close: () => Promise<void>;
};

export function createServices(ctx: AppContext): Services {
  const { config, log } = ctx;
  const notify = userNotifier(ctx);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: `${config.dataDir}/outbox`, log });
  const domainCheck = createDomainCheck({ log: log.child({ component: 'email-domain' }) });
  const sessions = createSessions({
    pool: ctx.pool,
    tokens: createAccessTokens({ secret: config.jwtSecret, issuer: config.publicUrl }),
    log,
    maxAgeMs: config.sessionMaxMs,
    onRevoked: (userId, sessionId) => notify(userId, { type: 'session_revoked', session_id: sessionId }),
  });
  const accounts = createAccounts(ctx, sessions, { mailer, domainCheck });

  return {
    ctx,
    auth: { authenticate: sessions.authenticate, sessionLive: sessions.isLive },
    accounts,
    users: createUsers(ctx),
    games: createGamesService(ctx),
    analysis: createAnalysisService(ctx),
    webhooks: createWebhooks(ctx),
    close: async () => {
      await accounts.drain();
      await mailer.close();
    },
  };
}
