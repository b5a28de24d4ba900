import { randomUUID } from 'node:crypto';
import type { ChessClock } from '../domain/clock.ts';
import type { ChessGame, Color, Ending } from '../domain/game.ts';
import {
  claimableSince,
  colorOf,
  decide,
  evolve,
  nextDeadlines,
  noteActed,
  notePresence,
  pendingOffer,
  pendingTakeback,
  publicEvent,
  timesAt,
  type Answer,
  type Command,
  type DomainEvent,
  type LiveGameState,
  type PlayerCommand,
  type PresenceEvent,
  type Write,
} from '../domain/gameDecider.ts';
import type { Answers, DrawOffer, NumberedEvent, RatingChanges, Seat, TakebackOffer, Times } from '../domain/liveGameViews.ts';
import { fail, type Failure, type Result } from '../result.ts';
import * as store from '../db/liveGames.ts';
import type { ErrorCode } from '../errors.ts';
import type { CommandAnswers, DetailInput } from './gameViews.ts';
import type { LiveGameFacts } from './liveGameDetail.ts';
import type { Config } from '../config.ts';
import type { GameRecord, PlayerRecord } from '../db/games.ts';
import type { MoveWriter } from '../db/moveWriter.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { Clock } from '../time.ts';
import type { PublishedEvent } from './gameEvents.ts';
import type { PresenceNews } from './channelEvents.ts';
import { Mailbox, type NotHosted } from './actor.ts';
import { rehydrate } from './rehydrate.ts';
import { Timers } from './timers.ts';
import { flat } from '../util/strings.ts';

export type { GameEvent, NumberedEvent, Seat } from '../domain/liveGameViews.ts';

/**
 * What a live game needs of the node hosting it. LiveGameHost (src/services/liveGameHost.ts) is
 * the one; it is declared here so that the host imports the game and not both ways.
 */
export type GameHosting = {
  readonly pool: Pool;
  readonly config: Pick<Config, 'gameLeaseMs' | 'firstMoveMs' | 'drawOfferTtlMs'> & Partial<Pick<Config, 'claimMs'>>;
  readonly log: Logger;
  readonly hostId: string;
  /** The service's time (injected): every timestamp and deadline of the game is read from it. */
  readonly time: Clock;
  readonly writer: Pick<MoveWriter, 'write'>;
  findGame(id: string): Promise<GameRecord | undefined>;
  seats(record: GameRecord): Promise<{ seats: { white: Seat; black: Seat }; players: { white: PlayerRecord; black: PlayerRecord } }>;
  handBack(gameId: string, epoch: number): void;
  publish(gameId: string, event: PublishedEvent): void;
};

/** A command as callers send it: a draw offer's and a takeback proposal's id are made here. */
export type CommandInput =
  | Exclude<PlayerCommand, { type: 'offer_draw' | 'offer_takeback' }>
  | Omit<Extract<PlayerCommand, { type: 'offer_draw' }>, 'offerId'>
  | Omit<Extract<PlayerCommand, { type: 'offer_takeback' }>, 'takebackId'>;
export type CommandType = CommandInput['type'];
/** How a live game refuses a command: the rules' codes and the shell's own (a key reused, the game lost). */
export type CommandFailure = Failure<ErrorCode>;
/** What a command of type T is answered with: the data its REST answer documents, or a refusal. */
export type CommandResult<T extends CommandType = CommandType> = Result<CommandAnswers[T], CommandFailure>;
/** The decider answers a command of type T with Answers[T]: this fails to compile when one stops fitting its REST schema. */
export type DecidedAnswers = Fits<Answers, CommandAnswers>;
type Fits<A extends B, B> = A;
/**
 * A command sent to the game's room from another surface (REST, the chat service): the command and
 * its key. A command that is the same done twice (a chat message's `chat`: the player is there)
 * needs no key.
 */
export type CommandCall<C extends CommandInput = CommandInput> = { command: C; key?: string };
/**
 * What other processes may ask of a game's room (src/gateway `callGame`, on its allow-list), each
 * answered across processes: GameRoom implements it, `callGame<GameRoomApi>` calls it.
 */
export type GameRoomApi = {
  /** The command, answered as `execute` answers it. */
  apiCommand<C extends CommandInput>(call: CommandCall<C>): Promise<CommandResult<C['type']>>;
};
/** An answer as the shell handles it, before `execute` names it by its command. */
type Answered = Result<Answer, CommandFailure>;

/**
 * How many answered command keys a game remembers, for retries (REST, gateway, reconnected
 * sockets). A retry follows its command within seconds (a reconnect, the gateway's timeout), and
 * while a player's command is in doubt that player sends nothing new, so only the opponent's reply
 * and a draw or takeback answer can come between them; 8 leaves room for twice that and more. Each
 * remembered answer holds its reply's objects and strings (about 0.6 KB for a move), and 256, 32,
 * then 16 of them were a large part of a live game's memory (16: 11.8 KB of a game's 19 KB actor).
 */
export const REMEMBERED_COMMANDS = 8;

/**
 * Who hears a live game besides its channel: the room that hosts it, given when the game is
 * opened. `event` follows every published event (the room updates its state from it); `lost`
 * says this node lost the game (fenced out, or it could not persist): the room must go.
 */
export type GameListener = {
  event(event: NumberedEvent): void;
  lost(): void;
  /** DESIGN 2.11: a player who had joined left the room (the claim count starts), or came back. */
  presence?(news: PresenceNews): void;
};

/** A game opened with nobody to tell (tests, the arena's game openings). */
const UNHEARD: GameListener = { event: () => {}, lost: () => {} };

/**
 * The actor shell of one live game, free of Colyseus. The rules are the pure decider in
 * src/domain/gameDecider.ts; this shell runs one command at a time (a Mailbox): decide →
 * make the write durable (fenced by the lease epoch) → evolve → publish → reply. It also owns
 * the timers (flag, first-move deadline, offer expiry) and the memory of answered command keys,
 * so a retried command is answered again instead of acting twice. The periodic time_update is
 * not the room's: the nodes whose sockets watch the game make it (src/realtime/gameTicks.ts),
 * so a game nobody watches has no timer but its deadlines and publishes nothing between events.
 */
export class GameActor {
  /** A failed command is handled where it is run (`exclusive`): the game is given back. */
  private readonly mailbox = new Mailbox();
  private readonly timers: Timers<'clock' | 'offer' | 'takeback'>;
  private readonly answered = new Map<string, { fingerprint: string; reply: Promise<Answered> }>();
  private lost = false;
  /** Until when (host clock) this node surely holds the lease: reads from memory stop there. */
  private leaseUntil: number;

  private constructor(
    private readonly host: GameHosting,
    private readonly listener: GameListener,
    readonly state: LiveGameState,
    readonly epoch: number,
    private readonly facts: LiveGameFacts,
    leaseUntil: number,
  ) {
    this.timers = new Timers(host.time);
    this.leaseUntil = leaseUntil;
  }

  /** Takes the game's lease and rebuilds it from PostgreSQL (src/services/rehydrate.ts). */
  static async open(host: GameHosting, gameId: string, listener: GameListener = UNHEARD): Promise<GameActor | NotHosted> {
    const now = host.time.now();
    const leased = await store.acquireLease(host.pool, gameId, host.hostId, host.config.gameLeaseMs);
    if (!leased) {
      const current = await host.findGame(gameId);
      return current?.status === 'active' ? 'lease_held' : 'not_active';
    }
    const rebuilt = await rehydrate(host, leased, now, REMEMBERED_COMMANDS);
    if (rebuilt === 'lease_held') return 'lease_held';
    // `now` was read before the lease was taken: the lease runs at least this long.
    const live = new GameActor(host, listener, rebuilt.state, rebuilt.epoch, rebuilt.facts, now + host.config.gameLeaseMs);
    for (const k of rebuilt.answered) live.answered.set(k.key, { fingerprint: k.fingerprint, reply: Promise.resolve(k.answer) });
    live.armTimers();
    return live;
  }

  // ---- what the room and the views read -----------------------------------------------------

  get id(): string {
    return this.state.id;
  }
  get status() {
    return this.state.status;
  }
  get ending(): Ending | null {
    return this.state.ending;
  }
  get ratingChanges(): RatingChanges {
    return this.state.ratingChanges;
  }
  get drawOffer(): DrawOffer | null {
    return pendingOffer(this.state) ?? null;
  }
  get takebackOffer(): TakebackOffer | null {
    return pendingTakeback(this.state) ?? null;
  }
  get eventSeq(): number {
    return this.state.eventSeq;
  }
  get game(): ChessGame {
    return this.state.game;
  }
  get chessClock(): ChessClock {
    return this.state.clock;
  }
  /** Whether this node still owns the game. */
  get owned(): boolean {
    return !this.lost;
  }

  colorOf(userId: string): Color | undefined {
    return colorOf(this.state, userId);
  }

  /** When the opponent of `color` may claim against that player (ms), or null: there, or never joined. */
  claimableAt(color: Color): number | null {
    return claimableSince(this.state, color);
  }

  /**
   * The room's fact that a client of `color` is in it now, or none is (DESIGN 2.11, claim): kept
   * in memory only (a move's write carries who has joined). A player who had joined and has no
   * client left starts the claim count: `opponent_gone`, as of the current event number, goes to
   * the game's channel and the room; `opponent_back` when they return.
   */
  notePresence(color: Color, present: boolean): void {
    if (this.lost) return;
    const now = this.host.time.now();
    this.tellPresence(notePresence(this.state, color, present, now), now);
  }

  private tellPresence(change: PresenceEvent | null, now: number): void {
    if (!change) return;
    const news: PresenceNews = { ...change, v: this.state.eventSeq, ts: now };
    this.host.publish(this.id, news);
    this.listener.presence?.(news);
  }

  seat(color: Color): Seat {
    return this.state[color];
  }

  times(now = this.host.time.now()): Times {
    return timesAt(this.state.clock, now);
  }

  /**
   * The game's detail as of `now`, from memory, as PostgreSQL would give it; undefined unless
   * the game is active and surely still this node's (a lease that may have lapsed, or a game
   * lost, is read from PostgreSQL, where another node may have moved it on).
   */
  detail(now = this.host.time.now()): DetailInput | undefined {
    return this.servesReads(now) ? this.facts.detail(this, now) : undefined;
  }

  /**
   * Whether memory answers for the game as of `now`: active and surely still this node's. Else
   * PostgreSQL does (a finished game's row, or another node's moves after a lease that may have lapsed).
   */
  servesReads(now = this.host.time.now()): boolean {
    return this.state.status === 'active' && !this.lost && now < this.leaseUntil;
  }

  /** The host renewed the lease at `renewedAt` (host clock, before its statement). */
  leaseRenewed(renewedAt: number): void {
    this.leaseUntil = Math.max(this.leaseUntil, renewedAt + this.host.config.gameLeaseMs);
  }

  // ---- commands ----------------------------------------------------------------------------

  /**
   * Runs a player's command. With a `key` (REST's Idempotency-Key, the gateway's request id, a
   * socket command's id), a command seen before is answered again as it was the first time, and
   * does not act twice; the same key with another command is refused.
   */
  execute<C extends CommandInput>(input: C, key?: string): Promise<CommandResult<C['type']>> {
    // The decider answers a command with the Answers of its type (see DecidedAnswers), or a refusal.
    return this.answer(input, key) as Promise<CommandResult<C['type']>>;
  }

  private answer(input: CommandInput, key: string | undefined): Promise<Answered> {
    if (key === undefined) return this.run(withId(input), null);
    const fingerprint = fingerprintOf(input);
    const seen = this.answered.get(key);
    if (seen) {
      if (seen.fingerprint !== fingerprint) {
        return Promise.resolve(fail('IDEMPOTENCY_KEY_REUSED', 'This command id was already used for another command'));
      }
      return seen.reply;
    }
    const reply = this.run(withId(input), key);
    this.remember(key, fingerprint, reply);
    return reply;
  }

  /** Resolves once every command queued so far (a timer's included) has run. */
  idle(): Promise<void> {
    return this.mailbox.idle();
  }

  /** Stops timers; on a graceful close the lease is released with clocks booked up to now. */
  async close(graceful: boolean): Promise<void> {
    this.timers.clearAll();
    if (!graceful || this.lost || this.state.status !== 'active') return;
    await this.mailbox.idle();
    const now = this.host.time.now();
    // The running turn is booked up to the release, so the next owner restarts it from there.
    const booked = this.state.clock.bookedAt(now);
    const deadline = this.state.game.moveCount < 2 ? this.state.firstMoveDeadline : null;
    await store
      .releaseLease(this.host.pool, this.id, this.epoch, {
        whiteMs: booked.whiteMs,
        blackMs: booked.blackMs,
        turnStartedAt: new Date(booked.turnStartedAt),
        hostedAt: new Date(now),
        firstMoveDeadline: deadline === null ? null : new Date(deadline),
      })
      .catch((err) => this.host.log.warn({ err, gameId: this.id }, 'could not release the game; its lease will lapse'));
  }

  /** The host renews leases in bulk and tells the games that lost theirs. */
  markLost(): void {
    if (this.lost) return;
    this.lost = true;
    this.timers.clearAll();
    this.listener.lost();
  }

  /**
   * This node cannot trust its copy of the game any more (a write failed: PostgreSQL restarting,
   * the command failing): the room goes, and the lease is handed back as soon as the database
   * answers, so the game is rebuilt from PostgreSQL at the next request instead of after the lease.
   */
  private giveUp(): void {
    if (this.lost) return;
    this.host.handBack(this.id, this.epoch);
    this.markLost();
  }

  // ---- the shell ---------------------------------------------------------------------------

  private run(command: Command, key: string | null): Promise<Answered> {
    return this.exclusive(async () => {
      const now = this.host.time.now();
      // Any command of a player, by any API, says the player is there (DESIGN 2.11, claim).
      if ('userId' in command) this.tellPresence(noteActed(this.state, command, now), now);
      const decision = decide(this.state, command, now);
      if (decision.write) {
        const written = await this.persist(decision.write, key, now);
        if (!written) {
          this.state.game.rollback();
          return this.lostReply();
        }
        for (const event of decision.events) this.apply(event, written.ratingChanges);
        this.facts.written(decision.write, now);
        this.armTimers();
      }
      return decision.reply(this.state);
    });
  }

  private apply(event: DomainEvent, ratingChanges: RatingChanges | undefined): void {
    evolve(this.state, event.type === 'ended' ? { ...event, ratingChanges } : event);
    const full = { ...publicEvent(this.state, event), v: this.state.eventSeq, ts: event.at } as NumberedEvent;
    this.host.publish(this.id, full);
    this.listener.event(full);
  }

  /** Makes a write durable; undefined when it did not land (fenced out, or the database failed). */
  private async persist(write: Write, commandKey: string | null, now: number): Promise<{ ratingChanges?: RatingChanges } | undefined> {
    const { pool } = this.host;
    const fence = { gameId: this.id, epoch: this.epoch };
    try {
      switch (write.kind) {
        case 'move': {
          // A correspondence move is days from the next: nothing to gather it with in the commit
          // window. (A game's last move and a takeback are transactions of their own, below.)
          const urgent = this.state.clock.perMove;
          return (await this.host.writer.write({ ...write.move, ...fence, commandKey }, { urgent })) ? {} : this.fenced();
        }
        case 'finish': {
          const finalMove = write.finalMove && { ...write.finalMove, ...fence, commandKey };
          const { game } = this.state;
          // The game's move is still tentative here: the final move, if any, is not on the board yet.
          const position = write.finalMove
            ? { fen: write.finalMove.fen, pgn: write.finalMove.pgn, moveCount: write.finalMove.ply }
            : { fen: game.fen, pgn: game.movetext, moveCount: game.moveCount };
          const result = await store.finishGame(pool, { ...write, ...fence, finalMove, position, now });
          return 'fenced' in result ? this.fenced() : { ratingChanges: result.ratingChanges };
        }
        case 'open_offer':
          return (await store.insertDrawOffer(pool, { ...write, ...fence, at: new Date(now) })) ? {} : this.fenced();
        case 'close_offer':
          return (await store.closeDrawOffer(pool, { ...write, ...fence, at: new Date(now) })) ? {} : this.fenced();
        case 'open_takeback':
          return (await store.insertTakeback(pool, { ...write, ...fence, at: new Date(now) })) ? {} : this.fenced();
        case 'close_takeback':
          return (await store.closeTakeback(pool, { ...write, ...fence, at: new Date(now) })) ? {} : this.fenced();
        case 'take_back':
          return (await store.takeBack(pool, { ...write, ...fence, at: new Date(now) })) ? {} : this.fenced();
      }
    } catch (error) {
      // The in-memory state can no longer be trusted to match PostgreSQL: give the game back.
      this.host.log.error({ err: error, gameId: this.id }, 'live game write failed; handing the game back to PostgreSQL');
      this.giveUp();
      return undefined;
    }
  }

  private fenced(): undefined {
    this.markLost();
    return undefined;
  }

  private lostReply(): Answered {
    return fail('SERVICE_UNAVAILABLE', 'The game moved to another server; retry');
  }

  private exclusive(command: () => Promise<Answered>): Promise<Answered> {
    return this.mailbox.run(() => (this.lost ? this.lostReply() : command())).catch((error) => {
      this.host.log.error({ err: error, gameId: this.id }, 'live game command failed');
      this.giveUp();
      return this.lostReply();
    });
  }

  private remember(key: string, fingerprint: string, reply: Promise<Answered>): void {
    this.answered.set(key, { fingerprint, reply });
    // A lost game's answer says "retry elsewhere": a retry must reach the new owner, not this memory.
    void reply.then((r) => {
      if (!r.ok && r.error.code === 'SERVICE_UNAVAILABLE') this.answered.delete(key);
    });
    if (this.answered.size > REMEMBERED_COMMANDS) this.answered.delete(this.answered.keys().next().value!);
  }

  // ---- timers: flag fall and first-move deadline, offer expiry ------------------------------

  private armTimers(): void {
    this.timers.clearAll();
    if (this.state.status !== 'active' || this.lost) return;
    const now = this.host.time.now();
    const next = nextDeadlines(this.state);
    // Each deadline's timer is set a millisecond late: a timer may fire a millisecond early on the
    // wall clock, and one that finds its deadline not yet due is not armed again.
    if (next.clock !== null) this.timers.once('clock', next.clock - now + 1, () => void this.run({ type: 'check_clock' }, null));
    const offer = next.offer;
    if (offer) this.timers.once('offer', offer.expiresAt - now + 1, () => void this.run({ type: 'expire_offer', offerId: offer.id }, null));
    const takeback = next.takeback;
    if (takeback) this.timers.once('takeback', takeback.expiresAt - now + 1, () => void this.run({ type: 'expire_takeback', takebackId: takeback.id }, null));
  }
}

function withId(input: CommandInput): PlayerCommand {
  if (input.type === 'offer_draw') return { ...input, offerId: randomUUID() };
  if (input.type === 'offer_takeback') return { ...input, takebackId: randomUUID() };
  return input;
}

/** What makes two commands the same, for a retried key (a move's measured lag may differ). */
function fingerprintOf(c: CommandInput): string {
  switch (c.type) {
    case 'move':
      return flat(`move:${c.userId}:${c.from}${c.to}${c.promotion ?? ''}`);
    case 'answer_draw':
      return flat(`answer_draw:${c.userId}:${c.offerId}:${c.accept}`);
    case 'claim':
      return flat(`claim:${c.userId}:${c.result}`);
    case 'answer_takeback':
      return flat(`answer_takeback:${c.userId}:${c.takebackId}:${c.accept}`);
    default:
      return flat(`${c.type}:${c.userId}`);
  }
}
