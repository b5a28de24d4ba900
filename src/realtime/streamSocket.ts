import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { bearerToken } from '../auth/tokens.ts';
import type { RealtimeNode } from './deps.ts';
import { openGameStream } from './gameWatchSession.ts';
import { CLOSE, errorMessage, formatServerMessage } from './messages.ts';
import { socketAuthenticate } from './peer.ts';

/**
 * The game stream over a WebSocket (`/v1/games/{id}/stream`): one game, `state` first, then its
 * events in order; closed 1000 after game_end. The client may only ping.
 */
export function serveStreamSocket(node: RealtimeNode, ws: WebSocket, req: IncomingMessage, gameId: string): void {
  const peer = node.connections.socket(ws);
  peer.receive(() => peer.refuse(errorMessage('VALIDATION_ERROR', 'The stream answers only {"type":"ping"}', {}, node.now())));
  const url = new URL(req.url ?? '/', 'http://localhost');
  const request = { gameId, since: url.searchParams.get('since'), token: url.searchParams.get('token') ?? bearerToken(req.headers.authorization) };
  const deps = { ...node.sessions, authenticate: node.caps.authenticateFor(peer, socketAuthenticate(node.deps.authenticate)) };
  openGameStream(deps, peer, request).catch((err) => {
    node.log.warn({ err }, 'stream failed');
    ws.send(formatServerMessage(errorMessage('SERVICE_UNAVAILABLE', 'Try again', {}, node.now())), () => ws.close(CLOSE.INTERNAL, 'try again'));
  });
}
