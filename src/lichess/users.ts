// Lichess's shapes of a user (doc/specs/schemas: User, UserExtended, Perfs, Perf, Count; the
// answers of GET /api/users/status and GET /api/account/playing), written as this project's own
// schemas, and their builders from the players' reads (src/services/players.ts, bots.ts).
import { z } from 'zod';
import { RATING_CATEGORIES } from '../db/users.ts';
import { PROVISIONAL_DEVIATION } from '../domain/puzzleAttempt.ts';
import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import type { Color } from '../domain/game.ts';
import { inviteUrl, liveClocks, sideToMove } from '../services/gameViews.ts';
import type { PlayerCard, PlayerStatus, PlayingGame, RatingState } from '../services/players.ts';
import type { OnlineBot } from '../services/bots.ts';
import { GameStatusName, lichessId, Speed, speedOf, statusName } from './shapes.ts';

/** A rating as Lichess shows it: `prov` only when provisional (deviation above 110, Lichess's line). */
export const Perf = z.object({
  games: z.number().int(),
  rating: z.number().int(),
  rd: z.number().int(),
  prog: z.number().int(),
  prov: z.literal(true).optional(),
});
export type Perf = z.infer<typeof Perf>;

/** The ratings this service keeps: its five categories and puzzles (no variants, no ultraBullet: bullet holds those games). */
export const Perfs = z.object({ bullet: Perf, blitz: Perf, rapid: Perf, classical: Perf, correspondence: Perf, puzzle: Perf });
export type Perfs = z.infer<typeof Perfs>;

/** Lichess's title: only BOT is given here (no titled players). */
export const Title = z.literal('BOT');

export const Profile = z.object({ flag: z.string().optional(), realName: z.string().optional() });

/** Lichess's User: what GET /api/bot/online streams. */
export const User = z.object({
  id: z.string(),
  username: z.string(),
  perfs: Perfs,
  title: Title.optional(),
  createdAt: z.number().int(),
  seenAt: z.number().int().optional(),
  profile: Profile.optional(),
});
export type User = z.infer<typeof User>;

export const Count = z.object({
  all: z.number().int(),
  rated: z.number().int(),
  draw: z.number().int(),
  loss: z.number().int(),
  win: z.number().int(),
  bookmark: z.number().int(),
  playing: z.number().int(),
  import: z.number().int(),
  me: z.number().int(),
});

/** Lichess's UserExtended: GET /api/account and GET /api/user/{username}. */
export const UserExtended = User.extend({
  url: z.string(),
  /** The live game being played, when there is one. */
  playing: z.string().optional(),
  count: Count,
});
export type UserExtended = z.infer<typeof UserExtended>;

/** One user of GET /api/users/status: `online` and `playing` only when true, as Lichess sends them. */
export const UserStatus = z.object({
  id: z.string(),
  name: z.string(),
  title: Title.optional(),
  online: z.literal(true).optional(),
  playing: z.literal(true).optional(),
  playingId: z.string().optional(),
});
export type UserStatus = z.infer<typeof UserStatus>;

const Variant = z.object({ key: z.literal('standard'), name: z.literal('Standard') });

/** One game of GET /api/account/playing (`nowPlaying`). */
export const NowPlaying = z.object({
  gameId: z.string(),
  fullId: z.string(),
  color: z.enum(['white', 'black']),
  fen: z.string(),
  hasMoved: z.boolean(),
  isMyTurn: z.boolean(),
  lastMove: z.string(),
  opponent: z.object({ id: z.string(), username: z.string(), rating: z.number().int().optional() }),
  perf: Speed,
  rated: z.boolean(),
  secondsLeft: z.number().int(),
  source: z.enum(['friend', 'pool', 'arena']),
  speed: Speed,
  status: GameStatusName,
  variant: Variant,
  tournamentId: z.string().optional(),
});
export type NowPlaying = z.infer<typeof NowPlaying>;

export const Playing = z.object({ nbMyTurn: z.number().int(), nowPlaying: z.array(NowPlaying) });
export type Playing = z.infer<typeof Playing>;

function perf(state: RatingState | undefined): Perf {
  const rd = Math.round(state?.deviation ?? DEFAULT_GLICKO.deviation);
  return {
    games: state?.games ?? 0,
    rating: Math.round(state?.rating ?? DEFAULT_GLICKO.rating),
    rd,
    prog: state?.progress ?? 0,
    ...((state?.deviation ?? DEFAULT_GLICKO.deviation) > PROVISIONAL_DEVIATION ? { prov: true as const } : {}),
  };
}

export function formatPerfs(states: readonly RatingState[]): Perfs {
  const by = new Map(states.map((s) => [s.category, s]));
  const perfs = Object.fromEntries(RATING_CATEGORIES.map((c) => [c, perf(by.get(c))])) as Omit<Perfs, 'puzzle'>;
  return { ...perfs, puzzle: perf(by.get('puzzle')) };
}

const titleOf = (bot: boolean) => (bot ? { title: 'BOT' as const } : {});

function profileOf(u: { fullName: string | null; country: string | null }): Pick<User, 'profile'> {
  const profile = { ...(u.country ? { flag: u.country } : {}), ...(u.fullName ? { realName: u.fullName } : {}) };
  return Object.keys(profile).length > 0 ? { profile } : {};
}

/** The web profile of a user (the web app's /@/{username}). */
export const profileUrl = (publicUrl: string, username: string) => `${publicUrl}/@/${username}`;

export function formatUserExtended(c: PlayerCard, publicUrl: string): UserExtended {
  const p = c.profile;
  const rated = c.ratings.filter((s) => s.category !== 'puzzle').reduce((n, s) => n + s.games, 0);
  return {
    id: lichessId(p.username),
    username: p.username,
    perfs: formatPerfs(c.ratings),
    ...titleOf(p.bot),
    createdAt: p.createdAt.getTime(),
    ...(c.activity.lastSeenAt ? { seenAt: c.activity.lastSeenAt.getTime() } : {}),
    ...profileOf(p),
    url: profileUrl(publicUrl, p.username),
    ...(c.activity.liveGameId ? { playing: inviteUrl(publicUrl, c.activity.liveGameId) } : {}),
    count: {
      all: p.gamesPlayed,
      rated,
      draw: p.draws,
      loss: p.losses,
      win: p.wins,
      bookmark: 0,
      playing: c.activity.activeGames,
      import: 0,
      me: 0,
    },
  };
}

export function formatOnlineBot(b: OnlineBot): User {
  return {
    id: lichessId(b.username),
    username: b.username,
    perfs: formatPerfs(b.ratings),
    title: 'BOT',
    createdAt: b.createdAt.getTime(),
    seenAt: b.lastSeenAt.getTime(),
    ...profileOf(b),
  };
}

export function formatUserStatus(s: PlayerStatus, withGameIds: boolean): UserStatus {
  return {
    id: lichessId(s.username),
    name: s.username,
    ...titleOf(s.bot),
    ...(s.online ? { online: true as const } : {}),
    ...(s.liveGameId ? { playing: true as const } : {}),
    ...(s.liveGameId && withGameIds ? { playingId: s.liveGameId } : {}),
  };
}

const SOURCES = { challenge: 'friend', matchmaking: 'pool', tournament: 'arena' } as const;

/**
 * A game in progress as `userId` plays it. `secondsLeft`: their clock as of `now`; in a
 * correspondence game, the time left of their period on their turn, a whole period otherwise.
 */
export function formatNowPlaying(g: PlayingGame, userId: string, now: number): NowPlaying {
  const color: Color = g.whiteId === userId ? 'white' : 'black';
  const opponent = color === 'white' ? g.black : g.white;
  const opponentRating = color === 'white' ? g.blackRating : g.whiteRating;
  const isMyTurn = sideToMove(g.fen) === color;
  const speed = speedOf(g);
  let secondsLeft: number;
  if (g.daysPerMove !== null) {
    const period = g.daysPerMove * 86_400;
    secondsLeft = isMyTurn && g.moveDeadline ? Math.max(0, Math.floor((g.moveDeadline.getTime() - now) / 1000)) : period;
  } else {
    secondsLeft = Math.floor(liveClocks(g, now)[color] / 1000);
  }
  return {
    gameId: g.id,
    fullId: g.id,
    color,
    fen: g.fen,
    hasMoved: g.moveCount >= (color === 'white' ? 1 : 2),
    isMyTurn,
    lastMove: g.lastUci ?? '',
    opponent: {
      id: lichessId(opponent?.username ?? ''),
      username: opponent?.username ?? '',
      ...(opponentRating !== null ? { rating: opponentRating } : {}),
    },
    perf: speed,
    rated: g.rated,
    secondsLeft,
    source: SOURCES[g.kind],
    speed,
    status: statusName({ status: g.status, termination: null }),
    variant: { key: 'standard', name: 'Standard' },
    ...(g.tournamentId ? { tournamentId: g.tournamentId } : {}),
  };
}

/** Lichess's order: the games where it is the player's turn first, then the least time left first. */
export function formatPlaying(games: readonly PlayingGame[], userId: string, now: number, nb: number): Playing {
  const all = games.map((g) => formatNowPlaying(g, userId, now));
  all.sort((a, b) => Number(b.isMyTurn) - Number(a.isMyTurn) || a.secondsLeft - b.secondsLeft);
  return { nbMyTurn: all.filter((g) => g.isMyTurn).length, nowPlaying: all.slice(0, nb) };
}
