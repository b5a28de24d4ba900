// The per-move path through chess.js 1.4.0's internals. chess.js's public move() generates every
// legal move twice (once to find the move, once more for its SAN) and builds two FENs; a room
// needs only the moving piece's legal moves, that piece type's moves for SAN disambiguation, and
// one FEN. Likewise stalemate needs one legal reply, not all of them.
//
// These names are private to chess.js, so package.json pins chess.js to exactly 1.4.0, the
// service refuses to start with any other installed version (src/chessVersion.ts), and
// test/domain/fastMove*.test.ts compare both paths field by field on random games and on fixed
// positions chosen for the rare rules.
import type { Chess } from 'chess.js';

/** The only chess.js version whose internals this file has been checked against. */
export const FAST_PATH_CHESS_JS = '1.4.0';

type Color = 'w' | 'b';
type InternalMove = { color: Color; from: number; to: number; piece: string; captured?: string; promotion?: string; flags: number };
type Internals = {
  _turn: Color;
  _moves(options: { legal?: boolean; piece?: string; square?: string }): InternalMove[];
  _moveToSan(move: InternalMove, moves: InternalMove[]): string;
  _makeMove(move: InternalMove): void;
  _undoMove(): unknown;
  _incPositionCount(): void;
  _history: unknown[];
  _positionCount: Map<bigint, number>;
  _isKingAttacked(color: Color): boolean;
};

/** chess.js's flag letters, in the order its Move class writes them (its BITS order). */
const FLAG_LETTERS: ReadonlyArray<readonly [number, string]> = [
  [1, 'n'], [2, 'c'], [4, 'b'], [8, 'e'], [16, 'p'], [32, 'k'], [64, 'q'],
];

/** 0x88 square index → algebraic, as chess.js numbers them (a8 = 0, h1 = 119). */
const algebraic = (sq: number) => 'abcdefgh'[sq & 15] + '87654321'[sq >> 4];

/** The fields of chess.js's Move that the game records. */
export type PlayedMove = {
  color: Color;
  from: string;
  to: string;
  san: string;
  piece: string;
  captured?: string;
  promotion?: string;
  flags: string;
  /** FEN after the move. */
  after: string;
};

/**
 * Plays `from`-`to` if legal; undefined otherwise. Matches as UCI does, stricter than chess.js's
 * move(), which ignores a promotion piece on a move that promotes nothing: `e2e3q` is no move.
 */
export function playFast(chess: Chess, from: string, to: string, promotion?: string): PlayedMove | undefined {
  const c = chess as unknown as Internals;
  const candidates = c._moves({ legal: true, square: from });
  const move = candidates.find((m) => algebraic(m.to) === to && m.promotion === promotion);
  if (!move) return undefined;
  // SAN disambiguates only between pieces of the same type reaching the same square.
  const san = c._moveToSan(move, move.piece === 'p' ? candidates : c._moves({ legal: true, piece: move.piece }));
  c._makeMove(move);
  c._incPositionCount();
  let flags = '';
  for (const [bit, letter] of FLAG_LETTERS) if (move.flags & bit) flags += letter;
  return {
    color: move.color,
    from: algebraic(move.from),
    to: algebraic(move.to),
    san,
    piece: move.piece,
    captured: move.captured,
    promotion: move.promotion,
    flags,
    after: chess.fen(),
  };
}

/**
 * Drops what chess.js keeps of the moves before the current position, which a live game would
 * otherwise hold for its whole length: the undo history (a game undoes at most the one tentative
 * move it plays after this) and, after an irreversible move (a capture or a pawn move), the
 * positions counted before it, which can never occur again.
 */
export function forgetPast(chess: Chess, irreversible: boolean): void {
  const c = chess as unknown as Internals;
  c._history.length = 0;
  if (irreversible) {
    c._positionCount.clear();
    c._incPositionCount();
  }
}

/** Whether the side to move has any legal move: stops at the first one found. */
export function hasLegalMove(chess: Chess): boolean {
  const c = chess as unknown as Internals;
  const us = c._turn;
  for (const move of c._moves({ legal: false })) {
    c._makeMove(move);
    const legal = !c._isKingAttacked(us);
    c._undoMove();
    if (legal) return true;
  }
  return false;
}

/**
 * Plays `from`-`to` if legal, as `playFast` matches it, but reports nothing: no SAN, no FEN, no
 * repetition count. For replaying known lines (puzzle imports check millions of them): only the
 * one pseudo-legal move that matches is tried for legality (does it leave the king attacked?),
 * where the legal generation tries every move of the piece.
 */
export function playQuiet(chess: Chess, from: string, to: string, promotion?: string): boolean {
  const c = chess as unknown as Internals;
  const us = c._turn;
  const move = c._moves({ legal: false, square: from }).find((m) => algebraic(m.to) === to && m.promotion === promotion);
  if (!move) return false;
  c._makeMove(move);
  if (!c._isKingAttacked(us)) return true;
  c._undoMove();
  return false;
}
