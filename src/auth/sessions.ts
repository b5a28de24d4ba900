import type { AuthUser } from './scopes.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import {
  consumeRefreshToken,
  findLiveSession,
  findUsedRefreshToken,
  insertRefreshToken,
  insertSession,
  revokeSession,
  type LiveSession,
} from '../db/sessions.ts';
import type { SessionCache } from './sessionCache.ts';
import { hashToken, randomToken, type AccessTokens } from './tokens.ts';

/** Refresh tokens are valid 30 days from issue (the account rules of the interface, as docs/api.md lists them). */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

export type TokenPair = { accessToken: string; refreshToken: string; expiresIn: number; expiresAt: Date };

export type Sessions = {
  /** Opens a session and issues its first token pair, inside the caller's transaction. */
  open: (db: Queryable, user: { id: string; email: string }) => Promise<TokenPair>;
  /** Rotates a refresh token; replaying a used one ends its session. Throws UNAUTHORIZED. */
  refresh: (refreshToken: string) => Promise<TokenPair>;
  /** A verified access token of a live session, else UNAUTHORIZED. */
  authenticate: (accessToken: string) => Promise<AuthUser>;
  /** Whether the session is still live (not revoked, within its lifetime). */
  isLive: (sessionId: string) => Promise<boolean>;
  /** Logout: ends the session (and with it every token of it). */
  end: (user: AuthUser) => Promise<void>;
  /**
   * Tells every node that a session ended (`sessionId`), or all of a user's (null: a password
   * change), after the database says so; resolves once they have been told.
   */
  ended: (userId: string, sessionId: string | null) => Promise<void>;
};

const unauthorized = (message: string) => new AppError('UNAUTHORIZED', message);

/** A live session with the end of its absolute lifetime (ms), as the cache keeps it. */
export type TimedSession = LiveSession & { endsAtMs: number };

/**
 * `maxAgeMs` is a session's absolute lifetime (SESSION_MAX_DAYS): after it neither its refresh
 * tokens nor its access tokens work, however often it was refreshed, and the user logs in again.
 */
export function createSessions(o: {
  pool: Pool;
  tokens: AccessTokens;
  log: Logger;
  maxAgeMs: number;
  /**
   * Told after a session ended (logout, refresh-token reuse, password change: `sessionId` null
   * for all of the user's), so every node forgets it and its open sockets are closed. Awaited:
   * the request that ended the session is answered after it.
   */
  onRevoked?: (userId: string, sessionId: string | null) => void | Promise<void>;
  /** Live sessions already looked up (src/auth/sessionCache.ts); every lookup reads PostgreSQL without it. */
  cache?: SessionCache<TimedSession>;
}): Sessions {
  const maxAgeSeconds = o.maxAgeMs / 1000;
  /** Reads a session from PostgreSQL and caches it (unless a revocation came meanwhile). */
  async function lookup(sessionId: string): Promise<TimedSession | undefined> {
    const store = o.cache?.begin();
    const found = await findLiveSession(o.pool, sessionId, maxAgeSeconds);
    if (!found) return undefined;
    const { createdAt, ...live } = found;
    const session = { ...live, endsAtMs: createdAt.getTime() + o.maxAgeMs };
    store?.(session, session.endsAtMs);
    return session;
  }
  async function ended(userId: string, sessionId: string | null): Promise<void> {
    // This node first, at once; then the others (onRevoked).
    o.cache?.revoke(userId, sessionId);
    await o.onRevoked?.(userId, sessionId);
  }
  async function issue(db: Queryable, session: LiveSession): Promise<TokenPair> {
    const refreshToken = randomToken();
    await insertRefreshToken(db, { tokenHash: hashToken(refreshToken), sessionId: session.sessionId, ttlSeconds: REFRESH_TOKEN_TTL_SECONDS });
    const access = o.tokens.sign({ id: session.userId, email: session.email }, session.sessionId);
    return { accessToken: access.token, refreshToken, expiresIn: access.expiresIn, expiresAt: access.expiresAt };
  }

  return {
    async open(db, user) {
      const sessionId = await insertSession(db, user.id);
      return issue(db, { sessionId, userId: user.id, email: user.email });
    },

    async refresh(refreshToken) {
      const tokenHash = hashToken(refreshToken);
      // Consuming the old token and storing the new one commit together: a failure in between
      // must not leave the client with a used token and no successor.
      const pair = await withTransaction(o.pool, async (tx) => {
        const session = await consumeRefreshToken(tx, tokenHash, maxAgeSeconds);
        return session && issue(tx, session);
      });
      if (pair) return pair;
      // A used token presented again means it leaked, or a client raced itself: either way the
      // session can no longer be trusted (OAuth 2.0 Security BCP, refresh token rotation).
      const replayed = await findUsedRefreshToken(o.pool, tokenHash);
      if (replayed) {
        await revokeSession(o.pool, replayed.sessionId, 'refresh_reuse');
        await ended(replayed.userId, replayed.sessionId);
        o.log.warn({ sessionId: replayed.sessionId }, 'refresh token reused: session revoked');
      }
      throw unauthorized('Invalid or expired refresh token');
    },

    async authenticate(accessToken) {
      const claims = o.tokens.verify(accessToken);
      if (!claims) throw unauthorized('Invalid or expired access token');
      const session = o.cache?.get(claims.sid) ?? (await lookup(claims.sid));
      if (!session || session.userId !== claims.sub) throw unauthorized('Session has ended');
      // Sockets opened with the token close when it expires, or the session's lifetime ends first.
      const expiresAt = Math.min(claims.exp * 1000, session.endsAtMs);
      return { id: session.userId, email: session.email, sessionId: session.sessionId, expiresAt };
    },

    isLive: async (sessionId) => (await findLiveSession(o.pool, sessionId, maxAgeSeconds)) !== undefined,

    async end(user) {
      await revokeSession(o.pool, user.sessionId, 'logout');
      await ended(user.id, user.sessionId);
    },

    ended,
  };
}
