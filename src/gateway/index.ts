import { matchMaker } from '@colyseus/core';
import type { Reply } from '../domain/liveGameViews.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { sleep } from '../time.ts';

/** The room names games and seek pools are registered under (src/server.ts). */
export const GAME_ROOM = 'game';
export const POOL_ROOM = 'seek_pool';

/**
 * The room methods REST may call, and nothing else: `remoteRoomCall` would otherwise invoke any
 * method by name on a room, possibly on another node.
 */
export const GAME_ROOM_METHODS = ['apiCommand'] as const;
export type GameRoomMethod = (typeof GAME_ROOM_METHODS)[number];
export const POOL_ROOM_METHODS = ['apiSeek'] as const;
export type PoolRoomMethod = (typeof POOL_ROOM_METHODS)[number];

/**
 * What a room method returns across processes: errors travel as data, because an exception
 * thrown in a remote room loses its class (and code) on the way back.
 */
export type RoomReply<T = unknown> = Reply<T, ErrorCode>;

/** Thrown by a room's onCreate when the game cannot be hosted here; read by the gateway. */
export const ROOM_REFUSED = {
  NOT_ACTIVE: 'GAME_NOT_ACTIVE',
  LEASE_HELD: 'LEASE_HELD',
} as const;

const ATTEMPTS = 6;
/** The room is between owners (its node died and the lease has not lapsed): come back shortly. */
const unavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The game is temporarily unavailable, retry shortly', undefined, { retryAfter: 1 });

/**
 * Makes sure the live room of an active game exists somewhere in the cluster: finds it, or
 * creates it (rehydrating the game from PostgreSQL) on the process the matchmaker picks.
 * Resolves false when the game is not active (nothing to host).
 */
export function openGame(gameId: string): Promise<boolean> {
  return openRoom(GAME_ROOM, gameId, { gameId });
}

/** Finds or creates the room `roomId` (its onCreate takes the lease that makes it unique). */
async function openRoom(roomName: string, roomId: string, createOptions: object): Promise<boolean> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const rooms = await matchMaker.findRoomsByIds([roomId]);
    if (rooms.has(roomId)) return true;
    try {
      await matchMaker.createRoom(roomName, createOptions);
      return true;
    } catch (error) {
      const message = (error as Error).message ?? '';
      if (message.includes(ROOM_REFUSED.NOT_ACTIVE)) return false;
      // Another node holds the lease (it is creating the room, or its lease has not lapsed yet),
      // or two creations raced: look again shortly.
      await sleep(50 * (attempt + 1));
    }
  }
  throw unavailable();
}

/** Calls an allowed method on the game's room, wherever it runs; errors come back as AppError. */
export function callGame<T>(gameId: string, method: GameRoomMethod, args: unknown[]): Promise<T> {
  if (!GAME_ROOM_METHODS.includes(method)) throw new Error(`room method ${method} is not callable`);
  return callRoom<T>(GAME_ROOM, gameId, { gameId }, method, args, () => new AppError('GAME_NOT_ACTIVE', 'The game is not active'));
}

/** Calls an allowed method on a seek pool's room (created on first use, unique in the cluster). */
export function callPool<T>(poolId: string, createOptions: object, method: PoolRoomMethod, args: unknown[]): Promise<T> {
  if (!POOL_ROOM_METHODS.includes(method)) throw new Error(`room method ${method} is not callable`);
  return callRoom<T>(POOL_ROOM, poolId, createOptions, method, args, () => new AppError('VALIDATION_ERROR', 'Invalid seek pool'));
}

async function callRoom<T>(
  roomName: string,
  roomId: string,
  createOptions: object,
  method: string,
  args: unknown[],
  refused: () => AppError,
): Promise<T> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (!(await openRoom(roomName, roomId, createOptions))) throw refused();
    let reply: RoomReply<T>;
    try {
      reply = (await matchMaker.remoteRoomCall(roomId, method as never, args)) as RoomReply<T>;
    } catch {
      // The room went away between lookup and call (disposed, fenced out), or its node died and
      // left its listing behind: ask that node for a sign of life; a dead node's listings are
      // dropped, so the next turn re-creates the room here once the game's lease has lapsed.
      await forgetDeadHost(roomId);
      await sleep(50 * (attempt + 1));
      continue;
    }
    if (reply === undefined) continue; // a stale cache entry answered for a room that is gone
    if (reply.ok) return reply.data;
    throw new AppError(reply.code, reply.message, reply.details);
  }
  throw unavailable();
}

async function forgetDeadHost(roomId: string): Promise<void> {
  const listing = (await matchMaker.findRoomsByIds([roomId])).get(roomId);
  if (listing?.processId && listing.processId !== matchMaker.processId) {
    await matchMaker.healthCheckProcessId(listing.processId).catch(() => {});
  }
}

/**
 * A seat in the game's room for a player paired over a socket: the client consumes the
 * reservation (`client.consumeSeatReservation`) and joins as that player without a token.
 */
export async function reserveGameSeat(gameId: string, user: { id: string; email: string; sessionId: string }): Promise<unknown> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (!(await openGame(gameId))) throw new AppError('GAME_NOT_ACTIVE', 'The game is not active');
    const room = (await matchMaker.findRoomsByIds([gameId])).get(gameId);
    if (room) return matchMaker.reserveSeatFor(room, {}, { user });
  }
  throw unavailable();
}
