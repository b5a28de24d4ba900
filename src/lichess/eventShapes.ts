// The lines of Lichess's event stream (`GET /api/stream/event`), written as this project's own
// schemas from Lichess's published OpenAPI (lichess-org/api, doc/specs/schemas: GameStartEvent,
// GameFinishEvent, GameEventInfo, GameEventOpponent, GameStatus, GameSource, ChallengeEvent,
// ChallengeCanceledEvent, ChallengeDeclinedEvent), and the game as a player's event tells it.
import { z } from 'zod';
import { COLORS, type Color, type Termination } from '../domain/game.ts';
import { DAY_MS } from '../domain/timeControl.ts';
import { liveClocks, sideToMove } from '../services/gameViews.ts';
import type { EventGame } from '../services/userEventGames.ts';
import { ChallengeDeclinedJson, ChallengeJson } from './challengeShapes.ts';
import { GAME_STATUS_NAMES, GameStatusName, lichessId, Speed, speedOf, STANDARD, statusName, Variant } from './shapes.ts';

/** Lichess's number of each status name (GameStatusId), in the order of GAME_STATUS_NAMES. */
const GAME_STATUS_IDS = [10, 20, 25, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 60] as const;
export const GameStatus = z.object({ id: z.union(GAME_STATUS_IDS.map((id) => z.literal(id))), name: GameStatusName });
export type GameStatus = z.infer<typeof GameStatus>;
export const gameStatus = (name: GameStatusName): GameStatus => ({ id: GAME_STATUS_IDS[GAME_STATUS_NAMES.indexOf(name)], name });

export const GAME_SOURCES = ['lobby', 'friend', 'ai', 'api', 'tournament', 'position', 'import', 'importlive', 'simul', 'relay', 'pool', 'arena', 'swiss'] as const;

/** Which APIs may play the game: here every game may be played by both (standard chess only). */
const Compat = z.object({ bot: z.boolean(), board: z.boolean() });
const COMPAT = { bot: true, board: true };

export const GameEventOpponent = z.object({ id: z.string(), username: z.string(), rating: z.number().int(), ratingDiff: z.number().int().optional() });

export const GameEventInfo = z.object({
  fullId: z.string(),
  gameId: z.string(),
  fen: z.string(),
  color: z.enum(COLORS),
  lastMove: z.string(),
  source: z.enum(GAME_SOURCES),
  status: GameStatus,
  variant: Variant,
  speed: Speed,
  /** The perf's key (`blitz`), where a challenge has `{icon, name}`. */
  perf: z.string(),
  rating: z.number().int(),
  rated: z.boolean(),
  hasMoved: z.boolean(),
  opponent: GameEventOpponent,
  isMyTurn: z.boolean(),
  secondsLeft: z.number().int().optional(),
  winner: z.enum(COLORS).optional(),
  ratingDiff: z.number().int().optional(),
  compat: Compat,
  id: z.string(),
  tournamentId: z.string().optional(),
});
export type GameEventInfo = z.infer<typeof GameEventInfo>;

export const GameStartEvent = z.object({ type: z.literal('gameStart'), game: GameEventInfo });
export const GameFinishEvent = z.object({ type: z.literal('gameFinish'), game: GameEventInfo });
export const ChallengeEvent = z.object({ type: z.literal('challenge'), challenge: ChallengeJson, compat: Compat.optional() });
export const ChallengeCanceledEvent = z.object({ type: z.literal('challengeCanceled'), challenge: ChallengeJson });
export const ChallengeDeclinedEvent = z.object({ type: z.literal('challengeDeclined'), challenge: ChallengeDeclinedJson });
/** A line of the event stream (a keep-alive is an empty line, no event). */
export const LichessEvent = z.discriminatedUnion('type', [GameStartEvent, GameFinishEvent, ChallengeEvent, ChallengeCanceledEvent, ChallengeDeclinedEvent]);
export type LichessEvent = z.infer<typeof LichessEvent>;

export const challengeEvent = (challenge: ChallengeJson): LichessEvent => ({ type: 'challenge', challenge, compat: COMPAT });

const SOURCES: Record<EventGame['game']['kind'], (typeof GAME_SOURCES)[number]> = { challenge: 'friend', matchmaking: 'lobby', tournament: 'arena' };

/**
 * A `timeout` that no flag made: a claim against a player who left keeps both clocks (the side to
 * move's flag leaves it at 0), which Lichess names `timeout` rather than `outoftime`.
 */
function claimed(g: EventGame['game']): boolean {
  if (g.termination !== 'timeout' || g.daysPerMove !== null) return false;
  return (sideToMove(g.fen) === 'white' ? g.whiteTimeMs : g.blackTimeMs) > 0;
}

/**
 * The player's time left, in whole seconds: their clock, or in a correspondence game the time to
 * their deadline when it is their turn (a whole period when it is not).
 */
function secondsLeft(g: EventGame['game'], color: Color, now: number): number | undefined {
  if (g.daysPerMove !== null) {
    if (g.status === 'active' && sideToMove(g.fen) === color && g.moveDeadline) return Math.max(0, Math.floor((g.moveDeadline.getTime() - now) / 1000));
    return (g.daysPerMove * DAY_MS) / 1000;
  }
  return Math.floor(liveClocks(g, now)[color] / 1000);
}

/** The game as the event stream tells its player `userId` of it (gameStart, gameFinish). */
export function formatGameEventInfo(e: EventGame, userId: string, now: number): GameEventInfo {
  const g = e.game;
  const color: Color = g.whiteId === userId ? 'white' : 'black';
  const other: Color = color === 'white' ? 'black' : 'white';
  const opponent = g[other];
  const speed = speedOf(g);
  const diff = (c: Color) => (c === 'white' ? g.whiteRatingChange : g.blackRatingChange);
  const left = secondsLeft(g, color, now);
  return {
    fullId: g.id,
    gameId: g.id,
    fen: g.fen,
    color,
    lastMove: e.lastMove ?? '',
    source: SOURCES[g.kind],
    status: gameStatus(statusName({ status: g.status, termination: g.termination as Termination | null, abortReason: g.abortReason }, claimed(g))),
    variant: STANDARD,
    speed,
    perf: speed,
    rating: e.ratings[color],
    rated: g.rated,
    hasMoved: g.moveCount > (color === 'white' ? 0 : 1),
    opponent: {
      id: opponent ? lichessId(opponent.username) : '',
      username: opponent?.username ?? '',
      rating: e.ratings[other],
      ...(diff(other) !== null && g.status === 'finished' ? { ratingDiff: diff(other)! } : {}),
    },
    isMyTurn: g.status === 'active' && sideToMove(g.fen) === color,
    ...(left !== undefined ? { secondsLeft: left } : {}),
    ...(g.winner ? { winner: g.winner } : {}),
    ...(diff(color) !== null && g.status === 'finished' ? { ratingDiff: diff(color)! } : {}),
    compat: COMPAT,
    id: g.id,
    ...(g.tournamentId ? { tournamentId: g.tournamentId } : {}),
  };
}
