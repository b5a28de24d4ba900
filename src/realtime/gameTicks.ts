import type { Color } from '../domain/game.ts';
import { seconds, type Times } from '../domain/liveGameViews.ts';
import type { Clock, TimerHandle } from '../time.ts';
import { Relayed } from './hub.ts';
import type { GameStreamEvent } from './messages.ts';

type TimeUpdate = Relayed<GameStreamEvent>;

/** How often a watched game's running clocks are sent (DESIGN 2.6: every 5 s while they run). */
export const TIME_UPDATE_MS = 5000;

/** A game's clocks as its events told them: `times` as of `at`, the side to move's clock running when `running`. */
export type WatchedClocks = { times: Times; at: number; turn: Color; running: boolean };

/** What a watch learned from a message it delivered: the event number, and what it says of the clocks. */
export type ClockNews = { v: number } & Partial<WatchedClocks>;

export type GameTick = {
  /** Tells the game's ticker what a delivered message says (a newer event, or a newer reading of the clocks). */
  learn(news: ClockNews): void;
  leave(): void;
};

type Ticker = {
  listeners: Set<(m: TimeUpdate) => void>;
  v: number;
  clocks: WatchedClocks | undefined;
  timer: TimerHandle | undefined;
};

/**
 * The periodic `time_update`s of the games this node's sockets watch, made here instead of by
 * the game's room: a game nobody watches costs no timer and no publish, and a watched game costs
 * one timer per node however many of its sockets watch it (one message made, sent to each). The
 * clocks are extrapolated from the last event that carried them (a `state`, a `move`), so a tick
 * says what the room would have said: the current `v`, `ts` = when it was computed.
 */
export class GameTicks {
  private readonly games = new Map<string, Ticker>();

  constructor(
    private readonly clock: Clock,
    private readonly periodMs = TIME_UPDATE_MS,
  ) {}

  /** `listener` gets every tick of the game until it leaves; it drops those it is not up to (their `v`). */
  join(gameId: string, listener: (m: TimeUpdate) => void): GameTick {
    let ticker = this.games.get(gameId);
    if (!ticker) this.games.set(gameId, (ticker = { listeners: new Set(), v: -1, clocks: undefined, timer: undefined }));
    ticker.listeners.add(listener);
    const t = ticker;
    return {
      learn: (news) => this.learn(t, news),
      leave: () => {
        if (!t.listeners.delete(listener) || t.listeners.size > 0) return;
        this.clock.clearTimeout(t.timer);
        t.timer = undefined;
        if (this.games.get(gameId) === t) this.games.delete(gameId);
      },
    };
  }

  /** Games with a running ticker (metrics, tests). */
  get ticking(): number {
    let n = 0;
    for (const t of this.games.values()) if (t.timer) n++;
    return n;
  }

  private learn(t: Ticker, news: ClockNews): void {
    const { v, ...clocks } = news;
    if (v < t.v) return;
    if (v === t.v) {
      // The same event read again later (another socket's fresh state, a time_update): newer
      // clocks, same cadence. A rehydrated game's clocks change without a new event.
      if (!clocks.times || clocks.at === undefined || !t.clocks || clocks.at <= t.clocks.at) return;
      t.clocks = { ...t.clocks, ...clocks };
      return this.arm(t, false);
    }
    t.v = v;
    const merged = { ...t.clocks, ...clocks };
    t.clocks = merged.times && merged.at !== undefined && merged.turn && merged.running !== undefined ? (merged as WatchedClocks) : undefined;
    // Every event restarts the cadence, as the room's interval did when it was re-armed by each write.
    this.arm(t, true);
  }

  private arm(t: Ticker, restart: boolean): void {
    const running = t.clocks?.running === true && t.listeners.size > 0;
    if (!running || restart) {
      this.clock.clearTimeout(t.timer);
      t.timer = undefined;
    }
    if (running && !t.timer) t.timer = this.clock.setTimeout(() => this.tick(t), this.periodMs);
  }

  private tick(t: Ticker): void {
    t.timer = undefined;
    const c = t.clocks;
    if (!c?.running || t.listeners.size === 0) return;
    const now = this.clock.now();
    const times = { ...c.times };
    times[c.turn] = seconds(Math.max(0, Math.round(c.times[c.turn] * 1000) - Math.max(0, now - c.at)));
    const message = Relayed.of({ type: 'time_update', times, v: t.v, ts: now });
    t.timer = this.clock.setTimeout(() => this.tick(t), this.periodMs);
    for (const l of t.listeners) l(message);
  }
}
