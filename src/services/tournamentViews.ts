import { z } from 'zod';
import { containsOffensiveWord } from '../auth/offensiveWords.ts';
import { requiredString } from '../auth/rules.ts';
import type { StandingRecord, TournamentRecord } from '../db/tournaments.ts';
import { TOURNAMENT_STATUSES } from '../domain/statuses.ts';
import { normalizeText, textProblems } from '../domain/text.ts';
import { LIVE_TIME_CONTROLS, MAX_INCREMENT, MAX_INITIAL_TIME } from '../domain/timeControl.ts';

/** The schemas of DESIGN 2.10 "Tournaments": the request body and the objects the API answers with. */

export const TOURNAMENT_NAME_MIN = 3;
export const TOURNAMENT_NAME_MAX = 60;
export const MAX_DURATION_MINUTES = 360;
export const MAX_PLAYERS = { min: 2, max: 10_000 } as const;
/** How far ahead a tournament may be scheduled, and how far back (a clock a little behind ours). */
export const SCHEDULE_AHEAD_MS = 30 * 24 * 3600 * 1000;
export const SCHEDULE_BEHIND_MS = 5000;
/** The standings a Tournament carries; the rest are paged with GET /tournaments/{id}/standings. */
export const STANDINGS_SHOWN = 100;

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });
const seconds = (max: number) =>
  z
    .number({ error: 'must be an integer number of seconds' })
    .int('must be an integer number of seconds')
    .min(0, 'must be at least 0')
    .max(max, `must be at most ${max}`);

export function tournamentNameProblems(name: string): string[] {
  const problems: string[] = [];
  const length = [...name].length;
  if (length < TOURNAMENT_NAME_MIN || length > TOURNAMENT_NAME_MAX) {
    problems.push(`must be ${TOURNAMENT_NAME_MIN} to ${TOURNAMENT_NAME_MAX} characters`);
    if (length > TOURNAMENT_NAME_MAX) return problems;
  }
  const hidden = textProblems(name);
  if (hidden.length > 0) problems.push(...hidden);
  // Any run of non-letters separates words, as underscores do in usernames.
  else if (containsOffensiveWord(name.replace(/[^\p{L}\p{N}]+/gu, '_'))) problems.push('must not contain offensive words');
  return problems;
}

/** The create body; `duration_minutes`' lower bound is the operator's (TOURNAMENT_MIN_MINUTES). */
export function createTournamentBody(minMinutes: number) {
  return z.object({
    name: requiredString()
      .overwrite((s) => normalizeText(s).trim())
      .superRefine((name, ctx) => {
        for (const message of tournamentNameProblems(name)) ctx.addIssue({ code: 'custom', message });
      })
      .meta({
        minLength: TOURNAMENT_NAME_MIN,
        description: `NFKC-normalised and trimmed, then ${TOURNAMENT_NAME_MIN}–${TOURNAMENT_NAME_MAX} characters, no offensive words, no control or format characters (direction overrides, zero-width), no word mixing Latin, Greek and Cyrillic letters`,
      }),
    time_control: oneOf(LIVE_TIME_CONTROLS).meta({
      description: 'must be the category of initial_time + 40 × increment: bullet < 180 s ≤ blitz < 480 s ≤ rapid < 1500 s ≤ classical',
    }),
    initial_time: seconds(MAX_INITIAL_TIME),
    increment: seconds(MAX_INCREMENT),
    rated: z.boolean({ error: 'must be a boolean' }).default(true),
    starts_at: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T18:00:00Z' })
      .meta({ description: 'from now − 5 s to 30 days ahead' }),
    duration_minutes: z
      .number({ error: 'must be an integer number of minutes' })
      .int('must be an integer number of minutes')
      .min(minMinutes, `must be at least ${minMinutes}`)
      .max(MAX_DURATION_MINUTES, `must be at most ${MAX_DURATION_MINUTES}`)
      .meta({ description: `TOURNAMENT_MIN_MINUTES (${minMinutes} here) to ${MAX_DURATION_MINUTES}` }),
    max_players: z
      .number({ error: 'must be an integer or null' })
      .int('must be an integer or null')
      .min(MAX_PLAYERS.min, `must be at least ${MAX_PLAYERS.min}`)
      .max(MAX_PLAYERS.max, `must be at most ${MAX_PLAYERS.max}`)
      .nullable()
      .default(null)
      .meta({ description: 'default none (no limit)' }),
  });
}
export type CreateTournamentBody = z.infer<ReturnType<typeof createTournamentBody>>;

const Who = z.object({ id: z.uuid(), username: z.string() });
const isoTime = z.iso.datetime();

export const StandingView = z.object({
  rank: z.number().int().meta({ description: '1..n by score, then performance (none last), then earlier join' }),
  user: Who,
  score: z.number().int(),
  games: z.number().int().meta({ description: 'finished games counted (aborted games are not)' }),
  wins: z.number().int(),
  draws: z.number().int(),
  losses: z.number().int(),
  streak: z.number().int().meta({ description: 'current consecutive wins; from 2 on the player is on fire (wins score 4, draws 2)' }),
  performance: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'round(mean opponent rating at game start + 500 × (wins − losses) / games); null before the first game' }),
  withdrawn: z.boolean(),
});
export type StandingView = z.infer<typeof StandingView>;

const TournamentFields = {
  id: z.uuid(),
  name: z.string(),
  creator: Who,
  time_control: z.enum(LIVE_TIME_CONTROLS),
  initial_time: z.number().int(),
  increment: z.number().int(),
  rated: z.boolean(),
  starts_at: isoTime,
  ends_at: isoTime,
  status: z.enum(TOURNAMENT_STATUSES).meta({ description: 'running until the last game started before ends_at has ended' }),
  player_count: z.number().int().meta({ description: 'joined and not withdrawn' }),
  max_players: z.number().int().nullable(),
  joined: z.boolean().meta({ description: 'the caller is joined and not withdrawn (false without a token)' }),
};

export const TournamentView = z.object({
  ...TournamentFields,
  standings: z.array(StandingView).meta({ description: `the first ${STANDINGS_SHOWN}` }),
  standings_total: z.number().int().meta({ description: 'every player in the standings (withdrawn ones too)' }),
});
export type TournamentView = z.infer<typeof TournamentView>;

/** A list item: the Tournament without its standings (read them with GET /tournaments/{id}). */
export const TournamentSummaryView = TournamentView.omit({ standings: true });
export type TournamentSummaryView = z.infer<typeof TournamentSummaryView>;

export const formatStanding = (s: StandingRecord): StandingView => ({
  rank: s.rank,
  user: { id: s.userId, username: s.username },
  score: s.score,
  games: s.games,
  wins: s.wins,
  draws: s.draws,
  losses: s.losses,
  streak: s.streak,
  performance: s.performance,
  withdrawn: s.withdrawn,
});

export const formatTournamentSummary = (t: TournamentRecord): TournamentSummaryView => ({
  id: t.id,
  name: t.name,
  creator: { id: t.creatorId, username: t.creatorUsername },
  time_control: t.timeControl,
  initial_time: t.initialTime,
  increment: t.increment,
  rated: t.rated,
  starts_at: t.startsAt.toISOString(),
  ends_at: t.endsAt.toISOString(),
  status: t.status,
  player_count: t.playerCount,
  max_players: t.maxPlayers,
  joined: t.joined,
  standings_total: t.standingsTotal,
});

export const formatTournament = (t: TournamentRecord, standings: StandingRecord[]): TournamentView => {
  const { standings_total, ...summary } = formatTournamentSummary(t);
  return { ...summary, standings: standings.map(formatStanding), standings_total };
};

/** What the `tournament:<id>` channel carries (DESIGN 2.10), each with `type` and `ts`. */
export type TournamentEvent =
  | { type: 'pairing'; game_id: string; white: { id: string; username: string }; black: { id: string; username: string } }
  | { type: 'standings'; standings: StandingView[]; standings_total: number }
  /** The tournament started or finished (beyond DESIGN's two: clients ignore types they do not know). */
  | { type: 'status'; status: 'running' | 'finished' };
