// The game stream and the realtime channel (src/realtime) on the HTTP server's port, beside
// Colyseus's rooms: each takes the upgrades on its own paths.
import type http from 'node:http';
import type { Express } from 'express';
import proxyAddr from 'proxy-addr';
import type { AppContext } from '../context.ts';
import { createRealtime, type Realtime } from '../realtime/index.ts';
import type { GameEventLog } from '../services/gameEvents.ts';
import type { Services } from '../services/index.ts';
import { formatSeek, lobbyReads } from '../services/seekViews.ts';

export type SocketOptions = {
  ctx: AppContext;
  services: Services;
  gameEvents: GameEventLog;
  /** The side app: its trust-proxy setting tells a socket's client address. */
  app: Express;
  httpServer: http.Server;
  /** Colyseus's transport (made in src/server.ts, the one importer of rooms/): every other upgrade is its. */
  transport: { attachToServer(server: http.Server, options: { filter: (req: http.IncomingMessage) => boolean }): unknown };
};

export function attachRealtime({ ctx, services, gameEvents, app, httpServer, transport }: SocketOptions): Realtime {
  const { config, log, pool, events, clock } = ctx;
  // The game stream and the realtime channel share the port: upgrades on their paths are theirs,
  // every other upgrade is Colyseus's (its rooms' /<processId>/<roomId>).
  const realtime = createRealtime({
    events,
    clock,
    log,
    authenticate: services.auth.authenticate,
    credentials: services.auth.credentials,
    hold: services.presence.hold,
    snapshot: services.games.snapshot,
    missed: gameEvents.since,
    watching: gameEvents.watch,
    openSeeks: async () => (await lobbyReads(pool).openSeeks()).map(formatSeek),
    tournamentExists: services.tournaments.exists,
    featured: services.watching.featured,
    caps: { perAddress: config.realtimeSocketsPerAddress, perUser: config.realtimeSocketsPerUser },
    // The address Express gives a request (req.ip): behind TRUST_PROXY, the forwarded client's.
    addressOf: (req) => proxyAddr(req, app.get('trust proxy fn')),
  });
  // Every other upgrade is a room's socket: it counts in the address's socket cap with the
  // stream's and the realtime channel's (admitOther refuses it with 429 past the cap).
  transport.attachToServer(httpServer, { filter: (req) => !realtime.handles(req) && realtime.admitOther(req) });
  httpServer.on('upgrade', (req, socket, head) => {
    if (realtime.handles(req)) realtime.upgrade(req, socket, head);
  });
  return realtime;
}
