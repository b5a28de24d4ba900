// A board that only shows a position (the Watch page's TV and its list): an SVG of 64 squares and
// the pieces of cm-chessboard's sprite, drawn from a FEN. Cheaper than the playing board by far,
// which matters with twenty of them on a page, each redrawn at every move of its game.

import piecesUrl from 'cm-chessboard/assets/pieces/standard.svg';
import { svg } from '../dom.ts';
import type { Color } from '../types/api.ts';

const SIZE = 40;
const FILES = 'abcdefgh';

export class MiniBoard {
  readonly el: SVGElement;
  private readonly pieces: SVGElement;
  private readonly marks: SVGElement;

  constructor(private orientation: Color, fen: string, lastMove: string | null, label: string) {
    this.el = svg('svg', { class: 'mini-board', viewBox: `0 0 ${8 * SIZE} ${8 * SIZE}`, role: 'img', 'aria-label': label });
    const squares = svg('g', { class: 'squares' });
    for (let r = 0; r < 8; r++) {
      for (let f = 0; f < 8; f++) squares.append(svg('rect', { x: f * SIZE, y: r * SIZE, width: SIZE, height: SIZE, class: (r + f) % 2 ? 'dark' : 'light' }));
    }
    this.marks = svg('g', { class: 'last-move' });
    this.pieces = svg('g', { class: 'pieces' });
    this.el.append(squares, this.marks, this.pieces);
    this.show(fen, lastMove);
  }

  /** Draws `fen` (its board part), the squares of `lastMove` marked. */
  show(fen: string, lastMove: string | null, orientation: Color = this.orientation): void {
    this.orientation = orientation;
    this.el.setAttribute('data-fen', fen);
    this.marks.replaceChildren(...(lastMove ? [lastMove.slice(0, 2), lastMove.slice(2, 4)] : []).map((sq) => {
      const { x, y } = this.at(sq);
      return svg('rect', { x, y, width: SIZE, height: SIZE });
    }));
    const pieces: SVGElement[] = [];
    const rows = fen.split(' ')[0].split('/');
    rows.forEach((row, r) => {
      let f = 0;
      for (const c of row) {
        if (/\d/.test(c)) {
          f += Number(c);
          continue;
        }
        const square = `${FILES[f]}${8 - r}`;
        const { x, y } = this.at(square);
        const name = `${c === c.toUpperCase() ? 'w' : 'b'}${c.toLowerCase()}`;
        pieces.push(svg('use', { href: `${piecesUrl}#${name}`, x, y, 'data-square': square, 'data-piece': name }));
        f++;
      }
    });
    this.pieces.replaceChildren(...pieces);
  }

  private at(square: string): { x: number; y: number } {
    const f = FILES.indexOf(square[0]);
    const r = 8 - Number(square[1]);
    return this.orientation === 'white' ? { x: f * SIZE, y: r * SIZE } : { x: (7 - f) * SIZE, y: (7 - r) * SIZE };
  }
}
