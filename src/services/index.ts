import { createDomainCheck } from '../auth/emailDomain.ts';
import { createMailer } from '../auth/mailer.ts';
import { createPersonalTokenAuth, createPersonalTokenCache, isPersonalToken } from '../auth/personalTokens.ts';
import { createSessionCache } from '../auth/sessionCache.ts';
import { createSessions, type TimedSession } from '../auth/sessions.ts';
import { createAccessTokens } from '../auth/tokens.ts';
import type { AppContext } from '../context.ts';
import type { AuthUser } from '../auth/scopes.ts';
import { openTournament } from '../gateway/index.ts';
import { createAccounts, type Accounts } from './accounts.ts';
import { createAnalysisService, type AnalysisService } from './analysis.ts';
import { createBots, type Bots } from './bots.ts';
import { createChat, type Chat } from './chat.ts';
import { createClubs, type Clubs } from './clubs.ts';
import { createFriends, type Friends } from './friends.ts';
import { createPresence, type Presence } from './presence.ts';
import { createGameExports, type GameExports } from './gameExport.ts';
import { createGamesService, type GamesService } from './games.ts';
import type { LiveGameHost } from './liveGameHost.ts';
import { createPersonalTokens, type PersonalTokens } from './personalTokens.ts';
import { createPlayers, type Players } from './players.ts';
import { createPuzzles, type Puzzles } from './puzzles.ts';
import { createTournaments, type Tournaments } from './tournaments.ts';
import { createSessionRevocations } from './sessionRevocations.ts';
import { createLiveCredentials, type LiveCredentials } from './liveCredentials.ts';
import { createWebhooks, type Webhooks } from './webhooks.ts';
import { createUsers, type Users } from './users.ts';
import { createWatching, type Watching } from './watching.ts';

/** The use cases of the service, built once per process from its context. */
export type Services = {
  ctx: AppContext;
  auth: {
    /**
     * Verifies an access token and that its session is live, or a personal access token (`cst_…`)
     * and that it exists and has not expired; throws UNAUTHORIZED otherwise.
     */
    authenticate: (token: string) => Promise<AuthUser>;
    /** DESIGN 2.12: every socket, stream and subscription ends with the credential that opened it. */
    credentials: LiveCredentials;
  };
  /** DESIGN 2.12: personal access tokens. */
  personalTokens: PersonalTokens;
  accounts: Accounts;
  users: Users;
  /** DESIGN 2.13: rating states, last seen and games in progress of a player (Lichess's account and user reads). */
  players: Players;
  /** DESIGN 2.13: bot accounts (the upgrade, the bots online). */
  bots: Bots;
  games: GamesService;
  /** DESIGN 2.14: the live games and the TV's featured game. */
  watching: Watching;
  /** DESIGN 2.12: a user's finished games streamed as PGN or NDJSON. */
  exports: GameExports;
  /** DESIGN 2.11: the games' player and spectator chats. */
  chat: Chat;
  analysis: AnalysisService;
  friends: Friends;
  /** Who is online (friend lists): authenticated requests and live sockets. */
  presence: Presence;
  clubs: Clubs;
  puzzles: Puzzles;
  tournaments: Tournaments;
  webhooks: Webhooks;
  close: () => Promise<void>;
};

/** `liveGames`: this process's live games, whose reads the games service serves from memory. */
export function createServices(ctx: AppContext, liveGames?: LiveGameHost): Services {
  const { config, log } = ctx;
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: `${config.dataDir}/outbox`, log });
  const domainCheck = createDomainCheck({ log: log.child({ component: 'email-domain' }) });
  // A token's session is checked on every request: from this cache while revocations reach it.
  const sessionCache = createSessionCache<TimedSession>({ ttlMs: config.sessionCacheMs, now: () => ctx.clock.now() });
  // Personal tokens are cached alike, and told of revocations on the same channel (by token id).
  const tokenCache = createPersonalTokenCache({ ttlMs: config.sessionCacheMs, now: () => ctx.clock.now() });
  // Made before the sessions it asks: `sessionLive` below reads them when the sockets are checked.
  const credentials = createLiveCredentials({ clock: ctx.clock, log: log.child({ component: 'credentials' }), isLive: (user) => sessionLive(user) });
  const revocations = createSessionRevocations(ctx, {
    revoke: (userId, id) => {
      sessionCache.revoke(userId, id);
      tokenCache.revoke(userId, id);
      credentials.revoke(userId, id);
    },
    setTrusted: (trusted) => {
      sessionCache.setTrusted(trusted);
      tokenCache.setTrusted(trusted);
      credentials.setTrusted(trusted);
    },
  });
  const sessions = createSessions({
    pool: ctx.pool,
    tokens: createAccessTokens({ secret: config.jwtSecret, issuer: config.publicUrl }),
    log,
    maxAgeMs: config.sessionMaxMs,
    cache: sessionCache,
    // Every ending of a session or a personal token comes here (logout, refresh-token reuse, a
    // password changed or reset, a token deleted): this node's sockets close at once, the other
    // nodes' when Redis tells them (src/services/sessionRevocations.ts).
    onRevoked: async (userId, sessionId) => {
      tokenCache.revoke(userId, sessionId);
      credentials.revoke(userId, sessionId);
      await revocations.publish(userId, sessionId);
    },
  });
  const accounts = createAccounts(ctx, sessions, { mailer, domainCheck });
  const presence = createPresence(ctx);
  const personalTokenAuth = createPersonalTokenAuth({ pool: ctx.pool, cache: tokenCache, now: () => ctx.clock.now(), log });
  /** Whether the caller's session or personal token is still live, read from PostgreSQL. */
  function sessionLive(user: AuthUser): Promise<boolean> {
    return user.scopes ? personalTokenAuth.isLive(user.sessionId) : sessions.isLive(user.sessionId);
  }
  // Every authenticated request and socket counts as a sign of life.
  const authenticate = async (token: string) => {
    const user = await (isPersonalToken(token) ? personalTokenAuth.authenticate(token) : sessions.authenticate(token));
    presence.seen(user.id);
    return user;
  };

  return {
    ctx,
    auth: {
      authenticate,
      credentials,
    },
    personalTokens: createPersonalTokens(ctx, { ended: sessions.ended }),
    accounts,
    users: createUsers(ctx),
    players: createPlayers(ctx, presence),
    bots: createBots(ctx),
    games: createGamesService(ctx, liveGames),
    watching: createWatching(ctx),
    exports: createGameExports(ctx),
    chat: createChat(ctx),
    analysis: createAnalysisService(ctx),
    friends: createFriends(ctx, presence),
    presence,
    clubs: createClubs(ctx),
    puzzles: createPuzzles(ctx),
    tournaments: createTournaments(ctx, { openTournament }),
    webhooks: createWebhooks(ctx),
    close: async () => {
      presence.stop();
      credentials.stop();
      await revocations.close();
      await accounts.drain();
      await mailer.close();
    },
  };
}
