import { expirePendingGames, findOrphanedGames, foldGameListCounts, type GameRecord } from '../db/games.ts';
import { deleteExpiredIdempotencyKeys } from '../db/idempotency.ts';
import type { Clock } from '../time.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';

export type SweeperDeps = {
  pool: Pool;
  log: Logger;
  /** "Now" for the 24 h of idempotency keys (their times come from this clock too). */
  clock: Clock;
  /** Hosts an orphaned active game again (the gateway's openGame). */
  openGame: (gameId: string) => Promise<boolean>;
  /** Told about each pending game that expired (notifications). */
  onExpired?: (game: GameRecord) => void;
  intervalMs?: number;
};

/**
 * Every node sweeps once a second, so expiries take effect within 1 s of their deadline
 * (DESIGN 2.8): pending challenges and seeks past `expires_at` are abandoned, and active games
 * nobody hosts (their node died, or released them on shutdown) get a room again, which then
 * enforces their clocks and first-move deadlines. SKIP LOCKED and the lease keep nodes apart.
 * Idempotency keys past their 24 h are deleted (they already count as absent), and the deltas
 * of the kept list totals are folded into them.
 */
export function startSweeper(d: SweeperDeps): () => Promise<void> {
  let running: Promise<void> | undefined;
  const sweep = async () => {
    try {
      for (const game of await expirePendingGames(d.pool)) d.onExpired?.(game);
      const orphans = await findOrphanedGames(d.pool);
      await Promise.all(orphans.map((id) => d.openGame(id).catch((err) => d.log.warn({ err, gameId: id }, 'rehydration failed'))));
      await deleteExpiredIdempotencyKeys(d.pool, new Date(d.clock.now()));
      await foldGameListCounts(d.pool);
    } catch (err) {
      d.log.warn({ err }, 'sweep failed');
    }
  };
  const timer = setInterval(() => {
    running ??= sweep().finally(() => (running = undefined));
  }, d.intervalMs ?? 1000);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
