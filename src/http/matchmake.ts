import express from 'express';
import { AppError } from '../errors.ts';
import { matchmake, matchmakeAllowed } from '../gateway/index.ts';
import { countRefusal } from '../refusals.ts';
import { bearerToken } from './route.ts';

/**
 * Colyseus's matchmaking route, served by the HTTP app like every other answer: the body parser's
 * limits, CORS, the security headers, the error envelope with the REST API's 4xx statuses (and a
 * top-level `message` for the SDK: errorHandler.ts), `req.ip` as TRUST_PROXY judges it for the
 * rooms' limits. Colyseus's own HTTP routes are not served (src/server.ts). Served at the root,
 * where the SDK calls it, and the same under /v1, where the OpenAPI document's server puts it.
 */
const PATHS = ['/matchmake/:method/:room', '/v1/matchmake/:method/:room'];

export function matchmakeRouter(): express.Router {
  const router = express.Router();
  router.post(PATHS, async (req: express.Request<{ method: string; room: string }>, res) => {
    const reservation = await matchmake(req.params.method, req.params.room, joinOptions(req), {
      token: bearerToken(req.get('authorization')),
      ip: req.ip ?? 'unknown',
      headers: new Headers(Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : []))),
    }).catch((error) => {
      if (error instanceof AppError && error.status < 500) countRefusal('join_refused');
      throw error;
    });
    res.json(reservation);
  });
  router.all(PATHS, (req: express.Request<{ method: string; room: string }>, res) => {
    if (!matchmakeAllowed(req.params.method, req.params.room)) throw new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`);
    res.setHeader('Allow', 'POST');
    throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here`);
  });
  return router;
}

/** The join options: a JSON object, or nothing at all. */
function joinOptions(req: express.Request): Record<string, unknown> {
  const body: unknown = req.body;
  const sent = Number(req.get('content-length')) > 0 || req.get('transfer-encoding') !== undefined;
  if (body === undefined && !sent) return {};
  if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new AppError('VALIDATION_ERROR', 'Invalid request data', { body: ['must be a JSON object (Content-Type: application/json)'] });
}
