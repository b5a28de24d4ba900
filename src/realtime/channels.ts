import { gameReader, hasScope, type AuthUser } from '../auth/scopes.ts';
import { isAppError, type ErrorCode, type ErrorDetails } from '../errors.ts';
import { channels, type ChannelEvents } from '../services/channelEvents.ts';
import { CREDENTIAL_ENDED } from '../services/liveCredentials.ts';
import { INTERNAL_USER_EVENTS } from '../services/userEvents.ts';
import type { GameTicks } from './gameTicks.ts';
import { GameWatch } from './gameWatch.ts';
import type { ChannelHub, Relayed } from './hub.ts';
import type { RealtimeDeps } from './deps.ts';
import { formatServerMessage, type ChannelMessage, type ChannelName, type RelayedUserEvent, type Wire } from './messages.ts';

/** What a subscription needs: the realtime deps it uses, the node's hub and game ticks, and its settings resolved. */
export type ChannelDeps = Pick<
  RealtimeDeps,
  'clock' | 'log' | 'authenticate' | 'credentials' | 'hold' | 'snapshot' | 'missed' | 'watching' | 'openSeeks' | 'tournamentExists'
> & { hub: ChannelHub; ticks: GameTicks; now: () => number };

export type ChannelOptions = {
  /** formatChannel(name): what it listens to on the bus and names in every message. */
  channel: string;
  name: ChannelName;
  token: string | undefined;
  /** Sends a message of this channel (JSON with `channel`). */
  send: (json: Wire<ChannelMessage>) => void;
  /** The subscription is live: `subscribed` goes out before its first message. */
  subscribed: () => void;
  /** The subscription is refused or taken away: `{type: 'error', code, channel}`. */
  refused: (code: ErrorCode, message: string) => void;
  /** The subscription ended on its own (the game ended). */
  ended: () => void;
};

export type Subscription = { close: () => void };

/**
 * One subscription of a realtime socket (DESIGN 2.6). `game:<id>`: the stream's messages with
 * `channel` (watching is public; a pending game, and the player chat, need one of its players'
 * tokens, with games:read if it is a personal one). `user:<id>`: the user's own personal events,
 * with a token of that user. `lobby`: the open seeks (`seeks` first, then `seek_added` /
 * `seek_removed`). `tournament:<id>`: an arena's `pairing` and `standings` messages (DESIGN
 * 2.10), for any valid token. A subscription opened with a token ends with it (DESIGN 2.12):
 * revoked or expired, it is refused UNAUTHORIZED (the socket stays for the others).
 */
export function openChannel(deps: ChannelDeps, options: ChannelOptions): Subscription {
  let closed = false;
  let inner: Subscription | undefined;
  let stopWatch: (() => void) | undefined;
  const guard = (s: Subscription) => (closed ? s.close() : (inner = s));
  const close = () => {
    closed = true;
    stopWatch?.();
    inner?.close();
  };
  // Nothing more goes out once the client unsubscribed, even what was on its way; a subscription
  // refused or ended is no longer watched.
  const o: ChannelOptions = {
    ...options,
    send: (json) => !closed && options.send(json),
    subscribed: () => !closed && options.subscribed(),
    refused: (code, message) => !closed && (stopWatch?.(), options.refused(code, message)),
    ended: () => !closed && (stopWatch?.(), options.ended()),
  };
  // Started on the next tick, so the caller holds the subscription before any callback runs.
  void Promise.resolve().then(async () => {
    let user: AuthUser | undefined;
    if (o.token) {
      try {
        user = await deps.authenticate(o.token);
      } catch (error) {
        // RATE_LIMIT_EXCEEDED: the token's user holds as many sockets as they may.
        if (isAppError(error) && error.code === 'RATE_LIMIT_EXCEEDED') return o.refused(error.code, error.message);
        if (!isAppError(error) || error.code !== 'UNAUTHORIZED') throw error;
        return o.refused('UNAUTHORIZED', 'Invalid or expired access token');
      }
    }
    if (closed) return;
    if (user) {
      stopWatch = deps.credentials.watch(user, (why) => {
        close();
        options.refused('UNAUTHORIZED', CREDENTIAL_ENDED[why]);
      });
    }
    switch (o.name.kind) {
      case 'game':
        // Without games:read a personal token watches as anyone does (DESIGN 2.12).
        return guard(await gameChannel(deps, o, o.name.id, gameReader(user)));
      case 'user': {
        const refusal = userChannelRefusal(user, o.name.id);
        if (refusal) return o.refused(refusal.code, refusal.message);
        return guard(await userChannel(deps, o, user!));
      }
      case 'lobby':
        return guard(await lobbyChannel(deps, o));
      case 'tournament':
        if (!user) return o.refused('UNAUTHORIZED', 'A tournament channel needs an access token');
        return guard(await tournamentChannel(deps, o, o.name.id));
    }
  }).catch((err) => {
    deps.log.warn({ err, channel: o.channel }, 'subscription failed');
    o.refused('SERVICE_UNAVAILABLE', 'Could not subscribe; try again');
  });
  return { close };
}

const NONE: Subscription = { close: () => {} };

async function gameChannel(deps: ChannelDeps, o: ChannelOptions, gameId: string, user: AuthUser | undefined): Promise<Subscription> {
  let announced = false;
  const watch = new GameWatch(
    { hub: deps.hub, ticks: deps.ticks, snapshot: () => deps.snapshot(user?.id, gameId), missed: (after) => deps.missed(gameId, after), watching: () => deps.watching?.(gameId), now: deps.now },
    {
      gameId,
      viewerId: user?.id,
      send: (m) => {
        if (!announced) {
          announced = true;
          o.subscribed();
        }
        o.send(m.withChannel(o.channel));
      },
      ended: o.ended,
      failed: () => o.refused('SERVICE_UNAVAILABLE', 'The game could not be read; subscribe again'),
    },
  );
  try {
    await watch.start();
  } catch (error) {
    if (isAppError(error) && error.code === 'GAME_NOT_FOUND') {
      o.refused('GAME_NOT_FOUND', 'Game not found');
      return NONE;
    }
    throw error;
  }
  return watch;
}

/**
 * Whether `user` (who presented a token, if anyone) may hear `user:<id>`: the one check of both
 * forms of the user channel, the realtime socket's subscription and `GET /stream/events`.
 */
export function userChannelRefusal(user: AuthUser | undefined, id: string): { code: ErrorCode; message: string; details?: ErrorDetails } | undefined {
  if (!user) return { code: 'UNAUTHORIZED', message: 'A user channel needs that user\u2019s access token' };
  if (user.id !== id) return { code: 'FORBIDDEN', message: 'Only your own user channel' };
  // DESIGN 2.12: a personal token needs games:read for its user's personal events, in either form.
  if (!hasScope(user, 'games:read')) {
    return { code: 'MISSING_SCOPE', message: 'This personal access token lacks the scope games:read', details: { scope: ['games:read'] } };
  }
  return undefined;
}

/**
 * `user:<id>` for its own user: their personal events. It ends with the credential it was opened
 * with, as every subscription does (openChannel, and GET /stream/events itself).
 */
export async function userChannel(deps: Pick<ChannelDeps, 'hub' | 'hold'>, o: ChannelOptions, user: AuthUser): Promise<Subscription> {
  // An open user channel is a live socket: its user is online for as long as it stays open.
  let release = deps.hold?.(user.id);
  let stop: (() => void) | undefined = await deps.hub.listen(channels.user(user.id), (m) => {
    if (relayable(m)) o.send(m.withChannel(o.channel));
  });
  o.subscribed();
  return {
    close() {
      stop?.();
      stop = undefined;
      release?.();
      release = undefined;
    },
  };
}

/** The user events a socket may see: the internal ones stay on the bus. */
const relayable = (m: Relayed<ChannelEvents['user']>): m is Relayed<RelayedUserEvent> => !INTERNAL_USER_EVENTS.has(m.type as ChannelEvents['user']['type']);

async function tournamentChannel(deps: ChannelDeps, o: ChannelOptions, tournamentId: string): Promise<Subscription> {
  const queued: Relayed<ChannelEvents['tournament']>[] = [];
  let ready = false;
  // Listen first, then look the tournament up: what is published meanwhile follows `subscribed`.
  const stop = await deps.hub.listen(channels.tournament(tournamentId), (m) => (ready ? o.send(m.withChannel(o.channel)) : queued.push(m)));
  let exists: boolean;
  try {
    exists = (await deps.tournamentExists?.(tournamentId)) ?? true;
  } catch (error) {
    stop();
    throw error;
  }
  if (!exists) {
    stop();
    o.refused('TOURNAMENT_NOT_FOUND', 'Tournament not found');
    return NONE;
  }
  o.subscribed();
  ready = true;
  for (const m of queued.splice(0)) o.send(m.withChannel(o.channel));
  return { close: stop };
}

async function lobbyChannel(deps: ChannelDeps, o: ChannelOptions): Promise<Subscription> {
  const queued: Relayed<ChannelEvents['lobby']>[] = [];
  let loading = true;
  // Listen first, then read the open seeks: a change in between is seen by one or the other.
  const stop = await deps.hub.listen(channels.lobby, (m) => (loading ? queued.push(m) : o.send(m.withChannel(o.channel))));
  try {
    const seeks = await deps.openSeeks();
    o.subscribed();
    o.send(formatServerMessage({ channel: o.channel, type: 'seeks', seeks, ts: deps.now() }));
  } catch (error) {
    stop();
    throw error;
  }
  loading = false;
  for (const m of queued.splice(0)) o.send(m.withChannel(o.channel));
  return { close: stop };
}
