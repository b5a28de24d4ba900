// Lichess's Board and Bot API on Lichess's own paths (DESIGN 2.13), so that bots, board apps and
// scripts written for lichess.org play here unchanged. An adapter: every command goes through the
// game command catalogue (src/services/gameCommandCatalogue.ts) to the same game actor as /v1 and
// the rooms, and every stream is a session of watching (src/realtime: GameWatchSession,
// UserChannelSession) that a Lichess subscriber spells in Lichess's lines. Served from the root
// and again under /lichess, before the /api alias of /v1 (Lichess's path wins where both exist).
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { accountRoutes } from './account.ts';
import { challengeRoutes } from './challenges.ts';
import { lichessCommandPath, type CommandPathDeps } from './commandPath.ts';
import { eventRoutes } from './events.ts';
import { gameRoutes } from './games.ts';
import type { LichessDeps } from './deps.ts';
import { lichessErrors, lichessRouter } from './route.ts';

/** Where a proxy that routes by prefix sends Lichess's paths (DESIGN 2.13). */
export const LICHESS_PREFIX = '/lichess';

/**
 * The routes, and the error handler the side app mounts beside its own: a failure before a route
 * is reached on one of its paths (a body that is not JSON) is answered `{"error"}` too.
 */
export function createLichess(
  d: LichessDeps,
  http: Pick<CommandPathDeps, 'headers' | 'timeRoute'>,
): { router: RequestHandler; errors: ErrorRequestHandler[]; commands: (req: IncomingMessage, res: ServerResponse) => boolean } {
  // The game's first: a move is the path taken most, and Express tries routes in order (no two
  // modules' paths overlap, so the order decides nothing else).
  const routes = [...gameRoutes(d), ...accountRoutes(d), ...challengeRoutes(d), ...eventRoutes(d)];
  const deps = { authenticate: d.services.auth.authenticate, limits: d.ctx.limits };
  const router = lichessRouter(routes, deps, d.ctx.log);
  const app = express.Router();
  app.use(LICHESS_PREFIX, router);
  app.use(router);
  return {
    router: app,
    errors: [lichessErrors(routes, LICHESS_PREFIX, d.ctx.log), lichessErrors(routes, '', d.ctx.log)],
    commands: lichessCommandPath(routes, ['', LICHESS_PREFIX], { ...deps, ...http, now: d.ctx.clock.now, log: d.ctx.log }),
  };
}
