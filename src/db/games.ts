import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import { DAY_MS } from '../domain/timeControl.ts';
import { PLAYER_COLUMNS, toGameRecord, withPlayers, type DrawOfferRecord, type GameRecord, type GameWithPlayers, type MoveRecord, type RematchRecord } from './gameRecords.ts';
import { foldTail, parseTail, TAIL_MOVE_JSON } from './liveTail.ts';
import type { Queryable } from './pool.ts';

export { toGameRecord };
export type { DrawOfferRecord, RematchRecord, GameRecord, GameWithPlayers, MoveRecord, PlayerRecord } from './gameRecords.ts';

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
  'rematch_of', 'days_per_move', 'move_deadline',
];
/** Columns of `games` no read shows (the hosting bookkeeping of migration 006). */
export const UNREAD_GAME_COLUMNS = ['hosted_at'];
export const GAME_COLUMNS = GAME_COLUMN_NAMES.map((c) => `g.${c}`).join(', ');


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
  /** Correspondence games only (else null): the period of each move. */
  daysPerMove: number | null;
  expiresAt: Date;
  /** A rematch: the finished game it follows (DESIGN 2.11); at most one game per finished game. */
  rematchOf?: string;
};

export async function insertPendingGame(db: Queryable, g: NewGame): Promise<GameRecord> {
  // A correspondence player has the whole period for each move, the first one included.
  const ms = g.daysPerMove === null ? g.initialTime * 1000 : g.daysPerMove * DAY_MS;
  const { rows } = await db.query(
    `INSERT INTO games (kind, created_by, white_id, black_id, color_preference, status, time_control,
       initial_time, increment, rated, white_time_ms, black_time_ms, expires_at, rematch_of, days_per_move)
     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9, $10, $10, $11, $12, $13) RETURNING *`,
    [g.kind, g.createdBy, g.whiteId, g.blackId, g.colorPreference, g.timeControl, g.initialTime, g.increment, g.rated, ms, g.expiresAt,
     g.rematchOf ?? null, g.daysPerMove],
  );
  return toGameRecord(rows[0]);
}

/** The rematch asked for after the finished game `gameId`, if any (DESIGN 2.11). */
export async function findRematchOf(db: Queryable, gameId: string): Promise<GameRecord | undefined> {
  const { rows } = await db.query('SELECT * FROM games WHERE rematch_of = $1', [gameId]);
  return rows[0] ? toGameRecord(rows[0]) : undefined;
}

/**
 * True when the user plays an active game (or, with `includePending`, waits in one). Correspondence
 * games do not count: a player has many at once, and plays live games between their moves.
 */
export async function userHasOpenGame(db: Queryable, userId: string, includePending = false): Promise<boolean> {
  const statuses = includePending ? ['active', 'pending'] : ['active'];
  const { rows } = await db.query(
    `SELECT 1 FROM games WHERE (white_id = $1 OR black_id = $1) AND status = ANY($2::text[]) AND days_per_move IS NULL LIMIT 1`,
    [userId, statuses],
  );
  return rows.length > 0;
}

/**
 * pending → active, seating both players with their ratings at game start. A clocked game gets its
 * first-move deadline; a correspondence game's clock runs from `now` (service clock): White's
 * period starts, and its deadline is stored for the sweeper (migration 026).
 */
export async function activateGame(
  db: Queryable,
  id: string,
  a: { whiteId: string; blackId: string; whiteRating: number; blackRating: number; firstMoveDeadline: Date; now: Date },
): Promise<GameRecord | undefined> {
  const { rows } = await db.query(
    `UPDATE games SET status = 'active', white_id = $2, black_id = $3, white_rating = $4, black_rating = $5,
       first_move_deadline = CASE WHEN days_per_move IS NULL THEN $6::timestamptz END,
       clock_running = days_per_move IS NOT NULL,
       turn_started_at = CASE WHEN days_per_move IS NOT NULL THEN $7::timestamptz END,
       move_deadline = $7::timestamptz + make_interval(secs => days_per_move * 86400),
       started_at = now(), updated_at = now(), expires_at = NULL
     WHERE id = $1 AND status = 'pending' RETURNING *`,
    [id, a.whiteId, a.blackId, a.whiteRating, a.blackRating, a.firstMoveDeadline, a.now],
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
    // A correspondence game has no room while nobody is connected: its deadline brings it back
    // (findDueCorrespondenceGames), not its lease.
    `SELECT id FROM games WHERE status = 'active' AND (lease_expires_at IS NULL OR lease_expires_at < now())
       AND updated_at < now() - interval '2 seconds' AND days_per_move IS NULL
     ORDER BY lease_expires_at NULLS FIRST LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.id as string);
}

/**
 * Correspondence games nobody hosts whose move deadline falls before `horizon` (service clock):
 * the sweeper gives them a room, which flags them when the deadline passes. One range scan of the
 * partial index games_move_deadline_idx (migration 026), however many games wait.
 */
export async function findDueCorrespondenceGames(db: Queryable, horizon: Date, limit = 100): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT id FROM games
      WHERE status = 'active' AND move_deadline IS NOT NULL AND move_deadline <= $1
        AND (lease_expires_at IS NULL OR lease_expires_at < now())
      ORDER BY move_deadline LIMIT $2`,
    [horizon, limit],
  );
  return rows.map((r) => r.id as string);
}

/** The game's moves from ply `fromPly` on (all of them by default), in order. */
export async function listMoves(db: Queryable, gameId: string, fromPly = 1): Promise<MoveRecord[]> {
  const { rows } = await db.query(
    'SELECT ply, san, uci, clock_ms, created_at, event_seq FROM game_moves WHERE game_id = $1 AND ply >= $2 ORDER BY ply',
    [gameId, fromPly],
  );
  return rows.map((r) => ({ ply: r.ply, san: r.san, uci: r.uci, clockMs: r.clock_ms, createdAt: r.created_at, eventSeq: r.event_seq }));
}

// ---- REST reads and the challenge lifecycle ------------------------------------------------

export type GameDetailRecord = { game: GameWithPlayers; moves: MoveRecord[]; drawOffer: DrawOfferRecord | undefined; rematch: RematchRecord | undefined };

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
            d.created_at AS offer_created_at, d.expires_at AS offer_expires_at,
            (SELECT json_build_array(r.id, r.created_by, r.status, r.abort_reason, r.expires_at) FROM games r
              WHERE g.status = 'finished' AND r.rematch_of = g.id) AS detail_rematch
       FROM games g LEFT JOIN users w ON w.id = g.white_id LEFT JOIN users b ON b.id = g.black_id
       LEFT JOIN draw_offers d ON d.game_id = g.id AND d.status = 'pending' AND d.expires_at > now()
      WHERE g.id = $1`,
    values: [id],
  });
  const row = rows[0];
  if (!row) return undefined;
  const { detail_moves, live_tail, detail_rematch, offer_id, offer_offered_by, offer_ply, offer_status, offer_created_at, offer_expires_at, ...game } = row;
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
  return { game: foldTail(withPlayers(game), parseTail(live_tail)), moves, drawOffer, rematch: parseRematch(detail_rematch) };
}

export function parseRematch(json: unknown): RematchRecord | undefined {
  if (!json) return undefined;
  const [gameId, offeredBy, status, abortReason, expiresAt] = json as [string, string, RematchRecord['status'], string | null, string | null];
  return { gameId, offeredBy, status, abortReason, expiresAt: expiresAt === null ? null : new Date(expiresAt) };
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
      WHERE EXISTS (SELECT 1 FROM games g WHERE (g.white_id = u.id OR g.black_id = u.id) AND g.status = 'active'
                      AND g.days_per_move IS NULL)`,
    [userIds],
  );
  return new Set(rows.map((r) => r.id as string));
}

export async function lockGame(tx: Queryable, id: string): Promise<GameRecord | undefined> {
  const { rows } = await tx.query('SELECT * FROM games WHERE id = $1 FOR UPDATE', [id]);
  return rows[0] ? toGameRecord(rows[0]) : undefined;
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
