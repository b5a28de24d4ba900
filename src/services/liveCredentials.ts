import type { AuthUser } from '../auth/scopes.ts';
import type { Logger } from '../logger.ts';
import type { Clock, TimerHandle } from '../time.ts';

/** How a credential ends: revoked (a token deleted, a logout, a password changed or reset) or past its expiry. */
export type CredentialEnd = 'revoked' | 'expired';

/** What a socket is told when its credential ends (error UNAUTHORIZED, then it closes). */
export const CREDENTIAL_ENDED: Record<CredentialEnd, string> = {
  revoked: 'Your session or access token has ended: authenticate again',
  expired: 'Your access token has expired: authenticate again',
};

/**
 * The one place that knows a credential (a session's access token, a personal token: what an
 * AuthUser came from, named by its `sessionId`) has ended, for everything that outlives the
 * request that authenticated it: room sockets, streams, realtime subscriptions (DESIGN 2.12: a
 * socket lives no longer than the credential that opened it).
 */
export type LiveCredentials = {
  /**
   * Calls `ended` once when `user`'s credential ends: revoked on any node, or at its `expiresAt`
   * on this node's clock. Returns the way to stop watching (the socket closed first).
   */
  watch: (user: AuthUser, ended: (why: CredentialEnd) => void) => () => void;
  /** Whether the credential still works now: unexpired and, in PostgreSQL, not revoked (a reconnection asks). */
  check: (user: AuthUser) => Promise<boolean>;
  /** A revocation, this node's or another's: ends what is watched under `credentialId`, or all of the user's (null). */
  revoke: (userId: string, credentialId: string | null) => void;
  /** Whether revocations reach this node: when they come back, every watched credential is read again. */
  setTrusted: (trusted: boolean) => void;
  stop: () => void;
  /** Watched sockets and subscriptions (metrics, tests). */
  readonly size: number;
};

type Watch = { user: AuthUser; ended: (why: CredentialEnd) => void; live: boolean };

/**
 * A socket that authenticated while its credential was being revoked may begin to be watched
 * just after the revocation passed: for this long after a user's revocation, a new watch of
 * theirs reads its credential once more.
 */
const RECENT_REVOCATION_MS = 10_000;

export type LiveCredentialOptions = {
  clock: Clock;
  log: Logger;
  /** Whether the credential is live in PostgreSQL (not revoked, not expired). */
  isLive: (user: AuthUser) => Promise<boolean>;
  /** How often the expiries are looked at (default 1 s: a credential's sockets close within a second of it). */
  tickMs?: number;
  /**
   * How often every watched credential is read again from PostgreSQL (default 5 min): a safety
   * net for a revocation lost on the way (Redis pub/sub delivers at most once).
   */
  recheckMs?: number;
};

/**
 * Revocations arrive by user (src/services/sessionRevocations.ts: one Redis subscription per
 * node, and this node's own at once); expiries are looked at on one timer of the injected clock
 * per node, every `tickMs` while anything with an expiry is watched, rather than a timer per
 * socket: a test (or an operator's clock) that moves time forward is followed at the next tick.
 */
export function createLiveCredentials(o: LiveCredentialOptions): LiveCredentials {
  const tickMs = o.tickMs ?? 1000;
  const recheckMs = o.recheckMs ?? 300_000;
  const byUser = new Map<string, Set<Watch>>();
  const expiring = new Set<Watch>();
  let count = 0;
  let tick: TimerHandle | undefined;
  let recheck: TimerHandle | undefined;
  let trusted = true;
  let stopped = false;
  let rechecking: Promise<void> | undefined;
  let recheckAgain = false;
  /** When each user last had a credential revoked, for RECENT_REVOCATION_MS. */
  const recentlyRevoked = new Map<string, number>();

  function forget(w: Watch): boolean {
    if (!w.live) return false;
    w.live = false;
    count--;
    const mine = byUser.get(w.user.id);
    mine?.delete(w);
    if (mine?.size === 0) byUser.delete(w.user.id);
    expiring.delete(w);
    if (expiring.size === 0) stopTimer('tick');
    if (count === 0) stopTimer('recheck');
    return true;
  }

  function end(w: Watch, why: CredentialEnd): void {
    if (!forget(w)) return;
    try {
      w.ended(why);
    } catch (err) {
      o.log.warn({ err, userId: w.user.id }, 'closing a socket whose credential ended failed');
    }
  }

  function stopTimer(which: 'tick' | 'recheck'): void {
    if (which === 'tick') {
      o.clock.clearTimeout(tick);
      tick = undefined;
    } else {
      o.clock.clearTimeout(recheck);
      recheck = undefined;
    }
  }

  function armTimers(): void {
    if (stopped) return;
    if (!tick && expiring.size > 0) tick = o.clock.setTimeout(onTick, tickMs);
    if (!recheck && count > 0) {
      recheck = o.clock.setTimeout(() => {
        recheck = undefined;
        void recheckAll();
        armTimers();
      }, recheckMs);
    }
  }

  function onTick(): void {
    tick = undefined;
    const now = o.clock.now();
    for (const w of [...expiring]) if (w.user.expiresAt! <= now) end(w, 'expired');
    armTimers();
  }

  /** Reads every watched credential once (not once per socket), one at a time: a slow trickle of cheap queries. */
  function recheckAll(): Promise<void> {
    if (rechecking) {
      recheckAgain = true;
      return rechecking;
    }
    const run = async () => {
      do {
        recheckAgain = false;
        const byCredential = new Map<string, Watch[]>();
        for (const mine of byUser.values()) {
          for (const w of mine) {
            const same = byCredential.get(w.user.sessionId);
            if (same) same.push(w);
            else byCredential.set(w.user.sessionId, [w]);
          }
        }
        for (const watches of byCredential.values()) {
          if (stopped) return;
          if (!watches.some((w) => w.live)) continue;
          // The database away: keep the sockets (a later check decides), as a request would not be refused for it either.
          const live = await o.isLive(watches[0].user).catch(() => true);
          if (!live) for (const w of watches) end(w, 'revoked');
        }
      } while (recheckAgain && !stopped);
    };
    rechecking = run().finally(() => (rechecking = undefined));
    return rechecking;
  }

  return {
    watch(user, ended) {
      const w: Watch = { user, ended, live: true };
      if (stopped) return () => {};
      count++;
      let mine = byUser.get(user.id);
      if (!mine) byUser.set(user.id, (mine = new Set()));
      mine.add(w);
      if (user.expiresAt !== undefined) expiring.add(w);
      armTimers();
      const revokedAt = recentlyRevoked.get(user.id);
      if (revokedAt !== undefined && o.clock.now() - revokedAt < RECENT_REVOCATION_MS) {
        void o.isLive(user).then(
          (live) => live || end(w, 'revoked'),
          () => {},
        );
      }
      return () => void forget(w);
    },
    async check(user) {
      if (user.expiresAt !== undefined && user.expiresAt <= o.clock.now()) return false;
      return o.isLive(user);
    },
    revoke(userId, credentialId) {
      const now = o.clock.now();
      for (const [id, at] of recentlyRevoked) if (now - at >= RECENT_REVOCATION_MS) recentlyRevoked.delete(id);
      recentlyRevoked.set(userId, now);
      const mine = byUser.get(userId);
      if (!mine) return;
      for (const w of [...mine]) if (credentialId === null || w.user.sessionId === credentialId) end(w, 'revoked');
    },
    setTrusted(value) {
      const regained = value && !trusted;
      trusted = value;
      // Revocations published while this node could not hear them are lost: read them back.
      if (regained) void recheckAll();
    },
    stop() {
      stopped = true;
      stopTimer('tick');
      stopTimer('recheck');
    },
    get size() {
      return count;
    },
  };
}
