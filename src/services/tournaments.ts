import type { AppContext } from '../context.ts';
import { withTransaction, type Queryable } from '../db/pool.ts';
import * as repo from '../db/tournaments.ts';
import type { TournamentStatus } from '../domain/statuses.ts';
import { parseId } from '../domain/ids.ts';
import { validateTimeControl } from '../domain/timeControl.ts';
import { AppError, validationError } from '../errors.ts';
import {
  formatStanding,
  formatTournament,
  formatTournamentSummary,
  SCHEDULE_AHEAD_MS,
  SCHEDULE_BEHIND_MS,
  STANDINGS_SHOWN,
  type CreateTournamentBody,
  type StandingView,
  type TournamentSummaryView,
  type TournamentView,
} from './tournamentViews.ts';
import { bind } from './bind.ts';
import { botPlaysChallengesOnly } from './bots.ts';
import { isBotAccount } from '../db/players.ts';

export const TOURNAMENT_SORTS = ['starts_at', 'ends_at', 'created_at'] as const;
export type TournamentSort = (typeof TOURNAMENT_SORTS)[number];

export type ListTournamentsInput = {
  status?: TournamentStatus;
  /** `field` (ordered by `order`) or `-field` (descending whatever `order` says). */
  sort?: TournamentSort | `-${TournamentSort}`;
  order?: 'asc' | 'desc';
  page: number;
  limit: number;
};

/** PostgreSQL's query_canceled: the statement timeout ran out (here: waiting for the row lock). */
const QUERY_CANCELED = '57014';
/**
 * Arenas a user may have upcoming or running at once: each running one with players costs an
 * actor (a lease, a pass every 2 s), so one account cannot schedule thousands.
 */
export const MAX_OPEN_TOURNAMENTS_PER_USER = 5;
const notFound = () => new AppError('TOURNAMENT_NOT_FOUND', 'Tournament not found');
const finished = () => new AppError('TOURNAMENT_FINISHED', 'The tournament is over');

/** DESIGN 2.10: a malformed id is an unknown id. */
function tournamentIdOf(id: string): string {
  const parsed = parseId(id);
  if (!parsed) throw notFound();
  return parsed;
}

/** What the arena use cases work with. */
export type TournamentsDeps = Pick<AppContext, 'pool' | 'clock' | 'log'> & {
  /** Makes sure a running (or due) arena's actor exists somewhere in the cluster (the gateway's openTournament). */
  openTournament: (tournamentId: string) => Promise<boolean>;
};

/** The Tournament and its first standings from one snapshot (one statement): they agree with each other. */
async function view(db: Queryable, id: string, viewerId: string | undefined): Promise<TournamentView> {
  const found = await repo.findTournamentWithStandings(db, id, viewerId ?? null, STANDINGS_SHOWN);
  if (!found) throw notFound();
  return formatTournament(found.tournament, found.standings);
}

/**
 * Runs a change of one tournament's players under its row lock, kept short (the answer is read
 * after the commit): many players join at once, and the actor takes the same lock each round.
 * A lock that cannot be had before the statement timeout is "busy, retry", not a fault.
 */
async function withTournament(d: TournamentsDeps, id: string, work: (tx: Queryable, t: repo.TournamentRow) => Promise<void>): Promise<string> {
  const tournamentId = tournamentIdOf(id);
  try {
    await withTransaction(d.pool, async (tx) => {
      const t = await repo.lockTournament(tx, tournamentId);
      if (!t) throw notFound();
      await work(tx, t);
    });
  } catch (error) {
    if ((error as { code?: string }).code === QUERY_CANCELED) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The tournament is busy; retry', undefined, { retryAfter: 1 });
    }
    throw error;
  }
  return tournamentId;
}

/** Joins and withdrawals end with `ends_at`: the standings are (about to be) final. */
const isOver = (d: TournamentsDeps, t: repo.TournamentRow) => t.status === 'finished' || d.clock.now() >= t.endsAt.getTime();

export async function create(d: TournamentsDeps, userId: string, body: CreateTournamentBody): Promise<TournamentView> {
  const tc = validateTimeControl(body);
  if (!tc.ok) {
    const details = Object.fromEntries(Object.entries(tc.error).map(([field, message]) => [field, [message]]));
    throw new AppError('VALIDATION_ERROR', 'Invalid time control', details);
  }
  // An arena is a few hours of clocked games: the body's schema admits no correspondence.
  const timeControl = tc.value.time_control;
  if (timeControl === 'correspondence') throw validationError('time_control', 'an arena is played with a clock, not by correspondence');
  const now = d.clock.now();
  const startsAt = new Date(body.starts_at);
  if (startsAt.getTime() < now - SCHEDULE_BEHIND_MS) throw validationError('starts_at', 'must not be in the past (5 s of leeway)');
  if (startsAt.getTime() > now + SCHEDULE_AHEAD_MS) throw validationError('starts_at', 'must be at most 30 days ahead');
  const tournament = {
    name: body.name,
    creatorId: userId,
    timeControl,
    initialTime: tc.value.initial_time,
    increment: tc.value.increment,
    rated: body.rated,
    startsAt,
    endsAt: new Date(startsAt.getTime() + body.duration_minutes * 60_000),
    maxPlayers: body.max_players,
    createdAt: new Date(now),
  };
  const id = await withTransaction(d.pool, (tx) => repo.insertTournamentWithin(tx, tournament, MAX_OPEN_TOURNAMENTS_PER_USER));
  if (!id) {
    throw new AppError('TOURNAMENT_LIMIT', `A user may have at most ${MAX_OPEN_TOURNAMENTS_PER_USER} tournaments upcoming or running`);
  }
  return view(d.pool, id, userId);
}

/** Running and upcoming by starts_at ascending, finished by ends_at descending (unless asked otherwise). */
export async function list(
  d: TournamentsDeps,
  viewerId: string | undefined,
  q: ListTournamentsInput,
): Promise<{ tournaments: TournamentSummaryView[]; total: number }> {
  const status = q.status ?? 'running';
  const descending = q.sort?.startsWith('-');
  const field = (q.sort?.replace(/^-/, '') as TournamentSort | undefined) ?? (status === 'finished' ? 'ends_at' : 'starts_at');
  const direction = descending ? 'desc' : (q.order ?? (status === 'finished' ? 'desc' : 'asc'));
  const { tournaments, total } = await repo.listTournaments(d.pool, viewerId ?? null, status, { field, direction }, {
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
  return { tournaments: tournaments.map(formatTournamentSummary), total };
}

export const get = (d: TournamentsDeps, viewerId: string | undefined, id: string): Promise<TournamentView> => view(d.pool, tournamentIdOf(id), viewerId);

/** Every standing, ranked, a page at a time. */
export async function standings(
  d: TournamentsDeps,
  id: string,
  page: { page: number; limit: number },
): Promise<{ standings: StandingView[]; total: number }> {
  const found = await repo.findStandingsPage(d.pool, tournamentIdOf(id), { limit: page.limit, offset: (page.page - 1) * page.limit });
  if (!found) throw notFound();
  return { standings: found.standings.map(formatStanding), total: found.total };
}

/**
 * Before the start or while it runs; joined already → as is. A withdrawn player comes back
 * with their points. Full → TOURNAMENT_FULL; from `ends_at` on → TOURNAMENT_FINISHED; a bot
 * account → FORBIDDEN (DESIGN 2.13).
 */
export async function join(d: TournamentsDeps, userId: string, id: string): Promise<TournamentView> {
  let second = false;
  const tournamentId = await withTournament(d, id, async (tx, t) => {
    if (isOver(d, t)) throw finished();
    // The account's row shared: a bot upgrade (which takes it for update) comes wholly before or after.
    if (await isBotAccount(tx, userId, 'share')) throw botPlaysChallengesOnly();
    const entry = await repo.findEntry(tx, t.id, userId);
    if (entry && !entry.withdrawn) return;
    if (t.maxPlayers !== null && t.playerCount >= t.maxPlayers) throw new AppError('TOURNAMENT_FULL', 'The tournament is full');
    await repo.enterPlayer(tx, t.id, userId, new Date(d.clock.now()));
    second = t.playerCount + 1 === 2 && t.startsAt.getTime() <= d.clock.now();
  });
  // An arena under way gets its actor with its second player (none before: nobody to pair).
  // Should this fail, every node's sweeper hosts it within a second all the same.
  if (second) await d.openTournament(tournamentId).catch((err) => d.log.warn({ err, tournamentId }, 'could not host a tournament on its second join'));
  return view(d.pool, tournamentId, userId);
}

/**
 * Stops the player's pairing; points are kept and a game in progress still counts. Before the
 * start it removes the player entirely. Not joined → as is; from `ends_at` on →
 * TOURNAMENT_FINISHED.
 */
export async function withdraw(d: TournamentsDeps, userId: string, id: string): Promise<TournamentView> {
  const tournamentId = await withTournament(d, id, async (tx, t) => {
    if (isOver(d, t)) throw finished();
    const entry = await repo.findEntry(tx, t.id, userId);
    if (entry && !entry.withdrawn) await repo.withdrawPlayer(tx, t.id, userId, t.status === 'upcoming');
  });
  return view(d.pool, tournamentId, userId);
}

/** For the realtime channel: whether `tournament:<id>` names a tournament. */
export async function exists(d: TournamentsDeps, id: string): Promise<boolean> {
  const parsed = parseId(id);
  return parsed !== undefined && repo.tournamentExists(d.pool, parsed);
}

export type Tournaments = ReturnType<typeof createTournaments>;

/**
 * The arena use cases REST serves (DESIGN 2.10): create, list, read with standings, join and
 * withdraw. Joins and withdrawals take the tournament's row lock, which the tournament's actor
 * takes too for each of its steps, so a player's place changes between rounds, never during one.
 */
export function createTournaments(ctx: AppContext, deps: Pick<TournamentsDeps, 'openTournament'>) {
  const d: TournamentsDeps = { pool: ctx.pool, clock: ctx.clock, log: ctx.log, openTournament: deps.openTournament };
  return bind(d, { create, list, get, standings, join, withdraw, exists });
}
