import { foldGameListCounts } from '../db/gameLists.ts';
import { expirePendingGames, findDueCorrespondenceGames, findOrphanedGames, type GameRecord } from '../db/games.ts';
import { deleteExpiredIdempotencyKeys } from '../db/idempotency.ts';
import { findTournamentsToHost } from '../db/tournamentPlay.ts';
import { Timers } from '../services/timers.ts';
import type { Clock } from '../time.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';

export type SweeperDeps = {
  pool: Pool;
  log: Logger;
  /** "Now" for the 24 h of idempotency keys (their times come from this clock too), and the sweeps' cadence. */
  clock: Clock;
  /** Hosts an orphaned active game again (the gateway's openGame). */
  openGame: (gameId: string) => Promise<boolean>;
  /** Hosts a tournament that is due to start or lost its host (the gateway's openTournament). */
  openTournament?: (tournamentId: string) => Promise<boolean>;
  /** Starts and finishes the tournaments that need no actor (fewer than two players). */
  tendTournaments?: () => Promise<void>;
  /** Told about each pending game that expired (notifications). */
  onExpired?: (game: GameRecord) => void;
  intervalMs?: number;
};

export type Sweeper = {
  /** Sweeps now (again once the sweep under way ends): a dead node's games were just freed. */
  kick: () => void;
  /** Resolves once no sweep is under way or asked for (tests drive the sweeper on a manual clock). */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
};

const ORPHAN_BATCH = 100;
const MAX_BATCHES = 10;
/**
 * How far ahead of a correspondence deadline its game gets a room again (which stays, and flags
 * the game as the deadline passes): with a sweep a second, a deadline is never missed by more
 * than the time it takes to open the room, even right after a restart.
 */
export const CORRESPONDENCE_HORIZON_MS = 60_000;

/**
 * Every node sweeps once a second (and once at start, and when kicked), so expiries take effect
 * within 1 s of their deadline (DESIGN 2.8): pending challenges and seeks past `expires_at` are abandoned, and active games
 * nobody hosts (their node died, or released them on shutdown) get a room again, which then
 * enforces their clocks and first-move deadlines; correspondence games nobody hosts get one in
 * the minute before their move deadline. Tournaments whose `starts_at` has come get their
 * actor, which starts them (so within 1 s), and running ones nobody hosts get it again; those
 * with fewer than two players get no actor and are started and finished here instead. SKIP
 * LOCKED and the leases keep nodes apart: whichever node's sweeper looks first, one actor wins.
 * Idempotency keys past their 24 h are deleted (they already count as absent), and the deltas
 * of the kept list totals are folded into them.
 */
export function startSweeper(d: SweeperDeps): Sweeper {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const hostOrphanedGames = async () => {
    // A dead node's games come in batches; the next batch follows at once, not a second later.
    // (Bounded: a game whose room is still listed by a paused node counts as opened, and stays
    // an orphan until that listing goes.)
    for (let batch = 0; batch < MAX_BATCHES && !stopped; batch++) {
      const orphans = await findOrphanedGames(d.pool, ORPHAN_BATCH);
      await Promise.all(orphans.map((id) => d.openGame(id).catch((err) => d.log.warn({ err, gameId: id }, 'rehydration failed'))));
      if (orphans.length < ORPHAN_BATCH) break;
    }
  };
  // Correspondence games have no room while nobody is connected: the ones whose deadline comes
  // within the horizon get one, in one indexed query, however many games wait (migration 026).
  const hostDueCorrespondence = async () => {
    for (let batch = 0; batch < MAX_BATCHES && !stopped; batch++) {
      const due = await findDueCorrespondenceGames(d.pool, new Date(d.clock.now() + CORRESPONDENCE_HORIZON_MS), ORPHAN_BATCH);
      await Promise.all(due.map((id) => d.openGame(id).catch((err) => d.log.warn({ err, gameId: id }, 'could not host a correspondence game'))));
      if (due.length < ORPHAN_BATCH) break;
    }
  };
  const hostTournaments = async () => {
    const open = d.openTournament;
    if (!open) return;
    const due = await findTournamentsToHost(d.pool, new Date(d.clock.now()));
    await Promise.all([
      ...due.map((id) => open(id).catch((err) => d.log.warn({ err, tournamentId: id }, 'could not host a tournament'))),
      d.tendTournaments?.(),
    ]);
  };
  const sweep = async () => {
    try {
      for (const game of await expirePendingGames(d.pool)) d.onExpired?.(game);
      // Side by side: many orphaned games after a crash must not hold a tournament's start back.
      await Promise.all([hostOrphanedGames(), hostDueCorrespondence(), hostTournaments()]);
      await deleteExpiredIdempotencyKeys(d.pool, new Date(d.clock.now()));
      await foldGameListCounts(d.pool);
    } catch (err) {
      d.log.warn({ err }, 'sweep failed');
    }
  };
  const start = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = sweep().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        start();
      }
    });
  };
  const timers = new Timers<'sweep'>(d.clock);
  timers.every('sweep', d.intervalMs ?? 1000, start);
  start();
  return {
    kick: start,
    idle: async () => {
      while (running) await running;
    },
    stop: async () => {
      stopped = true;
      timers.clearAll();
      await running;
    },
  };
}
