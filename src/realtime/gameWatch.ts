import type { GameSnapshot } from '../services/games.ts';
import type { ChannelHub } from './hub.ts';
import { Relayed } from './hub.ts';

export type GameWatchDeps = {
  hub: ChannelHub;
  /** The game as the viewer may see it, with its event number; throws GAME_NOT_FOUND. */
  snapshot: () => Promise<GameSnapshot>;
  /** Published numbered events after `after` (JSON), or undefined when the buffer does not reach back. */
  missed: (after: number) => Promise<string[] | undefined>;
  now: () => number;
};

export type GameWatchOptions = {
  gameId: string;
  /** Resume after this event number (`?since=v`): replay what was missed instead of a fresh state. */
  since?: number;
  /** Sends one message; `Relayed` carries its JSON (and the channel variant). */
  send: (message: Relayed) => void;
  /** After game_end: the stream closes, the channel subscription ends. */
  ended: () => void;
  /** The game could not be read to repair a hole (the database failed): the viewer should come back with `since`. */
  failed: (error: unknown) => void;
};

const FINISHED = new Set(['finished', 'abandoned']);
/** A published event as the replay buffer kept it (JSON). */
const relayed = (json: string) => new Relayed(json, JSON.parse(json));

/**
 * One viewer's view of one game's events, in order and without a hole (DESIGN 2.6): `state`
 * first (or, with `since`, the events missed since then), then every numbered event exactly once
 * in `v` order, the after-move `time_update` derived from each `move`, the room's periodic
 * `time_update`s, and `game_end` last. Events arrive on the game's channel; one that skips a
 * number (a message lost, a game rehydrated elsewhere) is repaired from the replay buffer, else
 * by a fresh `state`. A pending game's status change (accepted, declined, …) sends a fresh state.
 */
export class GameWatch {
  private lastV = -1;
  private busy = true; // loading or repairing: arrivals wait in the queue
  private queue: Relayed[] = [];
  private done = false;
  private stop: (() => void) | undefined;

  constructor(
    private readonly deps: GameWatchDeps,
    private readonly o: GameWatchOptions,
  ) {}

  /** Subscribes (first, so nothing published meanwhile is lost), then sends the start. Throws GAME_NOT_FOUND. */
  async start(): Promise<void> {
    const stop = await this.deps.hub.listen(`game:${this.o.gameId}`, (m) => this.arrive(m));
    if (this.done) return stop(); // closed while subscribing
    this.stop = stop;
    try {
      const snapshot = await this.deps.snapshot();
      const since = this.o.since;
      const resumed = since !== undefined && since <= snapshot.v && (await this.resume(since, snapshot.v));
      if (!resumed) this.sendState(snapshot);
    } catch (error) {
      this.close();
      throw error;
    }
    this.drain();
  }

  /** Stops listening (the socket closed, or unsubscribed). */
  close(): void {
    this.done = true;
    this.queue = [];
    this.stop?.();
    this.stop = undefined;
  }

  // ---- internals --------------------------------------------------------------------------

  private arrive(m: Relayed): void {
    if (this.done) return;
    if (this.busy) return void this.queue.push(m);
    this.handle(m);
  }

  /** A message in the live phase. */
  private handle(m: Relayed): void {
    if (this.done) return;
    if (m.type === 'status') return void this.refresh();
    if (m.type === 'time_update') {
      if (m.v >= this.lastV) this.o.send(m);
      return;
    }
    if (m.v <= this.lastV) return; // seen already (the state had it, or a replay did)
    if (m.v === this.lastV + 1) return this.deliver(m);
    this.queue.unshift(m);
    void this.repair();
  }

  private deliver(m: Relayed): void {
    this.lastV = m.v;
    this.o.send(m);
    const data = m.data as { type: string; times?: unknown; ts?: unknown };
    // The clocks after a move, as their own message (DESIGN 2.6: a time_update after each move).
    if (data.type === 'move') this.o.send(Relayed.of({ type: 'time_update', times: data.times, v: m.v, ts: data.ts }));
    if (data.type === 'game_end') this.finish();
  }

  /** With `since`: the events after it, if the buffer holds all of them up to the snapshot. */
  private async resume(since: number, current: number): Promise<boolean> {
    const missed = await this.deps.missed(since);
    if (!missed) return false;
    const events = missed.map(relayed);
    if ((events.at(-1)?.v ?? since) < current) return false;
    this.lastV = since;
    for (const e of events) if (!this.done) this.handleOrdered(e);
    return true;
  }

  /** A hole before the first queued event: fill it from the buffer, else start again from a fresh state. */
  private async repair(): Promise<void> {
    this.busy = true;
    try {
      const missed = await this.deps.missed(this.lastV);
      const events = missed?.map(relayed);
      if (events && events.length > 0 && events[0].v === this.lastV + 1) {
        for (const e of events) this.handleOrdered(e);
      } else {
        this.sendState(await this.deps.snapshot());
      }
    } catch (error) {
      return this.fail(error);
    }
    this.drain();
  }

  /** A pending game started or was abandoned: a fresh state (and game_end if it is over). */
  private async refresh(): Promise<void> {
    this.busy = true;
    try {
      this.sendState(await this.deps.snapshot());
    } catch (error) {
      return this.fail(error);
    }
    this.drain();
  }

  private fail(error: unknown): void {
    if (this.done) return;
    this.close();
    this.o.failed(error);
  }

  private handleOrdered(e: Relayed): void {
    if (e.v === this.lastV + 1) this.deliver(e);
  }

  /** Runs what arrived while busy, in order; stops again if that needs another repair. */
  private drain(): void {
    this.busy = false;
    while (this.queue.length && !this.busy && !this.done) this.handle(this.queue.shift()!);
  }

  private sendState(s: GameSnapshot): void {
    if (this.done) return;
    this.lastV = s.v;
    const ts = this.deps.now();
    this.o.send(Relayed.of({ type: 'state', game: s.game, v: s.v, ts }));
    if (!FINISHED.has(s.game.status)) return;
    const g = s.game;
    this.o.send(
      Relayed.of({
        type: 'game_end',
        status: g.status,
        abort_reason: g.abort_reason,
        result: { result: g.result, winner: g.winner, termination: g.termination, rating_changes: g.rating_changes ?? { white: 0, black: 0 } },
        v: s.v,
        ts,
      }),
    );
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.close();
    this.o.ended();
  }
}
