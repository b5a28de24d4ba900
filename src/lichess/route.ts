// Lichess's conventions on Lichess's paths (DESIGN 2.13): a bearer token, Lichess's OAuth scopes,
// bodies form-encoded or JSON with dotted keys, `{"error": "..."}` error bodies with Lichess's
// status codes, and a JSON body for every answer. A route here is a few lines over the services,
// as a /v1 route is (src/http/route.ts); what differs is only how the request and the answer are
// spelled.
import type { ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { z } from 'zod';
import { hasScope, type AuthUser, type Scope } from '../auth/scopes.ts';
import { bearerToken } from '../auth/tokens.ts';
import { AppError } from '../errors.ts';
import { hasNoBody } from '../http/body.ts';
import { rateLimitExceeded, type RateLimits } from '../limits.ts';
import type { Logger } from '../logger.ts';
import { lichessError } from './errors.ts';

/**
 * Who may call a route: `none` reads no token (a public read); `optional` reads one when given;
 * `{ anyOf }` needs a token, and a personal token needs one of these scopes (a session's access
 * token may do everything, as on /v1).
 */
export type LichessAuth = 'none' | 'optional' | { anyOf: readonly Scope[] };

/** What a command's handler reads: the caller and the request's parts, never the request itself. */
export type BareContext<B, Q> = {
  user: AuthUser | undefined;
  params: Record<string, string>;
  body: B;
  query: Q;
  /** When the request was read (stamped first thing): a move is timed from then (DESIGN 2.4). */
  receivedAt?: number;
};

export type LichessContext<B, Q> = BareContext<B, Q> & { req: Request; res: Response };

type RouteFields<B extends z.ZodType, Q extends z.ZodType> = {
  method: 'get' | 'post';
  /** Lichess's path from the root (`/api/account`); served again under `/lichess`. */
  path: string;
  auth: LichessAuth;
  /** The body, once form fields and JSON alike are read into one object (dotted keys nested). */
  body?: B;
  /**
   * The body is text whatever its Content-Type says (the tokens of POST /api/token/test: Python's
   * requests posts a string with none, curl -d as a form).
   */
  textBody?: true;
  query?: Q;
  /** The rate-limit class (DESIGN 2.3): reads, writes, or a per-operation limit's name and points. */
  limit?: 'read' | 'write' | { name: string; points: number };
};

/**
 * Plain data is answered as JSON with 200; `STREAMED` when the handler wrote the answer itself
 * (an NDJSON stream). Expected failures are thrown as AppError, answered `{"error": message}`.
 * A `bare` route's handler reads only a BareContext: a command, which its POST without a body may
 * bring past Express (src/lichess/commandPath.ts), the path a bot or board app takes most.
 */
export type LichessRoute<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType> = RouteFields<B, Q> &
  (
    | { bare?: undefined; handler: (ctx: LichessContext<z.infer<B>, z.infer<Q>>) => Promise<unknown> }
    | { bare: true; handler: (ctx: BareContext<z.infer<B>, z.infer<Q>>) => Promise<unknown> }
  );

/** What a handler returns when it has written the answer itself (a stream). */
export const STREAMED = Symbol('streamed');

/** Identity with inference: keeps each route's body and query types attached to its handler. */
export const lichessRoute = <B extends z.ZodType = z.ZodUnknown, Q extends z.ZodType = z.ZodUnknown>(r: LichessRoute<B, Q>) =>
  r as unknown as LichessRoute;

/** Lichess answers `{"ok": true}` to a command that succeeded (clients read a JSON body from every POST). */
export const OK = { ok: true } as const;

export type LichessDeps = {
  /** Verifies a bearer token (a personal token, or a session's access token); throws UNAUTHORIZED. */
  authenticate: (token: string) => Promise<AuthUser>;
  limits: RateLimits;
};

const CLASS_POINTS = { read: 100, write: 30 } as const;

/**
 * A form's or a JSON body's dotted keys as nested objects, as Lichess reads them:
 * `clock.limit=300&clock.increment=2` is `{clock: {limit: '300', increment: '2'}}`. A key that is
 * already nested (JSON) stays as it is; a dotted key never overwrites a nested object's own key.
 */
export function nestDottedKeys(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const parts = key.split('.');
    let at = out;
    for (const part of parts.slice(0, -1)) {
      const next = at[part];
      at = (at[part] = next && typeof next === 'object' && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
    }
    const last = parts[parts.length - 1];
    if (!(last in at)) at[last] = value;
  }
  return out;
}

/** The first issue of a failed parse, as Lichess words a bad request: `field: message`. */
function badRequest(error: z.ZodError): AppError {
  const issue = error.issues[0];
  const field = issue?.path.join('.');
  return new AppError('VALIDATION_ERROR', field ? `${field}: ${issue.message}` : (issue?.message ?? 'Invalid request'));
}

function parse<T extends z.ZodType>(schema: T | undefined, value: unknown): z.infer<T> | undefined {
  if (!schema) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(parsed.error);
  return parsed.data;
}

/**
 * A request's way to route `r`'s handler, whichever path brought it: identify the caller → rate
 * limit → the scope → parse the body (as read) and the query. Throws what is answered `{"error"}`.
 */
export async function admit(
  r: LichessRoute,
  deps: LichessDeps,
  request: { authorization: string | undefined; address: () => string; body: unknown; query: unknown },
): Promise<{ user: AuthUser | undefined; body: unknown; query: unknown }> {
  const user = await identify(r, request.authorization, deps);
  await rateLimit(r, user, request.address, deps.limits);
  if (typeof r.auth === 'object') {
    if (!user) throw new AppError('UNAUTHORIZED', 'No such token');
    if (user.scopes && !r.auth.anyOf.some((s) => hasScope(user, s))) {
      throw new AppError('MISSING_SCOPE', `Missing scope: ${r.auth.anyOf.join(' or ')}`, { scope: [...r.auth.anyOf] });
    }
  }
  const body = parse(r.body, typeof request.body === 'string' ? request.body : nestDottedKeys(request.body));
  return { user, body, query: parse(r.query, request.query) };
}

/**
 * The routes on one router, each as Lichess answers: identify the caller → rate limit → the scope
 * → parse → handle → JSON. Every failure is `{"error": ...}` (src/lichess/errors.ts).
 */
export function lichessRouter(routes: LichessRoute[], deps: LichessDeps, log: Logger): Router {
  const router = express.Router();
  // Lichess's clients post forms (`clock.limit=300`), JSON (read by the side app), or a text body
  // (the tokens to test): read on these routes only, so that no other path's body changes.
  const bodies = readBody([express.urlencoded({ extended: false, limit: '64kb' }), express.text({ type: 'text/plain', limit: '64kb' })]);
  const anyText = readBody([express.text({ type: () => true, limit: '64kb' })]);
  for (const r of routes) {
    router[r.method](r.path, r.textBody ? anyText : bodies, async (req: Request, res: Response, next: NextFunction) => {
      try {
        const { user, body, query } = await admit(r, deps, { authorization: req.get('authorization'), address: () => req.ip ?? 'unknown', body: req.body, query: req.query });
        const receivedAt = typeof res.locals.receivedAt === 'number' ? res.locals.receivedAt : undefined;
        const result = await r.handler({ req, res, user, params: req.params as Record<string, string>, body, query, receivedAt });
        if (result === STREAMED) return;
        answer(req, res, result ?? OK);
      } catch (error) {
        next(error);
      }
    });
  }
  // A handler's failure, a body these routes could not read.
  router.use(lichessErrors(routes, '', log));
  return router;
}

/**
 * Marks the request as one of Lichess's paths (its errors are answered `{"error"}`), then reads
 * its body with `parsers`, one after another. A request with no body (a command's POST, sent with
 * Content-Length: 0 and no Content-Type, or a GET) skips them: each would look and pass it on.
 */
function readBody(parsers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    res.locals.lichess = true;
    if (hasNoBody(req)) return next();
    const run = (i: number, error?: unknown): void => {
      if (error !== undefined || i === parsers.length) return next(error);
      parsers[i](req, res, (e?: unknown) => run(i + 1, e));
    };
    run(0);
  };
}

/**
 * A route's JSON answer with 200. A command's (a POST) is written directly: Express's `res.json`
 * would also hash it for an ETag, which only a GET's conditional request can use.
 */
function answer(req: Request, res: Response, data: unknown): void {
  if (req.method !== 'POST') {
    res.status(200).json(data);
    return;
  }
  writeJson(res, 200, data);
}

/** `data` as JSON with `status`, written directly: the headers set on `res` so far go too. */
export function writeJson(res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(data);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Answers the errors of `routes` as Lichess does, and passes any other on: a route's own failure,
 * and what failed before a route was reached on one of their paths under `prefix` (the side app's
 * JSON reader, a path that cannot be decoded), for which the side app mounts it beside its own
 * error handler. An error of another path on its way to the envelope is not ours.
 */
export function lichessErrors(routes: LichessRoute[], prefix: string, log: Logger): ErrorRequestHandler {
  const paths = routes.map((r) => routePattern(prefix + r.path).pattern);
  return (error, req, res, next) => {
    const ours = res.locals.lichess === true || paths.some((p) => p.test(req.path));
    if (!ours || res.headersSent) return next(error);
    const { status, body, headers } = lichessError(error);
    // A fault of ours, logged as the envelope's handler logs it (the path without its query).
    if (status >= 500) log.warn({ err: error, method: req.method, path: req.path }, 'Lichess request not served');
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json(body);
  };
}

/**
 * A route's path (`/api/board/game/:id/move/:uci`) as a pattern of the raw path it serves, as
 * Express matches it (in any case, with or without a trailing slash), capturing its parameters.
 */
export function routePattern(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const parts = path.split('/').map((part) => {
    if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    names.push(part.slice(1));
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${parts.join('/')}/?$`, 'i'), names };
}

async function identify(r: LichessRoute, authorization: string | undefined, deps: LichessDeps): Promise<AuthUser | undefined> {
  if (r.auth === 'none') return undefined;
  const token = bearerToken(authorization);
  if (!token) return undefined;
  // An invalid token is refused even where none is needed: Lichess answers 401 to it.
  return deps.authenticate(token);
}

async function rateLimit(r: LichessRoute, user: AuthUser | undefined, address: () => string, limits: RateLimits): Promise<void> {
  if (!limits.enabled) return;
  const limit = r.limit ?? (r.method === 'get' ? 'read' : 'write');
  const { name, points } = typeof limit === 'object' ? limit : { name: limit, points: CLASS_POINTS[limit] };
  const state = await limits.consume(name, points, user ? `u:${user.id}` : `a:${address()}`);
  if (state.limited) throw rateLimitExceeded(state);
}
