import type { AppContext } from '../context.ts';
import { markGone, markSeen } from '../db/friends.ts';
import type { TimerHandle } from '../time.ts';

/** DESIGN 2.10: online = a live socket, or an authenticated request within this long. */
export const ONLINE_WINDOW_MS = 5 * 60_000;
/** A user's `last_seen_at` is written at most this often per process. */
const WRITE_EVERY_MS = 60_000;

export type Presence = {
  /** The user made an authenticated request or opened an authenticated socket. */
  seen: (userId: string) => void;
  /** The user has a live socket on this node until the returned function is called. */
  hold: (userId: string) => () => void;
  /** Writes now that every user holding a socket here is still there (the timer does it every minute). */
  flush: () => Promise<void>;
  isOnline: (lastSeenAt: Date | null) => boolean;
  stop: () => void;
};

/**
 * Who is online, for friend lists, across nodes: `users.last_seen_at`, written (at most once a
 * minute per user and process) when a user authenticates, and every minute for each user with a
 * live socket on this node, so a socket keeps its user online however long it stays quiet.
 * When a user's last socket on this node closes (a closed tab), they are written offline at once
 * rather than five minutes after their last request (docs/decisions.md); a socket they still
 * hold on another node writes them online again within the minute.
 */
export function createPresence(ctx: Pick<AppContext, 'pool' | 'clock' | 'log'>): Presence {
  const { pool, clock, log } = ctx;
  const written = new Map<string, number>();
  const holding = new Map<string, number>();
  let timer: TimerHandle | undefined;
  let stopped = false;

  const write = (ids: string[], now: number) =>
    markSeen(pool, ids, new Date(now)).catch((err) => log.warn({ err }, 'presence write failed'));

  function seen(userId: string): void {
    const now = clock.now();
    if (now - (written.get(userId) ?? -Infinity) < WRITE_EVERY_MS) return;
    written.set(userId, now);
    void write([userId], now);
  }

  async function flush(): Promise<void> {
    const now = clock.now();
    // Drop entries that no longer spare a write: the map holds the last minute's users only.
    for (const [id, at] of written) if (now - at >= WRITE_EVERY_MS) written.delete(id);
    const ids = [...holding.keys()];
    for (const id of ids) written.set(id, now);
    await write(ids, now);
  }

  const tick = () => {
    if (stopped) return;
    void flush().finally(() => {
      if (!stopped) timer = clock.setTimeout(tick, WRITE_EVERY_MS);
    });
  };
  timer = clock.setTimeout(tick, WRITE_EVERY_MS);

  return {
    seen,
    hold(userId) {
      const n = holding.get(userId) ?? 0;
      holding.set(userId, n + 1);
      // A user's first socket here is written at once, even within the minute of a request's
      // write, which may have been skipped (the row was held: markSeen): the bots online and the
      // statuses read a stream just opened (DESIGN 2.13).
      if (n === 0) written.delete(userId);
      seen(userId);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (holding.get(userId) ?? 1) - 1;
        if (n > 0) return void holding.set(userId, n);
        holding.delete(userId);
        if (stopped) return;
        // The next sign of life (a reload's new socket, a request) is written at once.
        written.delete(userId);
        const now = clock.now();
        void markGone(pool, userId, new Date(now - ONLINE_WINDOW_MS), new Date(now)).catch((err) => log.warn({ err }, 'presence write failed'));
      };
    },
    flush,
    isOnline: (lastSeenAt) => lastSeenAt !== null && clock.now() - lastSeenAt.getTime() < ONLINE_WINDOW_MS,
    stop() {
      stopped = true;
      clock.clearTimeout(timer);
    },
  };
}
