import { z } from 'zod';
import type { Services } from '../../services/index.ts';
import {
  AttemptBody,
  AttemptResultView,
  DailyPuzzleView,
  PuzzleStepContinueView,
  PuzzleStepEndView,
  PuzzleStepView,
  PuzzleView,
  StepBody,
} from '../../services/puzzleViews.ts';
import { PUZZLE_SORTS } from '../../services/puzzles.ts';
import { paginate } from '../pagination.ts';
import { HttpAnswer, route, type Route } from '../route.ts';
import { pageQuery } from '../validate.ts';

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

/** A rating bound: plain digits only (no `1e3`, no `0x10`, no empty value). */
const ratingBound = z
  .string({ error: 'must be a single integer' })
  .regex(/^\d{1,4}$/, 'must be an integer from 0 to 9999')
  .transform(Number);

/** Deep pages of millions of puzzles cost the database a walk past every row before them. */
export const MAX_PUZZLE_PAGE = 1000;

export const ListPuzzlesQuery = z
  .object({
    theme: z
      .string({ error: 'must be a single theme' })
      .regex(/^[A-Za-z0-9]{1,64}$/, 'must be a theme name of letters and digits, such as mateIn2')
      .optional()
      .meta({ description: 'only puzzles with this Lichess theme (e.g. mateIn2, fork, endgame)' }),
    min_rating: ratingBound.optional().meta({ description: 'only puzzles rated at least this (as shown, rounded)' }),
    max_rating: ratingBound.optional().meta({ description: 'only puzzles rated at most this (as shown, rounded)' }),
    sort: oneOf([...PUZZLE_SORTS, ...PUZZLE_SORTS.map((s) => `-${s}` as const)])
      .optional()
      .meta({ description: 'default rating; `field` follows `order` (default asc), `-field` is descending' }),
    order: oneOf(['asc', 'desc']).optional().meta({ description: 'default asc' }),
    ...pageQuery,
    page: z.coerce
      .number({ error: 'must be an integer' })
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(MAX_PUZZLE_PAGE, `must be at most ${MAX_PUZZLE_PAGE}: narrow the filters instead`)
      .default(1),
  })
  .refine((q) => q.min_rating === undefined || q.max_rating === undefined || q.min_rating <= q.max_rating, {
    path: ['max_rating'],
    message: 'must be at least min_rating',
  });
export type ListPuzzlesQuery = z.infer<typeof ListPuzzlesQuery>;

const tags = ['Puzzles'];
/** Reads are public; a token, when sent, keys the rate limit by user and must be valid. */
const READ_ERRORS = ['UNAUTHORIZED', 'PUZZLE_NOT_FOUND'];

/**
 * DESIGN 2.10 "Puzzles". `/puzzles/daily` and `/puzzles/next` come before `/puzzles/:id`, which
 * would take their names for ids.
 */
export function puzzleRoutes({ puzzles }: Services): Route[] {
  return [
    route({
      method: 'get',
      path: '/puzzles',
      operationId: 'listPuzzles',
      summary: 'List puzzles: by rating (default) or popularity, ascending unless asked otherwise; filter by theme and rating',
      tags,
      scope: 'public',
      auth: 'optional',
      query: ListPuzzlesQuery,
      envelope: 'list',
      response: z.array(PuzzleView),
      errors: ['UNAUTHORIZED'],
      handler: async ({ query }) => {
        const page = { page: query.page, limit: query.limit };
        const { puzzles: found, total } = await puzzles.list(query);
        return new HttpAnswer(200, { success: true, data: found, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'get',
      path: '/puzzles/daily',
      operationId: 'getDailyPuzzle',
      summary: "Today's puzzle (UTC day): the same for everyone, all day",
      tags,
      scope: 'public',
      auth: 'optional',
      response: DailyPuzzleView,
      errors: READ_ERRORS,
      handler: () => puzzles.daily(),
    }),
    route({
      method: 'get',
      path: '/puzzles/next',
      operationId: 'getNextPuzzle',
      summary: "The puzzle the caller has not attempted whose rating is closest to the caller's puzzle rating",
      tags,
      scope: 'public',
      auth: 'required',
      response: PuzzleView,
      errors: ['PUZZLE_NOT_FOUND'],
      handler: ({ user }) => puzzles.next(user!.id),
    }),
    route({
      method: 'get',
      path: '/puzzles/:id',
      operationId: 'getPuzzle',
      summary: 'Read a puzzle: the position after the setup move, the solver to move (the solution is not shown)',
      tags,
      scope: 'public',
      auth: 'optional',
      response: PuzzleView,
      errors: READ_ERRORS,
      handler: ({ params }) => puzzles.get(params.id),
    }),
    route({
      method: 'post',
      path: '/puzzles/:id/attempt',
      operationId: 'attemptPuzzle',
      summary:
        "Attempt a puzzle with the solver's moves; the first attempt is rated (Glicko-2, the user and the puzzle; while the user's rating is provisional, RD > 110, one attempt moves it no more than an even game would)",
      tags,
      scope: 'puzzles:write',
      auth: 'required',
      body: AttemptBody,
      response: AttemptResultView,
      errors: ['PUZZLE_NOT_FOUND'],
      handler: ({ user, params, body }) => puzzles.attempt(user!.id, params.id, body),
    }),
    route({
      method: 'post',
      path: '/puzzles/:id/step',
      operationId: 'stepPuzzle',
      summary:
        "Play a puzzle move by move: the solver's moves so far → the solution's next reply (continue), or the run's end (solved, failed) rated as the attempt of the same moves",
      description: [
        "Send the solver's moves so far (the replies are the solution's, played between them). While every move is the solution's",
        "and the solution goes on, the answer is `{status: \"continue\", reply}` and nothing is recorded: a reply is revealed only after",
        'the correct move before it. A move that leaves the solution ends the run (`solved` if it mates, else `failed`), as does the',
        "solution's last move; the answer is then `POST /puzzles/{id}/attempt`'s for the same moves, with `status`, and is recorded as",
        'that attempt would be: the first run that ends is the rated first attempt, later runs (and attempts) are not rated.',
      ].join(' '),
      tags,
      scope: 'puzzles:write',
      auth: 'required',
      // A step is a move: limited as a game's moves are, not as the write class.
      limit: 'puzzleStep',
      body: StepBody,
      response: PuzzleStepView,
      discriminator: { property: 'status', mapping: { continue: PuzzleStepContinueView, solved: PuzzleStepEndView, failed: PuzzleStepEndView } },
      errors: ['PUZZLE_NOT_FOUND'],
      handler: ({ user, params, body }) => puzzles.step(user!.id, params.id, body),
    }),
  ];
}
