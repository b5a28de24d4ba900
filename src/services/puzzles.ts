import type { AppContext } from '../context.ts';
import { withTransaction } from '../db/pool.ts';
import * as repo from '../db/puzzles.ts';
import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import { judgeAttempt, judgeLine, rateAttempt, type NotAnAttempt } from '../domain/puzzleAttempt.ts';
import { dailyStartKey, isPuzzleId, utcDay } from '../domain/puzzles.ts';
import { AppError, validationError } from '../errors.ts';
import type { Result } from '../result.ts';
import { bind } from './bind.ts';
import {
  formatPuzzle,
  type AttemptBody,
  type AttemptResultView,
  type DailyPuzzleView,
  type PuzzleStepView,
  type PuzzleView,
  type StepBody,
} from './puzzleViews.ts';

export const PUZZLE_SORTS = ['rating', 'popularity'] as const;
export type PuzzleSort = (typeof PUZZLE_SORTS)[number];

export type ListPuzzlesInput = {
  theme?: string;
  min_rating?: number;
  max_rating?: number;
  /** `field` (ordered by `order`, default ascending) or `-field` (descending whatever `order` says). */
  sort?: PuzzleSort | `-${PuzzleSort}`;
  order?: 'asc' | 'desc';
  page: number;
  limit: number;
};

/**
 * A list's total counts every match, which costs a scan of millions of index entries on the full
 * Lichess database (about 0.3 s per million here): totals are kept this long per filter. Puzzles
 * come and go only with imports; ratings move a little with attempts.
 */
export const PUZZLE_COUNT_TTL_MS = 60_000;
const COUNT_CACHE_MAX = 1000;

const puzzleNotFound = () => new AppError('PUZZLE_NOT_FOUND', 'Puzzle not found');

/** DESIGN 2.10: a malformed id is an unknown id. Puzzle ids are case-sensitive. */
function puzzleIdOf(id: string): string {
  if (!isPuzzleId(id)) throw puzzleNotFound();
  return id;
}

/** A list's total per filter, and when it was counted; a count in flight is shared by the requests that arrive meanwhile. */
export type PuzzleCounts = Map<string, { at: number; total: Promise<number> }>;

/** What the puzzle use cases work with: the context's parts and this process's counts. */
export type PuzzlesDeps = Pick<AppContext, 'pool' | 'clock'> & { counts: PuzzleCounts };

/** A burst of one list costs one scan. */
function countOf(d: PuzzlesDeps, filter: repo.PuzzleFilter): Promise<number> {
  const key = JSON.stringify([filter.theme, filter.minRating, filter.maxRating]);
  const cached = d.counts.get(key);
  if (cached && d.clock.now() - cached.at < PUZZLE_COUNT_TTL_MS) return cached.total;
  if (d.counts.size >= COUNT_CACHE_MAX) d.counts.clear();
  const total = repo.countPuzzles(d.pool, filter);
  d.counts.set(key, { at: d.clock.now(), total });
  // A failed count is not kept: the next request counts again.
  total.catch(() => d.counts.get(key)?.total === total && d.counts.delete(key));
  return total;
}

async function view(d: PuzzlesDeps, id: string): Promise<PuzzleView> {
  const puzzle = await repo.findPuzzle(d.pool, id);
  if (!puzzle) throw puzzleNotFound();
  return formatPuzzle(puzzle);
}

export async function list(d: PuzzlesDeps, q: ListPuzzlesInput): Promise<{ puzzles: PuzzleView[]; total: number }> {
  const descending = q.sort?.startsWith('-');
  const field = (q.sort?.replace(/^-/, '') ?? 'rating') as PuzzleSort;
  // Unlike games and clubs, puzzles read easiest first: ascending unless asked otherwise.
  const direction = descending ? 'desc' : (q.order ?? 'asc');
  const filter = { theme: q.theme, minRating: q.min_rating, maxRating: q.max_rating };
  const [puzzles, total] = await Promise.all([
    repo.listPuzzles(d.pool, filter, { field, direction }, { limit: q.limit, offset: (q.page - 1) * q.limit }),
    countOf(d, filter),
  ]);
  return { puzzles: puzzles.map(formatPuzzle), total };
}

export const get = (d: PuzzlesDeps, id: string): Promise<PuzzleView> => view(d, puzzleIdOf(id));

/**
 * The puzzle of the current UTC day by the service clock: the stored one, else one picked
 * from the day alone and stored (the first node to store it wins; the others read it).
 */
export async function daily(d: PuzzlesDeps): Promise<DailyPuzzleView> {
  const date = utcDay(d.clock.now());
  const id = (await repo.findDailyPuzzleId(d.pool, date)) ?? (await repo.storeDailyPuzzle(d.pool, date, dailyStartKey(date)));
  if (!id) throw new AppError('PUZZLE_NOT_FOUND', 'No puzzle qualifies as a daily puzzle');
  return { date, puzzle: await view(d, id) };
}

export async function next(d: PuzzlesDeps, userId: string): Promise<PuzzleView> {
  const puzzle = await repo.findNextPuzzle(d.pool, userId, DEFAULT_GLICKO.rating);
  if (!puzzle) throw new AppError('PUZZLE_NOT_FOUND', 'No puzzle is left that you have not attempted');
  return formatPuzzle(puzzle);
}

/** The puzzle with its solution, for judging. */
async function puzzleToJudge(d: PuzzlesDeps, id: string): Promise<repo.PuzzleRecord> {
  const puzzle = await repo.findPuzzle(d.pool, puzzleIdOf(id));
  if (!puzzle) throw puzzleNotFound();
  return puzzle;
}

/** A verdict's value; a list that is not an attempt (an illegal move, too many) is a 400 and records nothing. */
function judged<T>(verdict: Result<T, NotAnAttempt>): T {
  if (!verdict.ok) throw validationError(verdict.error.field, verdict.error.message);
  return verdict.value;
}

/**
 * Records an ended attempt, whichever route ended it. The user's puzzle-rating row is locked
 * first, so a user's attempts queue one after the other and exactly one is their first at a
 * puzzle: that one is rated, the user and the puzzle in the same transaction; later ones only
 * count.
 */
async function recordAttempt(d: PuzzlesDeps, userId: string, puzzle: repo.PuzzleRecord, correct: boolean, timeMs: number | undefined): Promise<AttemptResultView> {
  const now = new Date(d.clock.now());
  return withTransaction(d.pool, async (tx) => {
    const user = await repo.lockPuzzleRating(tx, userId, DEFAULT_GLICKO);
    if (await repo.findAttempt(tx, userId, puzzle.id)) {
      await repo.countRepeatAttempt(tx, userId, puzzle.id, now);
      const current = await repo.findPuzzleGlicko(tx, puzzle.id);
      return {
        correct,
        solution: puzzle.solution,
        first_attempt: false,
        rating_change: 0,
        user_rating: Math.round(user.rating),
        puzzle_rating: Math.round(current.rating),
      };
    }
    const rated = rateAttempt(user, await repo.lockPuzzle(tx, puzzle.id), correct);
    await repo.savePuzzleRating(tx, userId, rated.user, now);
    await repo.savePuzzleAfterAttempt(tx, puzzle.id, rated.puzzle);
    await repo.insertAttempt(tx, { userId, puzzleId: puzzle.id, correct, ratingChange: rated.userChange, timeMs: timeMs ?? null, now });
    return {
      correct,
      solution: puzzle.solution,
      first_attempt: true,
      rating_change: rated.userChange,
      user_rating: Math.round(rated.user.rating),
      puzzle_rating: Math.round(rated.puzzle.rating),
    };
  });
}

/** A whole line at once: one that stops before the end without mate is a failed attempt. */
export async function attempt(d: PuzzlesDeps, userId: string, id: string, body: AttemptBody): Promise<AttemptResultView> {
  const puzzle = await puzzleToJudge(d, id);
  const correct = judged(judgeAttempt(puzzle.fen, puzzle.solution, body.moves));
  return recordAttempt(d, userId, puzzle, correct, body.time_ms);
}

/**
 * A line move by move (DESIGN 2.14): while every move is the solution's, the answer is its next
 * reply and nothing is recorded (a run left unfinished is no attempt, as on Lichess); the step
 * that ends the run is recorded as the attempt of the same moves would be, so the first run that
 * ends is the rated first attempt and later runs only count.
 */
export async function step(d: PuzzlesDeps, userId: string, id: string, body: StepBody): Promise<PuzzleStepView> {
  const puzzle = await puzzleToJudge(d, id);
  const verdict = judged(judgeLine(puzzle.fen, puzzle.solution, body.moves));
  if (verdict.status === 'continue') return verdict;
  return { status: verdict.status, ...(await recordAttempt(d, userId, puzzle, verdict.status === 'solved', body.time_ms)) };
}

export type Puzzles = ReturnType<typeof createPuzzles>;

/** The puzzle use cases bound to `ctx` and counts of their own (one per process). */
export function createPuzzles(ctx: Pick<AppContext, 'pool' | 'clock'>) {
  const d: PuzzlesDeps = { pool: ctx.pool, clock: ctx.clock, counts: new Map() };
  return bind(d, { list, get, daily, next, attempt, step });
}
