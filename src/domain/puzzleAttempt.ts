// Judging a puzzle attempt as Lichess does: the solver's moves are played in order from the
// puzzle's position with the solution's replies between them; a move that is not the solution's
// but mates solves the puzzle all the same ("any mate is correct"). A whole line at once (POST
// /attempt) and a line move by move (POST /step) are judged by the same function, and rated alike.

import { Chess } from 'chess.js';
import { rate, type Glicko } from './glicko2.ts';
import { playUci, solverMoveCount } from './puzzles.ts';
import { err, ok, type Result } from '../result.ts';

/** Why a list of moves is not an attempt: `field` names the offending entry (`moves` or `moves.<index>`). */
export type NotAnAttempt = { field: string; message: string };

/**
 * Where the solver's moves so far leave the puzzle: solved, failed, or on the solution with more
 * to play, `reply` being the solution's answer to the last move (revealed only after it).
 */
export type LineVerdict = { status: 'continue'; reply: string } | { status: 'solved' } | { status: 'failed' };

/**
 * The one judge of a puzzle line, for an attempt and a step alike. `moves` are the solver's moves
 * only (UCI syntax already checked); 1 to the number of solver moves in `solution` are accepted,
 * and a move that is illegal where it is played refuses the whole list. The first move that
 * differs from the solution ends the line: solved if it mates, else failed, and the moves after it
 * are not looked at. Moves that all follow the solution short of its end go on with its next reply.
 */
export function judgeLine(fen: string, solution: readonly string[], moves: readonly string[]): Result<LineVerdict, NotAnAttempt> {
  const allowed = solverMoveCount(solution);
  if (moves.length < 1 || moves.length > allowed) {
    return err({ field: 'moves', message: `must hold 1 to ${allowed} moves (the solver's moves of this puzzle)` });
  }
  const chess = new Chess(fen);
  for (const [i, move] of moves.entries()) {
    if (!playUci(chess, move)) return err({ field: `moves.${i}`, message: `${move} is not a legal move in the position` });
    if (move !== solution[2 * i]) return ok({ status: chess.isCheckmate() ? 'solved' : 'failed' });
    const reply = solution[2 * i + 1];
    if (reply === undefined) return ok({ status: 'solved' });
    if (i === moves.length - 1) return ok({ status: 'continue', reply });
    // The solution was replayed when the puzzle was imported: its replies are legal.
    playUci(chess, reply);
  }
  // Unreachable: the loop answers on the last move at the latest.
  return ok({ status: 'failed' });
}

/** Whether the attempt is correct; or it is not one. */
export type AttemptVerdict = Result<boolean, NotAnAttempt>;

/** An attempt is a whole line: one that stops before the end of the solution without mate is wrong. */
export function judgeAttempt(fen: string, solution: readonly string[], moves: readonly string[]): AttemptVerdict {
  const verdict = judgeLine(fen, solution, moves);
  return verdict.ok ? ok(verdict.value.status === 'solved') : verdict;
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
