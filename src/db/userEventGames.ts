// What a user's Lichess event stream reads besides the games rows (DESIGN 2.13): which players are
// bot accounts (Lichess's title BOT) and the last move of each game (its `lastMove`).
import type { Queryable } from './pool.ts';

/** The bot accounts among `userIds`. */
export async function findBots(db: Queryable, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const { rows } = await db.query('SELECT id FROM users WHERE bot AND id = ANY($1::uuid[])', [userIds]);
  return new Set(rows.map((r) => r.id as string));
}

/** Each game's last move (UCI) by game id; a game without moves is absent. */
export async function findLastMoves(db: Queryable, gameIds: readonly string[]): Promise<Map<string, string>> {
  if (gameIds.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT DISTINCT ON (game_id) game_id, uci FROM game_moves WHERE game_id = ANY($1::uuid[]) ORDER BY game_id, ply DESC`,
    [gameIds],
  );
  return new Map(rows.map((r) => [r.game_id as string, r.uci as string]));
}
