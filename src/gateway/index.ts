import { matchMaker } from '@colyseus/core';
import { AppError, type ErrorCode } from '../errors.ts';

/** The room name games are registered under (src/server.ts). */
export const GAME_ROOM = 'game';

/**
 * The room methods REST may call, and nothing else: `remoteRoomCall` would otherwise invoke any
 * method by name on a room, possibly on another node.
 */
export const GAME_ROOM_METHODS = ['apiMove', 'apiResign', 'apiOfferDraw', 'apiAnswerDraw'] as const;
export type GameRoomMethod = (typeof GAME_ROOM_METHODS)[number];

/**
 * What a room method returns across processes: errors travel as data, because an exception
 * thrown in a remote room loses its class (and code) on the way back.
 */
export type RoomReply<T = unknown> =
  | { ok: true; data: T }
  | { ok: false; code: ErrorCode; message: string; details?: Record<string, unknown> };

/** Thrown by a room's onCreate when the game cannot be hosted here; read by the gateway. */
export const ROOM_REFUSED = {
  NOT_ACTIVE: 'GAME_NOT_ACTIVE',
  LEASE_HELD: 'LEASE_HELD',
} as const;

const ATTEMPTS = 6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Makes sure the live room of an active game exists somewhere in the cluster: finds it, or
 * creates it (rehydrating the game from PostgreSQL) on the process the matchmaker picks.
 * Resolves false when the game is not active (nothing to host).
 */
export async function openGame(gameId: string): Promise<boolean> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const rooms = await matchMaker.findRoomsByIds([gameId]);
    if (rooms.has(gameId)) return true;
    try {
      await matchMaker.createRoom(GAME_ROOM, { gameId });
      return true;
    } catch (error) {
      const message = (error as Error).message ?? '';
      if (message.includes(ROOM_REFUSED.NOT_ACTIVE)) return false;
      // Another node holds the lease (it is creating the room, or its lease has not lapsed yet),
      // or two creations raced: look again shortly.
      await sleep(50 * (attempt + 1));
    }
  }
  throw new AppError('SERVICE_UNAVAILABLE', 'The game is temporarily unavailable, retry shortly');
}

/** Calls an allowed method on the game's room, wherever it runs; errors come back as AppError. */
export async function callGame<T>(gameId: string, method: GameRoomMethod, args: unknown[]): Promise<T> {
  if (!GAME_ROOM_METHODS.includes(method)) throw new Error(`room method ${method} is not callable`);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (!(await openGame(gameId))) throw new AppError('GAME_NOT_ACTIVE', 'The game is not active');
    let reply: RoomReply<T>;
    try {
      reply = (await matchMaker.remoteRoomCall(gameId, method as never, args)) as RoomReply<T>;
    } catch {
      // The room went away between lookup and call (disposed, fenced out, its node died).
      await sleep(50 * (attempt + 1));
      continue;
    }
    if (reply === undefined) continue; // a stale cache entry answered for a room that is gone
    if (reply.ok) return reply.data;
    throw new AppError(reply.code, reply.message, reply.details);
  }
  throw new AppError('SERVICE_UNAVAILABLE', 'The game is temporarily unavailable, retry shortly');
}
