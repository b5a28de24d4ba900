// Judging a puzzle attempt as Lichess does: the solver's moves are played in order from the
// puzzle's position with the solution's replies between them; a move that is not the solution's
// but mates solves the puzzle all the same ("any mate is correct").

import { Chess } from 'chess.js';
import { rate, type Glicko } from './glicko2.ts';
import { playUci, solverMoveCount } from './puzzles.ts';
import { err, ok, type Result } from '../result.ts';

/** Whether the attempt is correct; or it is not one: `field` names the offending entry (`moves` or `moves.<index>`). */
export type AttemptVerdict = Result<boolean, { field: string; message: string }>;

/**
 * `moves` are the solver's moves only (UCI syntax already checked). 1 to the number of solver
 * moves in `solution` are accepted; a move that is illegal where it is played refuses the whole
 * attempt. The first move that differs from the solution ends it: correct if it mates, else
 * wrong, and the moves after it are not looked at. A line that stops before the end is wrong.
 */
export function judgeAttempt(fen: string, solution: readonly string[], moves: readonly string[]): AttemptVerdict {
  const allowed = solverMoveCount(solution);
  if (moves.length < 1 || moves.length > allowed) {
    return err({ field: 'moves', message: `must hold 1 to ${allowed} moves (the solver's moves of this puzzle)` });
  }
  const chess = new Chess(fen);
  for (const [i, move] of moves.entries()) {
    if (!playUci(chess, move)) return err({ field: `moves.${i}`, message: `${move} is not a legal move in the position` });
    if (move !== solution[2 * i]) return ok(chess.isCheckmate());
    const reply = solution[2 * i + 1];
    if (reply === undefined) return ok(true);
    // The solution was replayed when the puzzle was imported: its replies are legal.
    playUci(chess, reply);
  }
  return ok(false);
}

export type RatedAttempt = { user: Glicko; puzzle: Glicko; /** round(new) − round(old), as players see it. */ userChange: number };

/** Lichess's line: a rating whose deviation is above this is provisional. */
export const PROVISIONAL_DEVIATION = 110;

/**
 * A rated attempt is a game between the solver and the puzzle: solved is a win, anything else a
 * loss. The puzzle is rated by Glicko-2 as it stands.
 *
 * The solver is too, except while their rating is provisional: then the puzzle counts for them as
 * no more surprising a result than an even game, as if rated at most the solver's rating when
 * solved and at least it when failed. Every first attempt shows the solution (DESIGN 2.10), so a
 * second account can reveal any puzzle; against a new player's RD of 500 Glicko-2 would turn one
 * solve of a 2787 puzzle into +1,372. Bounded so, a revealed solution earns what a solve at the
 * solver's own level earns, and the deviation shrinks as after one, so climbing by revealed
 * solutions takes as many steps as climbing honestly. We chose this over a fixed cap (Lichess
 * clamps every change to ±700, which still lets one request add 700 points) because it scales
 * with the deviation as Glicko-2 itself does, and over hiding the solution, which a second account
 * defeats anyway. An established rating (RD ≤ 110) moves a few dozen points at most whatever the
 * puzzle, so it follows Glicko-2 untouched.
 */
export function rateAttempt(user: Glicko, puzzle: Glicko, correct: boolean): RatedAttempt {
  const score = correct ? 1 : 0;
  const asSeenBySolver =
    user.deviation > PROVISIONAL_DEVIATION
      ? { ...puzzle, rating: correct ? Math.min(puzzle.rating, user.rating) : Math.max(puzzle.rating, user.rating) }
      : puzzle;
  const rated = rate(user, [{ opponent: asSeenBySolver, score }]);
  return {
    user: rated,
    puzzle: rate(puzzle, [{ opponent: user, score: 1 - score }]),
    userChange: Math.round(rated.rating) - Math.round(user.rating),
  };
}
