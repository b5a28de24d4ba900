// Pending games: challenges made, accepted, declined, cancelled or expired, and seeks handed to
// their pool. Each pending game's players hear of it on their user channels.
import { randomInt } from 'node:crypto';
import { abandonPendingGame, activateGame, findCategoryRatings, findGame, insertPendingGame, lockGame, lockPlayers, userHasOpenGame, type GameRecord } from '../db/games.ts';
import { withTransaction, type Queryable } from '../db/pool.ts';
import { cancelOpenSeeksOf } from '../db/seeks.ts';
import { isBotAccount } from '../db/players.ts';
import { findUserById } from '../db/users.ts';
import type { Color } from '../domain/game.ts';
import { parseId } from '../domain/ids.ts';
import type { DeclineReason } from '../domain/statuses.ts';
import { poolId } from '../domain/pairing.ts';
import { validateTimeControl, type LiveTimeControl, type TimeControl } from '../domain/timeControl.ts';
import { AppError, validationError } from '../errors.ts';
import { botPlaysChallengesOnly } from './bots.ts';
import { createComputerGame } from './computerGames.ts';
import { channels } from './channelEvents.ts';
import { callPool, openGame } from '../gateway/index.ts';
import { challengesChanged, findVisible, isChallenged, isOpen, notFound, notify, type GamesDeps } from './gameAccess.ts';
import { gameStatusChanged } from './gameEvents.ts';
import { getGame } from './gameReads.ts';
import { formatPendingGame, type GameDetail, type PendingGameView } from './gameViews.ts';
import { assertMaySeek, type ApiSeek, type SeekResult } from './seekPoolActor.ts';
import type { LobbyEvent } from './seekViews.ts';
import { emitGameStarted } from './webhooks.ts';

export type CreateGameInput = {
  type: 'challenge' | 'matchmaking' | 'computer';
  /** The computer's level, 1–8 (type computer only). */
  level?: number;
  opponent_id?: string;
  time_control: TimeControl;
  /** Ignored (reported 0) for a correspondence game; required for any other. */
  initial_time?: number;
  increment?: number;
  /** Correspondence games only. */
  days_per_move?: number;
  rated: boolean;
  color: Color | 'random';
};

/** 409 PLAYER_BUSY when one of them plays an active game (pending ones do not count). */
async function assertFree(db: Queryable, players: { id: string; self: boolean }[]): Promise<void> {
  for (const p of players) {
    if (await userHasOpenGame(db, p.id)) {
      throw new AppError('PLAYER_BUSY', p.self ? 'You are already playing a game' : 'Your opponent is already playing a game');
    }
  }
}

/**
 * Matchmaking: the pool of the time control decides (one actor per pool, reached through the
 * gateway). Paired at once → 201 with the active game; else 201 with the pending seek.
 */
async function seek(
  d: GamesDeps,
  userId: string,
  input: CreateGameInput,
  tc: { time_control: LiveTimeControl; initial_time: number; increment: number },
): Promise<PendingGameView | GameDetail> {
  const key = { timeControl: tc.time_control, initialTime: tc.initial_time, increment: tc.increment, rated: input.rated };
  const options = { time_control: tc.time_control, initial_time: tc.initial_time, increment: tc.increment, rated: input.rated };
  // A busy player is refused here, before a pool room is found or created for nothing.
  await assertMaySeek(d.pool, userId, tc.time_control);
  const result = await callPool<Parameters<ApiSeek>, SeekResult>(poolId(key), options, 'apiSeek', [userId, input.color]);
  if (result.status === 'active') return getGame(d, userId, result.gameId);
  const pending = await findGame(d.pool, result.seekId);
  if (!pending) throw notFound();
  // Another seeker may have been paired with it since the pool answered: then it is a game.
  if (pending.status !== 'pending') return getGame(d, userId, pending.id);
  return formatPendingGame(pending, d.config.publicUrl);
}

export async function createGame(d: GamesDeps, userId: string, input: CreateGameInput): Promise<PendingGameView | GameDetail> {
  // A bot plays through challenges only (DESIGN 2.13): its seek is refused as a bot's whatever it
  // asks for, a correspondence seek or a bad clock too (Lichess refuses a bot before the form).
  if (input.type === 'matchmaking' && (await isBotAccount(d.pool, userId))) throw botPlaysChallengesOnly();
  const tc = validateTimeControl(input);
  if (!tc.ok) {
    const details = Object.fromEntries(Object.entries(tc.error).map(([field, message]) => [field, [message]]));
    throw new AppError('VALIDATION_ERROR', 'Invalid time control', details);
  }
  const correspondence = tc.value.days_per_move !== null;
  if (input.type === 'computer') {
    if (correspondence) throw validationError('time_control', 'a game against the computer has a clock');
    if (input.level === undefined) throw validationError('level', 'required when type is computer');
    return createComputerGame(d, userId, {
      level: input.level,
      timeControl: tc.value.time_control,
      initialTime: tc.value.initial_time,
      increment: tc.value.increment,
      color: input.color,
    });
  }
  if (input.type === 'matchmaking') {
    // Correspondence games are made by challenge (docs/decisions.md): no pool waits days for a seeker.
    if (correspondence) throw validationError('time_control', 'correspondence games are made by challenge, not matchmaking');
    return seek(d, userId, input, { ...tc.value, time_control: tc.value.time_control as LiveTimeControl });
  }
  // The body's schema took it for a UUID; parsed, it is the id the opponent's channel and rows go by.
  const opponentId = parseId(input.opponent_id);
  if (!opponentId) throw validationError('opponent_id', 'required when type is challenge');
  if (opponentId === userId) throw validationError('opponent_id', 'you cannot challenge yourself');
  const [challenger, opponent] = await Promise.all([findUserById(d.pool, userId), findUserById(d.pool, opponentId)]);
  if (!opponent) throw new AppError('USER_NOT_FOUND', 'Opponent not found');
  const game = await insertChallenge(d, d.pool, {
    challengerId: userId,
    opponentId,
    color: input.color,
    timeControl: tc.value.time_control,
    initialTime: tc.value.initial_time,
    increment: tc.value.increment,
    daysPerMove: tc.value.days_per_move,
    rated: input.rated,
  });
  challengesChanged(d, userId, opponentId);
  notify(d, opponentId, { type: 'challenge_received', game_id: game.id, from: { id: userId, username: challenger?.username ?? '' } });
  return formatPendingGame(game, d.config.publicUrl);
}

export type ChallengeTerms = {
  challengerId: string;
  opponentId: string;
  /** The challenger's colour (`random` is drawn here). */
  color: Color | 'random';
  timeControl: TimeControl;
  initialTime: number;
  increment: number;
  /** Correspondence games: the days each move may take; null for a clocked game. */
  daysPerMove: number | null;
  rated: boolean;
  /** A rematch (DESIGN 2.11): the finished game it follows. */
  rematchOf?: string;
};

/**
 * A challenge as every path makes one (POST /games, a rematch): PLAYER_BUSY when either player is
 * in an active game, then the pending game, lapsing after CHALLENGE_TTL_SECONDS. The caller tells
 * the players once it is committed. A correspondence game does not make its players busy, nor
 * does being busy keep one from it.
 */
export async function insertChallenge(d: GamesDeps, db: Queryable, t: ChallengeTerms): Promise<GameRecord> {
  if (t.daysPerMove === null) {
    await assertFree(db, [
      { id: t.challengerId, self: true },
      { id: t.opponentId, self: false },
    ]);
  }
  const creatorColor: Color = t.color === 'random' ? (randomInt(2) === 0 ? 'white' : 'black') : t.color;
  return insertPendingGame(db, {
    kind: 'challenge',
    createdBy: t.challengerId,
    whiteId: creatorColor === 'white' ? t.challengerId : t.opponentId,
    blackId: creatorColor === 'white' ? t.opponentId : t.challengerId,
    colorPreference: t.color,
    timeControl: t.timeControl,
    initialTime: t.initialTime,
    increment: t.increment,
    daysPerMove: t.daysPerMove,
    rated: t.rated,
    expiresAt: new Date(d.clock.now() + d.config.challengeTtlMs),
    rematchOf: t.rematchOf,
  });
}

export async function acceptGame(d: GamesDeps, userId: string, requestedId: string): Promise<GameDetail> {
  const game = await findVisible(d, userId, requestedId);
  const id = game.id;
  if (!isChallenged(game, userId)) throw new AppError('FORBIDDEN', 'Only the challenged player may accept');
  if (!isOpen(game, d.clock.now())) throw new AppError('GAME_NOT_PENDING', `The game is ${game.status === 'pending' ? 'expired' : game.status}`);
  const whiteId = game.whiteId!;
  const blackId = game.blackId!;
  const cancelledSeeks = await withTransaction(d.pool, async (tx) => {
    // Player locks before the game row: the order every seating path takes.
    await lockPlayers(tx, [whiteId, blackId]);
    const locked = await lockGame(tx, id);
    if (!locked || !isOpen(locked, d.clock.now())) throw new AppError('GAME_NOT_PENDING', 'The game is no longer pending');
    if (game.daysPerMove === null) {
      await assertFree(tx, [
        { id: userId, self: true },
        { id: game.createdBy, self: false },
      ]);
    }
    const ratings = await findCategoryRatings(tx, [whiteId, blackId], game.timeControl);
    await activateGame(tx, id, {
      whiteId,
      blackId,
      whiteRating: ratings.get(whiteId)!,
      blackRating: ratings.get(blackId)!,
      firstMoveDeadline: new Date(d.clock.now() + d.config.firstMoveMs),
      now: new Date(d.clock.now()),
    });
    await emitGameStarted(tx, id, [whiteId, blackId]);
    return cancelOpenSeeksOf(tx, [whiteId, blackId]);
  });
  for (const seekId of cancelledSeeks) {
    const removed: LobbyEvent = { type: 'seek_removed', id: seekId, reason: 'cancelled' };
    d.events.publish(channels.lobby, { ...removed, ts: d.clock.now() });
  }
  // The room runs the first-move deadline. Should it fail to start now, the game is active all
  // the same: the next call (or the sweeper's look at lease-less games) opens it. A
  // correspondence game needs no room until someone joins it, moves or its deadline nears.
  if (game.daysPerMove === null) {
    await openGame(id).catch((err) => d.log.warn({ err, gameId: id }, 'could not open the room of an accepted game'));
  }
  challengesChanged(d, whiteId, blackId);
  gameStatusChanged(d, id, 'active');
  for (const player of [whiteId, blackId]) notify(d, player, { type: 'game_started', game_id: id });
  return getGame(d, userId, id);
}

/** `why`: the reason a decline gave, told to the challenger (Lichess's decline, DESIGN 2.13). */
async function closePending(d: GamesDeps, userId: string, requestedId: string, reason: 'declined' | 'cancelled', why?: DeclineReason): Promise<GameDetail> {
  const game = await findVisible(d, userId, requestedId);
  const id = game.id;
  const allowed = reason === 'declined' ? isChallenged(game, userId) : game.createdBy === userId;
  if (!allowed) {
    throw new AppError('FORBIDDEN', reason === 'declined' ? 'Only the challenged player may decline' : 'Only the challenger may cancel');
  }
  if (!isOpen(game, d.clock.now()) || !(await abandonPendingGame(d.pool, id, reason))) {
    throw new AppError('GAME_NOT_PENDING', 'The game is no longer pending');
  }
  gameStatusChanged(d, id, 'abandoned');
  const detail = await getGame(d, userId, id);
  if (game.kind === 'challenge') {
    challengesChanged(d, game.whiteId, game.blackId);
    const me = [detail.white_player, detail.black_player].find((p) => p?.id === userId);
    const by = { id: userId, username: me?.username ?? '' };
    const other = game.whiteId === userId ? game.blackId : game.whiteId;
    if (other) {
      notify(d, other, reason === 'declined' ? { type: 'challenge_declined', game_id: id, by, ...(why ? { reason: why } : {}) } : { type: 'challenge_cancelled', game_id: id, by });
    }
  }
  return detail;
}

export const declineGame = (d: GamesDeps, userId: string, id: string, why?: DeclineReason) => closePending(d, userId, id, 'declined', why);
export const cancelGame = (d: GamesDeps, userId: string, id: string) => closePending(d, userId, id, 'cancelled');

/** A pending game expired (the sweeper): its stream is told, and so are a challenge's two players. */
export function pendingExpired(d: GamesDeps, game: GameRecord): void {
  gameStatusChanged(d, game.id, 'abandoned');
  if (game.kind !== 'challenge') return;
  challengesChanged(d, game.whiteId, game.blackId);
  for (const id of [game.whiteId, game.blackId]) if (id) notify(d, id, { type: 'challenge_expired', game_id: game.id });
}
