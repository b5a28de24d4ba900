// The game use cases REST, the streams, the sweeper and the webhooks call, as one object bound to
// their dependencies. Each is an exported function over explicit deps in its own file: reads in
// ./gameReads.ts, pending games (challenges, seeks) in ./gameLifecycle.ts, a player's commands on
// a live game in ./gameCommands.ts, what they share in ./gameAccess.ts.
import type { AppContext } from '../context.ts';
import type { GamesDeps } from './gameAccess.ts';
import { abort, answerDraw, answerTakeback, claim, makeMove, offerDraw, offerTakeback, resign, type CommandRequest, type MoveInput } from './gameCommands.ts';
import type { ClaimResult } from '../domain/gameDecider.ts';
import { acceptGame, cancelGame, createGame, declineGame, pendingExpired, type CreateGameInput } from './gameLifecycle.ts';
import { requestRematch } from './rematch.ts';
import { getGame, getPgn, getPublicGame, listGames, snapshot, type ListGamesInput, type PgnOptions } from './gameReads.ts';
import type { LiveGameHost } from './liveGameHost.ts';

export { visibleTo, type GamesDeps } from './gameAccess.ts';
export type { CommandRequest, MoveInput } from './gameCommands.ts';
export type { CreateGameInput } from './gameLifecycle.ts';
export type { GameSnapshot, ListGamesInput, PgnOptions } from './gameReads.ts';

export type GamesService = ReturnType<typeof createGamesService>;

/** `liveGames`: this process's live games, whose reads are served from memory. */
export function createGamesService(ctx: AppContext, liveGames?: LiveGameHost) {
  const d: GamesDeps = { pool: ctx.pool, config: ctx.config, log: ctx.log, clock: ctx.clock, events: ctx.events, liveGames };
  return {
    createGame: (userId: string, input: CreateGameInput) => createGame(d, userId, input),
    acceptGame: (userId: string, id: string) => acceptGame(d, userId, id),
    pendingExpired: (game: Parameters<typeof pendingExpired>[1]) => pendingExpired(d, game),
    declineGame: (userId: string, id: string) => declineGame(d, userId, id),
    cancelGame: (userId: string, id: string) => cancelGame(d, userId, id),
    getGame: (userId: string, id: string) => getGame(d, userId, id),
    getPublicGame: (id: string) => getPublicGame(d, id),
    snapshot: (viewerId: string | undefined, id: string) => snapshot(d, viewerId, id),
    listGames: (userId: string, q: ListGamesInput) => listGames(d, userId, q),
    getPgn: (userId: string, id: string, options?: PgnOptions) => getPgn(d, userId, id, options),
    makeMove: (userId: string, id: string, move: MoveInput, request?: CommandRequest) => makeMove(d, userId, id, move, request),
    resign: (userId: string, id: string, request?: CommandRequest) => resign(d, userId, id, request),
    offerDraw: (userId: string, id: string, request?: CommandRequest) => offerDraw(d, userId, id, request),
    answerDraw: (userId: string, id: string, offerId: string, accept: boolean, request?: CommandRequest) =>
      answerDraw(d, userId, id, offerId, accept, request),
    requestRematch: (userId: string, id: string) => requestRematch(d, userId, id),
    abort: (userId: string, id: string, request?: CommandRequest) => abort(d, userId, id, request),
    claim: (userId: string, id: string, result: ClaimResult, request?: CommandRequest) => claim(d, userId, id, result, request),
    offerTakeback: (userId: string, id: string, request?: CommandRequest) => offerTakeback(d, userId, id, request),
    answerTakeback: (userId: string, id: string, takebackId: string, accept: boolean, request?: CommandRequest) =>
      answerTakeback(d, userId, id, takebackId, accept, request),
  };
}
