// The drain of a process (SIGTERM, a crash: src/processHandlers.ts): stop accepting, let rooms
// flush and dispose, then close connections in the reverse order of their opening.
import type http from 'node:http';
import type { Server } from '@colyseus/core';
import type { Logger } from '../logger.ts';
import type { Realtime } from '../realtime/index.ts';
import type { LiveGameHost } from '../services/liveGameHost.ts';
import type { Teardown } from './boot.ts';
import type { Workers } from './workers.ts';

export type DrainParts = {
  httpServer: http.Server;
  realtime: Pick<Realtime, 'close'>;
  workers: Pick<Workers, 'stop'>;
  gameServer: Pick<Server, 'gracefullyShutdown'>;
  liveGames: Pick<LiveGameHost, 'close'>;
  /** The boot's undo steps (node watch, services, Redis, pools, embedded PostgreSQL). */
  teardown: Teardown;
  log: Logger;
};

/** The process's `stop`: the drain runs once, however many times it is asked for. */
export function drainOnStop(p: DrainParts): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= drain(p));
}

async function drain(p: DrainParts): Promise<void> {
  p.httpServer.close();
  // Realtime sockets are told the service restarts (1012) and come back elsewhere.
  await p.realtime.close();
  await p.workers.stop();
  // Rooms release their games (clocks booked, lease freed) as Colyseus disposes them.
  await p.gameServer.gracefullyShutdown(false).catch((err) => p.log.warn({ err }, 'colyseus shutdown'));
  p.liveGames.close();
  p.httpServer.closeAllConnections();
  await p.teardown.run((err) => p.log.warn({ err }, 'cleanup failed'));
}
