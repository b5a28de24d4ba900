import type { IncomingMessage } from 'node:http';
import { bearerToken } from '../auth/tokens.ts';
import { AppError } from '../errors.ts';
import type { RealtimeNode } from './deps.ts';
import { openGameStream } from './gameWatchSession.ts';
import type { HttpPeer } from './httpPeer.ts';
import { formatChannel } from './messages.ts';
import { UserChannelSession } from './userChannelSession.ts';

/**
 * The game stream over HTTP (`GET /v1/games/{id}/stream` asked for NDJSON): the socket's
 * messages, in its order, one per line; the same token, `since` and viewer (a player's token
 * brings the player room's chat). The 200 goes out with the first message, so a refusal before it
 * (400, 401, 404, 429) is an ordinary HTTP error.
 */
export function streamOverHttp(node: RealtimeNode, peer: HttpPeer, req: IncomingMessage, url: URL, gameId: string): Promise<void> {
  const request = { gameId, since: url.searchParams.get('since'), token: url.searchParams.get('token') ?? bearerToken(req.headers.authorization) };
  return openGameStream({ ...node.sessions, authenticate: node.caps.authenticateFor(peer, node.deps.authenticate) }, peer, request);
}

/**
 * The caller's user channel over HTTP (`GET /v1/stream/events`): what a realtime socket
 * subscribed to `user:<their id>` is sent (each message with its `channel`), one per line; the
 * 200 is the `subscribed`.
 */
export async function eventsOverHttp(node: RealtimeNode, peer: HttpPeer, req: IncomingMessage, url: URL): Promise<void> {
  const token = bearerToken(req.headers.authorization) ?? url.searchParams.get('token');
  if (!token) throw new AppError('UNAUTHORIZED', 'Missing or invalid access token');
  const user = await node.deps.authenticate(token);
  const session = new UserChannelSession(node.sessions, peer, {
    user,
    id: user.id,
    channel: formatChannel({ kind: 'user', id: user.id }),
    // Counted once the user may hear it: a token that may not is told so, at the cap or not.
    admit: (u) => node.caps.admitUser(peer, u.id),
  });
  peer.onClose(() => session.close());
  await session.start();
}

/**
 * The TV feed over HTTP (`GET /v1/tv/feed`, DESIGN 2.14): the `tv` channel's messages without
 * `channel`, one per line, `featured` first; public, whatever the token. The 200 goes out with the
 * first line.
 */
export function tvOverHttp(node: RealtimeNode, peer: HttpPeer): void {
  peer.onClose(node.sessions.tv.join({ send: (m) => peer.send(m.json) }));
}
