// Judging a puzzle attempt as Lichess does: the solver's moves are played in order from the
// puzzle's position with the solution's replies between them; a move that is not the solution's
// but mates solves the puzzle all the same ("any mate is correct").

import { Chess } from 'chess.js';
import { rateGame, type Glicko } from './glicko2.ts';
import { playUci, solverMoveCount } from './puzzles.ts';

export type AttemptVerdict =
  | { ok: true; correct: boolean }
  /** The attempt is not one: `field` names the offending entry (`moves` or `moves.<index>`). */
  | { ok: false; field: string; message: string };

/**
 * `moves` are the solver's moves only (UCI syntax already checked). 1 to the number of solver
 * moves in `solution` are accepted; a move that is illegal where it is played refuses the whole
 * attempt. The first move that differs from the solution ends it: correct if it mates, else
 * wrong, and the moves after it are not looked at. A line that stops before the end is wrong.
 */
export function judgeAttempt(fen: string, solution: readonly string[], moves: readonly string[]): AttemptVerdict {
  const allowed = solverMoveCount(solution);
  if (moves.length < 1 || moves.length > allowed) {
    return { ok: false, field: 'moves', message: `must hold 1 to ${allowed} moves (the solver's moves of this puzzle)` };
  }
  const chess = new Chess(fen);
  for (const [i, move] of moves.entries()) {
    if (!playUci(chess, move)) return { ok: false, field: `moves.${i}`, message: `${move} is not a legal move in the position` };
    if (move !== solution[2 * i]) return { ok: true, correct: chess.isCheckmate() };
    const reply = solution[2 * i + 1];
    if (reply === undefined) return { ok: true, correct: true };
    // The solution was replayed when the puzzle was imported: its replies are legal.
    playUci(chess, reply);
  }
  return { ok: true, correct: false };
}

export type RatedAttempt = { user: Glicko; puzzle: Glicko; /** round(new) − round(old), as players see it. */ userChange: number };

/** A rated attempt is a game between the solver and the puzzle: solved is a win, anything else a loss. */
export function rateAttempt(user: Glicko, puzzle: Glicko, correct: boolean): RatedAttempt {
  const rated = rateGame(user, puzzle, correct ? 1 : 0);
  return { user: rated.white, puzzle: rated.black, userChange: rated.changes.white };
}
