import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { isAppError, type AppError } from '../errors.ts';
import { serveChannelSocket } from './channelSocket.ts';
import type { RealtimeNode } from './deps.ts';
import { acceptsNdjson, type HttpPeer } from './httpPeer.ts';
import { eventsOverHttp, streamOverHttp, tvOverHttp } from './httpStreams.ts';
import { serveStreamSocket } from './streamSocket.ts';

const STREAM_PATH = /^\/(?:v1|api|api\/v1)\/games\/([^/]+)\/stream$/;
const REALTIME_PATHS = new Set(['/realtime', '/v1/realtime', '/api/realtime', '/api/v1/realtime']);
const EVENTS_PATH = /^\/(?:v1|api|api\/v1)\/stream\/events$/;
// Not `/api/tv/feed`: that is Lichess's TV feed (DESIGN 2.13: where both have a path, Lichess's wins), whose
// lines are its own `{t, d}`; a Lichess client there must not be sent these.
const TV_FEED_PATH = /^\/(?:v1|api\/v1)\/tv\/feed$/;

const urlOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://localhost');

export type Routing = {
  handles: (req: IncomingMessage) => boolean;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  serveHttp: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
  admitOther: (req: IncomingMessage) => boolean;
  hostStream: (req: IncomingMessage, res: ServerResponse, refuseWith: (error: unknown) => void) => HttpPeer | undefined;
  close: () => void;
};

/**
 * Which request is whose: an upgrade on the stream's path or the realtime channel's, or a GET of
 * an HTTP form, goes to its surface, once the client's address has a place for it (the socket
 * cap, shared with the rooms' upgrades: `admitOther`); everything else is left to the caller.
 */
export function createRouting(node: RealtimeNode): Routing {
  const { caps, connections, log } = node;
  // 4 KB is plenty for a subscribe with its token; a larger frame closes the socket (1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  const addressOf = (req: IncomingMessage) => node.deps.addressOf?.(req) ?? req.socket.remoteAddress ?? 'unknown';

  return {
    handles: (req) => {
      const path = urlOf(req).pathname;
      return REALTIME_PATHS.has(path) || STREAM_PATH.test(path);
    },
    upgrade(req, socket, head) {
      // Counted before the handshake: a refused address costs no WebSocket.
      const release = caps.admitAddress(addressOf(req));
      if (!release) return refuseUpgrade(socket, caps.overAddress());
      socket.once('close', release);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const stream = STREAM_PATH.exec(urlOf(req).pathname);
        if (stream) serveStreamSocket(node, ws, req, stream[1]);
        else serveChannelSocket(node, ws);
      });
    },
    serveHttp(req, res, next) {
      if (req.method !== 'GET' || req.headers.upgrade) return next();
      const url = urlOf(req);
      const game = STREAM_PATH.exec(url.pathname);
      const events = !game && EVENTS_PATH.test(url.pathname);
      const tv = !game && !events && TV_FEED_PATH.test(url.pathname);
      if (!events && !tv && !(game && acceptsNdjson(req.headers.accept))) return next();
      // One place for each of the address's sockets and HTTP streams together.
      const release = caps.admitAddress(addressOf(req));
      if (!release) return next(caps.overAddress());
      const peer = connections.stream(res, next);
      peer.onClose(release);
      if (tv) return tvOverHttp(node, peer);
      (game ? streamOverHttp(node, peer, req, url, game[1]) : eventsOverHttp(node, peer, req, url)).catch((error) => {
        if (peer.live && !isAppError(error)) log.warn({ err: error }, 'HTTP stream failed');
        peer.refuse(error);
      });
    },
    hostStream(req, res, refuseWith) {
      const release = caps.admitAddress(addressOf(req));
      if (!release) return void refuseWith(caps.overAddress());
      // Another surface's lines: ours (an `error` line at the end) are not among them.
      const peer = connections.stream(res, refuseWith, false);
      peer.onClose(release);
      return peer;
    },
    admitOther(req) {
      const release = caps.admitAddress(addressOf(req));
      // An upgrade's request carries its socket: the place is held for as long as it is open.
      if (!release) return (refuseUpgrade(req.socket, caps.overAddress()), false);
      req.socket.once('close', release);
      return true;
    },
    close: () => wss.close(),
  };
}

/** Answers an upgrade with the error envelope instead of a socket (HTTP 429 for the caps). */
function refuseUpgrade(socket: Duplex, error: AppError): void {
  const body = JSON.stringify({ success: false, error: error.toJSON() });
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
