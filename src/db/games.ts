import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import { foldActiveTails, foldTail, LAST_CHANGE_SQL, parseTail, TAIL_MOVE_JSON } from './liveTail.ts';
import type { Queryable } from './pool.ts';

/** A games row as plain data (times in ms, dates as Date). */
export type GameRecord = {
  id: string;
  kind: 'challenge' | 'matchmaking' | 'tournament';
  createdBy: string;
  whiteId: string | null;
  blackId: string | null;
  colorPreference: 'white' | 'black' | 'random';
  status: 'pending' | 'active' | 'finished' | 'abandoned';
  result: '1-0' | '0-1' | '1/2-1/2' | null;
  winner: 'white' | 'black' | null;
  termination: string | null;
  abortReason: string | null;
  timeControl: 'bullet' | 'blitz' | 'rapid' | 'classical';
  initialTime: number;
  increment: number;
  rated: boolean;
  fen: string;
  pgn: string;
  moveCount: number;
  whiteTimeMs: number;
  blackTimeMs: number;
  clockRunning: boolean;
  turnStartedAt: Date | null;
  firstMoveDeadline: Date | null;
  whiteRating: number | null;
  blackRating: number | null;
  whiteRatingChange: number | null;
  blackRatingChange: number | null;
  roomState: Record<string, unknown>;
  eventSeq: number;
  host: string | null;
  hostEpoch: number;
  leaseExpiresAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
  /** The last change: the later of the row's updated_at and last_move_at (migration 016). */
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  lastMoveAt: Date | null;
  /** The arena that paired the game (DESIGN 2.10), else null. */
  tournamentId: string | null;
};

export type PlayerRecord = { id: string; username: string; avatarUrl: string | null; country: string | null };
export type GameWithPlayers = GameRecord & { white: PlayerRecord | null; black: PlayerRecord | null };

export type MoveRecord = { ply: number; san: string; uci: string; clockMs: number; createdAt: Date };

export type DrawOfferRecord = {
  id: string;
  gameId: string;
  offeredBy: string;
  ply: number;
  status: 'pending' | 'accepted' | 'declined' | 'expired';
  createdAt: Date;
  expiresAt: Date;
};

const camelNames = new Map<string, string>();
/** snake_case column → camelCase field, worked out once per column name (every row of every read goes through it). */
function camel(column: string): string {
  let name = camelNames.get(column);
  if (name === undefined) camelNames.set(column, (name = column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())));
  return name;
}

export function toGameRecord(row: Record<string, unknown>): GameRecord {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[camel(k)] = v;
  const game = out as GameRecord;
  // A move writes last_move_at only, so that its update stays heap-only (migration 016).
  if (game.lastMoveAt && game.updatedAt && game.lastMoveAt > game.updatedAt) game.updatedAt = game.lastMoveAt;
  return game;
}

const PLAYER_COLUMNS = (alias: string) =>
  `${alias}.id AS ${alias}_id, ${alias}.username AS ${alias}_username, ${alias}.avatar_url AS ${alias}_avatar_url, ${alias}.country AS ${alias}_country`;

function player(row: Record<string, unknown>, alias: string): PlayerRecord | null {
  if (!row[`${alias}_id`]) return null;
  return {
    id: row[`${alias}_id`] as string,
    username: row[`${alias}_username`] as string,
    avatarUrl: row[`${alias}_avatar_url`] as string | null,
    country: row[`${alias}_country`] as string | null,
  };
}

function withPlayers(row: Record<string, unknown>): GameWithPlayers {
  const { w_id, w_username, w_avatar_url, w_country, b_id, b_username, b_avatar_url, b_country, ...game } = row;
  return { ...toGameRecord(game), white: player(row, 'w'), black: player(row, 'b') };
}

/**
 * Every column of a GameRecord, by name (the named statements cannot say `g.*`). A column added
 * to `games` must be added here too: test/db/gameColumns.test.ts fails until it is.
 */
export const GAME_COLUMN_NAMES = [
  'id', 'kind', 'created_by', 'white_id', 'black_id', 'color_preference', 'status', 'result', 'winner', 'termination',
  'abort_reason', 'time_control', 'initial_time', 'increment', 'rated', 'fen', 'pgn', 'move_count', 'white_time_ms',
  'black_time_ms', 'clock_running', 'turn_started_at', 'first_move_deadline', 'white_rating', 'black_rating',
  'white_rating_change', 'black_rating_change', 'room_state', 'event_seq', 'host', 'host_epoch', 'lease_expires_at',
  'expires_at', 'created_at', 'updated_at', 'started_at', 'finished_at', 'last_move_at', 'tournament_id',
];
/** Columns of `games` no read shows (the hosting bookkeeping of migration 006). */
export const UNREAD_GAME_COLUMNS = ['hosted_at'];
const GAME_COLUMNS = GAME_COLUMN_NAMES.map((c) => `g.${c}`).join(', ');

const WITH_PLAYERS_COLUMNS = `g.*, ${PLAYER_COLUMNS('w')}, ${PLAYER_COLUMNS('b')}`;
const WITH_PLAYERS_FROM = `FROM games g LEFT JOIN users w ON w.id = g.white_id LEFT JOIN users b ON b.id = g.black_id`;

export async function findGame(db: Queryable, id: string): Promise<GameRecord | undefined> {
  const { rows } = await db.query(
    `SELECT g.*, (SELECT json_agg(${TAIL_MOVE_JSON('m')} ORDER BY m.ply) FROM game_moves m
                   WHERE g.status = 'active' AND m.game_id = g.id AND m.ply > g.move_count) AS live_tail
       FROM games g WHERE g.id = $1`,
    [id],
  );
  if (!rows[0]) return undefined;
  const { live_tail, ...row } = rows[0];
  return foldTail(toGameRecord(row), parseTail(live_tail));
}

export type NewGame = {
  kind: GameRecord['kind'];
  createdBy: string;
  whiteId: string | null;
  blackId: string | null;
  colorPreference: GameRecord['colorPreference'];
  timeControl: GameRecord['timeControl'];
  initialTime: number;
  increment: number;
  rated: boolean;
  expiresAt: Date;
};

export async function insertPendingGame(db: Queryable, g: NewGame): Promise<GameRecord> {
  const ms = g.initialTime * 1000;
  const { rows } = await db.query(
    `INSERT INTO games (kind, created_by, white_id, black_id, color_preference, status, time_control,
       initial_time, increment, rated, white_time_ms, black_time_ms, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9, $10, $10, $11) RETURNING *`,
    [g.kind, g.createdBy, g.whiteId, g.blackId, g.colorPreference, g.timeControl, g.initialTime, g.increment, g.rated, ms, g.expiresAt],
  );
  return toGameRecord(rows[0]);
}

/** True when the user plays an active game (or, with `includePending`, waits in one). */
export async function userHasOpenGame(db: Queryable, userId: string, includePending = false): Promise<boolean> {
  const statuses = includePending ? ['active', 'pending'] : ['active'];
  const { rows } = await db.query(
    `SELECT 1 FROM games WHERE (white_id = $1 OR black_id = $1) AND status = ANY($2::text[]) LIMIT 1`,
    [userId, statuses],
  );
  return rows.length > 0;
}

/** pending → active, seating both players with their ratings at game start. */
export async function activateGame(
  db: Queryable,
  id: string,
  a: { whiteId: string; blackId: string; whiteRating: number; blackRating: number; firstMoveDeadline: Date },
): Promise<GameRecord | undefined> {
  const { rows } = await db.query(
    `UPDATE games SET status = 'active', white_id = $2, black_id = $3, white_rating = $4, black_rating = $5,
       first_move_deadline = $6, started_at = now(), updated_at = now(), expires_at = NULL
     WHERE id = $1 AND status = 'pending' RETURNING *`,
    [id, a.whiteId, a.blackId, a.whiteRating, a.blackRating, a.firstMoveDeadline],
  );
  return rows[0] ? toGameRecord(rows[0]) : undefined;
}

/** pending → abandoned (expired, declined, cancelled). */
export async function abandonPendingGame(db: Queryable, id: string, reason: string): Promise<GameRecord | undefined> {
  const { rows } = await db.query(
    `UPDATE games SET status = 'abandoned', abort_reason = $2, updated_at = now(), finished_at = now()
     WHERE id = $1 AND status = 'pending' RETURNING *`,
    [id, reason],
  );
  return rows[0] ? toGameRecord(rows[0]) : undefined;
}

/** Pending games past their deadline, abandoned as expired; returns them. */
export async function expirePendingGames(db: Queryable, limit = 100): Promise<GameRecord[]> {
  const { rows } = await db.query(
    `UPDATE games SET status = 'abandoned', abort_reason = 'expired', updated_at = now(), finished_at = now()
     WHERE id IN (SELECT id FROM games WHERE status = 'pending' AND expires_at <= now()
                  ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [limit],
  );
  return rows.map(toGameRecord);
}

/** Active games whose room lease has lapsed (their node died or released them). */
export async function findOrphanedGames(db: Queryable, limit = 100): Promise<string[]> {
  const { rows } = await db.query(
    // A game activated a moment ago is being opened by the request that activated it.
    `SELECT id FROM games WHERE status = 'active' AND (lease_expires_at IS NULL OR lease_expires_at < now())
       AND updated_at < now() - interval '2 seconds'
     ORDER BY lease_expires_at NULLS FIRST LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.id as string);
}

/** The game's moves from ply `fromPly` on (all of them by default), in order. */
export async function listMoves(db: Queryable, gameId: string, fromPly = 1): Promise<MoveRecord[]> {
  const { rows } = await db.query(
    'SELECT ply, san, uci, clock_ms, created_at FROM game_moves WHERE game_id = $1 AND ply >= $2 ORDER BY ply',
    [gameId, fromPly],
  );
  return rows.map((r) => ({ ply: r.ply, san: r.san, uci: r.uci, clockMs: r.clock_ms, createdAt: r.created_at }));
}

// ---- REST reads and the challenge lifecycle ------------------------------------------------

export type GameDetailRecord = { game: GameWithPlayers; moves: MoveRecord[]; drawOffer: DrawOfferRecord | undefined };

/**
 * What the detail view shows, in one round trip: the game with its players, its moves (as one
 * JSON array) and its open draw offer (one past its deadline is lapsing: the room closes it
 * within a second, so it is not shown).
 */
export async function findGameDetail(db: Queryable, id: string): Promise<GameDetailRecord | undefined> {
  // A named statement (parsed and planned once per connection; the plan is the same for every
  // id): planning was two thirds of this read's work in PostgreSQL. Its columns are named, not
  // `g.*`, so a column another node's migration adds cannot change the prepared result type.
  const { rows } = await db.query({
    name: 'find-game-detail',
    text: `SELECT ${GAME_COLUMNS}, ${PLAYER_COLUMNS('w')}, ${PLAYER_COLUMNS('b')},
            (SELECT json_agg(json_build_array(m.ply, m.san, m.uci, m.clock_ms, m.created_at) ORDER BY m.ply)
               FROM game_moves m WHERE m.game_id = g.id) AS detail_moves,
            (SELECT json_agg(${TAIL_MOVE_JSON('m')} ORDER BY m.ply) FROM game_moves m
              WHERE g.status = 'active' AND m.game_id = g.id AND m.ply > g.move_count) AS live_tail,
            d.id AS offer_id, d.offered_by AS offer_offered_by, d.ply AS offer_ply, d.status AS offer_status,
            d.created_at AS offer_created_at, d.expires_at AS offer_expires_at
       FROM games g LEFT JOIN users w ON w.id = g.white_id LEFT JOIN users b ON b.id = g.black_id
       LEFT JOIN draw_offers d ON d.game_id = g.id AND d.status = 'pending' AND d.expires_at > now()
      WHERE g.id = $1`,
    values: [id],
  });
  const row = rows[0];
  if (!row) return undefined;
  const { detail_moves, live_tail, offer_id, offer_offered_by, offer_ply, offer_status, offer_created_at, offer_expires_at, ...game } = row;
  const moves = ((detail_moves ?? []) as [number, string, string, number, string][]).map(([ply, san, uci, clockMs, createdAt]) => ({
    ply,
    san,
    uci,
    clockMs,
    createdAt: new Date(createdAt),
  }));
  const drawOffer: DrawOfferRecord | undefined = offer_id
    ? { id: offer_id, gameId: id, offeredBy: offer_offered_by, ply: offer_ply, status: offer_status, createdAt: offer_created_at, expiresAt: offer_expires_at }
    : undefined;
  return { game: foldTail(withPlayers(game), parseTail(live_tail)), moves, drawOffer };
}

/** Current rating of each user in a category, rounded; a user without a row has the default (1500). */
export async function findCategoryRatings(db: Queryable, userIds: string[], category: string): Promise<Map<string, number>> {
  const { rows } = await db.query(
    'SELECT user_id, rating FROM user_ratings WHERE user_id = ANY($1::uuid[]) AND category = $2',
    [userIds, category],
  );
  const ratings = new Map<string, number>(userIds.map((id) => [id, DEFAULT_GLICKO.rating]));
  for (const r of rows) ratings.set(r.user_id as string, Math.round(r.rating as number));
  return ratings;
}

// Two-key advisory locks (class, key) live apart from the one-key locks (migrations).
const PLAYER_LOCK_CLASS = 7270;

/**
 * Serialises "is this player free? then seat them" across transactions and processes: takes a
 * transaction-scoped lock per player, in a fixed order so two callers cannot deadlock. Whoever
 * seats players in an active game (accept, pairing) takes these locks first, before any row lock.
 */
export async function lockPlayers(tx: Queryable, userIds: string[]): Promise<void> {
  // One statement; the sorted subquery makes the locks be taken in that order.
  await tx.query(
    `SELECT pg_advisory_xact_lock($1, hashtext(id)) FROM (SELECT DISTINCT unnest($2::text[]) AS id ORDER BY 1) ids`,
    [PLAYER_LOCK_CLASS, userIds],
  );
}

/** Who of `userIds` plays an active game: one query for a pairing's both players. */
export async function playersInActiveGames(db: Queryable, userIds: string[]): Promise<Set<string>> {
  const { rows } = await db.query(
    `SELECT u.id FROM unnest($1::uuid[]) AS u(id)
      WHERE EXISTS (SELECT 1 FROM games g WHERE (g.white_id = u.id OR g.black_id = u.id) AND g.status = 'active')`,
    [userIds],
  );
  return new Set(rows.map((r) => r.id as string));
}

export async function lockGame(tx: Queryable, id: string): Promise<GameRecord | undefined> {
  const { rows } = await tx.query('SELECT * FROM games WHERE id = $1 FOR UPDATE', [id]);
  return rows[0] ? toGameRecord(rows[0]) : undefined;
}

import { LIST_STATUSES } from '../domain/game.ts';
export const LIST_SORT_FIELDS = ['created_at', 'updated_at'] as const;

export type GameListFilter = {
  /** Who asks: status `pending` lists only the viewer's own pending games. */
  viewerId: string;
  status?: (typeof LIST_STATUSES)[number];
  playerId?: string;
  timeControl?: GameRecord['timeControl'];
  result?: NonNullable<GameRecord['result']>;
  tournamentId?: string;
  /** Username substring of either player, case-insensitive, taken literally. */
  search?: string;
};

export type GameListOrder = { field: (typeof LIST_SORT_FIELDS)[number]; direction: 'asc' | 'desc' };

/** `%`, `_` and the escape character itself match literally. */
export const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

function listWhere(f: GameListFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const where: string[] = [];
  if (f.status === 'pending') {
    // Only the viewer's own, and not past the deadline the sweeper is about to act on. Every
    // pending game seats its creator (a challenge both players, a seek its seeker), so being
    // seated covers sent and received challenges and one's own seeks.
    const viewer = p(f.viewerId);
    where.push(`g.status = 'pending'`, `g.expires_at > now()`, `(g.white_id = ${viewer} OR g.black_id = ${viewer})`);
  } else {
    // Any other listing leaves pending games out; every list index is partial on this predicate.
    where.push(`g.status <> 'pending'`);
    if (f.status) where.push(`g.status = ${p(f.status)}`);
  }
  if (f.playerId) {
    const id = p(f.playerId);
    where.push(`(g.white_id = ${id} OR g.black_id = ${id})`);
  }
  if (f.timeControl) where.push(`g.time_control = ${p(f.timeControl)}`);
  if (f.result) where.push(`g.result = ${p(f.result)}`);
  if (f.tournamentId) where.push(`g.tournament_id = ${p(f.tournamentId)}`);
  if (f.search) {
    // Matching users first (few, and indexed by trigram when pg_trgm exists), then their games.
    const pattern = p(likeContains(f.search));
    where.push(
      `(g.white_id IN (SELECT id FROM users WHERE username ILIKE ${pattern})
        OR g.black_id IN (SELECT id FROM users WHERE username ILIKE ${pattern}))`,
    );
  }
  return { sql: where.join(' AND '), params };
}

/**
 * One page of games with their players, and the number of games matching: pending ones only
 * when asked for (the viewer's own), else every other status.
 * The count runs on `games` alone; it is skipped when the page itself tells the total.
 */
export async function listGames(
  db: Queryable,
  filter: GameListFilter,
  order: GameListOrder,
  page: { limit: number; offset: number },
): Promise<{ games: GameWithPlayers[]; total: number }> {
  const where = listWhere(filter);
  const n = where.params.length;
  const params = [...where.params, page.limit, page.offset];
  // A kept total costs less than a round trip: it comes with the page, on every row.
  const kept = hasKeptTotal(filter) ? `, (${keptTotal(filter, params)}) AS list_total` : '';
  const { pageSql, orderBy } = pageQuery(filter, where.sql, order, `$${n + 1}`, `$${n + 2}`);
  const { rows } = await db.query(
    `WITH page AS MATERIALIZED (${pageSql})
     SELECT ${WITH_PLAYERS_COLUMNS}${kept} ${WITH_PLAYERS_FROM} WHERE g.id IN (SELECT id FROM page) ${orderBy}`,
    params,
  );
  const listTotal = rows[0]?.list_total as number | undefined;
  const games = await foldActiveTails(db, rows.map(({ list_total: _total, ...row }) => withPlayers(row)));
  if (games.length > 0 && games.length < page.limit) return { games, total: page.offset + games.length };
  if (games.length === 0 && page.offset === 0) return { games, total: 0 };
  return { games, total: listTotal ?? (await countGames(db, filter, where)) };
}

/**
 * The statement choosing a list's page (ids only) and the order of the page's rows. The page is
 * chosen in the list indexes, which hold every filtered column (migration 015): rows skipped by a
 * filter or an offset are never read from the table, only the page's own.
 */
function pageQuery(
  filter: GameListFilter,
  where: string,
  order: GameListOrder,
  limit: string,
  offset: string,
): { pageSql: string; orderBy: string } {
  const dir = order.direction === 'asc' ? 'ASC' : 'DESC';
  // The tie-breaker runs opposite to the time column, matching the (time DESC, id) indexes
  // whichever way they are scanned.
  const tie = order.direction === 'asc' ? 'DESC' : 'ASC';
  const orderBy = `ORDER BY g.${order.field} ${dir}, g.id ${tie}`;
  if (order.field === 'created_at' || (filter.status !== undefined && filter.status !== 'active')) {
    return { pageSql: `SELECT g.id FROM games g WHERE ${where} ${orderBy} LIMIT ${limit} OFFSET ${offset}`, orderBy };
  }
  // An active game's last change is its last move, which the row's updated_at does not follow
  // (migrations 016 and 017: a move writes last_move_at, or only its own row): the active games
  // (a few thousand at most) are ordered by the latest of these, the others in the index, and the
  // page is taken from both.
  const changed = LAST_CHANGE_SQL;
  const upTo = `LIMIT ${limit}::int + ${offset}::int`;
  const active = `SELECT g.id, ${changed} AS t FROM games g WHERE ${where} AND g.status = 'active' ORDER BY t ${dir}, g.id ${tie}`;
  const others = `SELECT g.id, g.updated_at AS t FROM games g WHERE ${where} AND g.status <> 'active'
                   ORDER BY g.updated_at ${dir}, g.id ${tie} ${upTo}`;
  const both = filter.status === 'active' ? active : `(${active} ${upTo}) UNION ALL (${others})`;
  return {
    pageSql: `SELECT id FROM (${both}) listed ORDER BY t ${dir}, id ${tie} LIMIT ${limit} OFFSET ${offset}`,
    orderBy: `ORDER BY ${changed} ${dir}, g.id ${tie}`,
  };
}

/**
 * A list without a player, a search or a tournament (nor the viewer's pending games) has its
 * total kept (migration 015); a tournament's games are counted in their own index.
 */
const hasKeptTotal = (f: GameListFilter) => f.status !== 'pending' && !f.playerId && !f.search && !f.tournamentId;

/** The kept total of such a list: a sum of a few rows; its parameters are appended to `params`. */
function keptTotal(filter: GameListFilter, params: unknown[]): string {
  const p = (value: unknown) => `$${params.push(value)}`;
  const conditions = [
    ...(filter.status ? [`status = ${p(filter.status)}`] : []),
    ...(filter.timeControl ? [`time_control = ${p(filter.timeControl)}`] : []),
    ...(filter.result ? [`result = ${p(filter.result)}`] : []),
  ];
  const w = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  return `SELECT COALESCE(sum(n), 0)::bigint FROM (SELECT n FROM game_list_counts ${w} UNION ALL SELECT n FROM game_list_count_deltas ${w}) counted`;
}

/**
 * How many games a list matches. Without a player or a search, the kept totals answer (a sum of
 * a few rows, migration 015); with one, the games of the player (or of the players the search
 * matches) are counted in two covering indexes; the viewer's pending games are counted as they are.
 */
async function countGames(db: Queryable, filter: GameListFilter, where: { sql: string; params: unknown[] }): Promise<number> {
  if (hasKeptTotal(filter)) {
    const params: unknown[] = [];
    const { rows } = await db.query(`SELECT (${keptTotal(filter, params)}) AS total`, params);
    return rows[0].total as number;
  }
  if (filter.status === 'pending' || (filter.tournamentId && !filter.playerId && !filter.search)) {
    // The viewer's own pending games: a handful; a tournament's games: in games_tournament_idx.
    const count = await db.query(`SELECT count(*) AS total FROM games g WHERE ${where.sql}`, where.params);
    return count.rows[0].total as number;
  }
  // The players' games: those they play White, then those they play Black against someone else
  // (a game between two of them counts once), each half in its covering index (games_white_idx,
  // games_black_idx, migration 015) alone; the players are looked up once.
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const players = filter.playerId
    ? `SELECT ${p(filter.playerId)}::uuid AS id`
    : `SELECT id FROM users WHERE username ILIKE ${p(likeContains(filter.search!))}`;
  const others = [
    `g.status <> 'pending'`,
    ...(filter.status ? [`g.status = ${p(filter.status)}`] : []),
    ...(filter.timeControl ? [`g.time_control = ${p(filter.timeControl)}`] : []),
    ...(filter.result ? [`g.result = ${p(filter.result)}`] : []),
    ...(filter.tournamentId ? [`g.tournament_id = ${p(filter.tournamentId)}`] : []),
    // A player and a search together: the player's games against a matching opponent, or all of
    // them when the player matches the search.
    ...(filter.playerId && filter.search
      ? [`(g.white_id IN (SELECT id FROM users WHERE username ILIKE ${p(likeContains(filter.search))})
           OR g.black_id IN (SELECT id FROM users WHERE username ILIKE $${params.length}))`]
      : []),
  ].join(' AND ');
  const { rows } = await db.query(
    `WITH players AS MATERIALIZED (${players})
     SELECT (SELECT count(*) FROM games g WHERE g.white_id IN (SELECT id FROM players) AND ${others})
          + (SELECT count(*) FROM games g WHERE g.black_id IN (SELECT id FROM players)
               AND g.white_id NOT IN (SELECT id FROM players) AND ${others}) AS total`,
    params,
  );
  return rows[0].total as number;
}

/** Folds the deltas of the kept list totals into them (the sweeper, every node, every second). */
export async function foldGameListCounts(db: Queryable): Promise<void> {
  // Concurrent folds on two nodes each take the deltas the other has not deleted: none twice.
  await db.query(
    `WITH moved AS (DELETE FROM game_list_count_deltas RETURNING status, time_control, result, n)
     INSERT INTO game_list_counts (status, time_control, result, n)
     SELECT status, time_control, result, sum(n) FROM moved GROUP BY 1, 2, 3
     ON CONFLICT (status, time_control, result) DO UPDATE SET n = game_list_counts.n + excluded.n`,
  );
}

export type PendingChallenge = {
  id: string;
  from: { id: string; username: string };
  to: { id: string; username: string };
  timeControl: string;
  initialTime: number;
  increment: number;
  rated: boolean;
  colorPreference: string;
  expiresAt: Date;
};

/** A user's pending challenges, sent and received, oldest first. */
export async function listPendingChallenges(db: Queryable, userId: string): Promise<PendingChallenge[]> {
  const { rows } = await db.query(
    `SELECT g.id, g.created_by, f.username AS from_username, o.id AS to_id, o.username AS to_username,
            g.time_control, g.initial_time, g.increment, g.rated, g.color_preference, g.expires_at
       FROM games g
       JOIN users f ON f.id = g.created_by
       JOIN users o ON o.id = CASE WHEN g.white_id = g.created_by THEN g.black_id ELSE g.white_id END
      WHERE (g.white_id = $1 OR g.black_id = $1)
        AND g.kind = 'challenge' AND g.status = 'pending' AND g.expires_at > now()
      ORDER BY g.created_at
      LIMIT 100`,
    [userId],
  );
  return rows.map((r) => ({
    id: r.id,
    from: { id: r.created_by, username: r.from_username },
    to: { id: r.to_id, username: r.to_username },
    timeControl: r.time_control,
    initialTime: r.initial_time,
    increment: r.increment,
    rated: r.rated,
    colorPreference: r.color_preference,
    expiresAt: r.expires_at,
  }));
}
