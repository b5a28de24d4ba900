// The Express side app: the REST routes with their middleware, the ops endpoints (health,
// metrics, OpenAPI), matchmaking, the account pages and the browser client.
import type http from 'node:http';
import { matchMaker } from '@colyseus/core';
import type { Express, RequestHandler } from 'express';
import type { AppContext } from '../context.ts';
import { createHttpApp } from '../http/app.ts';
import { createIdempotency } from '../http/idempotency.ts';
import { matchmakeRouter } from '../http/matchmake.ts';
import { buildOpenApi } from '../http/openapi.ts';
import { opsRouter, type createMetrics } from '../http/ops.ts';
import { pagesRouter } from '../http/pages.ts';
import { securityHeaderValues } from '../http/security.ts';
import { createRateLimit } from '../http/rateLimit.ts';
import { buildRoutes } from '../http/routes/index.ts';
import { webRouter } from '../http/web.ts';
import { webBundle } from '../http/webBundle.ts';
import { createLichess } from '../lichess/index.ts';
import type { Realtime } from '../realtime/index.ts';
import type { Services } from '../services/index.ts';

export type SideAppOptions = {
  ctx: AppContext;
  services: Services;
  metrics: ReturnType<typeof createMetrics>;
  /** The HTTP forms of the game stream and the user channel (DESIGN 2.12): the realtime side's. */
  streams?: RequestHandler;
  /** The realtime side (made after the side app), which hosts Lichess's streams too. */
  realtime?: () => Realtime | undefined;
};

/**
 * The side app, and the listener of its HTTP server: Lichess's game commands first
 * (src/lichess/commandPath.ts), then Express.
 */
export function createSideApp({ ctx, services, metrics, streams, realtime }: SideAppOptions): { app: Express; listener: http.RequestListener } {
  const { config, log, pool, redis, limits, clock } = ctx;
  const routes = buildRoutes(services);
  let openapiDoc: object | undefined;
  const openapi = () => (openapiDoc ??= buildOpenApi(routes, config.publicUrl));
  const rateLimit = createRateLimit(limits);
  const https = config.publicUrl.startsWith('https:');
  const lichess = createLichess({ ctx, services, streams: realtime ?? (() => undefined) }, { headers: securityHeaderValues({ https }), timeRoute: metrics.timeRoute });
  const web = webRouter({ bundle: webBundle(log.child({ component: 'web' })), publicUrl: config.publicUrl });
  const app = createHttpApp({
    log,
    trustProxy: config.trustProxy,
    https,
    corsOrigins: config.corsOrigins,
    routes,
    deps: { authenticate: services.auth.authenticate, rateLimit, idempotency: createIdempotency({ db: pool, clock, log }) },
    before: [metrics.observe],
    clock,
    ops: opsRouter({
      probes: {
        database: async () => void (await pool.query('SELECT 1')),
        ...(redis ? { redis: async () => void (await redis.ping()) } : {}),
      },
      registry: metrics.registry,
      openapi,
      metricsToken: config.metricsToken,
      nodeId: () => matchMaker.processId,
    }),
    routers: [
      ...(streams ? [streams] : []),
      // Lichess's paths (DESIGN 2.13), before the /api alias of /v1: where both have a path, Lichess's wins.
      lichess.router,
      matchmakeRouter(),
      pagesRouter({ accounts: services.accounts, rateLimit, log }),
      web.router,
    ],
    notFoundPage: web.notFoundPage,
    errorHandlers: lichess.errors,
  });
  return { app, listener: (req, res) => void (lichess.commands(req, res) || app(req, res)) };
}
