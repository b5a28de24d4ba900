// The board: cm-chessboard (MIT) drawing the position, with legal-move hints from chess.js and
// its promotion chooser. It only proposes moves; the server decides (the board is set back to the
// server's position when a move is refused).

import { Chess, type Square } from 'chess.js';
import 'cm-chessboard/assets/chessboard.css';
import 'cm-chessboard/assets/extensions/markers/markers.css';
import 'cm-chessboard/assets/extensions/promotion-dialog/promotion-dialog.css';
import piecesUrl from 'cm-chessboard/assets/pieces/standard.svg';
import markersUrl from 'cm-chessboard/assets/extensions/markers/markers.svg';
import { Chessboard, COLOR, INPUT_EVENT_TYPE, type MoveInputEvent } from 'cm-chessboard/src/Chessboard.js';
import { Accessibility } from 'cm-chessboard/src/extensions/accessibility/Accessibility.js';
import { MARKER_TYPE, Markers } from 'cm-chessboard/src/extensions/markers/Markers.js';
import { PromotionDialog } from 'cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js';
import { Svg } from 'cm-chessboard/src/lib/Svg.js';
import type { Color } from '../types/api.ts';

export type BoardMove = { from: string; to: string; promotion?: 'q' | 'r' | 'b' | 'n' };

/**
 * cm-chessboard writes a few inline `style` attributes (the coordinates' font size, the piece
 * being dragged), which the page's policy refuses. The same styles set through the CSSOM
 * (`element.style`) are allowed, so its two SVG helpers are taught to do that instead.
 */
function allowUnderCsp(): void {
  const svgHelper = Svg as unknown as { patched?: boolean; createSvg: typeof Svg.createSvg; addElement: typeof Svg.addElement };
  if (svgHelper.patched) return;
  svgHelper.patched = true;
  const styled = <E extends Element>(el: E): E => {
    const setAttribute = el.setAttribute.bind(el);
    el.setAttribute = (name: string, value: string) => {
      if (name === 'style') (el as unknown as ElementCSSInlineStyle).style.cssText = value;
      else setAttribute(name, value);
    };
    return el;
  };
  const createSvg = Svg.createSvg;
  const addElement = Svg.addElement;
  svgHelper.createSvg = (container) => styled(createSvg(container));
  svgHelper.addElement = (parent, name, attributes = {}) => {
    const { style, ...rest } = attributes;
    const el = styled(addElement(parent, name, rest));
    if (style !== undefined) (el as unknown as ElementCSSInlineStyle).style.cssText = String(style);
    return el;
  };
}

/** The same position with the other side to move (what a premove is judged against). */
function otherSideToMove(fen: string): string {
  const parts = fen.split(' ');
  parts[1] = parts[1] === 'w' ? 'b' : 'w';
  parts[3] = '-';
  return parts.join(' ');
}

/** The square of the king of the side to move when it is in check. */
function checkedKing(chess: Chess): string | undefined {
  if (!chess.inCheck()) return undefined;
  const turn = chess.turn();
  for (const row of chess.board()) for (const sq of row) if (sq && sq.type === 'k' && sq.color === turn) return sq.square;
  return undefined;
}

export class Board {
  private board: Chessboard;
  private fen: string;
  private movable?: Color;
  /** The colour that may premove now (the opponent is to move), if any. */
  private premovable?: Color;
  private destroyed = false;

  constructor(
    container: HTMLElement,
    o: { orientation: Color; fen: string; onMove: (move: BoardMove) => void; onPremove?: (move: BoardMove) => void },
  ) {
    allowUnderCsp();
    this.fen = o.fen;
    this.board = new Chessboard(container, {
      position: o.fen,
      orientation: o.orientation === 'white' ? COLOR.white : COLOR.black,
      assetsCache: true,
      style: { pieces: { file: piecesUrl }, animationDuration: 150 },
      extensions: [
        { class: Markers, props: { sprite: markersUrl, autoMarkers: MARKER_TYPE.frame } },
        { class: PromotionDialog },
        // The position as a table and lists of pieces, for screen readers (visually hidden).
        { class: Accessibility, props: { language: 'en', movePieceForm: false, boardAsTable: true, piecesAsList: true, brailleNotationInAlt: true } },
      ],
    });
    this.onMove = o.onMove;
    this.onPremove = o.onPremove;
  }

  private onMove: (move: BoardMove) => void;
  private onPremove?: (move: BoardMove) => void;

  /**
   * Shows a position (the server's, or an earlier one stepped back to); `movable` is the colour
   * the user may move now, `premovable` the colour that may queue a move while the other side
   * thinks. The king in check is ringed.
   */
  set(fen: string, lastMove: { from: string; to: string } | undefined, movable: Color | undefined, premovable?: Color): void {
    const changed = fen !== this.fen;
    this.fen = fen;
    if (changed || fen.split(' ')[0] !== this.board.getPosition()) void this.board.setPosition(fen, true);
    this.board.removeMarkers(MARKER_TYPE.square);
    if (lastMove) for (const sq of [lastMove.from, lastMove.to]) this.board.addMarker(MARKER_TYPE.square, sq);
    this.board.removeMarkers(MARKER_TYPE.circleDanger);
    try {
      const king = checkedKing(new Chess(fen));
      if (king) this.board.addMarker(MARKER_TYPE.circleDanger, king);
    } catch {
      // a position chess.js refuses is shown as it is
    }
    if (movable === this.movable && premovable === this.premovable && !changed) return;
    this.movable = movable;
    this.premovable = movable ? undefined : premovable;
    if (this.board.isMoveInputEnabled()) this.board.disableMoveInput();
    const color = movable ?? this.premovable;
    if (color) this.board.enableMoveInput((e) => this.input(e), color === 'white' ? COLOR.white : COLOR.black);
  }

  /** Marks a queued premove's squares (none: clears them). */
  showPremove(move: BoardMove | undefined): void {
    this.board.removeMarkers(MARKER_TYPE.framePrimary);
    if (move) for (const sq of [move.from, move.to]) this.board.addMarker(MARKER_TYPE.framePrimary, sq);
  }

  /** Resolves once the board has drawn every change asked of it, a move the user just made included. */
  async settled(): Promise<void> {
    const nextTask = () => new Promise((resolve) => setTimeout(resolve));
    // A move input is queued once the validator (which called onMove) has returned; the board's
    // bookkeeping after drawing it runs in promise callbacks, done by the task after.
    await nextTask();
    if (this.destroyed) return;
    await this.board.setPosition(this.board.getPosition(), false);
    await nextTask();
  }

  /** Back to the last position set (a move the server refused). */
  reset(): void {
    void this.board.setPosition(this.fen, false);
  }

  disable(): void {
    this.movable = undefined;
    this.premovable = undefined;
    if (this.board.isMoveInputEnabled()) this.board.disableMoveInput();
  }

  destroy(): void {
    this.destroyed = true;
    this.board.destroy();
  }

  /**
   * A move made while the opponent is to move: judged against the same position with the sides
   * swapped, queued (not played: the piece goes back) and sent by the page when the turn comes.
   */
  private premoveInput(event: MoveInputEvent): boolean | void {
    let chess: Chess;
    try {
      chess = new Chess(otherSideToMove(this.fen));
    } catch {
      return false;
    }
    switch (event.type) {
      case INPUT_EVENT_TYPE.moveInputStarted:
        return chess.moves({ square: event.squareFrom as Square, verbose: true }).length > 0;
      case INPUT_EVENT_TYPE.validateMoveInput: {
        const legal = chess.moves({ square: event.squareFrom as Square, verbose: true }).filter((m) => m.to === event.squareTo);
        if (legal.length) this.onPremove?.({ from: event.squareFrom, to: event.squareTo!, ...(legal.some((m) => m.promotion) ? { promotion: 'q' as const } : {}) });
        return false;
      }
      default:
        return;
    }
  }

  private input(event: MoveInputEvent): boolean | void {
    if (this.premovable) return this.premoveInput(event);
    const chess = new Chess(this.fen);
    switch (event.type) {
      case INPUT_EVENT_TYPE.moveInputStarted: {
        const moves = chess.moves({ square: event.squareFrom as Square, verbose: true });
        this.board.addLegalMovesMarkers(moves);
        return moves.length > 0;
      }
      case INPUT_EVENT_TYPE.validateMoveInput: {
        this.board.removeLegalMovesMarkers();
        const from = event.squareFrom;
        const to = event.squareTo!;
        const legal = chess.moves({ square: from as Square, verbose: true }).filter((m) => m.to === to);
        if (!legal.length) return false;
        if (legal.some((m) => m.promotion)) {
          const color = this.movable === 'white' ? COLOR.white : COLOR.black;
          this.board.showPromotionDialog(to, color, (result) => {
            if (result.type === 'pieceSelected') this.onMove({ from, to, promotion: result.piece.charAt(1) as BoardMove['promotion'] });
            else this.reset();
          });
          return true;
        }
        // The move is drawn by setting the position, and cm-chessboard's own move is declined: that
        // completes only after every animation already queued (the opponent's move just drawn), and
        // until then the board ignores clicks, so a player who answered a quick reply at once lost
        // the click. Declined, the board takes the next click at once.
        chess.move({ from, to });
        void this.board.setPosition(chess.fen(), false);
        this.onMove({ from, to });
        return false;
      }
      case INPUT_EVENT_TYPE.moveInputCanceled:
        this.board.removeLegalMovesMarkers();
        return;
      default:
        return;
    }
  }
}

