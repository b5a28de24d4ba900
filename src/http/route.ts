import type { NextFunction, Request, Response, Router } from 'express';
import { z } from 'zod';
import { requireScope, requireSession, type AuthUser, type Scope } from '../auth/scopes.ts';
import { bearerToken } from '../auth/tokens.ts';
import { parseId } from '../domain/ids.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import type { OperationLimit } from '../limits.ts';
import { objectBody, parseOrThrow } from './validate.ts';

export type { AuthUser, OperationLimit };

export type AuthMode = 'none' | 'optional' | 'required';
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * What a personal access token needs to call a route that takes a token (DESIGN 2.12):
 * - a scope: the token must have it;
 * - `public`: a read of public data, which needs none;
 * - `session`: only a signed-in person may do it (the password, the email, the profile, personal
 *   tokens themselves, logout); a personal token gets 403 `SESSION_REQUIRED`.
 */
export type ScopeDecision = Scope | 'public' | 'session';

export type HandlerContext<B, Q> = {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: Record<string, string>;
  user: AuthUser | undefined;
  /** The caller's `Idempotency-Key` when it applies (an authenticated POST), for handlers to pass on. */
  idempotencyKey?: string;
  /** When the request was read (ms on the service clock; createHttpApp stamps it), for commands timed from then. */
  receivedAt?: number;
};

/** A handler may return plain data (wrapped as `{success: true, data}`) or a full HttpAnswer. */
export class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/**
 * Who may call: a route that takes a token decides what a personal token needs (a route without
 * `scope` does not compile), one that takes none has nothing to decide.
 */
type Access = { auth: 'none'; scope?: undefined } | { auth: Exclude<AuthMode, 'none'>; scope: ScopeDecision };

/**
 * A documented route has an `operationId`, the stable camelCase name a generated client's function
 * takes (`getGame`); an alias served but left out of the document (`hidden`) has none.
 */
type Naming = { operationId: string; hidden?: false } | { hidden: true; operationId?: undefined };

/** One route: how it is served, limited, authorised and documented, in one record. */
export type Route<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType> = RouteFields<B, Q> & Access & Naming;

type RouteFields<B extends z.ZodType, Q extends z.ZodType> = {
  method: HttpMethod;
  /** Express-style path relative to the version prefix, e.g. `/games/:id`. */
  path: string;
  summary: string;
  /** A longer explanation (Markdown) for the reference (OpenAPI only). */
  description?: string;
  tags: string[];
  /**
   * The path parameters that are ids, each with the code of its unknown id: the handler sees them
   * as parseId made them (lower-case), and a malformed one is that 404 (DESIGN 2.8).
   */
  ids?: Record<string, ErrorCode>;
  body?: B;
  query?: Q;
  /** Replaces the route's class limit with a per-operation one (which may depend on the body). */
  limit?: OperationLimit | ((req: Request) => OperationLimit);
  /** Success status when the handler returns plain data. */
  status?: number;
  /** Documented shape of `data` in the success envelope (OpenAPI only). */
  response?: z.ZodType;
  /** Other success statuses the route answers (OpenAPI only), each with its `data` and the headers it sets. */
  also?: Record<number, { description: string; response?: z.ZodType; headers?: string[] }>;
  /**
   * When `response` is a union: the property that tells its shapes apart and which value means
   * which (OpenAPI only: the success schema's `discriminator`).
   */
  discriminator?: { property: string; mapping: Record<string, z.ZodType> };
  /**
   * How the success is documented (OpenAPI only): `data` (the default) `{success, data}`,
   * `message` `{success, message, data?}`, `list` `{success, data, pagination}`, or `raw` for a
   * body of `contentType` outside the envelope.
   */
  envelope?: 'data' | 'message' | 'list' | 'raw';
  contentType?: string;
  /**
   * Further media types of the success, chosen by the request's Accept (OpenAPI only), with the
   * schema of each: e.g. a game's PGN beside its JSON.
   */
  alternatives?: Record<string, z.ZodType>;
  /** Documented error codes (OpenAPI only). */
  errors?: string[];
  handler: (ctx: HandlerContext<z.infer<B>, z.infer<Q>>) => Promise<unknown>;
};

/** What a handler returns when it has written the response itself (a stream). */
export const STREAMED = Symbol('streamed');

/** Identity with inference: keeps each route's body and query types attached to its handler. */
export const route = <B extends z.ZodType = z.ZodUnknown, Q extends z.ZodType = z.ZodUnknown>(r: Route<B, Q>) =>
  r as unknown as Route;

export type RouteDeps = {
  /** Verifies a bearer token; throws UNAUTHORIZED when it is invalid, expired or revoked. */
  authenticate: (token: string) => Promise<AuthUser>;
  /** Counts the request against its limit, sets the headers, throws RATE_LIMIT_EXCEEDED. */
  rateLimit: (req: Request, res: Response, r: Route, user: AuthUser | undefined) => Promise<void>;
  /** The Idempotency-Key step (src/http/idempotency.ts): `replayed` when it already sent the stored answer. */
  idempotency?: (req: Request, res: Response, r: Route, user: AuthUser | undefined) => Promise<{ key?: string; replayed: boolean }>;
};

export { bearerToken };

/**
 * Mounts routes on an Express router. The order per request is fixed: identify the caller
 * (a valid token keys the rate limit by user) → rate limit → require auth (and a personal
 * token's scope) → idempotency key
 * (replays a stored answer) → validate → handle, so a 401 or 400 still carries the rate-limit
 * headers, and a replay is counted like any request.
 */
export function mountRoutes(router: Router, routes: Route[], deps: RouteDeps): void {
  for (const r of routes) {
    router[r.method](r.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        let user: AuthUser | undefined;
        let authError: unknown;
        const token = r.auth === 'none' ? undefined : bearerToken(req.get('authorization'));
        if (token) {
          try {
            user = await deps.authenticate(token);
          } catch (error) {
            authError = error;
          }
        }
        await deps.rateLimit(req, res, r, user);
        if (authError) throw authError;
        if (r.auth === 'required' && !user) throw new AppError('UNAUTHORIZED', 'Missing or invalid access token');
        if (user?.scopes && r.auth !== 'none') checkPersonalToken(r.scope, user);
        const idempotency = await deps.idempotency?.(req, res, r, user);
        if (idempotency?.replayed) return;
        const body = r.body ? parseOrThrow(r.body, objectBody(req.body)) : undefined;
        const query = r.query ? parseOrThrow(r.query, req.query) : undefined;
        const receivedAt = typeof res.locals.receivedAt === 'number' ? res.locals.receivedAt : undefined;
        const params = idParams(r, req.params as Record<string, string>);
        const result = await r.handler({ req, res, body, query, params, user, idempotencyKey: idempotency?.key, receivedAt });
        if (result === STREAMED) return;
        send(res, result instanceof HttpAnswer ? result : new HttpAnswer(r.status ?? 200, { success: true, data: result }));
      } catch (error) {
        next(error);
      }
    });
  }
  // A known path asked with another method: 405 with the methods it does serve.
  const methodsByPath = new Map<string, Set<string>>();
  for (const r of routes) {
    if (!methodsByPath.has(r.path)) methodsByPath.set(r.path, new Set());
    methodsByPath.get(r.path)!.add(r.method.toUpperCase());
  }
  for (const [path, methods] of methodsByPath) {
    router.all(path, (req, res, next) => {
      if (req.method === 'OPTIONS' || (req.method === 'HEAD' && methods.has('GET'))) return next();
      res.setHeader('Allow', [...methods].join(', '));
      next(new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here`));
    });
  }
}

/** A personal access token may call the route only as its scope decision says (DESIGN 2.12). */
function checkPersonalToken(decision: ScopeDecision, user: AuthUser): void {
  if (decision === 'public') return;
  if (decision === 'session') return requireSession(user);
  requireScope(user, decision);
}

/** The route's params with its ids parsed, in the order the route declares them. */
function idParams(r: Route, raw: Record<string, string>): Record<string, string> {
  const params = { ...raw };
  for (const [name, code] of Object.entries(r.ids ?? {})) {
    const id = parseId(raw[name]);
    if (!id) throw new AppError(code, notFoundMessage(code));
    params[name] = id;
  }
  return params;
}

/** `GAME_NOT_FOUND` → "Game not found", the message every service gives its unknown ids. */
const notFoundMessage = (code: ErrorCode) => code.charAt(0) + code.slice(1).toLowerCase().replaceAll('_', ' ');

function send(res: Response, answer: HttpAnswer): void {
  for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
  if (answer.body === undefined || answer.status === 204) {
    res.status(answer.status).end();
  } else if (typeof answer.body === 'string' || Buffer.isBuffer(answer.body)) {
    res.status(answer.status).send(answer.body);
  } else {
    res.status(answer.status).json(answer.body);
  }
}
