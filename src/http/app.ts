import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { hasNoBody } from './body.ts';
import { errorHandler, notFound } from './errorHandler.ts';
import { mountRoutes, type Route, type RouteDeps } from './route.ts';
import { cors, noStore, securityHeaders } from './security.ts';
import type { Logger } from '../logger.ts';
import { systemClock, type Clock } from '../time.ts';

/** The REST API is served under /v1 and, identically, under /api and /api/v1 (DESIGN 2.1). */
export const API_PREFIXES = ['/v1', '/api/v1', '/api'] as const;
const BODY_LIMIT = '64kb';

export type HttpAppOptions = {
  log: Logger;
  trustProxy: boolean | number | string;
  routes: Route[];
  deps: RouteDeps;
  /** Unversioned, unlimited endpoints: /healthz, /readyz, /metrics, /docs, /v1/openapi.json. */
  ops: express.Router;
  /** Runs first for every request (metrics). */
  before?: RequestHandler[];
  /** PUBLIC_URL is https: answers carry HSTS. */
  https?: boolean;
  /** CORS_ORIGINS: `*` (the default) or a list. */
  corsOrigins?: '*' | string[];
  /** Mounted after the body parser, before the API: the Colyseus `/matchmake` route, the pages. */
  routers?: RequestHandler[];
  /** Runs for a request no route answered, before the JSON 404 (the web app's page for browsers). */
  notFoundPage?: RequestHandler;
  /** Error handlers of other surfaces (Lichess's `{"error"}`), each passing on what is not its path's, before the envelope's. */
  errorHandlers?: ErrorRequestHandler[];
  /** Stamps when each request was read (`res.locals.receivedAt`): a move is timed from then. */
  clock?: Clock;
};

export function createHttpApp(o: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', o.trustProxy);
  app.set('json spaces', 0);
  app.set('query parser', 'simple');
  const clock = o.clock ?? systemClock;
  // Before anything that may wait (auth, rate limit, the database): time spent in the service
  // after this is not the player's (DESIGN 2.4).
  app.use((_req, res, next) => {
    res.locals.receivedAt = clock.now();
    next();
  });
  for (const h of o.before ?? []) app.use(h);
  app.use(securityHeaders({ https: o.https ?? false }));
  app.use(cors({ origins: o.corsOrigins ?? '*' }));
  const json = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] });
  app.use((req, res, next) => (hasNoBody(req) ? next() : json(req, res, next)));
  app.use(o.ops);
  for (const r of o.routers ?? []) app.use(r);
  app.use(API_PREFIXES.map((p) => `${p}/auth`), noStore);
  const api = express.Router({ mergeParams: true });
  mountRoutes(api, o.routes, o.deps);
  for (const prefix of API_PREFIXES) app.use(prefix, api);
  if (o.notFoundPage) app.use(o.notFoundPage);
  app.use(notFound);
  for (const h of o.errorHandlers ?? []) app.use(h);
  app.use(errorHandler(o.log));
  return app;
}
