// Stepping back through a game's moves on the board page (buttons, ← → Home End, a click on a
// move), during and after the game. The positions are replayed from the SAN list once per new
// move; nothing is asked of the server.

import { Chess } from 'chess.js';
import { setText } from '../dom.ts';
import { markPly } from './layout.ts';

export type Position = { fen: string; lastMove?: { from: string; to: string } };

/** The position after each ply (0: the start) of a game given in SAN, as far as it replays. */
export function replay(sans: readonly string[]): Position[] {
  const chess = new Chess();
  const positions: Position[] = [{ fen: chess.fen() }];
  for (const san of sans) {
    try {
      const m = chess.move(san);
      positions.push({ fen: chess.fen(), lastMove: { from: m.from, to: m.to } });
    } catch {
      break;
    }
  }
  return positions;
}

/** "the start", "1. e4", "1… e5": the move after which a ply's position stands. */
export function describePly(sans: readonly string[], ply: number): string {
  if (ply === 0) return 'the start';
  return `${Math.ceil(ply / 2)}${ply % 2 ? '.' : '…'} ${sans[ply - 1]}`;
}

/** Where a key takes the view from `at` (undefined: the game as it is), or null for other keys. */
export function plyForKey(key: string, at: number): number | undefined | null {
  switch (key) {
    case 'ArrowLeft':
      return at - 1;
    case 'ArrowRight':
      return at + 1;
    case 'Home':
      return 0;
    case 'End':
      return undefined;
    default:
      return null;
  }
}

type Parts = {
  moves: HTMLElement;
  viewing: HTMLElement;
  steps: { first: HTMLButtonElement; back: HTMLButtonElement; forward: HTMLButtonElement; last: HTMLButtonElement };
};

/** Which position the board shows: a ply stepped back to, or (undefined) the game as it is. */
export class MoveHistory {
  /** The ply shown; undefined: the live position. */
  ply: number | undefined;
  private positions: Position[] = [];
  private sans: readonly string[] = [];

  constructor(
    private ui: Parts,
    /** Called when the view changed: the page draws the board again. */
    private changed: () => void,
  ) {
    ui.steps.first.addEventListener('click', () => this.view(0));
    ui.steps.back.addEventListener('click', () => this.view(this.at() - 1));
    ui.steps.forward.addEventListener('click', () => this.view(this.at() + 1));
    ui.steps.last.addEventListener('click', () => this.view(undefined));
    ui.moves.addEventListener('click', (event) => {
      const ply = (event.target as HTMLElement).closest<HTMLElement>('.ply')?.dataset.ply;
      if (ply) this.view(Number(ply));
    });
  }

  /** The keyboard's steps, while the page is shown (returns the way to stop listening). */
  listen(): () => void {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.altKey || event.ctrlKey || event.metaKey || target?.closest('input, textarea, select')) return;
      const to = plyForKey(event.key, this.at());
      if (to === null) return;
      event.preventDefault();
      this.view(to);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }

  get live(): boolean {
    return this.ply === undefined;
  }

  /** Back to the game as it is. */
  toLive(): void {
    this.view(undefined);
  }

  /** The game's moves now (a new move keeps an earlier position in view). */
  setMoves(sans: readonly string[]): void {
    this.sans = sans;
    // A takeback may leave the ply in view beyond the moves left: back to the game as it is.
    if (this.ply !== undefined && this.ply >= sans.length) this.ply = undefined;
    if (this.positions.length !== sans.length + 1) this.positions = replay(sans);
  }

  /** The position shown when stepped back. */
  shown(): Position | undefined {
    return this.ply === undefined ? undefined : this.positions[this.ply];
  }

  /** The stepper's buttons and the line saying which position is shown. */
  draw(): void {
    const { steps, viewing, moves } = this.ui;
    const at = this.at();
    steps.first.disabled = steps.back.disabled = at === 0;
    steps.forward.disabled = steps.last.disabled = this.live;
    viewing.hidden = this.live;
    if (!this.live) setText(viewing, `Position after ${describePly(this.sans, at)} (→ or End for the game now)`);
    markPly(moves, this.ply);
  }

  private at(): number {
    return this.ply ?? this.sans.length;
  }

  private view(ply: number | undefined): void {
    this.ply = ply === undefined || ply >= this.sans.length ? undefined : Math.max(0, ply);
    this.changed();
  }
}
