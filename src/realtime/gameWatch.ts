import type { Color } from '../domain/game.ts';
import type { NumberedEvent, Times } from '../domain/liveGameViews.ts';
import type { GameSnapshot } from '../services/games.ts';
import { channels, type ChannelEvents, type PresenceNews, type RoomChatEvent, type SpectatorChatEvent } from '../services/channelEvents.ts';
import type { ClockNews, GameTick, GameTicks } from './gameTicks.ts';
import type { ChannelHub } from './hub.ts';
import { Relayed } from './hub.ts';
import type { GameStreamEvent, Wire } from './messages.ts';

export type GameWatchDeps = {
  hub: ChannelHub;
  /** The node's periodic time_updates of watched games. */
  ticks: GameTicks;
  /** The game as the viewer may see it, with its event number; throws GAME_NOT_FOUND. */
  snapshot: () => Promise<GameSnapshot>;
  /** Published numbered events after `after` (JSON), or undefined when the buffer does not reach back. */
  missed: (after: number) => Promise<string[] | undefined>;
  /** This viewer begins watching: the game's events are kept for `missed` from now on. */
  watching?: () => void;
  now: () => number;
};

export type GameWatchOptions = {
  gameId: string;
  /** Who watches, when signed in: a player of the game is also sent its player-room chat. */
  viewerId?: string;
  /** Resume after this event number (`?since=v`): replay what was missed instead of a fresh state. */
  since?: number;
  /** Sends one message; `Relayed` carries its JSON (and the channel variant). */
  send: (message: Relayed<GameStreamEvent>) => void;
  /** After game_end: the stream closes, the channel subscription ends. */
  ended: () => void;
  /** The game could not be read to repair a hole (the database failed): the viewer should come back with `since`. */
  failed: (error: unknown) => void;
};

type StreamEvent = Relayed<GameStreamEvent>;
type GameChannelEvent = Relayed<ChannelEvents['game']>;
type SpectatorChat = Relayed<SpectatorChatEvent>;
const finished = (status: string): status is 'finished' | 'abandoned' => status === 'finished' || status === 'abandoned';
/** A published event as the replay buffer kept it (JSON): only numbered events are kept. */
const relayed = (json: string): StreamEvent => new Relayed(json as Wire<GameStreamEvent>, JSON.parse(json));
/** What a game's channel carries besides `status` (a pending game's news, not forwarded): its numbered events. */
const isNumbered = (m: GameChannelEvent): m is Relayed<NumberedEvent | PresenceNews> => m.type !== 'status' && m.type !== 'rematch_offer' && m.type !== 'chat';
const isChat = (m: GameChannelEvent): m is SpectatorChat => m.type === 'chat';

/**
 * One viewer's view of one game's events, in order and without a hole (DESIGN 2.6): `state`
 * first (or, with `since`, the events missed since then), then every numbered event exactly once
 * in `v` order, the after-move `time_update` derived from each `move`, a `time_update` every 5 s
 * while the clocks run (made on this node from the last clocks seen, src/realtime/gameTicks.ts,
 * so a game nobody watches sends none), and `game_end` last. Events arrive on the game's channel; one that skips a
 * number (a message lost, a game rehydrated elsewhere) is repaired from the replay buffer, else
 * by a fresh `state`. A pending game's status change (accepted, declined, …) sends a fresh state.
 * Chat (DESIGN 2.11) is no game event: it goes out as it comes with the current `v`, never
 * replayed; the spectator room from the game's channel, or, for a viewer who is a player, both
 * rooms from `chat:<id>`.
 */
export class GameWatch {
  private lastV = -1;
  /** The game's status in the last state sent. */
  private shownStatus: string | undefined;
  private busy = true; // loading or repairing: arrivals wait in the queue
  private queue: GameChannelEvent[] = [];
  private done = false;
  private stop: (() => void) | undefined;
  private tick: GameTick | undefined;
  /** A player's own chat subscription (`chat:<id>`: both rooms), which replaces the spectator chat of `game:<id>`. */
  private stopChat: (() => void) | undefined;
  private heldChats: RoomChatEvent[] = [];

  constructor(
    private readonly deps: GameWatchDeps,
    private readonly o: GameWatchOptions,
  ) {}

  /** Subscribes (first, so nothing published meanwhile is lost), then sends the start. Throws GAME_NOT_FOUND. */
  async start(): Promise<void> {
    const stop = await this.deps.hub.listen(channels.game(this.o.gameId), (m) => this.arrive(m));
    if (this.done) return stop(); // closed while subscribing
    this.stop = stop;
    this.tick = this.deps.ticks.join(this.o.gameId, (m) => this.ticked(m));
    this.deps.watching?.();
    try {
      const snapshot = await this.deps.snapshot();
      const viewer = this.o.viewerId;
      const g = snapshot.game;
      // Before the start goes out: a player who has it hears every chat message sent after it.
      if (viewer && !finished(g.status) && (g.white_player?.id === viewer || g.black_player?.id === viewer)) await this.listenAsPlayer(viewer);
      if (this.done) return;
      const since = this.o.since;
      const resumed = since !== undefined && since <= snapshot.v && (await this.resume(since, snapshot));
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
    this.heldChats = [];
    this.stop?.();
    this.stop = undefined;
    this.stopChat?.();
    this.stopChat = undefined;
    this.tick?.leave();
    this.tick = undefined;
  }

  // ---- internals --------------------------------------------------------------------------

  private arrive(m: GameChannelEvent): void {
    if (this.done) return;
    if (this.busy) return void this.queue.push(m);
    this.handle(m);
  }

  /** A message in the live phase. */
  private handle(m: GameChannelEvent): void {
    if (this.done) return;
    if (m.type === 'rematch_offer') return this.o.send(m as StreamEvent);
    if (isChat(m)) return void (this.stopChat || this.o.send(m.at(this.lastV)));
    // A pending game's news. It may come after a state that already shows it: one published
    // while the watch was starting waits in the queue behind the state, and a stream opened just
    // after an accept answered was once seen handed the accept's `status` after its state (why
    // the pub/sub message came that late is not known). Either way there is nothing new to send.
    if (m.type === 'status' && m.data.status === this.shownStatus) return;
    if (!isNumbered(m)) return void this.refresh();
    if (m.type === 'opponent_gone' || m.type === 'opponent_back') {
      // Like time_update: as of the event it carries, never numbered (DESIGN 2.11, claim).
      if (m.v >= this.lastV) this.o.send(m as StreamEvent);
      return;
    }
    if (m.type === 'time_update') {
      // Only a node that still ticks in its room publishes these (a rolling upgrade).
      if (m.v < this.lastV) return;
      this.o.send(m);
      const times = timesOf(m.data.times);
      if (m.v === this.lastV && times && typeof m.data.ts === 'number') this.tick?.learn({ v: m.v, times, at: m.data.ts });
      return;
    }
    if (m.v <= this.lastV) return; // seen already (the state had it, or a replay did)
    if (m.v === this.lastV + 1) return this.deliver(m);
    this.queue.unshift(m);
    void this.repair();
  }

  private deliver(m: StreamEvent): void {
    this.lastV = m.v;
    this.o.send(m);
    const data = m.data as GameStreamEvent;
    // The clocks after a move, as their own message (DESIGN 2.6: a time_update after each move).
    if (data.type === 'move') this.o.send(Relayed.of({ type: 'time_update', times: data.times, v: m.v, ts: data.ts }));
    this.tick?.learn(clockNews(m.v, data));
    if (data.type === 'game_end') this.finish();
  }

  /**
   * A player watching their own game: both chat rooms come from `chat:<id>`, which only the room
   * and the players' sockets hear, less the opponent's when the viewer muted them. Live only:
   * chat is never in the replay buffer; `GET /games/{id}/chat` has what a socket missed.
   */
  private async listenAsPlayer(viewer: string): Promise<void> {
    const stop = await this.deps.hub.listen(channels.chat(this.o.gameId), (m) => {
      const e = m.data as unknown as RoomChatEvent;
      if (this.done || e.hidden_from.includes(viewer)) return;
      // Held while the start or a repair is on its way, so that nothing precedes `state`.
      if (this.busy) this.heldChats.push(e);
      else this.sendChat(e);
    });
    if (this.done) return stop();
    this.stopChat = stop;
  }

  private sendChat(e: RoomChatEvent): void {
    this.o.send(Relayed.of({ type: 'chat', room: e.room, message: e.message, ts: e.ts, v: this.lastV }));
  }

  /** A periodic time_update of this node: sent when this viewer has seen the event it is as of. */
  private ticked(m: StreamEvent): void {
    if (!this.done && !this.busy && m.v === this.lastV) this.o.send(m);
  }

  /** With `since`: the events after it, if the buffer holds all of them up to the snapshot. */
  private async resume(since: number, snapshot: GameSnapshot): Promise<boolean> {
    const missed = await this.deps.missed(since);
    if (!missed) return false;
    const events = missed.map(relayed);
    if ((events.at(-1)?.v ?? since) < snapshot.v) return false;
    // The replayed events may not reach back to the last that carried clocks; the snapshot does.
    this.tick?.learn(stateNews(snapshot, this.deps.now()));
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

  private handleOrdered(e: StreamEvent): void {
    if (e.v === this.lastV + 1) this.deliver(e);
  }

  /** Runs what arrived while busy, in order; stops again if that needs another repair. */
  private drain(): void {
    this.busy = false;
    while (this.queue.length && !this.busy && !this.done) this.handle(this.queue.shift()!);
    while (this.heldChats.length && !this.busy && !this.done) this.sendChat(this.heldChats.shift()!);
  }

  private sendState(s: GameSnapshot): void {
    if (this.done) return;
    this.lastV = s.v;
    this.shownStatus = s.game.status;
    const ts = this.deps.now();
    this.o.send(Relayed.of({ type: 'state', game: s.game, v: s.v, ts }));
    this.tick?.learn(stateNews(s, ts));
    const g = s.game;
    if (!finished(g.status)) return;
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

const timesOf = (t: unknown): Times | undefined => {
  const o = t as Partial<Times> | null | undefined;
  return typeof o?.white === 'number' && typeof o.black === 'number' ? { white: o.white, black: o.black } : undefined;
};

/** The clocks a game's state shows as of `ts`; they run from Black's first move until the end. */
function stateNews(s: GameSnapshot, ts: number): ClockNews {
  const g = s.game;
  return {
    v: s.v,
    times: { white: g.white_time_remaining, black: g.black_time_remaining },
    at: ts,
    turn: g.current_turn,
    running: g.status === 'active' && g.move_count >= 2,
  };
}

type ClockFields = { current_turn?: Color; move_count?: number };

/** What a numbered event says of the clocks: a move or a takeback sets them; the end stops them; the rest leave them be. */
function clockNews(v: number, data: { type: string; times?: unknown; ts?: unknown; move?: ClockFields } & ClockFields): ClockNews {
  if (data.type === 'game_end') return { v, running: false };
  const times = timesOf(data.times);
  const board = data.type === 'move' ? data.move : data.type === 'takeback' ? data : undefined;
  if (!board || !times || typeof data.ts !== 'number' || !board.current_turn) return { v };
  return { v, times, at: data.ts, turn: board.current_turn, running: (board.move_count ?? 0) >= 2 };
}
