import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { AuthUser } from '../auth/scopes.ts';
import { gameReader } from '../auth/scopes.ts';
import { bearerToken } from '../auth/tokens.ts';
import { parseId } from '../domain/ids.ts';
import { isAppError } from '../errors.ts';
import { CREDENTIAL_ENDED, type CredentialEnd } from '../services/liveCredentials.ts';
import type { RealtimeNode } from './deps.ts';
import { GameWatch, type GameWatchOptions } from './gameWatch.ts';
import { errorMessage, formatServerMessage } from './messages.ts';
import { CLOSE, type Peer } from './peer.ts';

/**
 * The game stream over a WebSocket (`/v1/games/{id}/stream`): one game, `state` first, then its
 * events in order; closed 1000 after game_end. The client may only ping.
 */
export function serveStreamSocket(node: RealtimeNode, ws: WebSocket, req: IncomingMessage, requestedId: string): void {
  const peer = node.connections.socket(ws);
  peer.receive(() => peer.refuse(errorMessage('VALIDATION_ERROR', 'The stream answers only {"type":"ping"}', {}, node.now())));
  serveStream(node, peer, req, requestedId).catch((err) => {
    node.log.warn({ err }, 'stream failed');
    ws.send(formatServerMessage(errorMessage('SERVICE_UNAVAILABLE', 'Try again', {}, node.now())), () => ws.close(1011, 'try again'));
  });
}

async function serveStream(node: RealtimeNode, peer: Peer, req: IncomingMessage, requestedId: string): Promise<void> {
  const { deps, now } = node;
  const url = new URL(req.url ?? '/', 'http://localhost');
  const since = parseSince(url);
  if (since === null) {
    peer.send(errorMessage('VALIDATION_ERROR', INVALID_SINCE.message, { details: INVALID_SINCE.details }, now()));
    return peer.close(CLOSE.POLICY, 'invalid since');
  }
  const token = url.searchParams.get('token') ?? bearerToken(req.headers.authorization);
  let viewer: AuthUser | undefined;
  if (token) {
    try {
      viewer = await deps.authenticate(token);
    } catch (error) {
      if (!isAppError(error) || error.code !== 'UNAUTHORIZED') throw error;
      peer.send(errorMessage('UNAUTHORIZED', 'Invalid or expired access token', {}, now()));
      return peer.close(CLOSE.UNAUTHORIZED, 'unauthorized');
    }
    const over = node.caps.admitUser(peer, viewer.id);
    if (over) {
      peer.send(errorMessage(over.code, over.message, {}, now()));
      return peer.close(CLOSE.TOO_MANY_SOCKETS, 'too many sockets');
    }
    // DESIGN 2.12: the stream lives no longer than the credential it was opened with.
    peer.onClose(
      deps.credentials.watch(viewer, (why) => {
        peer.send(errorMessage('UNAUTHORIZED', CREDENTIAL_ENDED[why], {}, now()));
        peer.close(CLOSE.UNAUTHORIZED, credentialClose(why));
      }),
    );
  }
  // The game's events go out on `game:<its id>`, in lower case: another spelling would hear none.
  const gameId = parseId(requestedId);
  if (!gameId) return notFound(node, peer);
  const watch = watchGame(node, gameId, gameReader(viewer), since, {
    send: (m) => peer.send(m.json),
    ended: () => peer.close(CLOSE.NORMAL, 'game over'),
    failed: () => peer.close(1011, 'reconnect with ?since'),
  });
  peer.onClose(() => watch.close());
  try {
    await watch.start();
  } catch (error) {
    if (isAppError(error) && error.code === 'GAME_NOT_FOUND') return notFound(node, peer);
    node.log.warn({ err: error, gameId }, 'stream could not start');
    peer.send(errorMessage('SERVICE_UNAVAILABLE', 'The game could not be read; try again', {}, now()));
    peer.close(1011, 'try again');
  }
}

/** One viewer's watch of a game, for the stream in either form: `viewer` is who may read its private parts (gameReader). */
export function watchGame(node: RealtimeNode, gameId: string, viewer: AuthUser | undefined, since: number | undefined, o: Pick<GameWatchOptions, 'send' | 'ended' | 'failed'>): GameWatch {
  const { deps, hub, ticks, now } = node;
  return new GameWatch(
    { hub, ticks, snapshot: () => deps.snapshot(viewer?.id, gameId), missed: (after) => deps.missed(gameId, after), watching: () => deps.watching?.(gameId), now },
    { gameId, viewerId: viewer?.id, since, ...o },
  );
}

function notFound(node: RealtimeNode, peer: Peer): void {
  peer.send(errorMessage('GAME_NOT_FOUND', 'Game not found', {}, node.now()));
  peer.close(CLOSE.NOT_FOUND, 'game not found');
}

/** A close frame's reason for an ended credential (the error message before it says more). */
const credentialClose = (why: CredentialEnd) => (why === 'expired' ? 'token expired' : 'token revoked');

export const INVALID_SINCE = { message: 'since must be an event number (an integer ≥ 0)', details: { since: ['must be an integer ≥ 0'] } };

/** `?since=`: the event number, undefined when absent, null when it is none. */
export function parseSince(url: URL): number | undefined | null {
  const text = url.searchParams.get('since');
  if (text === null) return undefined;
  const since = Number(text);
  return Number.isInteger(since) && since >= 0 ? since : null;
}
