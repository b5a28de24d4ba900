// A premove: a move made on the opponent's turn, marked on the board, played when the turn comes
// if it is still legal there, cancelled by a click on the board.

import { Chess } from 'chess.js';
import { setText } from '../dom.ts';

/** A move as the board proposes it (board.ts's BoardMove; spelled here so this stays DOM-free). */
export type BoardMove = { from: string; to: string; promotion?: 'q' | 'r' | 'b' | 'n' };

/** Whether `move` is legal in the position `fen`. */
export function legalIn(fen: string, move: BoardMove): boolean {
  try {
    new Chess(fen).move({ from: move.from, to: move.to, promotion: move.promotion });
    return true;
  } catch {
    return false;
  }
}

export class Premove {
  private move?: BoardMove;

  constructor(
    private o: {
      line: HTMLElement;
      boardBox: HTMLElement;
      /** Marks the move's squares on the board (none: clears them). */
      mark: (move: BoardMove | undefined) => void;
    },
  ) {
    // A click on the board cancels it, before the board sees the click (which may start another).
    const cancel = () => this.move && this.set(undefined);
    o.boardBox.addEventListener('mousedown', cancel, { capture: true });
    o.boardBox.addEventListener('touchstart', cancel, { capture: true, passive: true });
  }

  get queued(): BoardMove | undefined {
    return this.move;
  }

  set(move: BoardMove | undefined): void {
    this.move = move;
    this.o.mark(move);
    this.o.line.hidden = !move;
    if (move) setText(this.o.line, `Premove ${move.from}–${move.to}: played when your turn comes. Click the board to cancel.`);
  }

  /** The turn came: the queued move if it is legal in `fen` (it is forgotten either way). */
  take(fen: string): { move: BoardMove; legal: boolean } | undefined {
    const move = this.move;
    if (!move) return undefined;
    this.set(undefined);
    return { move, legal: legalIn(fen, move) };
  }
}
