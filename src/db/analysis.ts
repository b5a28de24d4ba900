import type { PositionEval } from '../domain/gameAnalysis.ts';
import type { Queryable } from './pool.ts';

// The analysis queue and its results (migration 009): one row per finished game.

export type AnalysisStatus = 'queued' | 'running' | 'done';

export type AnalysisRecord = {
  gameId: string;
  status: AnalysisStatus;
  attempts: number;
  failures: number;
  availableAt: Date;
  lockedUntil: Date | null;
  progressTotal: number;
  progressDone: number;
  result: unknown;
};

/** A job this worker holds: `attempt` fences it (a worker whose claim was taken over writes nothing). */
export type ClaimedAnalysis = { gameId: string; attempt: number; failures: number; evals: PositionEval[] };

const at = (ms: number) => new Date(ms);
const lockEnd = `$1::timestamptz + make_interval(secs => $2::double precision / 1000)`;

/**
 * Queues a finished game's analysis, in the transaction that finishes it. Its total counts every
 * position: the start and one after each move.
 */
export async function enqueueAnalysis(db: Queryable, gameId: string, now: number): Promise<void> {
  await db.query(
    `INSERT INTO game_analyses (game_id, progress_total, available_at, created_at)
     SELECT id, move_count + 1, $2, $2 FROM games WHERE id = $1 AND status = 'finished'
     ON CONFLICT (game_id) DO NOTHING`,
    [gameId, at(now)],
  );
}

export async function findAnalysis(db: Queryable, gameId: string): Promise<AnalysisRecord | undefined> {
  const { rows } = await db.query(
    `SELECT game_id, status, attempts, failures, available_at, locked_until, progress_total, progress_done, result
       FROM game_analyses WHERE game_id = $1`,
    [gameId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    gameId: r.game_id,
    status: r.status,
    attempts: r.attempts,
    failures: r.failures,
    availableAt: r.available_at,
    lockedUntil: r.locked_until,
    progressTotal: r.progress_total,
    progressDone: r.progress_done,
    result: r.result,
  };
}

/**
 * Takes a due job no live worker holds (queued ones, and running ones whose worker stopped
 * renewing its claim: it died), serving players in turn: first the job whose players were served
 * least recently (a job counts as served as its more recently served player; never is earliest),
 * then the oldest. Claiming marks both players served now, so a player who queued many games gets
 * one, then waits for every other waiting player's next one: round-robin by player, whatever the
 * order the games ended in. The turns live in PostgreSQL with the queue, so every node keeps the
 * same order; two claims at the same instant may both miss each other's mark, which costs only
 * that instant's fairness. Other nodes skip the row while this claim commits. Findings at another
 * depth than `depth` are dropped: the result is one search depth throughout.
 */
export async function claimAnalysis(
  db: Queryable,
  o: { now: number; lockMs: number; worker: string; depth: number },
): Promise<ClaimedAnalysis | undefined> {
  const { rows } = await db.query(
    `WITH next AS (
       SELECT a.game_id, g.white_id, g.black_id
         FROM game_analyses a
         JOIN games g ON g.id = a.game_id
         LEFT JOIN analysis_turns w ON w.user_id = g.white_id
         LEFT JOIN analysis_turns b ON b.user_id = g.black_id
        WHERE a.status <> 'done' AND a.available_at <= $1 AND (a.locked_until IS NULL OR a.locked_until < $1)
        ORDER BY greatest(w.served_at, b.served_at) NULLS FIRST, a.available_at, a.created_at
        LIMIT 1 FOR UPDATE OF a SKIP LOCKED
     ), served AS (
       -- In id order, so that two claims marking the same two players lock their rows alike.
       INSERT INTO analysis_turns (user_id, served_at)
       SELECT DISTINCT player, $1::timestamptz FROM next, unnest(ARRAY[next.white_id, next.black_id]) AS player
        WHERE player IS NOT NULL ORDER BY player
       ON CONFLICT (user_id) DO UPDATE SET served_at = greatest(analysis_turns.served_at, excluded.served_at)
     )
     UPDATE game_analyses a
        SET status = 'running', attempts = a.attempts + 1, locked_by = $3, locked_until = ${lockEnd},
            evals = CASE WHEN a.depth = $4 THEN a.evals ELSE '[]'::jsonb END,
            progress_done = CASE WHEN a.depth = $4 THEN a.progress_done ELSE 0 END,
            depth = $4
       FROM next
      WHERE a.game_id = next.game_id
      RETURNING a.game_id, a.attempts, a.failures, a.evals`,
    [at(o.now), o.lockMs, o.worker, o.depth],
  );
  const r = rows[0];
  return r && { gameId: r.game_id, attempt: r.attempts, failures: r.failures, evals: r.evals };
}

/** Appends one position's findings and renews the claim. False when the claim is no longer ours. */
export async function recordProgress(
  db: Queryable,
  o: { gameId: string; attempt: number; now: number; lockMs: number; found: PositionEval[] },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE game_analyses
        SET evals = evals || $5::jsonb, progress_done = jsonb_array_length(evals) + jsonb_array_length($5::jsonb),
            locked_until = ${lockEnd}, failures = 0
      WHERE game_id = $3 AND attempts = $4 AND status = 'running'`,
    [at(o.now), o.lockMs, o.gameId, o.attempt, JSON.stringify(o.found)],
  );
  return rowCount === 1;
}

/** Stores the result. False when the claim is no longer ours (the other worker's result stands). */
export async function completeAnalysis(
  db: Queryable,
  o: { gameId: string; attempt: number; now: number; engine: string; result: object },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE game_analyses
        SET status = 'done', result = $4, engine = $3, analyzed_at = $5, progress_done = progress_total,
            locked_by = NULL, locked_until = NULL, last_error = NULL
      WHERE game_id = $1 AND attempts = $2 AND status = 'running'`,
    [o.gameId, o.attempt, o.engine, JSON.stringify(o.result), at(o.now)],
  );
  return rowCount === 1;
}

/**
 * Gives a job back: at once (this node is stopping), or after `retryAt` with the failure counted
 * (its engine died or hung). What was found so far stays.
 */
export async function releaseAnalysis(
  db: Queryable,
  o: { gameId: string; attempt: number; availableAt: number; error?: string },
): Promise<void> {
  await db.query(
    `UPDATE game_analyses
        SET status = 'queued', locked_by = NULL, locked_until = NULL, available_at = $3,
            failures = failures + $4, last_error = coalesce($5, last_error)
      WHERE game_id = $1 AND attempts = $2 AND status = 'running'`,
    [o.gameId, o.attempt, at(o.availableAt), o.error ? 1 : 0, o.error ?? null],
  );
}

/** Jobs not done yet (queued or running), for /metrics. */
export async function countPendingAnalyses(db: Queryable): Promise<number> {
  const { rows } = await db.query(`SELECT count(*) AS n FROM game_analyses WHERE status <> 'done'`);
  return rows[0].n;
}
