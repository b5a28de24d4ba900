// The line a solver builds for a puzzle, with no DOM: the moves played on the page, whose turn it
// is, and when the line is ready to be judged.
//
// The API judges a whole line at once (README, "Puzzles"): the solver's moves only, the
// solution's replies played between them, and a line that stops early without mate is wrong.
// Only the first attempt is rated, and the replies are not known before it (the solution is
// never shown by a GET). So a first attempt is solved as in a puzzle book: the solver writes the
// whole line, their moves and the replies they expect (a reply with no alternative is played for
// them), and the line is sent once it could be final: a move that mates, or the number of moves
// the puzzle's length theme names; else when the solver says so. After an answer the solution is
// known, and a second try plays its replies.

import { Chess } from 'chess.js';
import type { Color } from '../types/api.ts';

export type PuzzleMove = { from: string; to: string; promotion?: 'q' | 'r' | 'b' | 'n' };
export type Ply = { uci: string; san: string; from: string; to: string; fen: string; solver: boolean; auto: boolean };

const UCI = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/;

export const uciOf = (m: PuzzleMove) => `${m.from}${m.to}${m.promotion ?? ''}`;

export function parseUci(uci: string): PuzzleMove | undefined {
  const m = UCI.exec(uci);
  return m ? { from: m[1], to: m[2], ...(m[3] ? { promotion: m[3] as PuzzleMove['promotion'] } : {}) } : undefined;
}

/**
 * How many moves the solver makes, from Lichess's themes: `mateIn1`–`mateIn4`, `oneMove` (1),
 * `short` (2), `long` (3). `veryLong` (4 or more), `mateIn5` (5 or more) or no length theme:
 * unknown.
 */
export function solverMoveCount(themes: readonly string[]): number | undefined {
  for (const t of themes) {
    const mate = /^mateIn([1-4])$/.exec(t);
    if (mate) return Number(mate[1]);
  }
  if (themes.includes('oneMove')) return 1;
  if (themes.includes('short')) return 2;
  if (themes.includes('long')) return 3;
  return undefined;
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
      plies.push({ uci, san: played.san, from: played.from, to: played.to, fen: chess.fen(), solver: played.color === solver[0], auto: false });
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

export class PuzzleLine {
  readonly plies: Ply[] = [];

  /**
   * `expected` is the number of solver moves when the themes say it; `solution` the whole
   * solution once an answer told it (then replies are the solution's, not the solver's guesses).
   */
  constructor(
    readonly fen: string,
    readonly solver: Color,
    readonly expected: number | undefined,
    readonly solution?: readonly string[],
  ) {}

  /** The position the line has reached. */
  get position(): string {
    return this.plies.at(-1)?.fen ?? this.fen;
  }

  /** Whose move it is: the solver's, or the reply the solver expects from the opponent. */
  get toMove(): 'solver' | 'reply' {
    return new Chess(this.position).turn() === this.solver[0] ? 'solver' : 'reply';
  }

  /** The solver's moves, in UCI: what an attempt sends. */
  solverMoves(): string[] {
    return this.plies.filter((p) => p.solver).map((p) => p.uci);
  }

  /** Plays a move on the line; undefined when it is not legal there. */
  play(move: PuzzleMove, auto = false): Ply | undefined {
    const chess = new Chess(this.position);
    try {
      const played = chess.move(move);
      const ply = { uci: uciOf({ from: played.from, to: played.to, promotion: played.promotion as PuzzleMove['promotion'] }), san: played.san, from: played.from, to: played.to, fen: chess.fen(), solver: played.color === this.solver[0], auto };
      this.plies.push(ply);
      return ply;
    } catch {
      return undefined;
    }
  }

  /**
   * The reply that needs no guess, once the solver has moved: the solution's (when known), or
   * the opponent's only legal move. Undefined when the solver must say which reply they expect,
   * or when the line is over.
   */
  reply(): PuzzleMove | undefined {
    if (this.toMove !== 'reply' || this.readyToJudge()) return undefined;
    if (this.solution) return parseUci(this.solution[this.plies.length] ?? '');
    const moves = new Chess(this.position).moves({ verbose: true });
    if (moves.length !== 1) return undefined;
    const only = moves[0];
    return { from: only.from, to: only.to, ...(only.promotion ? { promotion: only.promotion as PuzzleMove['promotion'] } : {}) };
  }

  /** Takes back to the solver's last choice: their last move and any reply played for them after it, or their last guessed reply. */
  takeBack(): void {
    while (this.plies.at(-1)?.auto) this.plies.pop();
    this.plies.pop();
  }

  /** Back to `length` plies (a guessed reply the answer showed to be wrong). */
  cut(length: number): void {
    this.plies.length = Math.min(this.plies.length, Math.max(0, length));
  }

  /** The solver may send the line: it ends with a move of theirs. */
  canSubmit(): boolean {
    return this.plies.at(-1)?.solver === true;
  }

  /**
   * The line could be final, so it is sent without asking: the solver's last move mates (any
   * mate solves a puzzle), or leaves the opponent no move, or is the last the puzzle asks for
   * (by its length theme), or — the solution known — differs from it or completes it.
   */
  readyToJudge(): boolean {
    const last = this.plies.at(-1);
    if (!last?.solver) return false;
    const chess = new Chess(last.fen);
    if (chess.isGameOver()) return true;
    const index = this.plies.length - 1;
    if (this.solution) return last.uci !== this.solution[index] || index + 1 >= this.solution.length;
    return this.expected !== undefined && this.solverMoves().length >= this.expected;
  }
}
