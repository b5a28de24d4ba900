import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { AuthUser } from '../auth/scopes.ts';
import { validationError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { claimKey, releaseKey, settleKey, type ClaimedKey, type IdempotencyDeps, type StoredAnswer } from '../services/idempotency.ts';
import type { Route } from './route.ts';
import { objectBody } from './validate.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Response headers that belong to the answer and are replayed with it. The others describe the
 * request at hand (rate-limit counters, CORS, Date) and are the replaying request's own.
 */
const ANSWER_HEADERS = ['content-type', 'content-disposition', 'content-language', 'location', 'etag', 'cache-control', 'www-authenticate'];

export type IdempotencyOptions = Omit<IdempotencyDeps, 'waitMs'> & {
  log: Logger;
  /** How long a request waits for another one with its key to finish before answering 503. */
  waitMs?: number;
};

export type IdempotencyOutcome = { key: string | undefined; replayed: boolean };

/**
 * The Idempotency-Key step of every route (DESIGN 2.1), run after authentication and before
 * validation. It applies to POSTs by an authenticated caller, since keys are per user; on an
 * anonymous POST (signup, login, …) the header is ignored.
 *
 * The first request with a key claims it (an in-progress row) before its handler runs, and its
 * answer is stored before it is sent, so a retry that arrives once the client has that answer
 * always finds it. A request that finds the key in progress waits for the first to finish (polling,
 * at most `waitMs`, then 503 SERVICE_UNAVAILABLE with Retry-After) and replays its answer; it
 * never acts alongside it. Answers that mean "try again" (5xx, 429) are not kept: the key is
 * released and the retry acts. An in-progress row 60 s old is taken to be a dead process's and a
 * retry of the same request takes it over (IDEMPOTENCY_STALE_MS). The keys themselves are
 * src/services/idempotency.ts's; this step only reads the request and holds back its response.
 */
export function createIdempotency(o: IdempotencyOptions) {
  const deps: IdempotencyDeps = { db: o.db, clock: o.clock, waitMs: o.waitMs ?? 10_000 };

  return async function idempotency(req: Request, res: Response, r: Route, user: AuthUser | undefined): Promise<IdempotencyOutcome> {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (r.method !== 'post' || !user || key === undefined) return { key: undefined, replayed: false };
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw validationError(IDEMPOTENCY_HEADER, `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
    }
    const outcome = await claimKey(deps, { userId: user.id, key }, hashRequest(r, req));
    if (outcome.kind === 'answered') {
      replay(res, outcome.answer);
      return { key, replayed: true };
    }
    keepAnswer(res, outcome.key, deps, o.log);
    return { key, replayed: false };
  };
}

/**
 * What makes two requests the same: method, path with its parameters (whichever prefix,
 * /v1 or /api, it came under), the query when the route reads one, and the JSON body with its
 * keys sorted.
 */
export function hashRequest(r: Route, req: Request): string {
  const path = r.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(req.params[name] ?? '')));
  const parts = [r.method.toUpperCase(), path, canonical(objectBody(req.body)), r.query ? canonical(req.query) : null];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, canonical(o[k])]),
    );
  }
  return value;
}

/**
 * Holds back the end of the response until its answer is stored (or the key released), so the
 * answer a client receives is always the one a retry gets. Whatever builds the response (the
 * route, or the error middleware for a thrown error) ends it through `res.end`.
 */
function keepAnswer(res: Response, key: ClaimedKey, deps: IdempotencyDeps, log: Logger): void {
  const end = res.end;
  res.end = function (this: Response, chunk?: unknown, encoding?: unknown, cb?: unknown) {
    res.end = end;
    if (typeof chunk === 'function') [cb, chunk, encoding] = [chunk, undefined, undefined];
    else if (typeof encoding === 'function') [cb, encoding] = [encoding, undefined];
    const finish = () => (end as (...args: unknown[]) => Response).call(res, chunk, encoding, cb);
    // Async, so that a chunk that cannot be read as an answer releases the key like a failed store.
    (async () => settleKey(deps, key, answerOf(res, chunk, encoding as BufferEncoding | undefined)))().then(finish, (err) => {
      log.warn({ err }, 'idempotency key not stored');
      void releaseKey(deps, key).catch(() => {});
      finish();
    });
    return res;
  } as Response['end'];
}

/** The answer as a retry would replay it; undefined when this response is not one whole answer. */
function answerOf(res: Response, chunk: unknown, encoding: BufferEncoding | undefined): StoredAnswer | undefined {
  // Headers already sent means the body went out in pieces we did not see: not a whole answer.
  if (res.headersSent) return undefined;
  const body =
    chunk === undefined || chunk === null
      ? Buffer.alloc(0)
      : Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === 'string'
          ? Buffer.from(chunk, encoding ?? 'utf8')
          : Buffer.from(chunk as Uint8Array);
  const headers: Record<string, string> = {};
  for (const name of ANSWER_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return { status: res.statusCode, headers, body };
}

function replay(res: Response, answer: StoredAnswer): void {
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.status(answer.status).end(answer.body.length ? answer.body : undefined);
}
