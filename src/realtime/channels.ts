import type { AuthUser } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';
import { channels, type ChannelEvents } from '../services/channelEvents.ts';
import type { RealtimeDeps, SessionDeps } from './deps.ts';
import { GameWatchSession } from './gameWatchSession.ts';
import type { Relayed } from './hub.ts';
import { CLOSE, formatServerMessage, type ChannelName } from './messages.ts';
import { refused, tokenRefusal, watchCredential, type Connection } from './subscriber.ts';
import { UserChannelSession } from './userChannelSession.ts';

/** What a subscription needs: the sessions' deps, the lobby's and the arenas' reads, and the socket's `authenticate`. */
export type ChannelDeps = SessionDeps & Pick<RealtimeDeps, 'authenticate' | 'openSeeks' | 'tournamentExists'>;

export type ChannelRequest = {
  name: ChannelName;
  /** formatChannel(name): what it listens to on the bus and names in every message. */
  channel: string;
  token: string | undefined;
};

/**
 * One subscription of a realtime socket (DESIGN 2.6), its messages and its end told to
 * `subscription`. `game:<id>`: the stream's messages with `channel` (watching is public; a
 * pending game, and the player chat, need one of its players' tokens, with games:read if it is a
 * personal one). `user:<id>`: the user's own personal events, with a token of that user. `lobby`:
 * the open seeks (`seeks` first, then `seek_added` / `seek_removed`). `tournament:<id>`: an
 * arena's `pairing` and `standings` messages (DESIGN 2.10), for any valid token. `tv`: the
 * featured game (DESIGN 2.14), `featured` first, then `fen` after each move. A subscription
 * opened with a token ends with it (DESIGN 2.12): revoked or expired, it is refused UNAUTHORIZED
 * (the socket stays for the others).
 */
export function openChannel(deps: ChannelDeps, subscription: Connection, { name, channel, token }: ChannelRequest): void {
  // Started on the next tick, so the caller holds the subscription before any of it is told.
  void Promise.resolve()
    .then(async () => {
      let user: AuthUser | undefined;
      if (token) {
        try {
          user = await deps.authenticate(token);
        } catch (error) {
          return subscription.end(tokenRefusal(error));
        }
      }
      if (!subscription.open) return;
      switch (name.kind) {
        case 'game': {
          // Without games:read a personal token watches as anyone does (DESIGN 2.12).
          const session = new GameWatchSession(deps, subscription, { gameId: name.id, viewer: user, channel });
          subscription.onClose(() => session.close());
          return session.start();
        }
        case 'user': {
          const session = new UserChannelSession(deps, subscription, { user, id: name.id, channel });
          subscription.onClose(() => session.close());
          return session.start();
        }
        case 'lobby':
          if (user) subscription.onClose(watchCredential(deps.credentials, user, (ending) => subscription.end(ending)));
          return lobbyChannel(deps, subscription, channel);
        case 'tv':
          // Public, like watching a game: a token, if any, only has to be valid.
          if (user) subscription.onClose(watchCredential(deps.credentials, user, (ending) => subscription.end(ending)));
          return tvChannel(deps, subscription, channel);
        case 'tournament':
          if (!user) return subscription.end(refused(new AppError('UNAUTHORIZED', 'A tournament channel needs an access token'), CLOSE.UNAUTHORIZED, 'unauthorized'));
          subscription.onClose(watchCredential(deps.credentials, user, (ending) => subscription.end(ending)));
          return tournamentChannel(deps, subscription, channel, name.id);
      }
    })
    .catch((error) => {
      deps.log.warn({ err: error, channel }, 'subscription failed');
      subscription.end({ kind: 'failed', error });
    });
}

async function tournamentChannel(deps: ChannelDeps, subscription: Connection, channel: string, tournamentId: string): Promise<void> {
  const queued: Relayed<ChannelEvents['tournament']>[] = [];
  let ready = false;
  // Listen first, then look the tournament up: what is published meanwhile follows `subscribed`.
  subscription.onClose(await deps.hub.listen(channels.tournament(tournamentId), (m) => (ready ? subscription.send(m.withChannel(channel)) : queued.push(m))));
  if (!((await deps.tournamentExists?.(tournamentId)) ?? true)) {
    return subscription.end(refused(new AppError('TOURNAMENT_NOT_FOUND', 'Tournament not found'), CLOSE.NOT_FOUND, 'tournament not found'));
  }
  subscription.begin();
  ready = true;
  for (const m of queued.splice(0)) subscription.send(m.withChannel(channel));
}

function tvChannel(deps: ChannelDeps, subscription: Connection, channel: string): void {
  subscription.begin();
  subscription.onClose(deps.tv.join({ send: (m) => subscription.send(m.withChannel(channel)) }));
}

async function lobbyChannel(deps: ChannelDeps, subscription: Connection, channel: string): Promise<void> {
  const queued: Relayed<ChannelEvents['lobby']>[] = [];
  let loading = true;
  // Listen first, then read the open seeks: a change in between is seen by one or the other.
  subscription.onClose(await deps.hub.listen(channels.lobby, (m) => (loading ? queued.push(m) : subscription.send(m.withChannel(channel)))));
  const seeks = await deps.openSeeks();
  subscription.begin();
  subscription.send(formatServerMessage({ channel, type: 'seeks', seeks, ts: deps.now() }));
  loading = false;
  for (const m of queued.splice(0)) subscription.send(m.withChannel(channel));
}
