// A player's commands on a live game (move, resign, draw, takeback): checked here only as far as the order
// of errors demands (exists → player → active), then judged by the game's actor, its only writer.
import { randomUUID } from 'node:crypto';
import type { GameRecord } from '../db/games.ts';
import { AppError } from '../errors.ts';
import { callGame } from '../gateway/index.ts';
import { findVisible, isPlayer, type GamesDeps } from './gameAccess.ts';
import type { CommandAnswers } from './gameViews.ts';
import type { CommandCall, CommandInput } from './gameActor.ts';
import type { ClaimResult } from '../domain/gameDecider.ts';

export type MoveInput = { from: string; to: string; promotion?: string | null };
/** What a REST request adds to a player's command: its Idempotency-Key, and when it was read (ms). */
export type CommandRequest = { idempotencyKey?: string; receivedAt?: number };

/** The checks REST owes before the room judges: exists (404) → a player (403) → active (409). */
async function forLiveGame(d: GamesDeps, userId: string, id: string): Promise<GameRecord> {
  const game = await findVisible(d, userId, id);
  if (!isPlayer(game, userId)) throw new AppError('NOT_A_PLAYER', 'You are not a player of this game');
  if (game.status !== 'active') throw new AppError('GAME_NOT_ACTIVE', `The game is ${game.status}`);
  return game;
}

/**
 * Hands a player's command to the game's room. The room remembers answered keys: the client's
 * Idempotency-Key when given, else one made for this request, so the gateway's own retry after
 * a timeout is answered as the first try was and never acts twice. `receivedAt` (when the
 * request was read) travels with the command, to whichever node hosts the game: the room
 * times the command from then, not from when its turn comes.
 */
async function command<C extends CommandInput>(d: GamesDeps, requestedId: string, input: C, request: CommandRequest): Promise<CommandAnswers[C['type']]> {
  // The room is keyed by the game's own id: another spelling of it would open a second room.
  const { id: gameId } = await forLiveGame(d, input.userId, requestedId);
  const { idempotencyKey, receivedAt } = request;
  const key = idempotencyKey === undefined ? `request:${randomUUID()}` : `rest:${input.userId}:${idempotencyKey}`;
  const call: CommandCall<C> = { command: receivedAt === undefined ? input : { ...input, receivedAt }, key };
  return callGame<CommandCall<C>, CommandAnswers[C['type']]>(gameId, 'apiCommand', call);
}

export const makeMove = (d: GamesDeps, userId: string, id: string, move: MoveInput, request: CommandRequest = {}) =>
  command(d, id, { type: 'move', userId, from: move.from, to: move.to, promotion: move.promotion ?? null }, request);
export const resign = (d: GamesDeps, userId: string, id: string, request: CommandRequest = {}) => command(d, id, { type: 'resign', userId }, request);
export const offerDraw = (d: GamesDeps, userId: string, id: string, request: CommandRequest = {}) => command(d, id, { type: 'offer_draw', userId }, request);
export const answerDraw = (d: GamesDeps, userId: string, id: string, offerId: string, accept: boolean, request: CommandRequest = {}) =>
  command(d, id, { type: 'answer_draw', userId, offerId, accept }, request);
export const abort = (d: GamesDeps, userId: string, id: string, request: CommandRequest = {}) => command(d, id, { type: 'abort', userId }, request);
export const claim = (d: GamesDeps, userId: string, id: string, result: ClaimResult, request: CommandRequest = {}) =>
  command(d, id, { type: 'claim', userId, result }, request);
export const offerTakeback = (d: GamesDeps, userId: string, id: string, request: CommandRequest = {}) =>
  command(d, id, { type: 'offer_takeback', userId }, request);
export const answerTakeback = (d: GamesDeps, userId: string, id: string, takebackId: string, accept: boolean, request: CommandRequest = {}) =>
  command(d, id, { type: 'answer_takeback', userId, takebackId, accept }, request);

/**
 * A player's chat message in an active clocked game, as the game hears it (DESIGN 2.11: a player
 * who acts by any API is present, the claim count starts again): told to the game's actor, the
 * one that judges claims. Called once the message is stored; it needs no key, telling it twice
 * does no harm. A correspondence game counts nothing (its room may rest: it is not woken for this).
 */
export async function noteChat(game: Pick<GameRecord, 'id' | 'status' | 'timeControl'>, userId: string, receivedAt?: number): Promise<void> {
  if (game.status !== 'active' || game.timeControl === 'correspondence') return;
  const call: CommandCall<CommandInput> = { command: { type: 'chat', userId, ...(receivedAt === undefined ? {} : { receivedAt }) } };
  await callGame<CommandCall<CommandInput>, CommandAnswers['chat']>(game.id, 'apiCommand', call);
}
