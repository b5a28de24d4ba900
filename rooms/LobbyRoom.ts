import { logger, Room, type Client } from '@colyseus/core';
import { gameReader, type AuthUser } from '../src/auth/scopes.ts';
import type { EventBus } from '../src/events.ts';
import { channels, type ChannelEvents } from '../src/services/channelEvents.ts';
import type { LiveCredentials } from '../src/services/liveCredentials.ts';
import { formatChallenge, formatSeek, type LobbyReads, type SeekView } from '../src/services/seekViews.ts';
import { Timers } from '../src/services/timers.ts';
import type { Clock } from '../src/time.ts';
import { refuseUnknownMessage, type LobbyServerMessages } from './messages.ts';
import { LobbyState, SeekState } from './schema/LobbyState.ts';
import { SeatCredentials } from './seatCredentials.ts';

// The sweeper abandons seeks in the database but need not publish it: drop them here on time.
const PRUNE_INTERVAL_MS = 1000;
const RECONNECT_SECONDS = 20;

export type LobbyRoomDeps = {
  reads: LobbyReads;
  events: EventBus;
  authenticate: (token: string) => Promise<AuthUser>;
  /** Seeks' expiries are compared with its time, and pruning runs on its timers. */
  clock: Clock;
  /** DESIGN 2.12: a socket lives no longer than the credential it joined with. */
  credentials: Pick<LiveCredentials, 'watch' | 'check'>;
};

type Watcher = {
  /** A signed-in watcher whose token may read their challenges (a personal one needs games:read). */
  userId?: string;
  unsubscribe?: () => void;
  /** A challenge list is being loaded; `reload` asks for another one after it. */
  loading?: boolean;
  reload?: boolean;
};
type LobbyClient = Client<{ userData: Watcher; auth: { user?: AuthUser }; messages: LobbyServerMessages }>;

/**
 * The live list of open seeks, fed by the `lobby:seeks` channel, plus each logged-in watcher's
 * own pending challenges (re-sent when its `user:<id>` channel says they changed) and its
 * `game_started` events. Read-only: clients send nothing here.
 */
export class LobbyRoom extends Room<{ state: LobbyState; client: LobbyClient }> {
  static deps: LobbyRoomDeps;

  // Patches go out right after each change; the interval is only a backstop.
  override patchRate = 2000;
  override maxMessagesPerSecond = 20;

  private unsubscribeLobby?: () => void;
  private timers?: Timers<'prune'>;
  private patchScheduled = false;
  /** While the snapshot loads: ids removed meanwhile, which the (older) snapshot must not revive. */
  private removedWhileLoading?: Set<string>;
  private readonly seats = new SeatCredentials(this, () => LobbyRoom.deps.credentials);

  static override async onAuth(token: string, options: { token?: string }): Promise<{ user?: AuthUser }> {
    const bearer = token || options?.token;
    // No token: an anonymous watcher. A bad token is refused rather than silently downgraded.
    if (!bearer) return {};
    return { user: await LobbyRoom.deps.authenticate(bearer) };
  }

  override async onCreate(): Promise<void> {
    const { reads, events } = LobbyRoom.deps;
    this.state = new LobbyState();
    // Subscribe first, then read the table: a change made in between is seen by one or the other.
    this.removedWhileLoading = new Set();
    this.unsubscribeLobby = await events.subscribe(channels.lobby, (event) => this.onLobbyEvent(event));
    try {
      for (const seek of await reads.openSeeks()) {
        if (!this.removedWhileLoading.has(seek.id)) this.state.seeks.set(seek.id, toSeekState(formatSeek(seek)));
      }
    } catch (error) {
      this.unsubscribeLobby();
      throw error;
    }
    this.removedWhileLoading = undefined;
    this.timers = new Timers(LobbyRoom.deps.clock);
    this.timers.every('prune', PRUNE_INTERVAL_MS, () => this.prune());
    this.onMessage('*', refuseUnknownMessage);
  }

  override async onJoin(client: LobbyClient, _options: unknown, auth?: { user?: AuthUser }): Promise<void> {
    // DESIGN 2.12: without games:read a personal token is sent no challenges (nor game_started).
    const userId = gameReader(auth?.user)?.id;
    client.userData = { userId };
    this.seats.follow(client, auth?.user);
    if (!userId) return;
    // onLeave runs even when the socket closes during this await, and finds the unsubscribe.
    client.userData.unsubscribe = await LobbyRoom.deps.events.subscribe(channels.user(userId), (event) =>
      this.onUserEvent(client, event),
    );
    void this.sendChallenges(client);
  }

  override async onDrop(client: LobbyClient): Promise<void> {
    await this.seats.waitForReconnection(client, RECONNECT_SECONDS);
  }

  override async onReconnect(client: LobbyClient): Promise<void> {
    await this.seats.recheck(client); // a token that ended meanwhile is refused (UNAUTHORIZED)
    // The seeks come with the state; challenge changes sent while away are lost, so send them again.
    void this.sendChallenges(client);
  }

  override onLeave(client: LobbyClient): void {
    this.seats.forget(client);
    client.userData?.unsubscribe?.();
    if (client.userData) client.userData.unsubscribe = undefined;
  }

  override onDispose(): void {
    this.seats.forgetAll();
    this.timers?.clearAll();
    this.unsubscribeLobby?.();
  }

  // ---- internals ----------------------------------------------------------------------------

  private onLobbyEvent(event: ChannelEvents['lobby']): void {
    if (event?.type === 'seek_added' && typeof event.seek?.id === 'string') {
      this.state.seeks.set(event.seek.id, toSeekState(event.seek));
    } else if (event?.type === 'seek_removed' && typeof event.id === 'string') {
      this.removedWhileLoading?.add(event.id);
      this.state.seeks.delete(event.id);
    } else {
      return;
    }
    this.schedulePatch();
  }

  private onUserEvent(client: LobbyClient, event: ChannelEvents['user']): void {
    if (event?.type === 'challenges_changed') void this.sendChallenges(client);
    else if (event?.type === 'game_started') client.send('game_started', event);
  }

  /** One patch per turn of the event loop, however many seeks a burst of pairings removed. */
  private schedulePatch(): void {
    if (this.patchScheduled) return;
    this.patchScheduled = true;
    setImmediate(() => {
      this.patchScheduled = false;
      this.broadcastPatch();
    });
  }

  private prune(now = LobbyRoom.deps.clock.now()): void {
    const expired: string[] = [];
    this.state.seeks.forEach((seek, id) => {
      if (seek.expiresAt <= now) expired.push(id);
    });
    for (const id of expired) this.state.seeks.delete(id);
    if (expired.length) this.broadcastPatch();
  }

  /** Loads and sends the watcher's challenges; changes during a load cause one more load after it. */
  private async sendChallenges(client: LobbyClient): Promise<void> {
    const watcher = client.userData;
    if (!watcher?.userId) return;
    if (watcher.loading) {
      watcher.reload = true;
      return;
    }
    watcher.loading = true;
    try {
      do {
        watcher.reload = false;
        const userId = watcher.userId!;
        const challenges = (await LobbyRoom.deps.reads.pendingChallenges(userId)).map((c) => formatChallenge(c, userId));
        if (!watcher.unsubscribe) return; // the client left meanwhile
        client.send('challenges', { challenges });
      } while (watcher.reload);
    } catch (err) {
      logger.warn({ err, userId: watcher.userId }, 'lobby: could not load challenges');
      client.send('error', { code: 'SERVICE_UNAVAILABLE', message: 'Could not load your challenges' });
    } finally {
      watcher.loading = false;
    }
  }
}

function toSeekState(v: SeekView): SeekState {
  const s = new SeekState();
  s.id = v.id;
  s.userId = v.user.id;
  s.username = v.user.username;
  s.rating = v.user.rating;
  s.timeControl = v.time_control;
  s.initialTime = v.initial_time;
  s.increment = v.increment;
  s.rated = v.rated;
  s.color = v.color;
  s.createdAt = v.created_at;
  s.expiresAt = Date.parse(v.expires_at);
  return s;
}
