import type { Color, Move } from '../domain/game.ts';
import type { RoomReply } from '../gateway/index.ts';

/** Seconds with millisecond precision, the unit of every clock field the API reports. */
export const seconds = (ms: number) => Math.round(ms) / 1000;

export type Seat = { id: string; username: string; rating: number };
export type DrawOffer = { id: string; offeredBy: string; ply: number; expiresAt: number };
export type RatingChanges = { white: number; black: number };
export type Times = { white: number; black: number };
export type DrawOfferView = { id: string; offered_by: string; status: string; expires_at: string };
export type EndView = { result: string | null; winner: Color | null; termination: string | null; rating_changes: RatingChanges };

/** Events of a live game, as the stream and the room publish them (DESIGN 2.6). */
export type GameEvent =
  | { type: 'move'; move: Move & { ply: number; fen: string; move_count: number; current_turn: Color }; times: Times }
  | { type: 'time_update'; times: Times }
  | { type: 'draw_offer'; draw_offer: DrawOfferView }
  | { type: 'game_end'; status: 'finished' | 'abandoned'; abort_reason: string | null; result: EndView };

export function offerView(o: DrawOffer, status: string): DrawOfferView {
  return { id: o.id, offered_by: o.offeredBy, status, expires_at: new Date(o.expiresAt).toISOString() };
}

export const fail = (
  code: Extract<RoomReply, { ok: false }>['code'],
  message: string,
  details?: Record<string, unknown>,
): RoomReply<never> => ({ ok: false, code, message, details });

export const ok = <T>(data: T): RoomReply<T> => ({ ok: true, data });
