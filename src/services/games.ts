// The game use cases REST, the streams, the sweeper and the webhooks call, as one object bound to
// their dependencies. Each is an exported function over explicit deps in its own file: reads in
// ./gameReads.ts, pending games (challenges, seeks) in ./gameLifecycle.ts, a player's commands on
// a live game in ./gameCommands.ts, what they share in ./gameAccess.ts.
import type { AppContext } from '../context.ts';
import type { DeclineReason } from '../domain/statuses.ts';
import type { GamesDeps } from './gameAccess.ts';
import { playerCommand, type CommandRequest } from './gameCommands.ts';
import type { CommandPayload, GameCommandName } from './gameCommandCatalogue.ts';
import { acceptGame, cancelGame, createGame, declineGame, pendingExpired, type CreateGameInput } from './gameLifecycle.ts';
import { requestRematch } from './rematch.ts';
import { getGame, getPgn, getPublicGame, listGames, snapshot, type ListGamesInput, type PgnOptions } from './gameReads.ts';
import type { LiveGameHost } from './liveGameHost.ts';

export { visibleTo, type GamesDeps } from './gameAccess.ts';
export type { CommandRequest } from './gameCommands.ts';
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
    /** `why`: the reason told to the challenger (Lichess's decline); none from /v1. */
    declineGame: (userId: string, id: string, why?: DeclineReason) => declineGame(d, userId, id, why),
    cancelGame: (userId: string, id: string) => cancelGame(d, userId, id),
    getGame: (userId: string, id: string) => getGame(d, userId, id),
    getPublicGame: (id: string) => getPublicGame(d, id),
    snapshot: (viewerId: string | undefined, id: string) => snapshot(d, viewerId, id),
    listGames: (userId: string, q: ListGamesInput) => listGames(d, userId, q),
    getPgn: (userId: string, id: string, options?: PgnOptions) => getPgn(d, userId, id, options),
    /** A player's command on a live game, by its name in the catalogue (src/services/gameCommandCatalogue.ts). */
    command: <N extends GameCommandName>(name: N, userId: string, id: string, payload: CommandPayload<N>, request?: CommandRequest) =>
      playerCommand(d, name, userId, id, payload, request),
    requestRematch: (userId: string, id: string) => requestRematch(d, userId, id),
  };
}
