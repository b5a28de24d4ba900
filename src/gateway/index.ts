import { ErrorCode as ColyseusError, matchMaker, ServerError } from '@colyseus/core';
import { parseId } from '../domain/ids.ts';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { countRefusal } from '../refusals.ts';
import type { Failure, Result } from '../result.ts';
import { sleep, systemClock } from '../time.ts';

/** The room names games, seek pools and the lobby are registered under (src/server.ts). */
export const GAME_ROOM = 'game';
export const POOL_ROOM = 'seek_pool';
export const LOBBY_ROOM = 'lobby';
export const TOURNAMENT_ROOM = 'tournament';

/**
 * The room methods other processes may call, and nothing else: `remoteRoomCall` would otherwise
 * invoke any method by name on a room, possibly on another node.
 */
export const GAME_ROOM_METHODS = ['apiCommand'] as const;
export type GameRoomMethod = (typeof GAME_ROOM_METHODS)[number];
export const POOL_ROOM_METHODS = ['apiSeek'] as const;
export type PoolRoomMethod = (typeof POOL_ROOM_METHODS)[number];

/**
 * What a room method returns across processes: errors travel as data, because an exception
 * thrown in a remote room loses its class (and code) on the way back.
 */
export type RoomResult<T = unknown> = Result<T, Failure<ErrorCode>>;
/** A room method another process may call: its arguments travel as JSON, its answer is a RoomResult. */
export type RemoteMethod = (...args: never[]) => Promise<RoomResult>;

/** Thrown by a room's onCreate when the game cannot be hosted here; read by the gateway. */
export const ROOM_REFUSED = {
  NOT_ACTIVE: 'GAME_NOT_ACTIVE',
  LEASE_HELD: 'LEASE_HELD',
} as const;

/**
 * How a room refuses a creation or a join: a Colyseus ServerError, which Colyseus passes on
 * without logging a stack (a refusal is an answer, not a fault), its message `CODE: text` with
 * CODE one of ours or of ROOM_REFUSED, so that the gateway and /matchmake can map it back.
 */
export const roomRefusal = (code: ErrorCode | (typeof ROOM_REFUSED)[keyof typeof ROOM_REFUSED], message: string = code): ServerError =>
  new ServerError(ColyseusError.APPLICATION_ERROR, `${code}: ${message}`);

/*
 * Time here is the system clock's, not an injected one: the gateway waits on Colyseus's matchmaker
 * and its inter-process calls, whose own timeouts (a 2 s IPC call, a seat reservation) run on
 * Node's timers, so its retries and its memory of dead nodes must run on the same wall time.
 */
const ATTEMPTS = 6;
/** The room is between owners (its node died and the lease has not lapsed): come back shortly. */
const unavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The game is temporarily unavailable, retry shortly', undefined, { retryAfter: 1 });

/**
 * Makes sure the live room of an active game exists somewhere in the cluster: finds it, or
 * creates it (rehydrating the game from PostgreSQL) on the process the matchmaker picks.
 * Resolves false when the game is not active (nothing to host). `orphaned`: the caller knows
 * nobody holds the game's lease (the sweeper), so a room listed on another node may be a dead
 * node's leftover: that node is asked for a sign of life, and a dead node's listings are dropped.
 */
export async function openGame(gameId: string, o: { orphaned?: boolean } = {}): Promise<boolean> {
  return (await openRoom(GAME_ROOM, gameId, { gameId }, o.orphaned)) !== undefined;
}

/**
 * Makes sure the actor of a tournament that is running, or due to start, exists somewhere in the
 * cluster (its onCreate takes the lease and starts a due tournament). Resolves false when there
 * is nothing to host (not due yet, or finished). Only the sweeper calls it, for tournaments
 * nobody holds the lease of: a room listed elsewhere is checked as an orphaned game's is.
 */
export async function openTournament(tournamentId: string): Promise<boolean> {
  return (await openRoom(TOURNAMENT_ROOM, tournamentId, { tournamentId }, true)) !== undefined;
}

/**
 * Finds or creates the room `roomId` (its onCreate takes the lease that makes it unique);
 * resolves with the id of the process hosting it, or undefined when there is nothing to host.
 */
async function openRoom(roomName: string, roomId: string, createOptions: object, orphaned = false): Promise<string | undefined> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const listed = (await matchMaker.findRoomsByIds([roomId])).get(roomId);
    if (listed) {
      const elsewhere = !!listed.processId && listed.processId !== matchMaker.processId;
      if (!orphaned || !elsewhere || (await matchMaker.healthCheckProcessId(listed.processId))) return listed.processId;
      continue; // its node is dead and its listings are gone now: the room can be made here
    }
    try {
      return (await matchMaker.createRoom(roomName, createOptions)).processId;
    } catch (error) {
      const message = (error as Error).message ?? '';
      if (message.includes(ROOM_REFUSED.NOT_ACTIVE)) return undefined;
      if (message.includes(ROOM_REFUSED.LEASE_HELD)) countRefusal('lease_held');
      // Another node holds the lease (it is creating the room, or its lease has not lapsed yet),
      // or two creations raced: look again shortly.
      await sleep(50 * (attempt + 1));
    }
  }
  throw unavailable();
}

/**
 * The game's room wherever it runs in the cluster, as its remote interface `Api` declares it
 * (src/services/gameActor.ts GameRoomApi, which GameRoom implements): the methods GAME_ROOM_METHODS
 * allows, each sending one request and resolving with the room's RoomResult. A game that is not
 * active is GAME_NOT_ACTIVE, one between owners SERVICE_UNAVAILABLE (thrown, as AppErrors).
 */
export function callGame<Api extends Record<GameRoomMethod, RemoteMethod>>(gameId: string): Pick<Api, GameRoomMethod> {
  const refused = () => new AppError('GAME_NOT_ACTIVE', 'The game is not active');
  const remote = (method: GameRoomMethod) => (...args: unknown[]) => callRoom(GAME_ROOM, gameId, { gameId }, method, args, refused);
  // An answer is taken to be what `Api` declares: the room that gives it runs this same code, on
  // every node (decodeRoomResult checks that it is a RoomResult at all).
  const methods: Partial<Record<GameRoomMethod, RemoteMethod>> = {};
  for (const method of GAME_ROOM_METHODS) methods[method] = remote(method);
  return methods as Pick<Api, GameRoomMethod>;
}

/**
 * A room's answer as REST gives it: the value, or the failure thrown as the AppError of its code.
 * A room that could not do it now (its write failed: PostgreSQL restarting; the game moving
 * between nodes) says come back shortly, as every 503 does: Retry-After 1.
 */
export function answerOf<T>(reply: RoomResult<T>): T {
  if (reply.ok) return reply.value;
  const { code, message, details } = reply.error;
  throw new AppError(code, message, details, code === 'SERVICE_UNAVAILABLE' ? { retryAfter: 1 } : undefined);
}

/** Calls an allowed method on a seek pool's room (created on first use, unique in the cluster). */
export async function callPool<Args extends unknown[], T>(poolId: string, createOptions: object, method: PoolRoomMethod, args: Args): Promise<T> {
  if (!POOL_ROOM_METHODS.includes(method)) throw new Error(`room method ${method} is not callable`);
  const reply = await callRoom(POOL_ROOM, poolId, createOptions, method, args, () => new AppError('VALIDATION_ERROR', 'Invalid seek pool'));
  return answerOf(reply as RoomResult<T>);
}

/** Calls `method` on the room, wherever it runs, until a room answers: its RoomResult. */
async function callRoom(
  roomName: string,
  roomId: string,
  createOptions: object,
  method: string,
  args: unknown[],
  refused: () => AppError,
): Promise<RoomResult> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const host = await openRoom(roomName, roomId, createOptions);
    if (host === undefined) throw refused();
    let reply: RoomResult | undefined;
    try {
      reply = decodeRoomResult(await whileAlive(host, () => matchMaker.remoteRoomCall(roomId, method as never, args)));
    } catch (error) {
      // Its node was found dead: once its listings are gone, the next turn hosts the game anew.
      if (error instanceof NodeGone) {
        await sleep(20 * (attempt + 1));
        continue;
      }
      // The room went away between lookup and call (disposed, fenced out), or its node died and
      // left its listing behind: ask that node for a sign of life; a dead node's listings are
      // dropped, so the next turn re-creates the room here once the game's lease has lapsed.
      await forgetDeadHost(roomId);
      await sleep(50 * (attempt + 1));
      continue;
    }
    if (reply === undefined) {
      // A stale cache entry answered for a room that is gone, or the room is closing (an idle
      // seek pool retiring): look again once its listing is gone.
      await sleep(20 * (attempt + 1));
      continue;
    }
    return reply;
  }
  throw unavailable();
}

/**
 * The one place a room's answer is read from `remoteRoomCall`'s `unknown`: undefined (a stale
 * listing answered, or the room is closing) or a RoomResult. Any other shape is a fault, not an answer.
 */
function decodeRoomResult(answer: unknown): RoomResult | undefined {
  if (answer === undefined || isRoomResult(answer)) return answer;
  throw new Error(`a room answered with neither a value nor an error: ${JSON.stringify(answer)?.slice(0, 200)}`);
}

function isRoomResult(answer: unknown): answer is RoomResult {
  const r = answer as Partial<{ ok: unknown; value: unknown; error: Partial<Failure> }> | null;
  if (r?.ok === true) return 'value' in r;
  return r?.ok === false && isErrorCode(String(r.error?.code)) && typeof r.error?.message === 'string';
}

// ---- nodes ---------------------------------------------------------------------------------

/** A call to a room on a node that was found dead while the call waited for its answer. */
class NodeGone extends Error {}

/** Calls waiting on a room of another node, by node, so they can end when that node is found dead. */
const waitingOn = new Map<string, Set<() => void>>();
/** Nodes found dead lately (id → when), so a listing they left behind is not waited on again. */
const goneNodes = new Map<string, number>();
const GONE_MEMORY_MS = 10_000;

/**
 * Another node is gone (src/workers/nodeWatch.ts). With `dropListings` (the node that found it
 * dead: listings are shared through the driver) its room listings and load figures are dropped,
 * so the next request or sweep creates its games' rooms on a live node at once. Then calls waiting
 * on its rooms end and are retried against the game's next host, instead of waiting out
 * Colyseus's 2 s IPC timeout and then a health check of as long.
 */
export async function nodeGone(processId: string, o: { dropListings: boolean }): Promise<void> {
  if (o.dropListings) {
    await matchMaker.stats.excludeProcess(processId);
    await matchMaker.driver.cleanup?.(processId);
  }
  const now = systemClock.now();
  for (const [id, at] of goneNodes) if (now - at > GONE_MEMORY_MS) goneNodes.delete(id);
  goneNodes.set(processId, now);
  for (const end of waitingOn.get(processId) ?? []) end();
}

/** A node (re)appeared: one judged dead by mistake registered again, so its rooms are waited on again. */
export function nodeSeen(processId: string): void {
  goneNodes.delete(processId);
}

/** `call()`, answered by a room of `processId`, ends with NodeGone if that node is (found) dead first. */
function whileAlive<T>(processId: string, call: () => Promise<T>): Promise<T> {
  if (processId === matchMaker.processId) return call();
  const goneAt = goneNodes.get(processId);
  if (goneAt !== undefined && systemClock.now() - goneAt < GONE_MEMORY_MS) return Promise.reject(new NodeGone(`node ${processId} is gone`));
  let waiting = waitingOn.get(processId);
  if (!waiting) waitingOn.set(processId, (waiting = new Set()));
  let end!: () => void;
  const gone = new Promise<never>((_, reject) => (end = () => reject(new NodeGone(`node ${processId} is gone`))));
  waiting.add(end);
  return Promise.race([call(), gone]).finally(() => {
    waiting.delete(end);
    if (waiting.size === 0 && waitingOn.get(processId) === waiting) waitingOn.delete(processId);
  });
}

/** Lists this node's rooms and load again: Redis came back, perhaps without them (restarted empty). */
export async function relistRooms(): Promise<void> {
  await matchMaker.restoreMissingRoomCaches();
  await matchMaker.stats.persist(true);
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

// ---- /matchmake -------------------------------------------------------------------------------

/** What /matchmake lets clients do: join a room they were given, reconnect, or reach a room by name. */
const MATCHMAKE_BY_ID = ['joinById', 'reconnect'];
const MATCHMAKE_BY_NAME: Record<string, string[]> = { joinOrCreate: [LOBBY_ROOM, POOL_ROOM] };

export function matchmakeAllowed(method: string, room: string): boolean {
  return MATCHMAKE_BY_ID.includes(method) || (Object.hasOwn(MATCHMAKE_BY_NAME, method) && MATCHMAKE_BY_NAME[method].includes(room));
}

/** The caller of a /matchmake request as the rooms' onAuth sees it (`ip` as the HTTP app judged it). */
export type MatchmakeCaller = { token: string | undefined; ip: string; headers: Headers };

/**
 * A Colyseus matchmaking request: a seat reservation for the SDK to connect with, or an AppError
 * with the status the REST API would give (never Colyseus's 5xx codes). Clients may only join a
 * room they were given (a game's id, a seat to reconnect to) or reach a room by name as
 * MATCHMAKE_BY_NAME allows; games and their rooms are created by the server alone.
 */
export async function matchmake(method: string, room: string, options: Record<string, unknown>, caller: MatchmakeCaller): Promise<unknown> {
  if (!matchmakeAllowed(method, room)) throw new AppError('NOT_FOUND', `No matchmaking route for ${method} ${room}`);
  if (matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN) throw unavailable();
  const context = { token: caller.token, ip: caller.ip, headers: caller.headers };
  try {
    if (method === 'joinById') return await joinById(room, options, context);
    if (method === 'reconnect') return await matchMaker.reconnect(room, options);
    return await matchMaker.joinOrCreate(room, options, context);
  } catch (error) {
    throw matchmakeError(error);
  }
}

/**
 * A join by room id. A game whose room is not listed (its node died and no node hosts it yet) is
 * opened first, so a player who lost their socket with a dead node gets a seat on the next one;
 * a join waiting on a node found dead meanwhile is tried again there.
 */
async function joinById(requestedId: string, options: Record<string, unknown>, context: Parameters<typeof matchMaker.joinById>[2]): Promise<unknown> {
  // A game's room is keyed by the game's id in lower case; Colyseus's own room ids are not UUIDs.
  const gameId = parseId(requestedId);
  const roomId = gameId ?? requestedId;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    let listed = (await matchMaker.findRoomsByIds([roomId])).get(roomId);
    if (!listed && gameId && (await openGame(gameId))) listed = (await matchMaker.findRoomsByIds([roomId])).get(roomId);
    if (!listed) return await matchMaker.joinById(roomId, options, context);
    try {
      return await whileAlive(listed.processId, () => matchMaker.joinById(roomId, options, context));
    } catch (error) {
      if (!(error instanceof NodeGone)) throw error;
      await sleep(20 * (attempt + 1));
    }
  }
  throw unavailable();
}

/** Colyseus's refusals as the REST API would answer them; anything unknown stays a fault (500). */
function matchmakeError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const e = error as { code?: unknown; message?: string };
  const message = e?.message ?? '';
  const ours = /^([A-Z_]+): ?(.*)$/s.exec(message);
  if (ours?.[1] === ROOM_REFUSED.LEASE_HELD) return unavailable();
  if (ours && isErrorCode(ours[1])) return new AppError(ours[1], ours[2] || ours[1]);
  switch (e?.code) {
    case ColyseusError.MATCHMAKE_NO_HANDLER:
    case ColyseusError.MATCHMAKE_INVALID_CRITERIA:
    case ColyseusError.MATCHMAKE_INVALID_ROOM_ID:
      return new AppError('NOT_FOUND', 'No such room (it may have ended)');
    case ColyseusError.MATCHMAKE_EXPIRED:
      return new AppError('NOT_FOUND', 'No seat to reconnect to: the reconnection token is invalid or expired');
    case ColyseusError.AUTH_FAILED:
      return new AppError('UNAUTHORIZED', 'Missing or invalid access token');
  }
  // A room that filled up, moved or whose node stopped answering meanwhile: worth a retry.
  if (/timed out|not available|already full|is locked/.test(message)) return unavailable();
  if (/reconnectionToken/.test(message)) return new AppError('VALIDATION_ERROR', 'Invalid request data', { reconnectionToken: ['is required'] });
  return error;
}

const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_STATUS, code);
