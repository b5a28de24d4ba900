import { z } from 'zod';
import type { PuzzleRecord } from '../db/puzzles.ts';
import { COLORS } from '../domain/game.ts';
import { MAX_SOLUTION_PLIES, sideToMove, UCI_MOVE } from '../domain/puzzles.ts';

/** The schemas of DESIGN 2.10 "Puzzles": the attempt body and the objects the routes answer with. */

/** No puzzle asks for more solver moves than this; longer lists are refused before any lookup. */
export const MAX_ATTEMPT_MOVES = MAX_SOLUTION_PLIES / 2;
export const MAX_TIME_MS = 86_400_000;

const uciMove = z
  .string({ error: 'must be a UCI move such as e2e4 or e7e8q' })
  .regex(UCI_MOVE, 'must be a UCI move such as e2e4 or e7e8q');

/** How long the solver took: kept with the first attempt, whichever route makes it. */
const timeMs = z
  .number({ error: 'must be an integer number of milliseconds' })
  .int('must be an integer number of milliseconds')
  .min(0, 'must be at least 0')
  .max(MAX_TIME_MS, `must be at most ${MAX_TIME_MS}`)
  .optional()
  .meta({ description: 'how long the solver took (kept with the first attempt)' });

/** The solver's moves: 1 to the puzzle's count of solver moves (checked once the puzzle is read). */
const solverMoves = (description: string) =>
  z
    .array(uciMove, { error: 'must be an array of UCI moves' })
    .min(1, 'must hold at least one move')
    .max(MAX_ATTEMPT_MOVES, `must hold at most ${MAX_ATTEMPT_MOVES} moves`)
    .meta({ description });

export const AttemptBody = z.object({
  moves: solverMoves(
    "the solver's moves only (UCI), 1 to the number of solver moves in the solution; the solution's replies are played between them",
  ),
  time_ms: timeMs,
});
export type AttemptBody = z.infer<typeof AttemptBody>;

export const PuzzleView = z.object({
  id: z.string().meta({ description: "the Lichess puzzle id (five letters and digits)" }),
  fen: z.string().meta({ description: 'the position after the setup move: the solver is to move' }),
  last_move: z.string().meta({ description: "the setup move (UCI): the opponent's move that led to `fen`" }),
  color: z.enum(COLORS).meta({ description: "the solver's colour" }),
  rating: z.number().int(),
  rating_deviation: z.number().int(),
  popularity: z.number().int().meta({ description: '−100 to 100, as imported' }),
  plays: z.number().int().meta({ description: "the imported NbPlays plus first attempts made here" }),
  themes: z.array(z.string()),
  opening_tags: z.array(z.string()),
  game_url: z.string(),
});
export type PuzzleView = z.infer<typeof PuzzleView>;

export const DailyPuzzleView = z.object({
  date: z.iso.date().meta({ description: 'the UTC day (YYYY-MM-DD)' }),
  puzzle: PuzzleView,
});
export type DailyPuzzleView = z.infer<typeof DailyPuzzleView>;

export const AttemptResultView = z.object({
  correct: z.boolean(),
  solution: z.array(z.string()).meta({ description: "every UCI move after the setup move: the solver's and the replies" }),
  first_attempt: z.boolean().meta({ description: "this was the caller's first attempt at the puzzle (the rated one)" }),
  rating_change: z.number().int().meta({ description: "the change of the caller's puzzle rating; 0 after the first attempt" }),
  user_rating: z.number().int().meta({ description: "the caller's puzzle rating now" }),
  puzzle_rating: z.number().int().meta({ description: "the puzzle's rating now" }),
});
export type AttemptResultView = z.infer<typeof AttemptResultView>;

/** The same fields as an attempt: a step is an attempt sent move by move. */
export const StepBody = z.object({
  moves: solverMoves(
    "the solver's moves so far (UCI), 1 to the number of solver moves in the solution; the solution's replies are played between them",
  ),
  time_ms: timeMs,
});
export type StepBody = z.infer<typeof StepBody>;

export const PuzzleStepContinueView = z.object({
  status: z.literal('continue').meta({ description: "every move so far is the solution's, and the solution goes on" }),
  reply: z.string().meta({ description: "the solution's reply to the last move (UCI); the solver's next move is to come" }),
});
export type PuzzleStepContinueView = z.infer<typeof PuzzleStepContinueView>;

export const PuzzleStepEndView = AttemptResultView.extend({
  status: z.enum(['solved', 'failed']).meta({ description: 'the run has ended: `correct` says the same' }),
});
export type PuzzleStepEndView = z.infer<typeof PuzzleStepEndView>;

export const PuzzleStepView = z.union([PuzzleStepContinueView, PuzzleStepEndView]);
export type PuzzleStepView = z.infer<typeof PuzzleStepView>;

export const formatPuzzle = (p: PuzzleRecord): PuzzleView => ({
  id: p.id,
  fen: p.fen,
  last_move: p.lastMove,
  color: sideToMove(p.fen),
  rating: Math.round(p.rating),
  rating_deviation: Math.round(p.ratingDeviation),
  popularity: p.popularity,
  plays: p.plays,
  themes: p.themes,
  opening_tags: p.openingTags,
  game_url: p.gameUrl,
});
