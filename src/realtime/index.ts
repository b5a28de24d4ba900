import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { gameReader, type AuthUser } from '../auth/scopes.ts';
import { bearerToken } from '../auth/tokens.ts';
import { parseId } from '../domain/ids.ts';
import { AppError, isAppError, type ErrorCode } from '../errors.ts';
import { CREDENTIAL_ENDED, type CredentialEnd } from '../services/liveCredentials.ts';
import type { TimerHandle } from '../time.ts';
import { DEFAULT_SOCKET_CAPS, SocketCaps } from './caps.ts';
import { openChannel, userChannel, userChannelRefusal, type ChannelDeps, type Subscription } from './channels.ts';
import { GameTicks } from './gameTicks.ts';
import { GameWatch, type GameWatchOptions } from './gameWatch.ts';
import { ChannelHub } from './hub.ts';
import { acceptsNdjson, HttpPeer } from './httpPeer.ts';
import { formatChannel, formatServerMessage, parseClientMessage, parseChannel, type ClientMessage, type ErrorMessage } from './messages.ts';
import { CLOSE, DEFAULT_PEER_LIMITS, Peer } from './peer.ts';
import type { RealtimeDeps } from './deps.ts';

export { CLOSE };

export type { RealtimeDeps };

export type Realtime = {
  /** Whether an upgrade request is for the stream or the realtime channel (else it is Colyseus's). */
  handles: (req: IncomingMessage) => boolean;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /**
   * The HTTP forms (DESIGN 2.12): `GET /v1/games/{id}/stream` asked for `application/x-ndjson`,
   * and `GET /v1/stream/events`. Any other request goes to `next()`; a refusal before the stream
   * starts goes to `next(error)` (the error envelope).
   */
  serveHttp: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
  /**
   * Counts an upgrade for another surface of the port (the rooms': Colyseus's sockets) in the
   * client address's socket cap, together with the stream's and the realtime channel's: false
   * when it refused it (429, the error envelope), else the place is given back as it closes.
   */
  admitOther: (req: IncomingMessage) => boolean;
  /** Closes every socket with 1012 and ends every HTTP stream (the service restarts: connect again). */
  close: () => Promise<void>;
  /** Open sockets and HTTP streams (not those closing) and the channels they listen to. */
  stats: () => { sockets: number; channels: number };
};

const STREAM_PATH = /^\/(?:v1|api|api\/v1)\/games\/([^/]+)\/stream$/;
const REALTIME_PATHS = new Set(['/realtime', '/v1/realtime', '/api/realtime', '/api/v1/realtime']);
const EVENTS_PATH = /^\/(?:v1|api|api\/v1)\/stream\/events$/;
/** Channels one realtime socket may listen to at once. */
const MAX_CHANNELS = 100;

const pathOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://localhost');

/**
 * The two WebSocket surfaces of the interface (spec 6.2, 6.3; DESIGN 2.6), on the port Colyseus
 * listens on: the game stream at `/v1/games/{id}/stream` (also `/api/…`) and the realtime channel
 * at `/realtime` (also `/v1/realtime`). Both are fed by the presence channels every node
 * subscribes to, so any node serves any game.
 */
export function createRealtime(deps: RealtimeDeps): Realtime {
  const limits = { ...DEFAULT_PEER_LIMITS, ...deps.limits };
  const caps = new SocketCaps({ ...DEFAULT_SOCKET_CAPS, ...deps.caps });
  /** Per socket, the users it counts for (the places to give back when it closes). */
  const userPlaces = new Map<Peer, Map<string, () => void>>();
  // 4 KB is plenty for a subscribe with its token; a larger frame closes the socket (1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  const hub = new ChannelHub(deps.events);
  const ticks = new GameTicks(deps.clock);
  const peers = new Set<Peer>();
  const httpPeers = new Set<HttpPeer>();
  const log = deps.log.child({ component: 'realtime' });
  const now = () => deps.clock.now();
  let heartbeat: TimerHandle | undefined;
  const beat = () => {
    for (const p of peers) p.beat();
    heartbeat = deps.clock.setTimeout(beat, deps.heartbeatMs ?? 30_000);
  };
  beat();
  // One keep-alive round for every HTTP stream of the node, not a timer per stream.
  let keepAlive: TimerHandle | undefined;
  const keepAlives = () => {
    for (const p of httpPeers) p.keepAlive();
    keepAlive = deps.clock.setTimeout(keepAlives, deps.keepAliveMs ?? 7000);
  };
  keepAlives();

  const errorMessage = (code: ErrorCode, message: string, extra: Pick<ErrorMessage, 'channel' | 'id' | 'details'> = {}): ErrorMessage => ({
    type: 'error',
    code,
    message,
    ...extra,
    ts: now(),
  });

  /**
   * Counts `peer` as a socket of `user`, once however many channels it opens with their tokens:
   * false when the user already holds the cap on this node.
   */
  function countAsUser(peer: Peer, user: AuthUser): boolean {
    let mine = userPlaces.get(peer);
    if (mine?.has(user.id) || !peer.open) return true;
    const release = caps.admitUser(user.id);
    if (!release) return false;
    if (!mine) {
      const places = (mine = new Map());
      userPlaces.set(peer, places);
      peer.ws.once('close', () => {
        for (const r of places.values()) r();
        userPlaces.delete(peer);
      });
    }
    mine.set(user.id, release);
    return true;
  }
  const overUserCap = () => `At most ${caps.limits.perUser} sockets per user; close one first`;
  const overAddressCap = () => `At most ${caps.limits.perAddress} sockets per address; close one first`;
  const nodeChannelDeps: ChannelDeps = { ...deps, hub, ticks, now, log };
  const addressOf = (req: IncomingMessage) => deps.addressOf?.(req) ?? req.socket.remoteAddress ?? 'unknown';

  function admit(ws: WebSocket): Peer {
    const peer = new Peer(ws, deps.clock, limits);
    peers.add(peer);
    ws.on('close', () => peers.delete(peer));
    // A protocol error of the client (a frame over 4 KB, bad UTF-8): ws closes the socket; nothing to log.
    ws.on('error', (err) => log.debug({ err: err.message }, 'socket error'));
    return peer;
  }

  /** The game stream: one game, `state` first, then its events in order; closed 1000 after game_end. */
  async function serveStream(ws: WebSocket, req: IncomingMessage, requestedId: string): Promise<void> {
    const peer = admit(ws);
    const url = pathOf(req);
    ws.on('message', (data, isBinary) => {
      if (!peer.spend()) return peer.refuse(errorMessage('RATE_LIMIT_EXCEEDED', 'Too many messages'));
      const parsed = parseClientMessage(data, isBinary);
      if (parsed.ok && parsed.value.type === 'ping') return peer.send({ type: 'pong', ...(parsed.value.id !== undefined ? { id: parsed.value.id } : {}), ts: now() });
      peer.refuse(errorMessage('VALIDATION_ERROR', 'The stream answers only {"type":"ping"}'));
    });
    const since = parseSince(url);
    if (since === null) {
      peer.send(errorMessage('VALIDATION_ERROR', INVALID_SINCE.message, { details: INVALID_SINCE.details }));
      return peer.close(CLOSE.POLICY, 'invalid since');
    }
    const token = url.searchParams.get('token') ?? bearerToken(req.headers.authorization);
    let viewer: AuthUser | undefined;
    if (token) {
      try {
        viewer = await deps.authenticate(token);
      } catch (error) {
        if (!isAppError(error) || error.code !== 'UNAUTHORIZED') throw error;
        peer.send(errorMessage('UNAUTHORIZED', 'Invalid or expired access token'));
        return peer.close(CLOSE.UNAUTHORIZED, 'unauthorized');
      }
      if (!countAsUser(peer, viewer)) {
        peer.send(errorMessage('RATE_LIMIT_EXCEEDED', overUserCap()));
        return peer.close(CLOSE.TOO_MANY_SOCKETS, 'too many sockets');
      }
      // DESIGN 2.12: the stream lives no longer than the credential it was opened with.
      const stop = deps.credentials.watch(viewer, (why) => {
        peer.send(errorMessage('UNAUTHORIZED', CREDENTIAL_ENDED[why]));
        peer.close(CLOSE.UNAUTHORIZED, credentialClose(why));
      });
      ws.once('close', stop);
    }
    // The game's events go out on `game:<its id>`, in lower case: another spelling would hear none.
    const gameId = parseId(requestedId);
    if (!gameId) return notFound(peer);
    const watch = watchGame(gameId, gameReader(viewer), since, {
      send: (m) => peer.send(m.json),
      ended: () => peer.close(CLOSE.NORMAL, 'game over'),
      failed: () => peer.close(1011, 'reconnect with ?since'),
    });
    ws.on('close', () => watch.close());
    try {
      await watch.start();
    } catch (error) {
      if (isAppError(error) && error.code === 'GAME_NOT_FOUND') return notFound(peer);
      log.warn({ err: error, gameId }, 'stream could not start');
      peer.send(errorMessage('SERVICE_UNAVAILABLE', 'The game could not be read; try again'));
      peer.close(1011, 'try again');
    }
  }

  /** One viewer's watch of a game, for the stream in either form: `viewer` is who may read its private parts (gameReader). */
  function watchGame(gameId: string, viewer: AuthUser | undefined, since: number | undefined, o: Pick<GameWatchOptions, 'send' | 'ended' | 'failed'>): GameWatch {
    return new GameWatch(
      { hub, ticks, snapshot: () => deps.snapshot(viewer?.id, gameId), missed: (after) => deps.missed(gameId, after), watching: () => deps.watching?.(gameId), now },
      { gameId, viewerId: viewer?.id, since, ...o },
    );
  }

  function notFound(peer: Peer): void {
    peer.send(errorMessage('GAME_NOT_FOUND', 'Game not found'));
    peer.close(CLOSE.NOT_FOUND, 'game not found');
  }

  /**
   * The realtime channel: subscribe / unsubscribe / ping, many channels per socket. Subscribes
   * and unsubscribes are answered in the order they came (a subscribe's answer waits on its
   * token's check): each is taken up once the one before it is answered. A ping is answered at once.
   */
  function serveChannels(ws: WebSocket): void {
    const peer = admit(ws);
    const subscriptions = new Map<string, Subscription>();
    let answered: Promise<void> = Promise.resolve();
    const inTurn = (answer: () => void | Promise<void>) => {
      answered = answered.then(answer).catch((err) => log.warn({ err }, 'realtime answer failed'));
    };
    const channelDeps: ChannelDeps = {
      ...nodeChannelDeps,
      // A token makes this socket one of its user's, which the user may have only so many of.
      authenticate: async (token) => {
        const user = await deps.authenticate(token);
        if (!countAsUser(peer, user)) throw new AppError('RATE_LIMIT_EXCEEDED', overUserCap());
        return user;
      },
    };
    ws.on('close', () => {
      for (const s of subscriptions.values()) s.close();
      subscriptions.clear();
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (!peer.spend()) return peer.refuse(errorMessage('RATE_LIMIT_EXCEEDED', 'Too many messages'));
      const parsed = parseClientMessage(data, isBinary);
      if (!parsed.ok) {
        const refusal = errorMessage('VALIDATION_ERROR', parsed.error.message, parsed.error.details ? { details: parsed.error.details } : {});
        return inTurn(() => peer.refuse(refusal));
      }
      const m = parsed.value;
      if (m.type === 'ping') return peer.send({ type: 'pong', ...(m.id !== undefined ? { id: m.id } : {}), ts: now() });
      inTurn(() => answer(m));
    });

    /** Answers a subscribe or an unsubscribe: resolves once its answer went out. */
    function answer(m: Exclude<ClientMessage, { type: 'ping' }>): void | Promise<void> {
      if (!peer.open) return;
      const reply = { ...(m.id !== undefined ? { id: m.id } : {}) };
      const name = parseChannel(m.channel);
      const channel = name ? formatChannel(name) : m.channel;
      if (m.type === 'unsubscribe') {
        subscriptions.get(channel)?.close();
        subscriptions.delete(channel);
        return peer.send({ type: 'unsubscribed', channel, ...reply, ts: now() });
      }
      if (!name) {
        return peer.refuse(errorMessage('VALIDATION_ERROR', 'Unknown channel: game:<id>, user:<your id>, tournament:<id> or lobby', { channel, ...reply, details: { channel: ['is not a channel'] } }));
      }
      if (subscriptions.has(channel)) return peer.send({ type: 'subscribed', channel, ...reply, ts: now() });
      if (subscriptions.size >= MAX_CHANNELS) {
        return peer.send(errorMessage('VALIDATION_ERROR', `At most ${MAX_CHANNELS} channels per socket`, { channel, ...reply }));
      }
      return new Promise<void>((done) => {
        const subscription = openChannel(channelDeps, {
          channel,
          name,
          token: m.token,
          send: (text) => peer.send(text),
          subscribed: () => {
            peer.send({ type: 'subscribed', channel, ...reply, ts: now() });
            done();
          },
          refused: (code, message) => {
            if (subscriptions.get(channel) === subscription) subscriptions.delete(channel);
            peer.send(errorMessage(code, message, { channel, ...reply }));
            done();
          },
          ended: () => {
            if (subscriptions.get(channel) === subscription) subscriptions.delete(channel);
            done();
          },
        });
        subscriptions.set(channel, subscription);
      });
    }
  }

  // ---- the HTTP forms (DESIGN 2.12) ------------------------------------------------------------

  /** Counts an HTTP stream as one of `user`'s sockets until it closes; RATE_LIMIT_EXCEEDED past the cap. */
  function countHttpAsUser(peer: HttpPeer, user: AuthUser): void {
    const release = caps.admitUser(user.id);
    if (!release) throw new AppError('RATE_LIMIT_EXCEEDED', overUserCap());
    peer.onClose(release);
  }

  /** DESIGN 2.12: an HTTP stream ends with its credential, its last line the error UNAUTHORIZED (with `channel` on the user channel's). */
  function endWithCredential(peer: HttpPeer, user: AuthUser, channel?: string): void {
    peer.onClose(deps.credentials.watch(user, (why) => peer.refuse(new AppError('UNAUTHORIZED', CREDENTIAL_ENDED[why]), now(), channel)));
  }

  /**
   * The game stream over HTTP: the socket's messages, in its order, one per line; the same token,
   * `since` and viewer (a player's token brings the player room's chat). The 200 goes out with
   * the first message, so a refusal before it (400, 401, 404, 429) is an ordinary HTTP error.
   */
  async function streamOverHttp(peer: HttpPeer, req: IncomingMessage, url: URL, requestedId: string): Promise<void> {
    const since = parseSince(url);
    if (since === null) throw new AppError('VALIDATION_ERROR', INVALID_SINCE.message, INVALID_SINCE.details);
    const token = url.searchParams.get('token') ?? bearerToken(req.headers.authorization);
    const viewer = token ? await deps.authenticate(token) : undefined;
    if (viewer) {
      countHttpAsUser(peer, viewer);
      endWithCredential(peer, viewer);
    }
    const gameId = parseId(requestedId);
    if (!gameId) throw new AppError('GAME_NOT_FOUND', 'Game not found');
    if (!peer.open) return;
    const watch = watchGame(gameId, gameReader(viewer), since, {
      send: (m) => peer.send(m.json),
      ended: () => peer.end(),
      failed: (err) => peer.refuse(err, now()),
    });
    peer.onClose(() => watch.close());
    await watch.start();
  }

  /**
   * The caller's user channel over HTTP: what a realtime socket subscribed to `user:<their id>`
   * is sent (each message with its `channel`), one per line; the 200 is the `subscribed`.
   */
  async function eventsOverHttp(peer: HttpPeer, req: IncomingMessage, url: URL): Promise<void> {
    const token = bearerToken(req.headers.authorization) ?? url.searchParams.get('token');
    if (!token) throw new AppError('UNAUTHORIZED', 'Missing or invalid access token');
    const user = await deps.authenticate(token);
    // The user channel's own check, the one a subscription to `user:<id>` on a realtime socket passes.
    const refusal = userChannelRefusal(user, user.id);
    if (refusal) throw new AppError(refusal.code, refusal.message, refusal.details);
    countHttpAsUser(peer, user);
    endWithCredential(peer, user, formatChannel({ kind: 'user', id: user.id }));
    if (!peer.open) return;
    const name = { kind: 'user', id: user.id } as const;
    const channel = formatChannel(name);
    const subscription = await userChannel(
      nodeChannelDeps,
      {
        channel,
        name,
        token,
        send: (json) => peer.send(json),
        subscribed: () => peer.begin(),
        refused: (code, message) => peer.refuse(new AppError(code, message), now(), channel),
        ended: () => peer.end(),
      },
      user,
    );
    peer.onClose(() => subscription.close());
  }

  return {
    serveHttp(req, res, next) {
      if (req.method !== 'GET' || req.headers.upgrade) return next();
      const url = pathOf(req);
      const game = STREAM_PATH.exec(url.pathname);
      const events = !game && EVENTS_PATH.test(url.pathname);
      if (!events && !(game && acceptsNdjson(req.headers.accept))) return next();
      // One place for each of the address's sockets and HTTP streams together.
      const release = caps.admitAddress(addressOf(req));
      if (!release) return next(new AppError('RATE_LIMIT_EXCEEDED', overAddressCap()));
      const peer = new HttpPeer(res, limits.maxBufferedBytes, next);
      httpPeers.add(peer);
      peer.onClose(() => {
        httpPeers.delete(peer);
        release();
      });
      (game ? streamOverHttp(peer, req, url, game[1]) : eventsOverHttp(peer, req, url)).catch((error) => {
        if (peer.live && !isAppError(error)) log.warn({ err: error }, 'HTTP stream failed');
        peer.refuse(error, now());
      });
    },
    handles: (req) => {
      const path = pathOf(req).pathname;
      return REALTIME_PATHS.has(path) || STREAM_PATH.test(path);
    },
    upgrade(req, socket, head) {
      // Counted before the handshake: a refused address costs no WebSocket.
      const release = caps.admitAddress(addressOf(req));
      if (!release) return refuseUpgrade(socket, new AppError('RATE_LIMIT_EXCEEDED', overAddressCap()));
      socket.once('close', release);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const stream = STREAM_PATH.exec(pathOf(req).pathname);
        if (!stream) return serveChannels(ws);
        const peerFailed = (err: unknown) => {
          log.warn({ err }, 'stream failed');
          ws.send(formatServerMessage(errorMessage('SERVICE_UNAVAILABLE', 'Try again')), () => ws.close(1011, 'try again'));
        };
        serveStream(ws, req, stream[1]).catch(peerFailed);
      });
    },
    admitOther(req) {
      const release = caps.admitAddress(addressOf(req));
      // An upgrade's request carries its socket: the place is held for as long as it is open.
      if (!release) return (refuseUpgrade(req.socket, new AppError('RATE_LIMIT_EXCEEDED', overAddressCap())), false);
      req.socket.once('close', release);
      return true;
    },
    async close() {
      deps.clock.clearTimeout(heartbeat);
      deps.clock.clearTimeout(keepAlive);
      const closed = [...peers].map((p) => new Promise<void>((resolve) => (p.ws.once('close', () => resolve()), p.close(CLOSE.RESTART, 'service restarting'))));
      // An HTTP stream has no close code: its last line says the service restarts.
      const restarting = new AppError('SERVICE_UNAVAILABLE', 'The service is restarting: connect again', undefined, { retryAfter: 1 });
      for (const p of httpPeers) closed.push(new Promise<void>((resolve) => (p.onClose(resolve), p.refuse(restarting, now()))));
      // Node's timer, not the clock: a bound on a real shutdown, which must end however tests drive time.
      await Promise.race([Promise.all(closed), new Promise((r) => setTimeout(r, 2000))]);
      for (const p of peers) p.ws.terminate();
      for (const p of httpPeers) p.res.destroy();
      wss.close();
    },
    stats: () => {
      let sockets = 0;
      for (const p of peers) if (p.open) sockets++;
      for (const p of httpPeers) if (p.open) sockets++;
      return { sockets, channels: hub.size };
    },
  };
}

/** A close frame's reason for an ended credential (the error message before it says more). */
const credentialClose = (why: CredentialEnd) => (why === 'expired' ? 'token expired' : 'token revoked');

const INVALID_SINCE = { message: 'since must be an event number (an integer ≥ 0)', details: { since: ['must be an integer ≥ 0'] } };

/** `?since=`: the event number, undefined when absent, null when it is none. */
function parseSince(url: URL): number | undefined | null {
  const text = url.searchParams.get('since');
  if (text === null) return undefined;
  const since = Number(text);
  return Number.isInteger(since) && since >= 0 ? since : null;
}

/** Answers an upgrade with the error envelope instead of a socket (HTTP 429 for the caps). */
function refuseUpgrade(socket: Duplex, error: AppError): void {
  const body = JSON.stringify({ success: false, error: error.toJSON() });
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
