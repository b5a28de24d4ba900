import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, toAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** Unknown route: the envelope, never Express's HTML page. */
export const notFound: RequestHandler = (req, _res, next) =>
  next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));

/**
 * The one place that turns errors into envelopes. Body-parser's errors (bad JSON, too large,
 * unsupported charset) become 4xx; a database or Redis out of reach is 503 with Retry-After;
 * anything unexpected is logged and reported as 500.
 * A /matchmake answer also gets a top-level `message: "CODE: text"`, which the Colyseus SDK shows
 * as its error's message (it reads `message`, then `error`, of a failed answer).
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toAppError(err);
    // The path without the query: a query may carry a token (a mail link's).
    // A fault of ours gets its stack; an expected answer (a game between nodes: 503, a client's
    // mistake: 4xx) is no fault, and one line without a stack says enough.
    if (error.code === 'INTERNAL_ERROR') log.error({ err, method: req.method, path: req.path }, 'request failed');
    else if (error.status >= 500) log.warn({ code: error.code, message: error.message, cause: (err as Error)?.message, method: req.method, path: req.path }, 'request not served');
    else log.debug({ code: error.code, method: req.method, path: req.path }, 'request refused');
    if (error.code === 'UNAUTHORIZED') res.setHeader('WWW-Authenticate', 'Bearer');
    const retryAfter = error.extra?.retryAfter;
    if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
    if (res.headersSent) return res.end();
    const sdk = /^(\/v1)?\/matchmake\//.test(req.path) ? { message: `${error.code}: ${error.message}` } : {};
    res.status(error.status).json({ success: false, error: error.toJSON(), ...sdk });
  };
}
