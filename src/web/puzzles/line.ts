// The run of a puzzle the solver is playing, with no DOM: the moves on the board (the solver's
// and the replies the API answered with), whose turn it is, and what a step sends.
//
// The API judges each move at once (POST /puzzles/{id}/step, docs/puzzles.md): the page sends the
// solver's moves so far, and gets back the solution's next reply while they are right, or the
// run's end (solved or failed, with the solution and the rating change). A reply is known only
// once the API has sent it, after the right move before it.

import { Chess } from 'chess.js';
import type { Color } from '../types/api.ts';

export type PuzzleMove = { from: string; to: string; promotion?: 'q' | 'r' | 'b' | 'n' };
export type Ply = { uci: string; san: string; from: string; to: string; fen: string; solver: boolean };

const UCI = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/;

export const uciOf = (m: PuzzleMove) => `${m.from}${m.to}${m.promotion ?? ''}`;

export function parseUci(uci: string): PuzzleMove | undefined {
  const m = UCI.exec(uci);
  return m ? { from: m[1], to: m[2], ...(m[3] ? { promotion: m[3] as PuzzleMove['promotion'] } : {}) } : undefined;
}

/** "mateIn2" → "mate in 2", "backRankMate" → "back rank mate". */
export function themeLabel(theme: string): string {
  const mate = /^mateIn(\d)$/.exec(theme);
  if (mate) return `mate in ${mate[1]}`;
  return theme.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([A-Za-z])(\d)/g, '$1 $2').toLowerCase();
}

/** Plays UCI moves from `fen` (the solution after an answer); stops at the first it cannot play. */
export function replay(fen: string, moves: readonly string[], solver: Color): Ply[] {
  const chess = new Chess(fen);
  const plies: Ply[] = [];
  for (const uci of moves) {
    const m = parseUci(uci);
    if (!m) break;
    try {
      const played = chess.move(m);
      plies.push({ uci, san: played.san, from: played.from, to: played.to, fen: chess.fen(), solver: played.color === solver[0] });
    } catch {
      break;
    }
  }
  return plies;
}

/** "28." before White's move, "28…" before Black's: the number the ply has in the game. */
export function moveNumber(fen: string, index: number): string {
  const full = Number(fen.split(' ')[5]) || 1;
  const blackFirst = fen.split(' ')[1] === 'b';
  const ply = index + (blackFirst ? 1 : 0);
  return `${full + Math.floor(ply / 2)}${ply % 2 === 0 ? '.' : '…'}`;
}

/** One run at a puzzle, from its position: a try at it, the first rated, the later ones practice. */
export class PuzzleRun {
  readonly plies: Ply[] = [];

  constructor(
    readonly fen: string,
    readonly solver: Color,
  ) {}

  /** The position the run has reached. */
  get position(): string {
    return this.plies.at(-1)?.fen ?? this.fen;
  }

  /** Whether the solver is to move (else the reply to their last move is awaited). */
  get solverToMove(): boolean {
    return new Chess(this.position).turn() === this.solver[0];
  }

  /** The solver's moves, in UCI: what a step sends. */
  solverMoves(): string[] {
    return this.plies.filter((p) => p.solver).map((p) => p.uci);
  }

  /** Plays the solver's move; undefined when it is not theirs to play or not legal. */
  play(move: PuzzleMove): Ply | undefined {
    return this.solverToMove ? this.push(move) : undefined;
  }

  /** Plays the reply the API answered with (UCI); undefined when it cannot be played here. */
  answer(uci: string): Ply | undefined {
    const move = parseUci(uci);
    return move && !this.solverToMove ? this.push(move) : undefined;
  }

  /** Takes back the solver's last move (one the API refused: nothing was recorded). */
  takeBack(): void {
    if (this.plies.at(-1)?.solver) this.plies.pop();
  }

  private push(move: PuzzleMove): Ply | undefined {
    const chess = new Chess(this.position);
    try {
      const played = chess.move(move);
      const promotion = played.promotion as PuzzleMove['promotion'];
      const ply = { uci: uciOf({ from: played.from, to: played.to, promotion }), san: played.san, from: played.from, to: played.to, fen: chess.fen(), solver: played.color === this.solver[0] };
      this.plies.push(ply);
      return ply;
    } catch {
      return undefined;
    }
  }
}
