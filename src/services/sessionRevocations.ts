import type { Redis } from 'ioredis';
import type { SessionCache } from '../auth/sessionCache.ts';
import type { AppContext } from '../context.ts';
import { withTimeout } from '../time.ts';

/** Every node's session cache listens here; a message is `{user_id, session_id}` (null: all of the user's). */
export const REVOCATIONS_CHANNEL = 'sessions:revoked';
/** How long a revocation waits for Redis before the request that made it is answered anyway. */
const PUBLISH_TIMEOUT_MS = 2_000;

export type SessionRevocations = {
  /** Tells every node's cache (this one's already forgot it) that a session, or all of a user's, ended. */
  publish: (userId: string, sessionId: string | null) => Promise<void>;
  close: () => Promise<void>;
};

/**
 * Carries revocations to the session cache of every node, over a Redis subscription of this
 * node's own (not Colyseus presence: the cache must know whether the subscription is up).
 * While it is not (connecting, Redis away) the cache is untrusted, so every request reads its
 * session from PostgreSQL; it is emptied when the subscription comes back, since revocations
 * published meanwhile were lost. A revocation is published before the request that made it is
 * answered, and Redis hands a message to every subscriber before it answers the publisher, so a
 * request sent after that answer finds the revocation on its way to every node.
 * Without Redis there is one node: its cache is told directly.
 */
export function createSessionRevocations(
  ctx: Pick<AppContext, 'redis' | 'log'>,
  /** The caches that must forget what a revocation names (sessions, personal tokens). */
  cache: Pick<SessionCache, 'revoke' | 'setTrusted'>,
  /** The subscription's Redis client name (CLIENT LIST shows it). */
  connectionName = 'chess-session-revocations',
): SessionRevocations {
  const { redis, log } = ctx;
  if (!redis) {
    cache.setTrusted(true);
    return { publish: async () => {}, close: async () => {} };
  }
  cache.setTrusted(false);
  const sub: Redis = redis.duplicate({ maxRetriesPerRequest: null, connectionName });
  let closing = false;
  sub.on('message', (channel: string, message: string) => {
    if (channel !== REVOCATIONS_CHANNEL) return;
    try {
      const m = JSON.parse(message) as { user_id: string; session_id: string | null };
      cache.revoke(m.user_id, m.session_id);
    } catch {
      log.warn({ message }, 'malformed session revocation ignored');
    }
  });
  sub.on('ready', () => {
    sub.subscribe(REVOCATIONS_CHANNEL).then(
      () => {
        if (!closing && sub.status === 'ready') cache.setTrusted(true);
      },
      (err: Error) => log.warn({ err: err.message }, 'session revocations: subscribe failed'),
    );
  });
  const distrust = () => cache.setTrusted(false);
  sub.on('close', distrust);
  sub.on('end', distrust);
  sub.on('reconnecting', distrust);
  sub.on('error', (err: Error) => log.warn({ err: err.message }, 'session revocations: redis error'));

  return {
    async publish(userId, sessionId) {
      const message = JSON.stringify({ user_id: userId, session_id: sessionId });
      await withTimeout(redis.publish(REVOCATIONS_CHANNEL, message), PUBLISH_TIMEOUT_MS).catch((err: Error) =>
        // The nodes that are subscribed hear it from Redis; one that is not trusts no cache entry.
        log.warn({ err: err.message, userId }, 'session revocation not published: other nodes forget the session within SESSION_CACHE_SECONDS'),
      );
    },
    async close() {
      closing = true;
      distrust();
      await sub.quit().catch(() => sub.disconnect());
    },
  };
}
