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

export type FinishedGamesOptions = {
  whiteId: string;
  blackId: string;
  count: number;
  /** Plies of each game: the knights' shuffle Nf3 Nf6 Ng1 Ng8, over and over (legal, named by no opening after ply 2). */
  plies: number;
  /** When the newest ended; each older one ended `spacingMs` before the next. */
  newestEnd: Date;
  spacingMs?: number;
  timeControl?: 'bullet' | 'blitz' | 'rapid' | 'classical' | 'correspondence';
  rated?: boolean;
};

const SHUFFLE_SAN = ['Nf3', 'Nf6', 'Ng1', 'Ng8'];
const SHUFFLE_UCI = ['g1f3', 'g8f6', 'f3g1', 'f6g8'];

/**
 * `count` finished games (White won by resignation) with their moves and clocks, in two statements
 * whatever the count: for tests and load tests that need volume (exports), not realism.
 */
export async function insertFinishedGames(pool: Pool, o: FinishedGamesOptions): Promise<void> {
  const chess = new Chess();
  for (let ply = 0; ply < o.plies; ply++) chess.move(SHUFFLE_SAN[ply % 4]);
  const movetext = chess.history().map((san, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${san}` : san)).join(' ');
  const correspondence = o.timeControl === 'correspondence';
  await pool.query(
    `WITH g AS (
       INSERT INTO games (kind, created_by, white_id, black_id, status, result, winner, termination, time_control, initial_time,
                          increment, days_per_move, rated, fen, pgn, move_count, white_time_ms, black_time_ms, white_rating, black_rating,
                          white_rating_change, black_rating_change, created_at, updated_at, started_at, finished_at, last_move_at)
       SELECT 'challenge', $1, $1, $2, 'finished', '1-0', 'white', 'resignation', $3, $4, $5, $6, $7, $8, $9, $10, 60000, 60000,
              1500, 1500, CASE WHEN $7 THEN 6 ELSE 0 END, CASE WHEN $7 THEN -6 ELSE 0 END,
              e - interval '10 minutes', e, e - interval '10 minutes', e, e
         FROM (SELECT $11::timestamptz - make_interval(secs => i * $12::double precision / 1000) AS e
                 FROM generate_series(0, $13::int - 1) i) ends
       RETURNING id)
     INSERT INTO game_moves (game_id, ply, san, uci, clock_ms)
     SELECT g.id, p, ($14::text[])[1 + (p - 1) % 4], ($15::text[])[1 + (p - 1) % 4], GREATEST(0, 300000 - p * 1000)
       FROM g CROSS JOIN generate_series(1, $10::int) p`,
    [o.whiteId, o.blackId, o.timeControl ?? 'blitz', correspondence ? 0 : 300, 0, correspondence ? 3 : null, o.rated ?? true,
     chess.fen(), movetext, o.plies, o.newestEnd, o.spacingMs ?? 1000, o.count, SHUFFLE_SAN, SHUFFLE_UCI],
  );
}
