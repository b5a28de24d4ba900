// DESIGN 2.14, watching: the live games by average rating and the TV's featured game (migration 031).
import type { Queryable } from './pool.ts';

/** A live game as the watching reads show it: both players, the position after its last move. */
export type LiveGameRecord = {
  id: string;
  white: LivePlayerRecord;
  black: LivePlayerRecord;
  timeControl: string;
  initialTime: number;
  increment: number;
  rated: boolean;
  fen: string;
  /** The last move in UCI (`e2e4`, `e7e8q`), null before the first. */
  lastMove: string | null;
  moveCount: number;
  startedAt: Date | null;
};
export type LivePlayerRecord = { id: string; username: string; rating: number; bot: boolean };

/** The index's expression (migration 031): the ORDER BY must say it so, or the index is not used. */
const RATING_SUM = `(coalesce(g.white_rating, 1500) + coalesce(g.black_rating, 1500))`;
const IS_LIVE = `g.status = 'active' AND g.time_control <> 'correspondence'`;

/**
 * The game's position is the last move row's (each carries the position after it, migration 017)
 * when the row's snapshot lags behind the moves, else the snapshot's; moves written before 017
 * have no position, and their games' snapshots never lag.
 */
const LIVE_COLUMNS = `g.id, g.time_control, g.initial_time, g.increment, g.rated, g.started_at,
  g.white_id, w.username AS w_username, coalesce(g.white_rating, 1500) AS w_rating, w.bot AS w_bot,
  g.black_id, b.username AS b_username, coalesce(g.black_rating, 1500) AS b_rating, b.bot AS b_bot,
  CASE WHEN t.ply > g.move_count AND t.fen IS NOT NULL THEN t.fen ELSE g.fen END AS fen,
  t.uci AS last_move, greatest(g.move_count, coalesce(t.ply, 0)) AS move_count`;
const LIVE_FROM = `FROM games g JOIN users w ON w.id = g.white_id JOIN users b ON b.id = g.black_id
  LEFT JOIN LATERAL (SELECT m.ply, m.uci, m.fen FROM game_moves m WHERE m.game_id = g.id ORDER BY m.ply DESC LIMIT 1) t ON true`;

function toLiveGame(r: Record<string, any>): LiveGameRecord {
  return {
    id: r.id,
    white: { id: r.white_id, username: r.w_username, rating: Math.round(Number(r.w_rating)), bot: r.w_bot === true },
    black: { id: r.black_id, username: r.b_username, rating: Math.round(Number(r.b_rating)), bot: r.b_bot === true },
    timeControl: r.time_control,
    initialTime: r.initial_time,
    increment: r.increment,
    rated: r.rated,
    fen: r.fen,
    lastMove: r.last_move ?? null,
    moveCount: Number(r.move_count),
    startedAt: r.started_at ?? null,
  };
}

/**
 * The active games with a clock, the highest average rating first (ties: by id, so every node
 * and every page lists them alike): `limit` rows from the top of games_live_rating_idx, each
 * with one index probe for its last move.
 */
export async function listLiveGames(db: Queryable, limit: number): Promise<LiveGameRecord[]> {
  const { rows } = await db.query(LIVE_GAMES_SQL, [limit]);
  return rows.map(toLiveGame);
}

/** listLiveGames's statement (`$1`: the limit), for the test of its plan. */
export const LIVE_GAMES_SQL = `SELECT ${LIVE_COLUMNS} ${LIVE_FROM} WHERE ${IS_LIVE} ORDER BY ${RATING_SUM} DESC, g.id LIMIT $1`;

/** One live game as the list shows it; undefined when it is not live (ended, or no such game). */
export async function findLiveGame(db: Queryable, id: string): Promise<LiveGameRecord | undefined> {
  const { rows } = await db.query(`SELECT ${LIVE_COLUMNS} ${LIVE_FROM} WHERE g.id = $1 AND ${IS_LIVE}`, [id]);
  return rows[0] ? toLiveGame(rows[0]) : undefined;
}

/** The TV channel's game as it stands: its id (null: none yet, or no game was live) and whether it is still live. */
export async function findFeatured(db: Queryable, channel: string): Promise<{ gameId: string | null; live: boolean }> {
  const { rows } = await db.query(
    `SELECT c.game_id, (g.status = 'active' AND g.time_control <> 'correspondence') AS live
       FROM tv_channels c LEFT JOIN games g ON g.id = c.game_id WHERE c.channel = $1`,
    [channel],
  );
  return { gameId: rows[0]?.game_id ?? null, live: rows[0]?.live === true };
}

/**
 * Features `next` in place of `expected` (compare and set): false when another node changed the
 * channel first, whose choice then stands.
 */
export async function replaceFeatured(db: Queryable, channel: string, expected: string | null, next: string | null): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE tv_channels SET game_id = $3, since = now() WHERE channel = $1 AND game_id IS NOT DISTINCT FROM $2`,
    [channel, expected, next],
  );
  return rowCount === 1;
}
