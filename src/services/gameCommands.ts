// A player's commands on a live game (move, resign, draw, takeback): checked here only as far as the order
// of errors demands (exists → player → active), then judged by the game's actor, its only writer.
import { randomUUID } from 'node:crypto';
import type { GameRecord } from '../db/games.ts';
import { parseId } from '../domain/ids.ts';
import { AppError } from '../errors.ts';
import { answerOf, callGame } from '../gateway/index.ts';
import { findVisible, isPlayer, type GamesDeps } from './gameAccess.ts';
import type { GameActor, GameRoomApi } from './gameActor.ts';
import { actorCommand, type AnswerOf, type CommandPayload, type GameCommandName } from './gameCommandCatalogue.ts';

/** What a REST request adds to a player's command: its Idempotency-Key, and when it was read (ms). */
export type CommandRequest = { idempotencyKey?: string; receivedAt?: number };

/**
 * The checks REST owes before the room judges: exists (404) → a player (403) → active (409); the
 * game's own id. A game this node hosts, active and surely still its own, answers from its actor
 * (its only writer) without a round trip; any other is read from PostgreSQL, which says why it is
 * not active (finished, abandoned) or that it does not exist.
 */
async function forLiveGame(d: GamesDeps, userId: string, requestedId: string): Promise<{ id: string; hosted?: GameActor }> {
  const id = parseId(requestedId);
  const hosted = id === undefined ? undefined : d.liveGames?.find(id);
  if (hosted?.servesReads(d.clock.now())) {
    if (!hosted.colorOf(userId)) throw notAPlayer();
    return { id: hosted.id, hosted };
  }
  const game = await findVisible(d, userId, requestedId);
  if (!isPlayer(game, userId)) throw notAPlayer();
  if (game.status !== 'active') throw new AppError('GAME_NOT_ACTIVE', `The game is ${game.status}`);
  return { id: game.id };
}

const notAPlayer = () => new AppError('NOT_A_PLAYER', 'You are not a player of this game');

/**
 * A player's command from REST, named and shaped as the socket message of the same name
 * (src/services/gameCommandCatalogue.ts: the body and the path's ids), handed to the game's room.
 * The room remembers answered keys: the client's Idempotency-Key when given, else one made for
 * this request, so the gateway's own retry after a timeout is answered as the first try was and
 * never acts twice. `receivedAt` (when the request was read) travels with the command, to
 * whichever node hosts the game: the room times the command from then, not from when its turn comes.
 */
export async function playerCommand<N extends GameCommandName>(
  d: GamesDeps,
  name: N,
  userId: string,
  requestedId: string,
  payload: CommandPayload<N>,
  request: CommandRequest = {},
): Promise<AnswerOf<N>> {
  // The room is keyed by the game's own id: another spelling of it would open a second room.
  const { id: gameId, hosted } = await forLiveGame(d, userId, requestedId);
  const { idempotencyKey, receivedAt } = request;
  const key = idempotencyKey === undefined ? `request:${randomUUID()}` : `rest:${userId}:${idempotencyKey}`;
  const command = actorCommand(name, userId, payload, receivedAt);
  // A game hosted here is told directly (its room's apiCommand is this same call), without the
  // gateway's lookup of the room among the node's and the copy of the command it makes.
  if (hosted) return answerOf(await hosted.execute(command, key));
  return answerOf(await callGame<GameRoomApi>(gameId).apiCommand({ command, key }));
}

/**
 * A player's chat message in an active clocked game, as the game hears it (DESIGN 2.11: a player
 * who acts by any API is present, the claim count starts again): told to the game's actor, the
 * one that judges claims. Called once the message is stored; it needs no key, telling it twice
 * does no harm. A correspondence game counts nothing (its room may rest: it is not woken for this).
 */
export async function noteChat(game: Pick<GameRecord, 'id' | 'status' | 'timeControl'>, userId: string, receivedAt?: number): Promise<void> {
  if (game.status !== 'active' || game.timeControl === 'correspondence') return;
  const chat = { type: 'chat' as const, userId, ...(receivedAt === undefined ? {} : { receivedAt }) };
  answerOf(await callGame<GameRoomApi>(game.id).apiCommand({ command: chat }));
}
