import { randomUUID } from 'node:crypto';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyKey,
  releaseIdempotencyKey,
  type KeyRef,
  type StoredAnswer,
} from '../db/idempotency.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import { sleep, type Clock } from '../time.ts';

export type { StoredAnswer };

export type IdempotencyDeps = {
  db: Queryable;
  clock: Clock;
  /** How long a request waits for another one with its key to finish before SERVICE_UNAVAILABLE. */
  waitMs: number;
};

/** A key this attempt holds: its answer is stored, or the key released, under this claim only. */
export type ClaimedKey = KeyRef & { claim: string };

/** This attempt acts (and then settles its key), or an earlier attempt's answer is to be replayed. */
export type KeyOutcome = { kind: 'claimed'; key: ClaimedKey } | { kind: 'answered'; answer: StoredAnswer };

/**
 * Claims the user's key for the request `requestHash` (DESIGN 2.1), or finds the answer of the
 * request that claimed it first. A key in progress elsewhere is waited for (polling, at most
 * `waitMs`), never acted on alongside. Throws IDEMPOTENCY_KEY_REUSED for a key first used by
 * another request, SERVICE_UNAVAILABLE (retry after 1 s) when the wait runs out.
 */
export async function claimKey(deps: IdempotencyDeps, ref: KeyRef, requestHash: string): Promise<KeyOutcome> {
  const claim = randomUUID();
  const deadline = deps.clock.now() + deps.waitMs;
  for (let attempt = 0; ; attempt++) {
    const now = new Date(deps.clock.now());
    if (await claimIdempotencyKey(deps.db, { ...ref, requestHash, claim, now })) return { kind: 'claimed', key: { ...ref, claim } };
    const found = await findIdempotencyKey(deps.db, ref, now);
    if (found && found.requestHash !== requestHash) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for another request');
    }
    if (found?.answer) return { kind: 'answered', answer: found.answer };
    // In progress elsewhere (or released in between): wait, then claim or replay.
    if (deps.clock.now() >= deadline) {
      throw new AppError('SERVICE_UNAVAILABLE', 'A request with this Idempotency-Key is still in progress', undefined, { retryAfter: 1 });
    }
    await sleep(Math.min(25 * 2 ** attempt, 250), deps.clock);
  }
}

/**
 * Keeps the answer of the attempt holding `key`, so a retry replays it. An answer that means "try
 * again" (5xx, 429), or none (the caller did not see a whole answer), is not kept: the key is
 * released and the retry acts.
 */
export async function settleKey(deps: Pick<IdempotencyDeps, 'db'>, key: ClaimedKey, answer: StoredAnswer | undefined): Promise<void> {
  if (!answer || answer.status >= 500 || answer.status === 429) return releaseKey(deps, key);
  // False when another attempt took the key over meanwhile: its answer stands.
  await completeIdempotencyKey(deps.db, key, answer);
}

/** Gives the key up: the next request with it acts. */
export async function releaseKey(deps: Pick<IdempotencyDeps, 'db'>, key: ClaimedKey): Promise<void> {
  await releaseIdempotencyKey(deps.db, key);
}
