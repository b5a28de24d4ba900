import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { DEFAULT_SOCKET_CAPS, SocketCaps } from './caps.ts';
import { Connections } from './connections.ts';
import { GameTicks } from './gameTicks.ts';
import { ChannelHub } from './hub.ts';
import { DEFAULT_PEER_LIMITS } from './peer.ts';
import { TvStation } from './tvStation.ts';
import { createRouting } from './routing.ts';
import type { RealtimeDeps, RealtimeNode, SessionDeps } from './deps.ts';
import type { AppError } from '../errors.ts';
import type { HttpPeer } from './httpPeer.ts';

export type { RealtimeDeps };

export type Realtime = {
  /** Whether an upgrade request is for the stream or the realtime channel (else it is Colyseus's). */
  handles: (req: IncomingMessage) => boolean;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /**
   * The HTTP forms (DESIGN 2.12): `GET /v1/games/{id}/stream` asked for `application/x-ndjson`,
   * `GET /v1/stream/events` and `GET /v1/tv/feed` (DESIGN 2.14). Any other request goes to `next()`; a refusal before the stream
   * starts goes to `next(error)` (the error envelope).
   */
  serveHttp: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
  /**
   * Counts an upgrade for another surface of the port (the rooms': Colyseus's sockets) in the
   * client address's socket cap, together with the stream's and the realtime channel's: false
   * when it refused it (429, the error envelope), else the place is given back as it closes.
   */
  admitOther: (req: IncomingMessage) => boolean;
  /**
   * Hosts another surface's HTTP stream (Lichess's NDJSON streams, src/lichess) as one of this
   * node's: counted in the client address's cap with the sockets and streams (undefined when it
   * is refused: `refuseWith` has answered), kept alive with the others' keep-alive round and ended
   * at shutdown (the body ends: no `error` line of ours). What it says is its own.
   */
  hostStream: (req: IncomingMessage, res: ServerResponse, refuseWith: (error: unknown) => void) => HttpPeer | undefined;
  /** What a session of watching needs (GameWatchSession, UserChannelSession), for another surface's streams. */
  sessions: SessionDeps;
  /** Counts a stream as one of the user's (REALTIME_SOCKETS_PER_USER): the refusal past their cap. */
  admitUser: (stream: HttpPeer, userId: string) => AppError | undefined;
  /** Closes every socket with 1012 and ends every HTTP stream (the service restarts: connect again). */
  close: () => Promise<void>;
  /** Open sockets and HTTP streams (not those closing) and the channels they listen to. */
  stats: () => { sockets: number; channels: number };
};

/**
 * The realtime side of the interface (spec 6.2, 6.3; DESIGN 2.6, 2.12), on the port Colyseus
 * listens on: the game stream at `/v1/games/{id}/stream` (also `/api/…`) and the realtime channel
 * at `/realtime` (also `/v1/realtime`) as WebSockets, the game stream and the user channel as
 * NDJSON. Each kind of watching, a game or a user's channel, is one session
 * (gameWatchSession.ts, userChannelSession.ts) that every transport subscribes to; all are fed by
 * the presence channels every node subscribes to, so any node serves any game. Made of: the
 * routing of requests (routing.ts), the stream's socket (streamSocket.ts), the realtime
 * channel's (channelSocket.ts), the HTTP forms (httpStreams.ts), the caps (caps.ts), and the
 * connections with their heartbeat and keep-alive (connections.ts).
 */
export function createRealtime(deps: RealtimeDeps): Realtime {
  const log = deps.log.child({ component: 'realtime' });
  const now = () => deps.clock.now();
  const hub = new ChannelHub(deps.events);
  // Without a reader of the featured game (tests of other parts) the TV shows none.
  const tv = new TvStation({ hub, clock: deps.clock, log, featured: deps.featured ?? (async () => null) });
  const node: RealtimeNode = {
    deps,
    sessions: { ...deps, log, hub, ticks: new GameTicks(deps.clock), tv, now },
    caps: new SocketCaps({ ...DEFAULT_SOCKET_CAPS, ...deps.caps }),
    connections: new Connections(deps.clock, log, { ...DEFAULT_PEER_LIMITS, ...deps.limits }, { heartbeatMs: deps.heartbeatMs ?? 30_000, keepAliveMs: deps.keepAliveMs ?? 7000 }),
    log,
    now,
  };
  const routing = createRouting(node);
  return {
    handles: routing.handles,
    upgrade: routing.upgrade,
    serveHttp: routing.serveHttp,
    admitOther: routing.admitOther,
    hostStream: routing.hostStream,
    sessions: node.sessions,
    admitUser: (stream, userId) => node.caps.admitUser(stream, userId),
    async close() {
      await node.connections.close();
      routing.close();
    },
    stats: () => ({ sockets: node.connections.open, channels: hub.size }),
  };
}
