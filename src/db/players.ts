// What is known of a player beyond their profile (src/db/users.ts): the Glicko-2 state and recent
// progress of each rating, when they were last seen, the games they are playing, and whether the
// account is a bot (DESIGN 2.13). Lichess's account, user and bot reads are built from these.
import { COMPUTER_USERNAMES, levelOf } from '../domain/computer.ts';
import { foldActiveTails } from './liveTail.ts';
import { WITH_PLAYERS_COLUMNS, WITH_PLAYERS_FROM, withPlayers, type GameWithPlayers } from './gameRecords.ts';
import type { Queryable } from './pool.ts';
import type { RatingCategory } from './users.ts';

/** Rated games a rating's progress looks back over (Lichess's `prog`). */
export const PROGRESS_GAMES = 12;

/** One row of `user_ratings`: a category's Glicko-2 rating and deviation, and the rated games played in it. */
export type RatingState = {
  category: RatingCategory | 'puzzle';
  rating: number;
  deviation: number;
  games: number;
  /** The rating's change over the last PROGRESS_GAMES rated games of the category (0 for puzzles). */
  progress: number;
};

/**
 * The rating rows of `userIds`, by user (a category without a row has the defaults). A game
 * category's progress sums the rating changes of its last rated games: one ordered scan per
 * colour in the export indexes (migration 028), stopped after PROGRESS_GAMES of the category.
 */
export async function findRatingStates(db: Queryable, userIds: string[]): Promise<Map<string, RatingState[]>> {
  const side = (own: 'white' | 'black') =>
    `(SELECT g.finished_at, g.id, g.${own}_rating_change AS change FROM games g
       WHERE g.${own}_id = r.user_id AND g.status = 'finished' AND g.rated AND g.time_control = r.category
       ORDER BY g.finished_at DESC, g.id DESC LIMIT ${PROGRESS_GAMES})`;
  const { rows } = await db.query(
    `SELECT r.user_id, r.category, r.rating, r.rd, r.games,
            CASE WHEN r.category = 'puzzle' OR r.games = 0 THEN 0 ELSE
              (SELECT coalesce(sum(coalesce(t.change, 0)), 0)::int
                 FROM (SELECT change FROM (${side('white')} UNION ALL ${side('black')}) b
                        ORDER BY finished_at DESC, id DESC LIMIT ${PROGRESS_GAMES}) t)
            END AS progress
       FROM user_ratings r WHERE r.user_id = ANY($1::uuid[])`,
    [userIds],
  );
  const states = new Map<string, RatingState[]>();
  for (const r of rows) {
    const list = states.get(r.user_id) ?? [];
    list.push({ category: r.category, rating: r.rating, deviation: r.rd, games: r.games, progress: r.progress });
    states.set(r.user_id, list);
  }
  return states;
}

/** When a user was last seen (presence, src/services/presence.ts) and the games they play now. */
export type PlayerActivity = {
  lastSeenAt: Date | null;
  /** Active games, correspondence ones included. */
  activeGames: number;
  /** The live (clocked) game they play, if any: a player has one at most. */
  liveGameId: string | null;
};

const LIVE_GAME = (user: string) =>
  `(SELECT g.id FROM games g WHERE (g.white_id = ${user} OR g.black_id = ${user}) AND g.status = 'active'
      AND g.days_per_move IS NULL ORDER BY g.started_at DESC LIMIT 1)`;

export async function findPlayerActivity(db: Queryable, userId: string): Promise<PlayerActivity> {
  const { rows } = await db.query(
    `SELECT u.last_seen_at,
            (SELECT count(*)::int FROM games g WHERE (g.white_id = u.id OR g.black_id = u.id) AND g.status = 'active') AS active_games,
            ${LIVE_GAME('u.id')} AS live_game_id
       FROM users u WHERE u.id = $1`,
    [userId],
  );
  const r = rows[0];
  return { lastSeenAt: r?.last_seen_at ?? null, activeGames: r?.active_games ?? 0, liveGameId: r?.live_game_id ?? null };
}

/** A user as a status read names them. */
export type PlayerStatusRecord = { id: string; username: string; bot: boolean; lastSeenAt: Date | null; liveGameId: string | null };

/** The users of these usernames (lookup forms: lower-cased), those that exist, in no set order. */
export async function findPlayerStatuses(db: Queryable, usernameKeys: string[]): Promise<PlayerStatusRecord[]> {
  const { rows } = await db.query(
    `SELECT u.id, u.username, u.bot, u.last_seen_at, ${LIVE_GAME('u.id')} AS live_game_id
       FROM users u WHERE lower(u.username) = ANY($1::text[])`,
    [usernameKeys],
  );
  return rows.map((r) => ({ id: r.id, username: r.username, bot: r.bot, lastSeenAt: r.last_seen_at, liveGameId: r.live_game_id }));
}

/** A bot account as the list of online bots shows it. */
export type BotRecord = { id: string; username: string; fullName: string | null; country: string | null; createdAt: Date; lastSeenAt: Date };

/**
 * Bot accounts seen since `since`, the most recently seen first. Bots are few: the filter reads
 * the users table (a partial index on `bot` would serve many).
 */
export async function findBotsSeenSince(db: Queryable, since: Date, limit: number): Promise<BotRecord[]> {
  const { rows } = await db.query(
    `SELECT id, username, full_name, country, created_at, last_seen_at FROM users
      WHERE bot AND last_seen_at >= $1 ORDER BY last_seen_at DESC, id LIMIT $2`,
    [since, limit],
  );
  return rows.map((r) => ({ id: r.id, username: r.username, fullName: r.full_name, country: r.country, createdAt: r.created_at, lastSeenAt: r.last_seen_at }));
}

/** An active game of a player, as it stands (its moves after the snapshot folded in), with its last move in UCI. */
export type PlayingGame = GameWithPlayers & { lastUci: string | null };

/** The user's active games (correspondence ones included), at most `limit`, oldest first. */
export async function findActiveGamesOf(db: Queryable, userId: string, limit: number): Promise<PlayingGame[]> {
  const { rows } = await db.query(
    `SELECT ${WITH_PLAYERS_COLUMNS},
            (SELECT m.uci FROM game_moves m WHERE m.game_id = g.id ORDER BY m.ply DESC LIMIT 1) AS last_uci
       ${WITH_PLAYERS_FROM}
      WHERE (g.white_id = $1 OR g.black_id = $1) AND g.status = 'active'
      ORDER BY g.started_at, g.id LIMIT $2`,
    [userId, limit],
  );
  const lastUci = new Map(rows.map((r) => [r.id as string, (r.last_uci as string | null) ?? null]));
  const games = await foldActiveTails(db, rows.map(withPlayers));
  return games.map((g) => Object.assign(g, { lastUci: lastUci.get(g.id) ?? null }));
}

const ROW_LOCKS = { share: ' FOR SHARE', update: ' FOR NO KEY UPDATE' } as const;

/**
 * Whether the user is a bot account. `lock`: the row is locked so that an upgrade (which takes
 * it `update`) and what a bot may not do (`share`: an arena join) never both pass their checks.
 * NO KEY: the games that reference the user (their foreign keys' KEY SHARE) do not wait for it.
 */
export async function isBotAccount(db: Queryable, userId: string, lock?: keyof typeof ROW_LOCKS): Promise<boolean> {
  const { rows } = await db.query(`SELECT bot FROM users WHERE id = $1${lock ? ROW_LOCKS[lock] : ''}`, [userId]);
  return rows[0]?.bot === true;
}

/** Whether the user is one of the computer's accounts (DESIGN 2.14, migration 032). */
export async function isComputerAccount(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM users WHERE id = $1 AND bot AND username = ANY($2::text[])', [userId, COMPUTER_USERNAMES]);
  return rows.length > 0;
}

/** The computer's accounts: id → level. */
export async function findComputerAccounts(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; username: string }>('SELECT id, username FROM users WHERE bot AND username = ANY($1::text[])', [COMPUTER_USERNAMES]);
  return new Map(rows.map((r) => [r.id, levelOf(r.username)!]));
}

/** The user's active games against the computer (its cap, COMPUTER_GAMES_PER_USER). */
export async function countComputerGames(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM games g JOIN users o ON o.id = CASE WHEN g.white_id = $1 THEN g.black_id ELSE g.white_id END
      WHERE (g.white_id = $1 OR g.black_id = $1) AND g.status = 'active' AND o.bot AND o.username = ANY($2::text[])`,
    [userId, COMPUTER_USERNAMES],
  );
  return rows[0].n;
}

/** What keeps an account from becoming a bot (DESIGN 2.13): a game played, an open seek, an arena it is in. */
export type BotBlockers = { played: boolean; seeking: boolean; inArena: boolean };

export async function findBotBlockers(db: Queryable, userId: string): Promise<BotBlockers> {
  const { rows } = await db.query(
    `SELECT EXISTS (SELECT 1 FROM games WHERE (white_id = $1 OR black_id = $1) AND status IN ('active', 'finished')) AS played,
            EXISTS (SELECT 1 FROM games WHERE created_by = $1 AND kind = 'matchmaking' AND status = 'pending'
                      AND expires_at > now()) AS seeking,
            EXISTS (SELECT 1 FROM tournament_players p JOIN tournaments t ON t.id = p.tournament_id
                     WHERE p.user_id = $1 AND NOT p.withdrawn AND t.status <> 'finished') AS in_arena`,
    [userId],
  );
  return { played: rows[0].played, seeking: rows[0].seeking, inArena: rows[0].in_arena };
}

/** Makes the account a bot, for good. */
export async function markBot(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE users SET bot = true, updated_at = now() WHERE id = $1', [userId]);
}
