import type { Pool } from '../../src/db/pool.ts';
import { until } from './poll.ts';

export type HeldRow = {
  /** Resolves once a statement whose text matches `pattern` waits for this lock. */
  blocking: (pattern: RegExp) => Promise<void>;
  /** Ends the transaction: the writes waiting for the row go on. */
  release: () => Promise<void>;
};

/**
 * Holds a game's row (`SELECT … FOR UPDATE` in an open transaction, on a connection of its own),
 * as a slow or stuck transaction would: every write of that game (the move batch, a draw offer,
 * a lease renewal) waits in PostgreSQL until `release`.
 */
export async function holdGameRow(pool: Pool, gameId: string): Promise<HeldRow> {
  const client = await pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM games WHERE id = $1 FOR UPDATE', [gameId]);
  const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
  const pid: number = rows[0].pid;
  let released = false;
  return {
    blocking: (pattern) =>
      until(`a statement matching ${pattern} to wait for the held row`, async () => {
        const waiting = await pool.query('SELECT query FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
        return waiting.rows.some((r) => pattern.test(r.query));
      }, { ms: 5000, everyMs: 10 }).then(() => undefined),
    release: async () => {
      if (released) return;
      released = true;
      try {
        await client.query('ROLLBACK');
      } finally {
        client.release();
      }
    },
  };
}
