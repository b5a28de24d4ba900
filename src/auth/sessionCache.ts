import type { LiveSession } from '../db/sessions.ts';

/**
 * Live sessions this process has looked up, so an access token's session is not read from
 * PostgreSQL on every request. It may only answer while revocations reach it: logout,
 * refresh-token reuse and a password change end a session (or all of a user's) at once on every
 * node (DESIGN 2.2, 2.8), so every node drops the entry when told (src/services/sessionRevocations.ts),
 * and a node that cannot be told (its subscription is down) does not trust its entries at all.
 * An entry also lapses after `ttlMs` (a safety net) and at the session's absolute lifetime.
 */
export type SessionCache<S extends LiveSession = LiveSession> = {
  /** The live session of `sessionId`, if cached, unexpired and the cache is trusted. */
  get: (sessionId: string) => S | undefined;
  /**
   * Call before reading a session from the database; pass the result to the function it
   * returns. A revocation (or a loss of trust) in between means the read may predate it: then
   * nothing is stored.
   */
  begin: () => (session: S, sessionEndsAtMs: number) => void;
  /** A session ended (`sessionId`), or every session of the user (`sessionId` null). */
  revoke: (userId: string, sessionId: string | null) => void;
  /** Whether revocations reach this process; untrusted, it stores and answers nothing. */
  setTrusted: (trusted: boolean) => void;
  readonly size: number;
};

type Entry<S> = { session: S; expiresAtMs: number };

export function createSessionCache<S extends LiveSession = LiveSession>(o: { ttlMs: number; now: () => number; maxEntries?: number }): SessionCache<S> {
  const maxEntries = o.maxEntries ?? 50_000;
  const entries = new Map<string, Entry<S>>();
  // Bumped by every revocation and change of trust: a read begun before it is not stored.
  let generation = 0;
  let trusted = true;

  const clear = () => {
    entries.clear();
    generation++;
  };

  return {
    get(sessionId) {
      if (!trusted) return undefined;
      const entry = entries.get(sessionId);
      if (!entry) return undefined;
      if (o.now() >= entry.expiresAtMs) {
        entries.delete(sessionId);
        return undefined;
      }
      return entry.session;
    },
    begin() {
      const started = generation;
      return (session, sessionEndsAtMs) => {
        if (!trusted || o.ttlMs <= 0 || generation !== started) return;
        // Oldest first: a Map keeps insertion order, so the first key is the oldest entry.
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(session.sessionId, { session, expiresAtMs: Math.min(o.now() + o.ttlMs, sessionEndsAtMs) });
      };
    },
    revoke(userId, sessionId) {
      generation++;
      if (sessionId !== null) {
        entries.delete(sessionId);
        return;
      }
      for (const [id, entry] of entries) if (entry.session.userId === userId) entries.delete(id);
    },
    setTrusted(value) {
      trusted = value;
      clear();
    },
    get size() {
      return entries.size;
    },
  };
}
