import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { Glicko } from '../domain/glicko2.ts';
import type { PuzzleData } from '../domain/puzzles.ts';
import type { PoolClient, Queryable } from './pool.ts';

/** A stored puzzle: the imported data with its live Glicko-2 rating and plays. */
export type PuzzleRecord = Omit<PuzzleData, 'rating' | 'ratingDeviation'> & { rating: number; ratingDeviation: number; volatility: number };

const PUZZLE_COLUMNS = `p.id, p.fen, p.last_move, p.solution, p.rating, p.rating_deviation, p.volatility, p.popularity,
  p.imported_plays + p.plays_here AS plays, p.themes, p.opening_tags, p.game_url`;

const toPuzzle = (r: any): PuzzleRecord => ({
  id: r.id,
  fen: r.fen,
  lastMove: r.last_move,
  solution: r.solution,
  rating: r.rating,
  ratingDeviation: r.rating_deviation,
  volatility: r.volatility,
  popularity: r.popularity,
  plays: r.plays,
  themes: r.themes,
  openingTags: r.opening_tags,
  gameUrl: r.game_url,
});

export async function findPuzzle(db: Queryable, id: string): Promise<PuzzleRecord | undefined> {
  const { rows } = await db.query(`SELECT ${PUZZLE_COLUMNS} FROM puzzles p WHERE p.id = $1`, [id]);
  return rows[0] && toPuzzle(rows[0]);
}

export type PuzzleFilter = { theme?: string; minRating?: number; maxRating?: number };
export type PuzzleOrder = { field: 'rating' | 'popularity'; direction: 'asc' | 'desc' };

/** The filter as SQL. Ratings are shown rounded, so a bound includes every rating that rounds onto it. */
function puzzleWhere(f: PuzzleFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const where: string[] = ['true'];
  if (f.theme !== undefined) where.push(`p.themes @> ARRAY[${p(f.theme)}::text]`);
  if (f.minRating !== undefined) where.push(`p.rating >= ${p(f.minRating - 0.5)}`);
  if (f.maxRating !== undefined) where.push(`p.rating < ${p(f.maxRating + 0.5)}`);
  return { sql: where.join(' AND '), params };
}

export async function listPuzzles(db: Queryable, filter: PuzzleFilter, order: PuzzleOrder, page: { limit: number; offset: number }): Promise<PuzzleRecord[]> {
  const dir = order.direction === 'asc' ? 'ASC' : 'DESC';
  // The id settles ties, in the same direction, so each sort walks one index (rating, id) or (popularity, id).
  const orderBy = `p.${order.field} ${dir}, p.id ${dir}`;
  const { sql, params } = puzzleWhere(filter);
  const n = params.length;
  const { rows } = await db.query(`SELECT ${PUZZLE_COLUMNS} FROM puzzles p WHERE ${sql} ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`, [
    ...params,
    page.limit,
    page.offset,
  ]);
  return rows.map(toPuzzle);
}

/** How many puzzles the filter matches: a scan of every match (an index-only one), so callers keep it a while. */
export async function countPuzzles(db: Queryable, filter: PuzzleFilter): Promise<number> {
  const { sql, params } = puzzleWhere(filter);
  const { rows } = await db.query(`SELECT count(*)::int AS total FROM puzzles p WHERE ${sql}`, params);
  return rows[0].total;
}

/** The caller's puzzle rating: a missing row means the defaults, as for the game categories. */
const MY_RATING = `coalesce((SELECT rating FROM user_ratings WHERE user_id = $1 AND category = 'puzzle'), $2::double precision)`;
// OFFSET 0 keeps this a probe per candidate (a primary-key lookup). As a join, the planner may
// instead read all the user's attempts once and compare every candidate with each of them: cheap
// for a new player, quadratic for one who has passed thousands of attempted puzzles.
const NOT_ATTEMPTED = 'NOT EXISTS (SELECT 1 FROM puzzle_attempts a WHERE a.user_id = $1 AND a.puzzle_id = p.id OFFSET 0)';

/**
 * The nearest puzzle not attempted at or above the rating and the nearest one below, each found
 * by walking puzzles_rating_idx (rating, id) away from the rating, index only, skipping attempted
 * ones with a primary-key probe of puzzle_attempts each; the closer of the two is read in full.
 * The cost grows with the attempted puzzles passed on the way (a player who stays at one rating
 * uses up the puzzles around it): a few microseconds each.
 */
const NEXT_PUZZLE = `
  WITH me AS MATERIALIZED (SELECT ${MY_RATING} AS rating),
  nearest AS (
    (SELECT p.id, p.rating FROM puzzles p WHERE p.rating >= (SELECT rating FROM me) AND ${NOT_ATTEMPTED}
      ORDER BY p.rating, p.id LIMIT 1)
    UNION ALL
    (SELECT p.id, p.rating FROM puzzles p WHERE p.rating < (SELECT rating FROM me) AND ${NOT_ATTEMPTED}
      ORDER BY p.rating DESC, p.id DESC LIMIT 1))
  SELECT ${PUZZLE_COLUMNS} FROM puzzles p
   WHERE p.id = (SELECT id FROM nearest ORDER BY abs(rating - (SELECT rating FROM me)), id LIMIT 1)`;

/** The puzzle the user has not attempted whose rating is closest to theirs (ties: the lower id). */
export async function findNextPuzzle(db: Queryable, userId: string, defaultRating: number): Promise<PuzzleRecord | undefined> {
  // Named, so each connection prepares it once: planning this query takes longer than running it.
  const { rows } = await db.query({ name: 'puzzles-next', text: NEXT_PUZZLE, values: [userId, defaultRating] });
  return rows[0] && toPuzzle(rows[0]);
}

/** How PostgreSQL runs findNextPuzzle for this user, measured (EXPLAIN ANALYZE): the benchmark reports it. */
export async function explainNextPuzzle(db: Queryable, userId: string, defaultRating: number): Promise<string[]> {
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${NEXT_PUZZLE}`, [userId, defaultRating]);
  return rows.map((r) => r['QUERY PLAN']);
}

/** DESIGN 2.10: the daily puzzle is chosen among these, on the values the import brought. */
const DAILY_CANDIDATE = 'p.popularity >= 80 AND p.imported_rating BETWEEN 1500 AND 2300';
const NEVER_DAILY = 'NOT EXISTS (SELECT 1 FROM daily_puzzles d WHERE d.puzzle_id = p.id)';

export async function findDailyPuzzleId(db: Queryable, day: string): Promise<string | undefined> {
  const { rows } = await db.query('SELECT puzzle_id FROM daily_puzzles WHERE day = $1', [day]);
  return rows[0]?.puzzle_id;
}

/**
 * Stores the puzzle of `day` unless one is stored already, and returns the stored one (another
 * node's, when two ask at once). The candidate is the first, in id order, at or after `startKey`
 * (wrapping around), preferring puzzles that were never a daily puzzle; undefined when there is
 * no candidate at all.
 */
export async function storeDailyPuzzle(db: Queryable, day: string, startKey: string): Promise<string | undefined> {
  const candidate = (where: string) =>
    `(SELECT p.id FROM puzzles p WHERE ${DAILY_CANDIDATE} AND ${where} ORDER BY p.id LIMIT 1)`;
  const { rows } = await db.query(
    `SELECT id FROM (
       SELECT 1 AS rank, id FROM ${candidate(`p.id >= $1 AND ${NEVER_DAILY}`)} a
       UNION ALL SELECT 2, id FROM ${candidate(NEVER_DAILY)} b
       UNION ALL SELECT 3, id FROM ${candidate('p.id >= $1')} c
       UNION ALL SELECT 4, id FROM ${candidate('true')} d
     ) picks ORDER BY rank LIMIT 1`,
    [startKey],
  );
  if (!rows[0]) return undefined;
  await db.query('INSERT INTO daily_puzzles (day, puzzle_id) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING', [day, rows[0].id]);
  // A statement of its own: it sees the row of a node that stored the day first.
  return findDailyPuzzleId(db, day);
}

export type AttemptRecord = { correct: boolean; ratingChange: number; attempts: number };

/**
 * Locks the user's puzzle rating for the rest of the transaction, creating it with `initial`
 * when they have none: every attempt of one user queues here, so the first one is known.
 */
export async function lockPuzzleRating(tx: Queryable, userId: string, initial: Glicko): Promise<Glicko> {
  await tx.query(
    `INSERT INTO user_ratings (user_id, category, rating, rd, volatility) VALUES ($1, 'puzzle', $2, $3, $4)
     ON CONFLICT (user_id, category) DO NOTHING`,
    [userId, initial.rating, initial.deviation, initial.volatility],
  );
  const { rows } = await tx.query(`SELECT rating, rd, volatility FROM user_ratings WHERE user_id = $1 AND category = 'puzzle' FOR UPDATE`, [userId]);
  return { rating: rows[0].rating, deviation: rows[0].rd, volatility: rows[0].volatility };
}

export async function savePuzzleRating(tx: Queryable, userId: string, g: Glicko, now: Date): Promise<void> {
  await tx.query(
    `UPDATE user_ratings SET rating = $2, rd = $3, volatility = $4, games = games + 1, updated_at = $5
      WHERE user_id = $1 AND category = 'puzzle'`,
    [userId, g.rating, g.deviation, g.volatility, now],
  );
}

export async function findAttempt(tx: Queryable, userId: string, puzzleId: string): Promise<AttemptRecord | undefined> {
  const { rows } = await tx.query('SELECT correct, rating_change, attempts FROM puzzle_attempts WHERE user_id = $1 AND puzzle_id = $2', [userId, puzzleId]);
  return rows[0] && { correct: rows[0].correct, ratingChange: rows[0].rating_change, attempts: rows[0].attempts };
}

export async function insertAttempt(
  tx: Queryable,
  a: { userId: string; puzzleId: string; correct: boolean; ratingChange: number; timeMs: number | null; now: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO puzzle_attempts (user_id, puzzle_id, correct, rating_change, time_ms, first_at, last_at) VALUES ($1, $2, $3, $4, $5, $6, $6)`,
    [a.userId, a.puzzleId, a.correct, a.ratingChange, a.timeMs, a.now],
  );
}

export async function countRepeatAttempt(tx: Queryable, userId: string, puzzleId: string, now: Date): Promise<void> {
  await tx.query('UPDATE puzzle_attempts SET attempts = attempts + 1, last_at = $3 WHERE user_id = $1 AND puzzle_id = $2', [userId, puzzleId, now]);
}

/**
 * Locks a puzzle's rating for a rated attempt. NO KEY UPDATE: other users' attempt rows, whose
 * foreign keys share-lock the puzzle's key, are not held up by it.
 */
export async function lockPuzzle(tx: Queryable, id: string): Promise<Glicko> {
  return puzzleGlicko(tx, id, 'FOR NO KEY UPDATE');
}

export async function findPuzzleGlicko(db: Queryable, id: string): Promise<Glicko> {
  return puzzleGlicko(db, id, '');
}

async function puzzleGlicko(db: Queryable, id: string, lock: string): Promise<Glicko> {
  const { rows } = await db.query(`SELECT rating, rating_deviation, volatility FROM puzzles WHERE id = $1 ${lock}`, [id]);
  return { rating: rows[0].rating, deviation: rows[0].rating_deviation, volatility: rows[0].volatility };
}

/** The puzzle's new rating after a first attempt, which also counts as a play. */
export async function savePuzzleAfterAttempt(tx: Queryable, id: string, g: Glicko): Promise<void> {
  await tx.query('UPDATE puzzles SET rating = $2, rating_deviation = $3, volatility = $4, plays_here = plays_here + 1 WHERE id = $1', [
    id,
    g.rating,
    g.deviation,
    g.volatility,
  ]);
}

// ---- Imports -------------------------------------------------------------------------------

/**
 * `upsert`: new puzzles are added and known ones take the row's rating, deviation, popularity,
 * plays, themes and tags when any of them changed (the puzzle's live rating starts again from
 * the new one); rows equal to what is stored change nothing. `missing`: only new puzzles are added.
 */
export type ImportMode = 'upsert' | 'missing';
export type BatchOutcome = { inserted: number; updated: number; unchanged: number };

const STAGING = 'puzzle_staging';
const STAGED_COLUMNS = 'ord, id, fen, last_move, solution, rating, rating_deviation, popularity, plays, themes, opening_tags, game_url';

/** COPY's text format: a tab between fields, a backslash escapes the few characters it must. */
const copyText = (value: string) => value.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
/** An array literal with every element quoted, so none reads as NULL (elements are words: no quote or backslash inside). */
const arrayLiteral = (items: readonly string[]) => `{${items.map((i) => `"${i}"`).join(',')}}`;

function copyRow(ord: number, p: PuzzleData): string {
  return (
    [
      String(ord),
      p.id,
      p.fen,
      p.lastMove,
      arrayLiteral(p.solution),
      String(p.rating),
      String(p.ratingDeviation),
      String(p.popularity),
      String(p.plays),
      arrayLiteral(p.themes),
      arrayLiteral(p.openingTags),
      p.gameUrl,
    ]
      .map(copyText)
      .join('\t') + '\n'
  );
}

/**
 * Writes one batch: COPY into a temporary staging table, then one INSERT … ON CONFLICT into
 * `puzzles`. The caller owns the transaction (a batch is atomic within it). A puzzle that occurs
 * twice in a batch counts once, as its last row says.
 */
export async function importBatch(client: PoolClient, puzzles: readonly PuzzleData[], mode: ImportMode): Promise<BatchOutcome> {
  await client.query(
    `CREATE TEMP TABLE IF NOT EXISTS ${STAGING} (
       ord integer, id text COLLATE "C", fen text, last_move text, solution text[], rating integer, rating_deviation integer,
       popularity smallint, plays integer, themes text[], opening_tags text[], game_url text)`,
  );
  await client.query(`TRUNCATE ${STAGING}`);
  await pipeline(
    Readable.from(puzzles.map((p, i) => copyRow(i, p))),
    client.query(copyFrom(`COPY ${STAGING} (${STAGED_COLUMNS}) FROM STDIN`)),
  );
  const conflict =
    mode === 'missing'
      ? 'DO NOTHING'
      : `DO UPDATE SET rating = excluded.rating, rating_deviation = excluded.rating_deviation, volatility = excluded.volatility,
           imported_rating = excluded.imported_rating, imported_rd = excluded.imported_rd, popularity = excluded.popularity,
           imported_plays = excluded.imported_plays, themes = excluded.themes, opening_tags = excluded.opening_tags,
           game_url = excluded.game_url, fen = excluded.fen, last_move = excluded.last_move, solution = excluded.solution
         WHERE (puzzles.imported_rating, puzzles.imported_rd, puzzles.popularity, puzzles.imported_plays, puzzles.themes,
                puzzles.opening_tags, puzzles.game_url, puzzles.fen, puzzles.last_move, puzzles.solution)
               IS DISTINCT FROM
               (excluded.imported_rating, excluded.imported_rd, excluded.popularity, excluded.imported_plays, excluded.themes,
                excluded.opening_tags, excluded.game_url, excluded.fen, excluded.last_move, excluded.solution)`;
  // xmax is 0 on a row version this statement inserted, and set on one it updated.
  const { rows } = await client.query(
    `WITH written AS (
       INSERT INTO puzzles (id, fen, last_move, solution, rating, rating_deviation, imported_rating, imported_rd, popularity,
                            imported_plays, themes, opening_tags, game_url)
       SELECT DISTINCT ON (id) id, fen, last_move, solution, rating, rating_deviation, rating, rating_deviation, popularity,
              plays, themes, opening_tags, game_url
         FROM ${STAGING} ORDER BY id, ord DESC
       ON CONFLICT (id) ${conflict}
       RETURNING xmax = 0 AS inserted)
     SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated,
            (SELECT count(DISTINCT id)::int FROM ${STAGING}) AS distinct_rows
       FROM written`,
  );
  const { inserted, updated, distinct_rows } = rows[0];
  return { inserted, updated, unchanged: distinct_rows - inserted - updated };
}

export async function findImport(db: Queryable, source: string): Promise<{ sha256: string; rows: number } | undefined> {
  const { rows } = await db.query('SELECT sha256, rows FROM puzzle_imports WHERE source = $1', [source]);
  return rows[0];
}

export async function recordImport(db: Queryable, source: string, sha256: string, rowCount: number): Promise<void> {
  await db.query(
    `INSERT INTO puzzle_imports (source, sha256, rows) VALUES ($1, $2, $3)
     ON CONFLICT (source) DO UPDATE SET sha256 = excluded.sha256, rows = excluded.rows, imported_at = now()`,
    [source, sha256, rowCount],
  );
}

/** Fresh planner statistics after a large import (the rating distribution drives `next`'s plan). */
export async function analyzePuzzles(db: Queryable): Promise<void> {
  await db.query('ANALYZE puzzles');
}
