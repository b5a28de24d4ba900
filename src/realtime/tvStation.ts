import type { NumberedEvent } from '../domain/liveGameViews.ts';
import type { Logger } from '../logger.ts';
import { channels, type ChannelEvents } from '../services/channelEvents.ts';
import { tvPosition, type FeaturedGameView } from '../services/watching.ts';
import type { Clock, TimerHandle } from '../time.ts';
import { Relayed, type ChannelHub } from './hub.ts';
import { formatServerMessage, type TvFeatured, type TvMessage } from './messages.ts';

/** How often a node with TV viewers reads the featured game again: what a lost `game_end` or a first live game waits at most. */
export const TV_RECHECK_MS = 2000;

const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** One viewer of the TV: a `tv` subscription of a realtime socket, or a `GET /tv/feed` stream. */
export type TvViewer = { send: (message: Relayed<TvMessage>) => void };

export type TvStationDeps = {
  hub: ChannelHub;
  clock: Clock;
  log: Logger;
  /** The featured game, the same on every node (src/services/watching.ts); null while none is live. */
  featured: () => Promise<FeaturedGameView | null>;
  recheckMs?: number;
};

/**
 * The TV of one node (DESIGN 2.14): however many viewers it has, it follows the featured game
 * once (one subscription to its `game:<id>` channel, one message made per move for all of them)
 * and only while someone watches. Which game is featured is not decided here but read
 * (`featured`: PostgreSQL, a compare and set, so every node shows the same game): again when the
 * followed game ends, and every TV_RECHECK_MS, which repairs a lost `game_end` and finds the
 * first live game after none.
 */
export class TvStation {
  /** Viewers that were sent the current `featured`; the others wait for it. */
  private readonly viewers = new Map<TvViewer, { ready: boolean }>();
  private game: FeaturedGameView | null | undefined;
  private following: { gameId: string; stop: () => void } | undefined;
  private turn: Promise<void> = Promise.resolve();
  private timer: TimerHandle | undefined;

  constructor(private readonly deps: TvStationDeps) {}

  /**
   * Adds a viewer: it is sent `featured` (at once when the station knows it, else once it is
   * read), then every `fen` and `featured` after it. Returns the way to leave.
   */
  join(viewer: TvViewer): () => void {
    const first = this.viewers.size === 0;
    this.viewers.set(viewer, { ready: false });
    if (this.game !== undefined && !first) this.welcome(viewer);
    else if (first) void this.refresh();
    return () => this.leave(viewer);
  }

  /** Viewers on this node (metrics, tests). */
  get size(): number {
    return this.viewers.size;
  }

  private leave(viewer: TvViewer): void {
    if (!this.viewers.delete(viewer) || this.viewers.size > 0) return;
    // Nobody watches here: no subscription, no timer, nothing remembered.
    this.unfollow();
    this.game = undefined;
    this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reads the featured game again, after the reads before it. */
  private refresh(): Promise<void> {
    this.turn = this.turn.then(
      () => this.pick(),
      () => this.pick(),
    );
    return this.turn.catch((error) => this.deps.log.warn({ err: error }, 'the TV could not read the featured game'));
  }

  private async pick(): Promise<void> {
    this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.viewers.size === 0) return;
    try {
      const game = await this.deps.featured();
      if (this.viewers.size === 0) return;
      const id = game?.id ?? null;
      if (this.game !== undefined && id === (this.game?.id ?? null)) {
        for (const [viewer, state] of this.viewers) if (!state.ready) this.welcome(viewer);
        return;
      }
      this.unfollow();
      if (game) {
        // Listened to before it is announced: a move in between is queued, then sent after `featured`.
        const queued: Relayed<ChannelEvents['game']>[] = [];
        let announced = false;
        const stop = await this.deps.hub.listen(channels.game(game.id), (m) => (announced ? this.arrive(game.id, m) : queued.push(m)));
        if (this.viewers.size === 0) return stop();
        this.following = { gameId: game.id, stop };
        this.game = game;
        this.announce();
        announced = true;
        for (const m of queued) this.arrive(game.id, m);
      } else {
        this.game = null;
        this.announce();
      }
    } finally {
      if (this.viewers.size > 0) this.timer = this.deps.clock.setTimeout(() => void this.refresh(), this.deps.recheckMs ?? TV_RECHECK_MS);
    }
  }

  /** An event of the followed game: a position to send, or its end (the next game is read). */
  private arrive(gameId: string, m: Relayed<ChannelEvents['game']>): void {
    if (this.following?.gameId !== gameId || !this.game) return;
    const event = m.data as unknown as NumberedEvent;
    if (event.type === 'game_end') return void this.refresh();
    const position = tvPosition(event);
    if (!position) return;
    // A viewer who comes later starts from this position.
    this.game = { ...this.game, fen: position.fen, last_move: position.last_move };
    const message = relayed({ type: 'fen', game_id: gameId, ...position, ts: this.deps.clock.now() });
    for (const [viewer, state] of this.viewers) if (state.ready) viewer.send(message);
  }

  /** The featured game changed: every viewer is told. */
  private announce(): void {
    const message = relayed(this.featuredMessage());
    for (const [viewer, state] of this.viewers) {
      state.ready = true;
      viewer.send(message);
    }
  }

  private welcome(viewer: TvViewer): void {
    const state = this.viewers.get(viewer);
    if (!state || state.ready) return;
    state.ready = true;
    viewer.send(relayed(this.featuredMessage()));
  }

  private featuredMessage(): TvFeatured {
    const g = this.game;
    const ts = this.deps.clock.now();
    if (!g) return { type: 'featured', game_id: null, players: null, orientation: 'white', fen: START_FEN, last_move: null, ts };
    return { type: 'featured', game_id: g.id, players: g.players, orientation: g.orientation, fen: g.fen, last_move: g.last_move, ts };
  }

  private unfollow(): void {
    this.following?.stop();
    this.following = undefined;
  }
}

const relayed = (message: TvMessage): Relayed<TvMessage> => new Relayed<TvMessage>(formatServerMessage(message), message);
