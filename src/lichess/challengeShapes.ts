// A challenge as Lichess's clients read it, written as this project's own schemas from Lichess's
// published OpenAPI (lichess-org/api, doc/specs/schemas: ChallengeJson, ChallengeUser,
// TimeControl, ChallengeStatus, ChallengeColor, ChallengeDeclinedJson). The challenge's id is its
// game's (DESIGN 2.13): accepted, the game goes on under the same id.
import { z } from 'zod';
import { COLORS, type Color } from '../domain/game.ts';
import type { DeclineReason } from '../domain/statuses.ts';
import { inviteUrl } from '../services/gameViews.ts';
import type { EventGame } from '../services/userEventGames.ts';
import { lichessId, perfName, Speed, speedOf, STANDARD, Variant } from './shapes.ts';

/** Lichess's titles; here only bot accounts have one (BOT). */
export const Title = z.enum(['GM', 'WGM', 'IM', 'WIM', 'FM', 'WFM', 'NM', 'CM', 'WCM', 'WNM', 'LM', 'BOT']);

export const ChallengeUser = z.object({
  id: z.string(),
  name: z.string(),
  rating: z.number().int().optional(),
  /** Only for a titled player: here, a bot account. */
  title: Title.optional(),
  provisional: z.boolean().optional(),
  online: z.boolean().optional(),
});
export type ChallengeUser = z.infer<typeof ChallengeUser>;

export const TimeControlJson = z.union([
  z.object({ type: z.literal('clock'), limit: z.number().int(), increment: z.number().int(), show: z.string() }),
  z.object({ type: z.literal('correspondence'), daysPerTurn: z.number().int() }),
  z.object({ type: z.literal('unlimited') }),
]);
export type TimeControlJson = z.infer<typeof TimeControlJson>;

export const CHALLENGE_STATUSES = ['created', 'offline', 'canceled', 'declined', 'accepted'] as const;
export const ChallengeColor = z.enum([...COLORS, 'random']);

export const ChallengeJson = z.object({
  id: z.string(),
  url: z.string(),
  status: z.enum(CHALLENGE_STATUSES),
  challenger: ChallengeUser,
  destUser: ChallengeUser.nullable(),
  variant: Variant,
  rated: z.boolean(),
  speed: Speed,
  timeControl: TimeControlJson,
  /** The colour the challenger asked for. */
  color: ChallengeColor,
  /** The challenger's colour in the game (`random` drawn). */
  finalColor: z.enum(COLORS).optional(),
  perf: z.object({ icon: z.string(), name: z.string() }),
  direction: z.enum(['in', 'out']).optional(),
  initialFen: z.string().optional(),
  rematchOf: z.string().optional(),
});
export type ChallengeJson = z.infer<typeof ChallengeJson>;

/** The keys of Lichess's decline reasons as its events carry them (lower-cased). */
export const DECLINE_REASON_KEYS = ['generic', 'later', 'toofast', 'tooslow', 'timecontrol', 'rated', 'casual', 'standard', 'variant', 'nobot', 'onlybot'] as const;
export type DeclineReasonKey = (typeof DECLINE_REASON_KEYS)[number];

export const ChallengeDeclinedJson = ChallengeJson.extend({
  /** Human readable (English here). */
  declineReason: z.string(),
  declineReasonKey: z.enum(DECLINE_REASON_KEYS),
});
export type ChallengeDeclinedJson = z.infer<typeof ChallengeDeclinedJson>;

/** What the challenger is told, in this service's words; clients match on the key. */
const DECLINE_REASON_TEXT: Record<DeclineReason, string> = {
  generic: "I'm not accepting challenges at the moment.",
  later: 'Not now, please ask again later.',
  tooFast: 'This time control is too fast for me: please challenge me to a slower game.',
  tooSlow: 'This time control is too slow for me: please challenge me to a faster game.',
  timeControl: 'I do not play this time control.',
  rated: 'Please send me a rated challenge instead.',
  casual: 'Please send me a casual challenge instead.',
  standard: 'I am not accepting variant challenges.',
  variant: 'I do not play this variant.',
  noBot: 'I am not accepting challenges from bots.',
  onlyBot: 'I only accept challenges from bots.',
};

/**
 * A clock as Lichess shows it, in minutes and seconds: `5+3`, `½+0` (30 s), `1.5+1` (90 s). A
 * limit Lichess does not offer (this service takes any whole number of seconds) shows to two places.
 */
export function showClock(limit: number, increment: number): string {
  const quarters: Record<number, string> = { 15: '¼', 30: '½', 45: '¾' };
  const minutes = quarters[limit] ?? String(Math.round((limit / 60) * 100) / 100);
  return `${minutes}+${increment}`;
}

function timeControlOf(g: EventGame['game']): TimeControlJson {
  if (g.daysPerMove !== null) return { type: 'correspondence', daysPerTurn: g.daysPerMove };
  return { type: 'clock', limit: g.initialTime, increment: g.increment, show: showClock(g.initialTime, g.increment) };
}

/** Where the challenge stands, in Lichess's words: a game it became was accepted, however it went on. */
function challengeStatus(g: EventGame['game']): ChallengeJson['status'] {
  if (g.status === 'pending') return 'created';
  if (g.status === 'abandoned' && g.abortReason === 'declined') return 'declined';
  if (g.status === 'abandoned' && (g.abortReason === 'cancelled' || g.abortReason === 'expired')) return 'canceled';
  return 'accepted';
}

function challengeUser(e: EventGame, color: Color): ChallengeUser | null {
  const player = e.game[color];
  if (!player) return null;
  return { id: lichessId(player.username), name: player.username, rating: e.ratings[color], ...(e.bots.has(player.id) ? { title: 'BOT' as const } : {}) };
}

/** The challenge `e` as `viewerId` (one of its players) reads it. */
export function formatChallenge(e: EventGame, viewerId: string, publicUrl: string): ChallengeJson {
  const g = e.game;
  const challengerColor: Color = g.whiteId === g.createdBy ? 'white' : 'black';
  const speed = speedOf(g);
  return {
    id: g.id,
    url: inviteUrl(publicUrl, g.id),
    status: challengeStatus(g),
    // A challenge seats both players from the start.
    challenger: challengeUser(e, challengerColor)!,
    destUser: challengeUser(e, challengerColor === 'white' ? 'black' : 'white'),
    variant: STANDARD,
    rated: g.rated,
    speed,
    timeControl: timeControlOf(g),
    color: g.colorPreference,
    finalColor: challengerColor,
    perf: { icon: '', name: perfName(speed) },
    direction: g.createdBy === viewerId ? 'out' : 'in',
    ...(g.rematchOf ? { rematchOf: g.rematchOf } : {}),
  };
}

/** The challenge as its challenger is told it was declined, and why (`generic` when no reason was given). */
export function formatDeclined(e: EventGame, viewerId: string, publicUrl: string, reason: DeclineReason = 'generic'): ChallengeDeclinedJson {
  return {
    ...formatChallenge(e, viewerId, publicUrl),
    status: 'declined',
    declineReason: DECLINE_REASON_TEXT[reason],
    declineReasonKey: reason.toLowerCase() as DeclineReasonKey,
  };
}
