import type { Queryable } from './pool.ts';

/**
 * Idempotency keys (DESIGN 2.1): per (user, key), the hash of the first request and, once it is
 * answered, that answer. Every function takes "now" from the caller (the service's clock), so
 * the 24 h window and the takeover bound are tested with explicit times.
 */

/** A key is remembered this long after its first request; older keys are absent. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An answer still in progress after this long belongs to an attempt whose process died (no
 * route runs anywhere near this long): a retry of the same request may take the key over.
 */
export const IDEMPOTENCY_STALE_MS = 60 * 1000;

export type StoredAnswer = { status: number; headers: Record<string, string>; body: Buffer };

export type IdempotencyRecord = {
  requestHash: string;
  createdAt: Date;
  /** Undefined while the first attempt is still in progress. */
  answer: StoredAnswer | undefined;
};

export type KeyRef = { userId: string; key: string };
export type Claim = KeyRef & { requestHash: string; claim: string; now: Date };

const before = (now: Date, ms: number) => new Date(now.getTime() - ms);

/**
 * Claims a key for one attempt, in one statement: inserts it, or takes over a row that is
 * expired (any request) or abandoned in progress (the same request only: another request under
 * a live key is a reuse, whatever became of the first). Concurrent claims of one key serialize
 * on the row, so exactly one of them wins. True when this attempt may act.
 */
export async function claimIdempotencyKey(db: Queryable, c: Claim): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO idempotency_keys AS k (user_id, key, request_hash, claim, created_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (user_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, claim = EXCLUDED.claim, created_at = EXCLUDED.created_at,
           status = NULL, headers = NULL, body = NULL
       WHERE k.created_at <= $6
          OR (k.status IS NULL AND k.created_at <= $7 AND k.request_hash = EXCLUDED.request_hash)`,
    [c.userId, c.key, c.requestHash, c.claim, c.now, before(c.now, IDEMPOTENCY_TTL_MS), before(c.now, IDEMPOTENCY_STALE_MS)],
  );
  return rowCount === 1;
}

/** The key's record, unless it is absent or older than 24 h at `now`. */
export async function findIdempotencyKey(db: Queryable, ref: KeyRef, now: Date): Promise<IdempotencyRecord | undefined> {
  const { rows } = await db.query<{
    request_hash: string;
    created_at: Date;
    status: number | null;
    headers: Record<string, string> | null;
    body: Buffer | null;
  }>(
    `SELECT request_hash, created_at, status, headers, body FROM idempotency_keys
     WHERE user_id = $1 AND key = $2 AND created_at > $3`,
    [ref.userId, ref.key, before(now, IDEMPOTENCY_TTL_MS)],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    requestHash: r.request_hash,
    createdAt: r.created_at,
    answer: r.status === null ? undefined : { status: r.status, headers: r.headers ?? {}, body: r.body ?? Buffer.alloc(0) },
  };
}

/** Stores the answer of the attempt that holds the claim; false when it no longer holds it. */
export async function completeIdempotencyKey(db: Queryable, ref: KeyRef & { claim: string }, answer: StoredAnswer): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE idempotency_keys SET status = $4, headers = $5, body = $6
     WHERE user_id = $1 AND key = $2 AND claim = $3 AND status IS NULL`,
    [ref.userId, ref.key, ref.claim, answer.status, JSON.stringify(answer.headers), answer.body],
  );
  return rowCount === 1;
}

/** Gives the key up (the answer is not to be kept): the next request with it acts. */
export async function releaseIdempotencyKey(db: Queryable, ref: KeyRef & { claim: string }): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND claim = $3 AND status IS NULL', [
    ref.userId,
    ref.key,
    ref.claim,
  ]);
}

/**
 * Deletes up to `limit` keys older than 24 h at `now` (they already count as absent); returns how
 * many. SKIP LOCKED lets every node sweep at once without waiting on each other or on a claim.
 */
export async function deleteExpiredIdempotencyKeys(db: Queryable, now: Date, limit = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE (user_id, key) IN (
       SELECT user_id, key FROM idempotency_keys WHERE created_at <= $1
       ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [before(now, IDEMPOTENCY_TTL_MS), limit],
  );
  return rowCount ?? 0;
}
