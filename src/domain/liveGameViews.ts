// What a live game tells the world: its published events (DESIGN 2.6) and the data of its
// answers, shared by REST, the room and the stream.
import type { Failure } from '../result.ts';
import type { Color, GameResult, Move, PositionFlags, Termination } from './game.ts';

/** Seconds with millisecond precision, the unit of every clock field the API reports. */
export const seconds = (ms: number) => Math.round(ms) / 1000;

export type Seat = { id: string; username: string; rating: number };
export type DrawOffer = { id: string; offeredBy: string; ply: number; expiresAt: number };
export type DrawOfferStatus = 'pending' | 'accepted' | 'declined' | 'expired';
export type RatingChanges = { white: number; black: number };
export type Times = { white: number; black: number };
export type DrawOfferView = { id: string; offered_by: string; status: DrawOfferStatus; expires_at: string };
/** A takeback proposal: `ply` is the number of moves on the board when it was made. */
export type TakebackOffer = { id: string; offeredBy: string; ply: number; plies: 1 | 2; expiresAt: number };
export type TakebackStatus = DrawOfferStatus;
export type TakebackView = { id: string; offered_by: string; plies: 1 | 2; status: TakebackStatus; expires_at: string };
export type EndView = { result: GameResult | null; winner: Color | null; termination: Termination | null; rating_changes: RatingChanges };

/** Events of a live game, as the stream and the room publish them (DESIGN 2.6). */
export type GameEvent =
  /**
   * `ends_game`, only on a move that ends the game by the rules (mate, stalemate, a draw by rule):
   * its `game_end` follows. A watcher learns it here without rules of its own (a Lichess stream
   * sends no line of such a move, only the final state).
   */
  | { type: 'move'; move: Move & { ply: number; fen: string; move_count: number; current_turn: Color }; times: Times; ends_game?: true }
  | { type: 'time_update'; times: Times }
  | { type: 'draw_offer'; draw_offer: DrawOfferView }
  | { type: 'takeback_offer'; takeback: TakebackView }
  /** An accepted takeback: the board after it (the accepted offer is `takeback_id`). */
  | { type: 'takeback'; takeback_id: string; plies: number; fen: string; move_count: number; current_turn: Color; times: Times }
  | { type: 'game_end'; status: 'finished' | 'abandoned'; abort_reason: string | null; result: EndView };

/** A published event with its per-game number and time. */
export type NumberedEvent = GameEvent & { v: number; ts: number };

export function offerView(o: DrawOffer, status: DrawOfferStatus): DrawOfferView {
  return { id: o.id, offered_by: o.offeredBy, status, expires_at: new Date(o.expiresAt).toISOString() };
}

export function takebackView(o: TakebackOffer, status: TakebackStatus): TakebackView {
  return { id: o.id, offered_by: o.offeredBy, plies: o.plies, status, expires_at: new Date(o.expiresAt).toISOString() };
}

/** The codes a live game's rules answer with (a subset of the service's error table). */
export type RuleErrorCode =
  | 'NOT_A_PLAYER'
  | 'GAME_NOT_ACTIVE'
  | 'NOT_YOUR_TURN'
  | 'INVALID_MOVE'
  | 'VALIDATION_ERROR'
  | 'FORBIDDEN'
  | 'DRAW_OFFER_PENDING'
  | 'DRAW_OFFER_LIMIT'
  | 'DRAW_OFFER_NOT_FOUND'
  | 'DRAW_OFFER_NOT_PENDING'
  | 'GAME_NOT_ABORTABLE'
  | 'CLAIM_NOT_ALLOWED'
  | 'TAKEBACK_PENDING'
  | 'TAKEBACK_LIMIT'
  | 'TAKEBACK_NOT_ALLOWED'
  | 'TAKEBACK_NOT_FOUND'
  | 'TAKEBACK_NOT_PENDING';

/** How a live game's rules refuse a command. */
export type RuleFailure = Failure<RuleErrorCode>;

/**
 * What a live game answers each player command with, by command type: the data of the REST
 * answer (src/services/gameViews.ts holds the schemas; src/services/gameActor.ts checks that these
 * fit them) and of the socket's `<command>:ok`.
 */
export type Answers = {
  move: MoveAnswer;
  resign: EndAnswer;
  offer_draw: { draw_offer: DrawOfferView } & Partial<EndAnswer>;
  answer_draw: EndAnswer | { draw_offer: DrawOfferView; status: 'active' };
  abort: EndAnswer;
  claim: EndAnswer;
  offer_takeback: { takeback: TakebackView };
  /** Accepted: the game as the takeback leaves it; declined: the offer alone. */
  answer_takeback: { takeback: TakebackView; game?: PositionAnswer };
  /** Nothing to say: the chat service answers with the message. */
  chat: null;
};
/** The game as it stands, for answers that change the position without a move. */
export type PositionAnswer = {
  status: 'active';
  fen: string;
  current_turn: Color;
  move_count: number;
  white_time_remaining: number;
  black_time_remaining: number;
};
export type MoveAnswer = {
  move: Move;
  game: {
    status: 'active' | 'finished' | 'abandoned';
    fen: string;
    current_turn: Color;
    move_count: number;
    white_time_remaining: number;
    black_time_remaining: number;
  } & PositionFlags;
};
export type EndAnswer = { status: 'finished' | 'abandoned' } & EndView;
