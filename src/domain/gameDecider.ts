// The rules of a live game as a pure decider: `decide(state, command, now)` judges a command and
// says what to make durable (`write`), what happened (`events`) and what to answer (`reply`);
// `evolve(state, event)` applies one event. No I/O and no clock reads: the actor shell
// (src/services/gameActor.ts) persists the write, evolves, publishes and replies, in that order.
import { ChessClock, type ClockState } from './clock.ts';
import { ChessGame, drawBy, opponentOf, winBy, type Color, type Ending, type Move, type PositionFlags, type TriedMove } from './game.ts';
import type { ErrorDetails } from '../errors.ts';
import { fail, ok, type Result } from '../result.ts';
import {
  offerView,
  seconds,
  type Answers,
  type DrawOffer,
  type DrawOfferStatus,
  type EndView,
  type GameEvent,
  type EndAnswer,
  type MoveAnswer,
  type PositionAnswer,
  type RatingChanges,
  type RuleErrorCode,
  type RuleFailure,
  type Seat,
  type TakebackOffer,
  type TakebackStatus,
  type Times,
  takebackView,
} from './liveGameViews.ts';

export type LiveStatus = 'active' | 'finished' | 'abandoned';
/** no_first_move: a first move not made in time; aborted: a player aborted before both had moved (DESIGN 2.11). */
export type AbortReason = 'no_first_move' | 'aborted';
/** Every draw offer of the game, so an answer to an old one is judged without a lookup. */
export type OfferRecord = DrawOffer & { status: DrawOfferStatus };

/** Every takeback proposal of the game, so an answer to an old one is judged without a lookup. */
export type TakebackRecord = TakebackOffer & { status: TakebackStatus };

/** A player may not offer a draw again within this many plies of their previous offer. */
export const DRAW_OFFER_SPACING_PLIES = 20;
/** DESIGN 2.11: how long a player who had joined the room must be gone before the opponent may claim. */
export const DEFAULT_CLAIM_MS = 30_000;

/**
 * A seat's presence in the game's room (DESIGN 2.11, claim): whether a client of the player has
 * been in the room, and since when none is (null while one is). A player who never joined (a REST
 * client) cannot be claimed against.
 */
export type SeatPresence = { joined: boolean; goneSince: number | null };
/** How many takebacks a player may propose in one game (DESIGN 2.11). */
export const TAKEBACKS_PER_PLAYER = 3;

export interface LiveGameState {
  readonly id: string;
  readonly white: Seat;
  readonly black: Seat;
  readonly rules: { firstMoveMs: number; drawOfferTtlMs: number; claimMs?: number };
  /** Replaced as a whole by an accepted takeback (the board rebuilt from the first move). */
  game: ChessGame;
  clock: ChessClock;
  status: LiveStatus;
  ending: Ending | null;
  abortReason: AbortReason | null;
  ratingChanges: RatingChanges;
  /** White's (ply 0) or Black's (ply 1) deadline for the first move; null once both moved. */
  firstMoveDeadline: number | null;
  offers: OfferRecord[];
  takebacks: TakebackRecord[];
  /** An arena game: no takebacks. */
  readonly arena: boolean;
  /** The number of the latest published event. */
  eventSeq: number;
  /** When the latest event happened; unset until the first one since the game was opened. */
  lastChangeAt?: number;
  /** The players' presence in the room, as the room reports it (`notePresence`); unset until one joins. */
  presence?: Record<Color, SeatPresence>;
  /** The seats whose player has joined, as each move's write records them (made when one joins, not per move). */
  joinedSeats?: readonly Color[];
}

/**
 * When a player's command reached the service (ms on the host's clock): the socket frame or the
 * HTTP request was read. Time it then spends queued inside the service is charged to nobody.
 */
type Arrival = { receivedAt?: number };
export type MoveCommand = { type: 'move'; userId: string; from: string; to: string; promotion?: string | null; lagMs?: number } & Arrival;
export type Command =
  | MoveCommand
  | ({ type: 'resign'; userId: string } & Arrival)
  /** `offerId` is the id the offer gets if one is made (ids are made by the caller, not here). */
  | ({ type: 'offer_draw'; userId: string; offerId: string } & Arrival)
  | ({ type: 'answer_draw'; userId: string; offerId: string; accept: boolean } & Arrival)
  /** DESIGN 2.11: before both sides have made their first move. */
  | ({ type: 'abort'; userId: string } & Arrival)
  /** DESIGN 2.11: the opponent has been gone from the room for the claim time. */
  | ({ type: 'claim'; userId: string; result: ClaimResult } & Arrival)
  /** `takebackId` is the id the proposal gets if one is made (as a draw offer's). */
  | ({ type: 'offer_takeback'; userId: string; takebackId: string } & Arrival)
  | ({ type: 'answer_takeback'; userId: string; takebackId: string; accept: boolean } & Arrival)
  /**
   * DESIGN 2.11: a player wrote in the game's chat. The chat service stores and publishes the
   * message; the game hears only that the player acted (the claim count starts again).
   */
  | ({ type: 'chat'; userId: string } & Arrival)
  /** Timers: the flag may have fallen, the first-move deadline passed, an offer lapsed. */
  | { type: 'check_clock' }
  | { type: 'expire_offer'; offerId: string }
  | { type: 'expire_takeback'; takebackId: string };
export type PlayerCommand = Extract<Command, { userId: string }>;
export const CLAIM_RESULTS = ['win', 'draw'] as const;
export type ClaimResult = (typeof CLAIM_RESULTS)[number];

/** A move as it is made durable (the repository adds the game id and the lease epoch). */
export type MoveRecord = {
  ply: number;
  san: string;
  uci: string;
  fen: string;
  /** The whole movetext after the move. */
  pgn: string;
  /** When the move was made (the next turn starts then). */
  playedAt: Date;
  /** The mover's clock right after the move (ms). */
  clockMs: number;
  whiteMs: number;
  blackMs: number;
  clockRunning: boolean;
  firstMoveDeadline: Date | null;
  /** `joined`: the seats whose player has been in the room (a claim needs it), kept across a takeover. */
  roomState: { whiteQuotaMs: number; blackQuotaMs: number; joined?: readonly Color[] };
  eventSeq: number;
  moverId: string;
  /** The move lapses the opponent's pending draw offer (its write closes the offer too). */
  lapsesOffer: boolean;
  /** The move lapses the pending takeback proposal (its write closes it too). */
  lapsesTakeback?: boolean;
  /** A correspondence game's next deadline (the opponent's period ends), stored for the sweeper; else null. */
  moveDeadline?: Date | null;
};

/**
 * An accepted takeback as it is made durable in one transaction: the move rows after `toPly`
 * leave the live log (kept as taken back), the games row's snapshot is rewritten as the game now
 * stands, and the proposal is closed as accepted.
 */
export type TakebackWrite = {
  kind: 'take_back';
  takebackId: string;
  plies: number;
  /** The moves left on the board. */
  toPly: number;
  fen: string;
  /** The movetext of the moves left. */
  pgn: string;
  whiteMs: number;
  blackMs: number;
  /** When the side now to move's clock started running. */
  turnStartedAt: Date;
  roomState: MoveRecord['roomState'];
  eventSeq: number;
};

export type Write =
  | { kind: 'move'; move: MoveRecord }
  | {
      kind: 'finish';
      finalMove?: MoveRecord;
      ending: Ending | null;
      abortReason?: AbortReason;
      acceptedOfferId?: string;
      whiteMs: number;
      blackMs: number;
      eventSeq: number;
    }
  | { kind: 'open_offer'; offerId: string; offeredBy: string; ply: number; expiresAt: Date; eventSeq: number }
  | { kind: 'close_offer'; offerId: string; status: 'declined' | 'expired'; eventSeq: number }
  | { kind: 'open_takeback'; takebackId: string; offeredBy: string; ply: number; plies: 1 | 2; expiresAt: Date; eventSeq: number }
  | { kind: 'close_takeback'; takebackId: string; status: 'declined' | 'expired'; eventSeq: number }
  | TakebackWrite;

export type DomainEvent =
  | {
      type: 'moved';
      at: number;
      move: Move;
      uci: string;
      ply: number;
      fen: string;
      turn: Color;
      position: PositionFlags;
      clock: ClockState;
      firstMoveDeadline: number | null;
    }
  | { type: 'offer_opened'; at: number; offer: DrawOffer }
  | { type: 'offer_closed'; at: number; offerId: string; status: 'declined' | 'expired' }
  | { type: 'takeback_opened'; at: number; takeback: TakebackOffer }
  | { type: 'takeback_closed'; at: number; takebackId: string; status: 'declined' | 'expired' }
  | {
      type: 'taken_back';
      at: number;
      takebackId: string;
      plies: number;
      /** The board rebuilt from the first move up to the moves left (the evolve installs it). */
      game: ChessGame;
      clock: ClockState;
    }
  | {
      type: 'ended';
      at: number;
      status: 'finished' | 'abandoned';
      ending: Ending | null;
      abortReason: AbortReason | null;
      acceptedOfferId: string | null;
      /** Known once the finishing write has rated the game; the shell fills it in. */
      ratingChanges?: RatingChanges;
    };

/** A decision's answer: one of Answers (which one follows from the command), or null for a timer's. */
export type Answer = Answers[keyof Answers] | null;

export type Decision = {
  write: Write | null;
  events: DomainEvent[];
  /** The answer, computed from the state once every event has been applied. */
  reply: (state: LiveGameState) => Result<Answer, RuleFailure>;
};

// ---- decide -------------------------------------------------------------------------------

export function decide(s: LiveGameState, c: Command, now: number): Decision {
  if (c.type === 'check_clock') return overdueEnding(s, now) ?? nothing();
  if (c.type === 'expire_offer') return expireOffer(s, c.offerId, now);
  if (c.type === 'expire_takeback') return expireTakeback(s, c.takebackId, now);

  const color = colorOf(s, c.userId);
  if (!color) return refuse('NOT_A_PLAYER', 'You are not a player of this game');
  if (s.status !== 'active') return refuse('GAME_NOT_ACTIVE', 'The game is not active');
  const at = arrivalTime(s, c, now);
  // A flag that has fallen (or a first move not made in time) ends the game before anything
  // else is judged, whether or not its timer has fired yet; a command that reached the service
  // before that instant was in time, however long it then waited for its turn here.
  const overdue = overdueEnding(s, at);
  if (overdue) return { ...overdue, reply: () => fail('GAME_NOT_ACTIVE', 'The game is over: time ran out') };

  switch (c.type) {
    case 'move':
      return decideMove(s, c, color, at, now);
    case 'resign':
      return finish(s, at, { ending: winBy(opponentOf(color), 'resignation') }, endReply);
    case 'offer_draw':
      return decideOffer(s, c.userId, c.offerId, at, now);
    case 'answer_draw':
      return decideAnswer(s, c.userId, c.offerId, c.accept, at, now);
    case 'abort':
      if (s.game.moveCount >= 2) return refuse('GAME_NOT_ABORTABLE', 'Both sides have moved: the game can no longer be aborted');
      return finish(s, at, { ending: null, abortReason: 'aborted' }, endReply);
    case 'claim':
      return decideClaim(s, color, c.result, at);
    case 'offer_takeback':
      return decideTakeback(s, c.userId, c.takebackId, color, now);
    case 'answer_takeback':
      return decideTakebackAnswer(s, c.userId, c.takebackId, c.accept, at, now);
    case 'chat':
      return nothing();
  }
}

/** The claimant wins (or draws) on time when the opponent had joined the room and has been gone long enough. */
function decideClaim(s: LiveGameState, color: Color, result: ClaimResult, at: number): Decision {
  const claimableAt = claimableSince(s, opponentOf(color));
  if (claimableAt === null) return refuse('CLAIM_NOT_ALLOWED', 'Your opponent is not gone from the game');
  if (at < claimableAt) return refuse('CLAIM_NOT_ALLOWED', `Your opponent may still come back until ${new Date(claimableAt).toISOString()}`);
  const ending = result === 'win' ? winBy(color, 'timeout') : drawBy('timeout');
  // Nobody's flag fell: both clocks stay as they were (the termination is still `timeout`).
  return finish(s, at, { ending, claimed: true }, endReply);
}

/** When the opponent may claim against `color`: null while the player is there, or never joined. */
export function claimableSince(s: LiveGameState, color: Color): number | null {
  const p = s.presence?.[color];
  if (!p?.joined || p.goneSince === null) return null;
  return p.goneSince + (s.rules.claimMs ?? DEFAULT_CLAIM_MS);
}

/**
 * The room says whether a client of `color` is in it (a fact, not a command: nothing is written).
 * Returns what the world hears of it: `opponent_gone` when a player who had joined has no client
 * left (the claim count starts), `opponent_back` when they return; null when nothing changed.
 */
export function notePresence(s: LiveGameState, color: Color, present: boolean, now: number): PresenceEvent | null {
  // A correspondence player leaves the room between moves as a matter of course: nothing counts,
  // and their deadline, not their absence, decides the game.
  if (s.clock.perMove) return null;
  s.presence ??= { white: { joined: false, goneSince: null }, black: { joined: false, goneSince: null } };
  const p = s.presence[color];
  if (present) {
    const wasGone = p.joined && p.goneSince !== null;
    if (!p.joined) s.joinedSeats = [...(s.joinedSeats ?? []), color];
    p.joined = true;
    p.goneSince = null;
    return wasGone && s.status === 'active' ? { type: 'opponent_back', color } : null;
  }
  if (!p.joined || p.goneSince !== null) return null;
  p.goneSince = now;
  if (s.status !== 'active') return null;
  return { type: 'opponent_gone', color, claimable_at: new Date(claimableSince(s, color)!).toISOString() };
}

/**
 * DESIGN 2.11: "A player who acts in the game by any API (a move, an offer, an answer, chat) is
 * present: the count starts again." Called for every command of a player, whatever it becomes
 * (refused included: a refused move is still the player at the board), before it is judged, so a
 * claim queued behind the act sees it. A player whose count was running (joined, no client in the
 * room) counts as gone from the act on: `opponent_gone` with the later `claimable_at` tells the
 * room and the stream; the count keeps running, since no client of theirs is in the room to stop it.
 */
export function noteActed(s: LiveGameState, c: PlayerCommand, now: number): PresenceEvent | null {
  const color = colorOf(s, c.userId);
  const p = color && s.presence?.[color];
  if (!color || !p?.joined || p.goneSince === null || s.status !== 'active' || s.clock.perMove) return null;
  const at = arrivalTime(s, c, now);
  if (at <= p.goneSince) return null;
  p.goneSince = at;
  return { type: 'opponent_gone', color, claimable_at: new Date(claimableSince(s, color)!).toISOString() };
}

export type PresenceEvent = { type: 'opponent_gone'; color: Color; claimable_at: string } | { type: 'opponent_back'; color: Color };

/**
 * The instant a player's command is timed at: when it reached the service, but not before the
 * state it acts on came about (a command overtaken on its way in, or one that waited while no node
 * hosted the game) nor after `now` (a clock of another node running ahead of this one's).
 */
export function arrivalTime(s: LiveGameState, c: Arrival, now: number): number {
  if (c.receivedAt === undefined || !Number.isFinite(c.receivedAt)) return now;
  const since = Math.max(s.lastChangeAt ?? -Infinity, s.clock.turnStart ?? -Infinity);
  return Math.min(now, Math.max(since, Math.round(c.receivedAt)));
}

/**
 * The mover is charged up to `at`, when the move reached the service; the opponent's turn starts
 * at `now`, when the move is made here, so the time in between is charged to neither player (the
 * opponent cannot see the move before it is made).
 */
function decideMove(s: LiveGameState, c: MoveCommand, color: Color, at: number, now: number): Decision {
  if (s.game.turn !== color) return refuse('NOT_YOUR_TURN', 'It is not your turn');
  const outcome = s.game.tryMove(c);
  if (!outcome.ok) return refuse(outcome.error.code, outcome.error.message, outcome.error.details);
  const tried = outcome.value;

  const clock = ChessClock.fromState(s.clock.state());
  const timed = clock.move(at, c.lagMs, now);
  // Cannot happen: overdueEnding looked at the same `at`.
  if (!timed.ok) throw new Error('clock flagged after the flag check');
  const ply = s.game.moveCount + 1;
  // Black's first move has a deadline of its own until it starts the clock (a clock per move
  // runs from the start: a correspondence game is never aborted).
  const firstMoveDeadline = ply === 1 && !clock.started ? now + s.rules.firstMoveMs : null;
  const moved: DomainEvent = {
    type: 'moved',
    at: now,
    move: tried.move,
    uci: tried.uci,
    ply,
    fen: tried.fen,
    turn: opponentOf(color),
    position: tried.position,
    clock: clock.state(),
    firstMoveDeadline,
  };
  const reply = (after: LiveGameState) => ok(moveReply(after, tried.move, tried.position, now));

  // The recipient of a pending offer declines it by moving; the offerer's own move keeps it.
  const pending = pendingOffer(s);
  const lapses = pending !== undefined && pending.offeredBy !== c.userId;
  // A pending takeback lapses with any move: the plies it named are no longer the last ones.
  const takeback = pendingTakeback(s);
  const record = (eventSeq: number) =>
    moveRecord({
      tried,
      movetextBefore: s.game.movetext,
      ply,
      clock,
      clockMs: timed.value.remainingMs,
      now,
      firstMoveDeadline,
      moverId: c.userId,
      eventSeq,
      lapsesOffer: lapses,
      lapsesTakeback: takeback !== undefined,
      joined: s.joinedSeats,
    });
  if (tried.ending) {
    // The mating (or drawing) move is written in the transaction that ends the game.
    return finish(s, now, { ending: tried.ending, clock, leading: [moved], finalMove: record }, reply);
  }
  const lapsed: DomainEvent[] = lapses ? [{ type: 'offer_closed', at: now, offerId: pending.id, status: 'expired' }] : [];
  if (takeback) lapsed.push({ type: 'takeback_closed', at: now, takebackId: takeback.id, status: 'expired' });
  const events = [...lapsed, moved];
  return { write: { kind: 'move', move: record(s.eventSeq + events.length) }, events, reply };
}

function decideOffer(s: LiveGameState, userId: string, offerId: string, at: number, now: number): Decision {
  const pending = pendingOffer(s);
  if (pending && pending.offeredBy !== userId) {
    // Offering while the opponent's offer is pending accepts it.
    return finish(s, at, { ending: drawBy('agreement'), acceptedOfferId: pending.id }, (after) =>
      ok({ draw_offer: offerView(pending, 'accepted'), ...endAnswer(after) }),
    );
  }
  if (pending) return refuse('DRAW_OFFER_PENDING', 'A draw offer is already pending');
  const last = lastOfferPly(s, userId);
  if (last !== undefined && s.game.moveCount - last < DRAW_OFFER_SPACING_PLIES) {
    return refuse('DRAW_OFFER_LIMIT', `You may offer a draw again ${DRAW_OFFER_SPACING_PLIES} plies after your previous offer`);
  }
  const offer: DrawOffer = { id: offerId, offeredBy: userId, ply: s.game.moveCount, expiresAt: now + s.rules.drawOfferTtlMs };
  return {
    write: { kind: 'open_offer', offerId, offeredBy: userId, ply: offer.ply, expiresAt: new Date(offer.expiresAt), eventSeq: s.eventSeq + 1 },
    events: [{ type: 'offer_opened', at: now, offer }],
    reply: () => ok({ draw_offer: offerView(offer, 'pending') }),
  };
}

function decideAnswer(s: LiveGameState, userId: string, offerId: string, accept: boolean, at: number, now: number): Decision {
  const offer = s.offers.find((o) => o.id === offerId);
  if (!offer) return refuse('DRAW_OFFER_NOT_FOUND', 'No such draw offer in this game');
  if (offer.offeredBy === userId) return refuse('FORBIDDEN', 'Only the recipient may answer a draw offer');
  if (offer.status !== 'pending') return refuse('DRAW_OFFER_NOT_PENDING', `The draw offer is ${offer.status}`);
  if (accept) return finish(s, at, { ending: drawBy('agreement'), acceptedOfferId: offer.id }, endReply);
  return {
    write: { kind: 'close_offer', offerId, status: 'declined', eventSeq: s.eventSeq + 1 },
    events: [{ type: 'offer_closed', at: now, offerId, status: 'declined' }],
    reply: () => ok({ draw_offer: offerView(offer, 'declined'), status: 'active' as const }),
  };
}

function expireOffer(s: LiveGameState, offerId: string, now: number): Decision {
  const pending = pendingOffer(s);
  if (s.status !== 'active' || pending?.id !== offerId || now < pending.expiresAt) return nothing();
  return {
    write: { kind: 'close_offer', offerId, status: 'expired', eventSeq: s.eventSeq + 1 },
    events: [{ type: 'offer_closed', at: now, offerId, status: 'expired' }],
    reply: () => ok(null),
  };
}

/**
 * A takeback proposal: of the proposer's last move when it is the opponent's turn (1 ply), of
 * their last move and the reply when it is their own (2 plies). Never back before both first
 * moves (the game could then be aborted again), never in an arena game.
 */
function decideTakeback(s: LiveGameState, userId: string, takebackId: string, color: Color, now: number): Decision {
  if (s.arena) return refuse('TAKEBACK_NOT_ALLOWED', 'Takebacks are not allowed in arena games');
  const plies = s.game.turn === color ? 2 : 1;
  if (s.game.moveCount - plies < 2) {
    return refuse('TAKEBACK_NOT_ALLOWED', 'A takeback may not undo either side\'s first move');
  }
  if (pendingTakeback(s)) return refuse('TAKEBACK_PENDING', 'A takeback proposal is already pending');
  if (s.takebacks.filter((t) => t.offeredBy === userId).length >= TAKEBACKS_PER_PLAYER) {
    return refuse('TAKEBACK_LIMIT', `A player may propose at most ${TAKEBACKS_PER_PLAYER} takebacks a game`);
  }
  const takeback: TakebackOffer = { id: takebackId, offeredBy: userId, ply: s.game.moveCount, plies, expiresAt: now + s.rules.drawOfferTtlMs };
  return {
    write: {
      kind: 'open_takeback',
      takebackId,
      offeredBy: userId,
      ply: takeback.ply,
      plies,
      expiresAt: new Date(takeback.expiresAt),
      eventSeq: s.eventSeq + 1,
    },
    events: [{ type: 'takeback_opened', at: now, takeback }],
    reply: () => ok({ takeback: takebackView(takeback, 'pending') }),
  };
}

/**
 * The recipient's answer. Accepted, the plies leave the game: the board is rebuilt by replaying
 * the moves left from the start (a live game keeps no history to undo: game.ts), both clocks keep
 * the time they show at `at`, and the side now to move's clock runs from `now`.
 */
function decideTakebackAnswer(s: LiveGameState, userId: string, takebackId: string, accept: boolean, at: number, now: number): Decision {
  const takeback = s.takebacks.find((t) => t.id === takebackId);
  if (!takeback) return refuse('TAKEBACK_NOT_FOUND', 'No such takeback proposal in this game');
  if (takeback.offeredBy === userId) return refuse('FORBIDDEN', 'Only the recipient may answer a takeback proposal');
  if (takeback.status !== 'pending') return refuse('TAKEBACK_NOT_PENDING', `The takeback proposal is ${takeback.status}`);
  if (at >= takeback.expiresAt) return refuse('TAKEBACK_NOT_PENDING', 'The takeback proposal has lapsed');
  if (!accept) {
    return {
      write: { kind: 'close_takeback', takebackId, status: 'declined', eventSeq: s.eventSeq + 1 },
      events: [{ type: 'takeback_closed', at: now, takebackId, status: 'declined' }],
      reply: () => ok({ takeback: takebackView(takeback, 'declined') }),
    };
  }
  const toPly = s.game.moveCount - takeback.plies;
  const game = new ChessGame({ moves: s.game.sanList.slice(0, toPly) });
  const { whiteMs, blackMs } = s.clock.bookedAt(at);
  const clock = ChessClock.restore({ ...s.clock.snapshot(), whiteMs, blackMs, plies: toPly }, now);
  const snap = clock.snapshot();
  return {
    write: {
      kind: 'take_back',
      takebackId,
      plies: takeback.plies,
      toPly,
      fen: game.fen,
      pgn: game.movetext,
      whiteMs: snap.whiteMs,
      blackMs: snap.blackMs,
      turnStartedAt: new Date(now),
      // The row's room state is rewritten whole: the joined seats (a claim needs them) stay in it.
      roomState: s.joinedSeats
        ? { whiteQuotaMs: snap.whiteQuotaMs, blackQuotaMs: snap.blackQuotaMs, joined: s.joinedSeats }
        : { whiteQuotaMs: snap.whiteQuotaMs, blackQuotaMs: snap.blackQuotaMs },
      eventSeq: s.eventSeq + 1,
    },
    events: [{ type: 'taken_back', at: now, takebackId, plies: takeback.plies, game, clock: clock.state() }],
    reply: (after) => ok({ takeback: takebackView(takeback, 'accepted'), game: positionAnswer(after, now) }),
  };
}

function expireTakeback(s: LiveGameState, takebackId: string, now: number): Decision {
  const pending = pendingTakeback(s);
  if (s.status !== 'active' || pending?.id !== takebackId || now < pending.expiresAt) return nothing();
  return {
    write: { kind: 'close_takeback', takebackId, status: 'expired', eventSeq: s.eventSeq + 1 },
    events: [{ type: 'takeback_closed', at: now, takebackId, status: 'expired' }],
    reply: () => ok(null),
  };
}

/** The ending that time alone has brought about by `now`: a fallen flag or a missed first move. */
function overdueEnding(s: LiveGameState, now: number): Decision | undefined {
  if (s.status !== 'active') return undefined;
  const flagged = s.clock.flagged(now);
  if (flagged) return finish(s, now, { ending: s.game.timeoutEnding(flagged) }, endReply);
  if (s.firstMoveDeadline !== null && s.game.moveCount < 2 && now >= s.firstMoveDeadline) {
    return finish(s, now, { ending: null, abortReason: 'no_first_move' }, endReply);
  }
  return undefined;
}

type FinishOptions = {
  ending: Ending | null;
  abortReason?: AbortReason;
  acceptedOfferId?: string;
  /** The final move: its event comes first and its row is written in the finishing transaction. */
  leading?: DomainEvent[];
  /** The clock after the final move. */
  clock?: ChessClock;
  finalMove?: (eventSeq: number) => MoveRecord;
  /** A claim against an absent player: a `timeout` that leaves both clocks as they were. */
  claimed?: boolean;
};

function finish(s: LiveGameState, now: number, o: FinishOptions, reply: Decision['reply']): Decision {
  const clock = o.clock ?? ChessClock.fromState(s.clock.state());
  clock.pause(now);
  const t = clock.times(now);
  const flagged = o.ending?.termination === 'timeout' && !o.claimed ? s.game.turn : null;
  const leading = o.leading ?? [];
  const ended: DomainEvent = {
    type: 'ended',
    at: now,
    status: o.abortReason ? 'abandoned' : 'finished',
    ending: o.ending,
    abortReason: o.abortReason ?? null,
    acceptedOfferId: o.acceptedOfferId ?? null,
  };
  const events = [...leading, ended];
  const eventSeq = s.eventSeq + events.length;
  return {
    write: {
      kind: 'finish',
      finalMove: o.finalMove?.(eventSeq),
      ending: o.ending,
      abortReason: o.abortReason,
      acceptedOfferId: o.acceptedOfferId,
      whiteMs: flagged === 'white' ? 0 : t.white,
      blackMs: flagged === 'black' ? 0 : t.black,
      eventSeq,
    },
    events,
    reply,
  };
}

/** What a move's row is made of: the move judged on the board, and the game as the move leaves it. */
type MoveRecordInput = {
  tried: TriedMove;
  movetextBefore: string;
  ply: number;
  /** The clock after the move. */
  clock: ChessClock;
  /** The mover's clock right after the move (ms). */
  clockMs: number;
  /** When the move was made. */
  now: number;
  firstMoveDeadline: number | null;
  moverId: string;
  eventSeq: number;
  lapsesOffer: boolean;
  lapsesTakeback: boolean;
  joined: LiveGameState['joinedSeats'];
};

function moveRecord(m: MoveRecordInput): MoveRecord {
  const { tried, clock, joined } = m;
  const snap = clock.snapshot();
  const deadline = clock.moveDeadline();
  const record: MoveRecord = {
    ply: m.ply,
    san: tried.move.san,
    uci: tried.uci,
    fen: tried.fen,
    pgn: m.movetextBefore + tried.pgnSuffix,
    playedAt: new Date(m.now),
    clockMs: m.clockMs,
    whiteMs: snap.whiteMs,
    blackMs: snap.blackMs,
    clockRunning: clock.running,
    firstMoveDeadline: m.firstMoveDeadline === null ? null : new Date(m.firstMoveDeadline),
    roomState: joined
      ? { whiteQuotaMs: snap.whiteQuotaMs, blackQuotaMs: snap.blackQuotaMs, joined }
      : { whiteQuotaMs: snap.whiteQuotaMs, blackQuotaMs: snap.blackQuotaMs },
    eventSeq: m.eventSeq,
    moverId: m.moverId,
    lapsesOffer: m.lapsesOffer,
    moveDeadline: deadline === null ? null : new Date(deadline),
  };
  if (m.lapsesTakeback) record.lapsesTakeback = true;
  return record;
}

// ---- evolve -------------------------------------------------------------------------------

/** Applies one event to the state (the shell calls it once the event's write is durable). */
export function evolve(s: LiveGameState, e: DomainEvent): void {
  s.eventSeq++;
  s.lastChangeAt = e.at;
  switch (e.type) {
    case 'moved':
      s.game.commit(e.uci);
      s.clock = ChessClock.fromState(e.clock);
      s.firstMoveDeadline = e.firstMoveDeadline;
      return;
    case 'offer_opened':
      s.offers.push({ ...e.offer, status: 'pending' });
      return;
    case 'offer_closed':
      setOfferStatus(s, e.offerId, e.status);
      return;
    case 'takeback_opened':
      s.takebacks.push({ ...e.takeback, status: 'pending' });
      return;
    case 'takeback_closed':
      setTakebackStatus(s, e.takebackId, e.status);
      return;
    case 'taken_back':
      s.game = e.game;
      s.clock = ChessClock.fromState(e.clock);
      setTakebackStatus(s, e.takebackId, 'accepted');
      return;
    case 'ended':
      s.status = e.status;
      s.ending = e.ending;
      s.abortReason = e.abortReason;
      s.ratingChanges = e.ratingChanges ?? { white: 0, black: 0 };
      s.firstMoveDeadline = null;
      s.clock.pause(e.at);
      if (e.ending) s.game.finish(e.ending);
      // The finishing transaction lapses every pending offer but the accepted one.
      for (const o of s.offers) if (o.status === 'pending') o.status = o.id === e.acceptedOfferId ? 'accepted' : 'expired';
      for (const t of s.takebacks) if (t.status === 'pending') t.status = 'expired';
      return;
  }
}

/** The event as the world sees it (call after evolving it, so the state is the one it made). */
export function publicEvent(s: LiveGameState, e: DomainEvent): GameEvent {
  switch (e.type) {
    case 'moved': {
      const move: GameEvent = {
        type: 'move',
        move: { ...e.move, ply: e.ply, fen: e.fen, move_count: e.ply, current_turn: e.turn },
        // Called right after evolving this event, so the state's clock is the event's.
        times: timesAt(s.clock, e.at),
      };
      // A move's position is mate or a draw exactly when the rules end the game with it.
      if (e.position.in_checkmate || e.position.in_draw) move.ends_game = true;
      return move;
    }
    case 'offer_opened':
      return { type: 'draw_offer', draw_offer: offerView(e.offer, 'pending') };
    case 'offer_closed':
      return { type: 'draw_offer', draw_offer: offerView(s.offers.find((o) => o.id === e.offerId)!, e.status) };
    case 'takeback_opened':
      return { type: 'takeback_offer', takeback: takebackView(e.takeback, 'pending') };
    case 'takeback_closed':
      return { type: 'takeback_offer', takeback: takebackView(s.takebacks.find((t) => t.id === e.takebackId)!, e.status) };
    case 'taken_back':
      return {
        type: 'takeback',
        takeback_id: e.takebackId,
        plies: e.plies,
        fen: s.game.fen,
        move_count: s.game.moveCount,
        current_turn: s.game.turn,
        times: timesAt(s.clock, e.at),
      };
    case 'ended':
      return { type: 'game_end', status: e.status, abort_reason: e.abortReason, result: endView(s) };
  }
}

// ---- views and helpers --------------------------------------------------------------------

export function colorOf(s: LiveGameState, userId: string): Color | undefined {
  return userId === s.white.id ? 'white' : userId === s.black.id ? 'black' : undefined;
}

export function pendingOffer(s: LiveGameState): OfferRecord | undefined {
  return s.offers.find((o) => o.status === 'pending');
}

export function pendingTakeback(s: LiveGameState): TakebackRecord | undefined {
  return s.takebacks.find((t) => t.status === 'pending');
}

export function timesAt(clock: ChessClock, now: number): Times {
  const t = clock.times(now);
  return { white: seconds(t.white), black: seconds(t.black) };
}

export function endView(s: LiveGameState): EndView {
  return {
    result: s.ending?.result ?? null,
    winner: s.ending?.winner ?? null,
    termination: s.ending?.termination ?? null,
    rating_changes: s.ratingChanges,
  };
}

/** When the next timer must look at the game: flag fall, first-move deadline, offer and takeback expiry. */
export function nextDeadlines(s: LiveGameState): { clock: number | null; offer: DrawOffer | null; takeback: TakebackOffer | null } {
  if (s.status !== 'active') return { clock: null, offer: null, takeback: null };
  const flagAt = s.clock.flagAt();
  const firstMove = s.game.moveCount < 2 ? s.firstMoveDeadline : null;
  const candidates = [flagAt, firstMove].filter((t): t is number => t !== null);
  return { clock: candidates.length ? Math.min(...candidates) : null, offer: pendingOffer(s) ?? null, takeback: pendingTakeback(s) ?? null };
}

/** The game as it stands at `now` (an active game's position and clocks). */
export function positionAnswer(s: LiveGameState, now: number): PositionAnswer {
  const t = timesAt(s.clock, now);
  return {
    status: 'active',
    fen: s.game.fen,
    current_turn: s.game.turn,
    move_count: s.game.moveCount,
    white_time_remaining: t.white,
    black_time_remaining: t.black,
  };
}

/** The answer to a move: the move and the game as it stands at `now`. */
export function moveReply(s: LiveGameState, move: Move, position: PositionFlags, now: number): MoveAnswer {
  const t = timesAt(s.clock, now);
  return {
    move,
    game: {
      status: s.status,
      fen: s.game.fen,
      current_turn: s.game.turn,
      move_count: s.game.moveCount,
      white_time_remaining: t.white,
      black_time_remaining: t.black,
      ...position,
    },
  };
}

/** The answer of a command that ended the game (so the status is no longer active). */
function endAnswer(s: LiveGameState): EndAnswer {
  return { status: s.status as EndAnswer['status'], ...endView(s) };
}

const endReply = (s: LiveGameState) => ok(endAnswer(s));

function lastOfferPly(s: LiveGameState, userId: string): number | undefined {
  let last: number | undefined;
  for (const o of s.offers) if (o.offeredBy === userId && (last === undefined || o.ply > last)) last = o.ply;
  return last;
}

function setTakebackStatus(s: LiveGameState, takebackId: string, status: TakebackStatus): void {
  const takeback = s.takebacks.find((t) => t.id === takebackId);
  if (takeback) takeback.status = status;
}

function setOfferStatus(s: LiveGameState, offerId: string, status: DrawOfferStatus): void {
  const offer = s.offers.find((o) => o.id === offerId);
  if (offer) offer.status = status;
}

function refuse(code: RuleErrorCode, message: string, details?: ErrorDetails): Decision {
  const reply = fail(code, message, details);
  return { write: null, events: [], reply: () => reply };
}

function nothing(): Decision {
  return { write: null, events: [], reply: () => ok(null) };
}
