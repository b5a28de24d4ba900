import type { IncomingMessage } from 'node:http';
import { gameReader, type AuthUser } from '../auth/scopes.ts';
import { bearerToken } from '../auth/tokens.ts';
import { parseId } from '../domain/ids.ts';
import { AppError } from '../errors.ts';
import { CREDENTIAL_ENDED } from '../services/liveCredentials.ts';
import { userChannel, userChannelRefusal } from './channels.ts';
import type { RealtimeNode } from './deps.ts';
import type { HttpPeer } from './httpPeer.ts';
import { formatChannel } from './messages.ts';
import { INVALID_SINCE, parseSince, watchGame } from './streamSocket.ts';

/** Counts an HTTP stream as one of `user`'s sockets until it closes; RATE_LIMIT_EXCEEDED past the cap. */
function countAsUser(node: RealtimeNode, peer: HttpPeer, user: AuthUser): void {
  const over = node.caps.admitUser(peer, user.id);
  if (over) throw over;
}

/** DESIGN 2.12: an HTTP stream ends with its credential, its last line the error UNAUTHORIZED (with `channel` on the user channel's). */
function endWithCredential(node: RealtimeNode, peer: HttpPeer, user: AuthUser, channel?: string): void {
  peer.onClose(node.deps.credentials.watch(user, (why) => peer.refuse(new AppError('UNAUTHORIZED', CREDENTIAL_ENDED[why]), channel)));
}

/**
 * The game stream over HTTP (`GET /v1/games/{id}/stream` asked for NDJSON): the socket's
 * messages, in its order, one per line; the same token, `since` and viewer (a player's token
 * brings the player room's chat). The 200 goes out with the first message, so a refusal before it
 * (400, 401, 404, 429) is an ordinary HTTP error.
 */
export async function streamOverHttp(node: RealtimeNode, peer: HttpPeer, req: IncomingMessage, url: URL, requestedId: string): Promise<void> {
  const since = parseSince(url);
  if (since === null) throw new AppError('VALIDATION_ERROR', INVALID_SINCE.message, INVALID_SINCE.details);
  const token = url.searchParams.get('token') ?? bearerToken(req.headers.authorization);
  const viewer = token ? await node.deps.authenticate(token) : undefined;
  if (viewer) {
    countAsUser(node, peer, viewer);
    endWithCredential(node, peer, viewer);
  }
  const gameId = parseId(requestedId);
  if (!gameId) throw new AppError('GAME_NOT_FOUND', 'Game not found');
  if (!peer.open) return;
  const watch = watchGame(node, gameId, gameReader(viewer), since, {
    send: (m) => peer.send(m.json),
    ended: () => peer.end(),
    failed: (err) => peer.refuse(err),
  });
  peer.onClose(() => watch.close());
  await watch.start();
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
  // The user channel's own check, the one a subscription to `user:<id>` on a realtime socket passes.
  const refusal = userChannelRefusal(user, user.id);
  if (refusal) throw new AppError(refusal.code, refusal.message, refusal.details);
  countAsUser(node, peer, user);
  endWithCredential(node, peer, user, formatChannel({ kind: 'user', id: user.id }));
  if (!peer.open) return;
  const name = { kind: 'user', id: user.id } as const;
  const channel = formatChannel(name);
  const subscription = await userChannel(
    node.channels,
    {
      channel,
      name,
      token,
      send: (json) => peer.send(json),
      subscribed: () => peer.begin(),
      refused: (code, message) => peer.refuse(new AppError(code, message), channel),
      ended: () => peer.end(),
    },
    user,
  );
  peer.onClose(() => subscription.close());
}
