import { randomBytes } from 'node:crypto';
import { Chess } from 'chess.js';
import { enqueueAnalysis } from '../../src/db/analysis.ts';
import type { Pool } from '../../src/db/pool.ts';

/**
 * Rows inserted straight into PostgreSQL, for tests of the layers below HTTP (the live game
 * actor, the writer). HTTP tests create their data through the API instead.
 */
export async function insertUser(pool: Pool, name = `u_${randomBytes(4).toString('hex')}`): Promise<string> {
  const { rows } = await pool.query(
    `INSERT INTO users (email, username, password_hash) VALUES ($1, $2, 'x') RETURNING id`,
    [`${name}@example.com`, name],
  );
  return rows[0].id;
}

export async function insertActiveGame(
  pool: Pool,
  whiteId: string,
  blackId: string,
  o: { initialTime?: number; increment?: number; rated?: boolean; firstMoveDeadline?: Date | null } = {},
): Promise<string> {
  const initial = o.initialTime ?? 300;
  const { rows } = await pool.query(
    `INSERT INTO games (kind, created_by, white_id, black_id, status, time_control, initial_time, increment, rated,
                        white_time_ms, black_time_ms, white_rating, black_rating, first_move_deadline, started_at)
     VALUES ('challenge', $1, $1, $2, 'active', 'blitz', $3, $4, $5, $6, $6, 1500, 1500, $7, now()) RETURNING id`,
    [whiteId, blackId, initial, o.increment ?? 0, o.rated ?? true, initial * 1000,
     o.firstMoveDeadline === undefined ? new Date(Date.now() + 60_000) : o.firstMoveDeadline],
  );
  return rows[0].id;
}

/**
 * Active correspondence games between `whiteId` and `blackId`, as an accepted challenge leaves
 * them (DESIGN 2.11): White's period of `daysPerMove` days started at `turnStartedAt`, no room, no
 * lease. One statement for any number of them (the load test seeds thousands). Returns their ids.
 */
export async function insertCorrespondenceGames(
  pool: Pool,
  whiteId: string,
  blackId: string,
  o: { count?: number; daysPerMove?: number; turnStartedAt?: Date; rated?: boolean } = {},
): Promise<string[]> {
  const days = o.daysPerMove ?? 3;
  const started = o.turnStartedAt ?? new Date();
  const { rows } = await pool.query(
    `INSERT INTO games (kind, created_by, white_id, black_id, status, time_control, initial_time, increment, days_per_move,
                        rated, white_time_ms, black_time_ms, white_rating, black_rating, clock_running, turn_started_at,
                        move_deadline, started_at)
     SELECT 'challenge', $1, $1, $2, 'active', 'correspondence', 0, 0, $3, $4, $3 * 86400000, $3 * 86400000, 1500, 1500,
            true, $5, $5::timestamptz + make_interval(secs => $3 * 86400), $5
       FROM generate_series(1, $6) RETURNING id`,
    [whiteId, blackId, days, o.rated ?? true, started, o.count ?? 1],
  );
  return rows.map((r) => r.id as string);
}

/** Makes the game's lease lapse now, as if its node had died long enough ago. */
export async function expireLease(pool: Pool, gameId: string): Promise<void> {
  await pool.query(`UPDATE games SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [gameId]);
}

/**
 * A game that ended after `ucis` (White resigned if nothing else ended it), between `players`
 * or two new ones, with its analysis queued as the finishing transaction queues it.
 */
export async function insertFinishedGame(
  pool: Pool,
  ucis: readonly string[],
  now = Date.now(),
  players?: { white: string; black: string },
): Promise<string> {
  const { white, black } = players ?? { white: await insertUser(pool), black: await insertUser(pool) };
  const gameId = await insertActiveGame(pool, white, black, { firstMoveDeadline: null });
  const chess = new Chess();
  for (const [i, uci] of ucis.entries()) {
    const { san } = chess.move({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] });
    await pool.query('INSERT INTO game_moves (game_id, ply, san, uci, clock_ms) VALUES ($1, $2, $3, $4, 1000)', [gameId, i + 1, san, uci]);
  }
  const mated = chess.isCheckmate();
  await pool.query(
    `UPDATE games SET status = 'finished', move_count = $2, fen = $3, result = $4, winner = $5, termination = $6, finished_at = now()
      WHERE id = $1`,
    [gameId, ucis.length, chess.fen(), ...(mated && chess.turn() === 'b' ? ['1-0', 'white', 'checkmate'] : mated ? ['0-1', 'black', 'checkmate'] : ['0-1', 'black', 'resignation'])],
  );
  await enqueueAnalysis(pool, gameId, now);
  return gameId;
}
