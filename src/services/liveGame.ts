import { ChessClock } from '../domain/clock.ts';
import { ChessGame, opponentOf, winBy, drawBy, type Color, type Ending, type Move, type MoveInput } from '../domain/game.ts';
import type { GameRecord } from '../db/games.ts';
import type { RoomReply } from '../gateway/index.ts';
import type { LiveGameHost } from './liveGameHost.ts';
import * as store from '../db/liveGames.ts';
import type { MoveWrite } from '../db/moveWriter.ts';
import { isUuid } from '../http/validate.ts';
import {
  fail,
  offerView,
  ok,
  seconds,
  type DrawOffer,
  type EndView,
  type GameEvent,
  type RatingChanges,
  type Seat,
  type Times,
} from './liveGameEvents.ts';
import { Timers } from './timers.ts';

export { seconds, type GameEvent, type Seat } from './liveGameEvents.ts';

/**
 * The actor core of one live game, free of Colyseus: the board, the clocks, the draw offer and
 * the lease epoch. Every command runs alone (a promise chain), is validated in memory, made
 * durable (fenced by the epoch), and only then applied and announced. GameRoom wires it to
 * sockets and schema; REST reaches it through the gateway.
 */
export class LiveGame {
  status: 'active' | 'finished' | 'abandoned' = 'active';
  ending: Ending | null = null;
  ratingChanges: RatingChanges = { white: 0, black: 0 };
  drawOffer: DrawOffer | null = null;
  eventSeq: number;
  /** Called after every change, with the event to publish (the room updates its state). */
  onEvent: (event: GameEvent & { v: number; ts: number }) => void = () => {};
  /** Called when this node lost the game (fenced out) or could not persist: the room must go. */
  onLost: () => void = () => {};

  private chain: Promise<unknown> = Promise.resolve();
  private timers = new Timers<'flag' | 'firstMove' | 'offer' | 'tick'>();
  private firstMoveDeadline: number | null;
  private lost = false;

  private constructor(
    private readonly host: LiveGameHost,
    readonly record: GameRecord,
    readonly white: Seat,
    readonly black: Seat,
    readonly game: ChessGame,
    readonly clock: ChessClock,
    readonly epoch: number,
    private readonly lastOfferPly: Map<string, number>,
  ) {
    this.eventSeq = record.eventSeq;
    this.firstMoveDeadline = record.firstMoveDeadline?.getTime() ?? null;
  }

  /** Takes the game's lease and rebuilds it from PostgreSQL; undefined when it cannot be hosted. */
  static async open(host: LiveGameHost, gameId: string): Promise<LiveGame | 'not_active' | 'lease_held'> {
    const record = await store.acquireLease(host.pool, gameId, host.hostId, host.config.gameLeaseMs);
    if (!record) {
      const current = await host.findGame(gameId);
      return current?.status === 'active' ? 'lease_held' : 'not_active';
    }
    const [moves, seats, offer, offerPlies] = await Promise.all([
      store.loadMoveUcis(host.pool, gameId),
      host.seats(record),
      store.findPendingOffer(host.pool, gameId),
      store.lastOfferPlies(host.pool, gameId),
    ]);
    const game = new ChessGame({ moves: moves.map((m) => m.uci) });
    const quotas = record.roomState as { whiteQuotaMs?: number; blackQuotaMs?: number };
    const fresh = new ChessClock({ initialMs: record.initialTime * 1000, incrementMs: record.increment * 1000 });
    const clock = ChessClock.restore(
      {
        initialMs: fresh.initialMs,
        incrementMs: fresh.incrementMs,
        whiteMs: record.whiteTimeMs,
        blackMs: record.blackTimeMs,
        plies: game.moveCount,
        whiteQuotaMs: quotas.whiteQuotaMs ?? fresh.quota('white'),
        blackQuotaMs: quotas.blackQuotaMs ?? fresh.quota('black'),
      },
      Date.now(),
    );
    const live = new LiveGame(host, record, seats.white, seats.black, game, clock, record.hostEpoch, offerPlies);
    if (offer) live.drawOffer = { id: offer.id, offeredBy: offer.offeredBy, ply: offer.ply, expiresAt: offer.expiresAt.getTime() };
    live.armTimers();
    return live;
  }

  get id(): string {
    return this.record.id;
  }

  colorOf(userId: string): Color | undefined {
    return userId === this.white.id ? 'white' : userId === this.black.id ? 'black' : undefined;
  }

  seat(color: Color): Seat {
    return color === 'white' ? this.white : this.black;
  }

  times(now = Date.now()): Times {
    const t = this.clock.times(now);
    return { white: seconds(t.white), black: seconds(t.black) };
  }

  // ---- commands (each runs alone) -------------------------------------------------------

  move(userId: string, input: MoveInput, lagMs?: number) {
    return this.exclusive(() => this.doMove(userId, input, lagMs));
  }

  resign(userId: string) {
    return this.exclusive(async () => {
      const color = await this.playerOfActiveGame(userId);
      if (typeof color !== 'string') return color;
      return this.finish(winBy(opponentOf(color), 'resignation'));
    });
  }

  offerDraw(userId: string) {
    return this.exclusive(async () => {
      const color = await this.playerOfActiveGame(userId);
      if (typeof color !== 'string') return color;
      const pending = this.drawOffer;
      if (pending && pending.offeredBy !== userId) {
        // Offering while the opponent's offer is pending accepts it.
        const end = await this.finish(drawBy('agreement'), { acceptedOfferId: pending.id });
        if (!end.ok) return end;
        return ok({ draw_offer: offerView(pending, 'accepted'), ...end.data });
      }
      if (pending) return fail('DRAW_OFFER_PENDING', 'A draw offer is already pending');
      const last = this.lastOfferPly.get(userId);
      if (last !== undefined && this.game.moveCount - last < 20) {
        return fail('DRAW_OFFER_LIMIT', 'You may offer a draw again 20 plies after your previous offer');
      }
      const expiresAt = Date.now() + this.host.config.drawOfferTtlMs;
      const v = this.eventSeq + 1;
      const inserted = await this.persist(() =>
        store.insertDrawOffer(this.host.pool, {
          gameId: this.id, epoch: this.epoch, offeredBy: userId, ply: this.game.moveCount, expiresAt: new Date(expiresAt), eventSeq: v,
        }),
      );
      if (!inserted) return this.lostReply();
      this.drawOffer = { id: inserted.id, offeredBy: userId, ply: this.game.moveCount, expiresAt };
      this.lastOfferPly.set(userId, this.game.moveCount);
      this.armOfferTimer();
      this.emit({ type: 'draw_offer', draw_offer: offerView(this.drawOffer, 'pending') });
      return ok({ draw_offer: offerView(this.drawOffer, 'pending') });
    });
  }

  answerDraw(userId: string, offerId: string, accept: boolean) {
    return this.exclusive(async () => {
      const color = await this.playerOfActiveGame(userId);
      if (typeof color !== 'string') return color;
      const offer = this.drawOffer;
      if (!offer || offer.id !== offerId) {
        const known = isUuid(offerId) ? await this.host.findDrawOffer(this.id, offerId) : undefined;
        if (!known) return fail('DRAW_OFFER_NOT_FOUND', 'No such draw offer in this game');
        if (known.offeredBy === userId) return fail('FORBIDDEN', 'Only the recipient may answer a draw offer');
        return fail('DRAW_OFFER_NOT_PENDING', `The draw offer is ${known.status}`);
      }
      if (offer.offeredBy === userId) return fail('FORBIDDEN', 'Only the recipient may answer a draw offer');
      if (accept) return this.finish(drawBy('agreement'), { acceptedOfferId: offer.id });
      const closed = await this.closeOffer('declined');
      if (!closed) return this.lostReply();
      return ok({ draw_offer: offerView(offer, 'declined'), status: 'active' as const });
    });
  }

  /** Stops timers; on a graceful close the lease is released with clocks booked up to now. */
  async close(graceful: boolean): Promise<void> {
    this.timers.clearAll();
    if (!graceful || this.lost || this.status !== 'active') return;
    await this.chain.catch(() => {});
    const now = Date.now();
    const t = this.clock.times(now);
    await store.releaseLease(this.host.pool, this.id, this.epoch, { whiteMs: t.white, blackMs: t.black }).catch(() => {});
  }

  /** The host renews leases in bulk and tells the games that lost theirs. */
  markLost(): void {
    if (this.lost) return;
    this.lost = true;
    this.timers.clearAll();
    this.onLost();
  }

  // ---- internals ------------------------------------------------------------------------

  /**
   * The checks every command starts with, in the documented order: a player (403) of an active
   * game (409). A flag that has fallen ends the game first, so the command finds it over.
   */
  private async playerOfActiveGame(userId: string, now = Date.now()): Promise<Color | RoomReply<never>> {
    const color = this.colorOf(userId);
    if (!color) return fail('NOT_A_PLAYER', 'You are not a player of this game');
    if (this.status !== 'active') return fail('GAME_NOT_ACTIVE', 'The game is not active');
    if (await this.flagIfDue(now)) return fail('GAME_NOT_ACTIVE', 'The game is over: time ran out');
    return color;
  }

  private async doMove(userId: string, input: MoveInput, lagMs?: number): Promise<RoomReply> {
    const now = Date.now();
    const color = await this.playerOfActiveGame(userId, now);
    if (typeof color !== 'string') return color;
    if (this.game.turn !== color) return fail('NOT_YOUR_TURN', 'It is not your turn');

    const textBefore = this.game.movetext.length;
    const outcome = this.game.tryMove(input);
    if (!outcome.ok) return fail(outcome.code, outcome.message, outcome.details);
    const timed = this.clock.move(now, lagMs);
    if (!timed.ok) throw new Error('clock flagged after the flag check'); // cannot happen: same `now`

    const ply = this.game.moveCount;
    const lapsed = this.drawOffer && this.drawOffer.offeredBy !== userId ? this.drawOffer : null;
    const v = this.eventSeq + 1 + (lapsed ? 1 : 0);
    const deadline = ply === 1 ? now + this.host.config.firstMoveMs : null;
    const snap = this.clock.snapshot();
    const write: MoveWrite = {
      gameId: this.id,
      epoch: this.epoch,
      ply,
      san: outcome.move.san,
      uci: `${outcome.move.from}${outcome.move.to}${outcome.move.promotion ?? ''}`,
      fen: this.game.fen,
      pgnSuffix: this.game.movetext.slice(textBefore),
      clockMs: timed.remainingMs,
      whiteMs: snap.whiteMs,
      blackMs: snap.blackMs,
      clockRunning: this.clock.running,
      turnStartedAt: this.clock.running ? new Date(now) : null,
      firstMoveDeadline: deadline === null ? null : new Date(deadline),
      roomState: { whiteQuotaMs: snap.whiteQuotaMs, blackQuotaMs: snap.blackQuotaMs },
      eventSeq: v,
      moverId: userId,
    };

    if (outcome.ending) {
      const end = await this.finish(outcome.ending, { finalMove: write, announceMove: () => this.announceMove(outcome.move, now) });
      if (!end.ok) return end;
      return ok(this.moveReply(outcome.move, outcome.position, now));
    }
    const landed = await this.persist(() => this.host.writer.write(write));
    if (!landed) return this.lostReply();
    this.firstMoveDeadline = deadline;
    if (lapsed) {
      this.drawOffer = null;
      this.timers.clear('offer');
      this.emit({ type: 'draw_offer', draw_offer: offerView(lapsed, 'expired') });
    }
    // The move event carries both clocks; the stream derives its time_update from it, so the
    // room publishes once per move.
    this.announceMove(outcome.move, now);
    this.armTimers();
    return ok(this.moveReply(outcome.move, outcome.position, now));
  }

  private announceMove(move: Move, now: number): void {
    this.emit({
      type: 'move',
      move: { ...move, ply: this.game.moveCount, fen: this.game.fen, move_count: this.game.moveCount, current_turn: this.game.turn },
      times: this.times(now),
    });
  }

  private moveReply(move: Move, position: { in_check: boolean; in_checkmate: boolean; in_stalemate: boolean; in_draw: boolean }, now: number) {
    const t = this.times(now);
    return {
      move,
      game: {
        status: this.status,
        fen: this.game.fen,
        current_turn: this.game.turn,
        move_count: this.game.moveCount,
        white_time_remaining: t.white,
        black_time_remaining: t.black,
        ...position,
      },
    };
  }

  /** Ends the game durably, then announces it. */
  private async finish(
    ending: Ending | null,
    o: { finalMove?: MoveWrite; acceptedOfferId?: string; abortReason?: 'no_first_move'; announceMove?: () => void } = {},
  ): Promise<RoomReply<{ status: 'finished' | 'abandoned'; result: string | null; winner: Color | null; termination: string | null; rating_changes: RatingChanges }>> {
    const now = Date.now();
    this.clock.pause(now);
    const t = this.clock.times(now);
    const flagged = ending?.termination === 'timeout' ? this.game.turn : null;
    const whiteMs = flagged === 'white' ? 0 : t.white;
    const blackMs = flagged === 'black' ? 0 : t.black;
    const v = this.eventSeq + (o.finalMove ? 2 : 1);
    const result = await this.persist(() =>
      store.finishGame(this.host.pool, {
        gameId: this.id, epoch: this.epoch, finalMove: o.finalMove, ending, abortReason: o.abortReason,
        acceptedOfferId: o.acceptedOfferId, whiteMs, blackMs, eventSeq: v,
      }),
    );
    if (!result || 'fenced' in result) return this.lostReply();
    if (ending) this.game.finish(ending);
    this.status = o.abortReason ? 'abandoned' : 'finished';
    this.ending = ending;
    this.ratingChanges = result.ratingChanges;
    this.drawOffer = null;
    this.timers.clearAll();
    o.announceMove?.();
    const view = this.endView();
    this.emit({ type: 'game_end', status: this.status, abort_reason: o.abortReason ?? null, result: view });
    return ok({ status: this.status, ...view });
  }

  endView(): EndView {
    return {
      result: this.ending?.result ?? null,
      winner: this.ending?.winner ?? null,
      termination: this.ending?.termination ?? null,
      rating_changes: this.ratingChanges,
    };
  }

  /** Ends the game on time if the side to move's flag has fallen; true when it did. */
  private async flagIfDue(now = Date.now()): Promise<boolean> {
    const flagged = this.clock.flagged(now);
    if (!flagged || this.status !== 'active') return false;
    await this.finish(this.game.timeoutEnding(flagged));
    return true;
  }

  private async closeOffer(status: 'declined' | 'expired'): Promise<boolean> {
    const offer = this.drawOffer;
    if (!offer) return true;
    const v = this.eventSeq + 1;
    const closed = await this.persist(() =>
      store.closeDrawOffer(this.host.pool, { gameId: this.id, epoch: this.epoch, offerId: offer.id, status, eventSeq: v }),
    );
    if (!closed) return false;
    this.drawOffer = null;
    this.timers.clear('offer');
    this.emit({ type: 'draw_offer', draw_offer: offerView(offer, status) });
    return true;
  }

  private emit(event: GameEvent): void {
    this.eventSeq++;
    const full = { ...event, v: this.eventSeq, ts: Date.now() };
    this.host.publish(this.id, full);
    this.onEvent(full);
  }

  /** Runs a write; any failure other than fencing means the in-memory state can't be trusted. */
  private async persist<T>(write: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await write();
      if (result === false || result === undefined || (typeof result === 'object' && result !== null && 'fenced' in result)) {
        this.markLost();
      }
      return result;
    } catch (error) {
      this.host.log.error({ err: error, gameId: this.id }, 'live game write failed; handing the game back to PostgreSQL');
      this.markLost();
      return undefined;
    }
  }

  private lostReply(): RoomReply<never> {
    return fail('SERVICE_UNAVAILABLE', 'The game moved to another server; retry');
  }

  private exclusive<T>(command: () => Promise<T>): Promise<T | RoomReply<never>> {
    const run = this.chain.then((): Promise<T | RoomReply<never>> | RoomReply<never> => (this.lost ? this.lostReply() : command()));
    this.chain = run.catch(() => {});
    return run.catch((error) => {
      this.host.log.error({ err: error, gameId: this.id }, 'live game command failed');
      this.markLost();
      return this.lostReply();
    });
  }

  // ---- timers: flag fall, first-move deadline, offer expiry, periodic time_update ---------

  private armTimers(): void {
    this.timers.clearAll();
    if (this.status !== 'active') return;
    const now = Date.now();
    const flagAt = this.clock.flagAt();
    if (flagAt !== null) this.timers.once('flag', flagAt - now + 1, () => void this.exclusive(() => this.flagIfDue()));
    if (this.firstMoveDeadline !== null && this.game.moveCount < 2) {
      this.timers.once('firstMove', this.firstMoveDeadline - now, () => void this.exclusive(() => this.abortIfNoFirstMove()));
    }
    this.armOfferTimer();
    if (this.clock.started) this.timers.every('tick', 5000, () => this.status === 'active' && this.publishTimes());
  }

  private armOfferTimer(): void {
    this.timers.clear('offer');
    if (!this.drawOffer) return;
    const offerId = this.drawOffer.id;
    this.timers.once('offer', this.drawOffer.expiresAt - Date.now(), () =>
      void this.exclusive(async () => {
        if (this.drawOffer?.id === offerId && this.status === 'active') await this.closeOffer('expired');
      }),
    );
  }

  private async abortIfNoFirstMove(): Promise<void> {
    if (this.status !== 'active' || this.game.moveCount >= 2 || this.firstMoveDeadline === null) return;
    if (Date.now() < this.firstMoveDeadline) return this.armTimers();
    await this.finish(null, { abortReason: 'no_first_move' });
  }

  /** time_update carries the live clocks; it is not a state change, so it does not advance v. */
  publishTimes(now = Date.now()): void {
    this.host.publish(this.id, { type: 'time_update', times: this.times(now), v: this.eventSeq, ts: now });
  }
}
