import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import { hasLegalMove, playFast, type PlayedMove } from '../../src/domain/fastMove.ts';
import { ChessGame } from '../../src/domain/game.ts';
import { assertSameAsPublicMove } from '../helpers/chess.ts';

/**
 * Random games rarely reach the rules that chess.js's internals handle in special cases, so these
 * fixed positions pin each one down twice: against chess.js's public move() field by field, and
 * against the SAN and FEN written here, so that both paths drifting together fails too.
 */

type Expected = { san: string; after: string };

/** Plays one move through both paths from `fen` and returns the fast path's move. */
function playBoth(fen: string, from: string, to: string, promotion: string | undefined, expected: Expected): PlayedMove {
  const reference = new Chess(fen);
  const publicMove = reference.move({ from, to, promotion });
  const fast = new Chess(fen);
  const played = playFast(fast, from, to, promotion);
  assert.ok(played, `playFast refused ${from}${to}${promotion ?? ''} in ${fen}`);
  assertSameAsPublicMove(played, publicMove);
  assert.equal(played.san, expected.san);
  assert.equal(played.after, expected.after);
  assert.equal(fast.fen(), expected.after);
  assert.equal(hasLegalMove(fast), reference.moves().length > 0);
  return played;
}

/** Asserts that every path refuses the move and that ChessGame stays where it was. */
function assertIllegal(fen: string, from: string, to: string, promotion?: string): void {
  assert.throws(() => new Chess(fen).move({ from, to, promotion }), /Invalid move/);
  assert.equal(playFast(new Chess(fen), from, to, promotion), undefined);
  const game = new ChessGame({ fen });
  // chess.js writes an en passant square into its FEN only when the capture is legal.
  const before = game.fen;
  const outcome = game.play({ from, to, promotion });
  assert.equal(!outcome.ok && outcome.error.code, 'INVALID_MOVE');
  assert.equal(game.fen, before);
  assert.equal(game.moveCount, 0);
}

describe('playFast on fixed positions (rare rules through chess.js internals)', () => {
  describe('underpromotion', () => {
    it('promotes to a knight that gives check', () => {
      const move = playBoth('8/4P3/3k4/8/8/8/8/4K3 w - - 0 1', 'e7', 'e8', 'n', {
        san: 'e8=N+',
        after: '4N3/8/3k4/8/8/8/8/4K3 b - - 0 1',
      });
      assert.equal(move.promotion, 'n');
      assert.equal(move.flags, 'np');
    });

    it('promotes to a knight with a capture and check', () => {
      const move = playBoth('7r/5kP1/8/8/8/8/8/4K3 w - - 0 1', 'g7', 'h8', 'n', {
        san: 'gxh8=N+',
        after: '7N/5k2/8/8/8/8/8/4K3 b - - 0 1',
      });
      assert.equal(move.captured, 'r');
      assert.equal(move.flags, 'cp');
    });

    it('promotes to a rook with a capture and check', () => {
      const move = playBoth('1n6/P7/8/8/8/8/1k6/4K3 w - - 0 1', 'a7', 'b8', 'r', {
        san: 'axb8=R+',
        after: '1R6/8/8/8/8/8/1k6/4K3 b - - 0 1',
      });
      assert.equal(move.captured, 'n');
      assert.equal(move.promotion, 'r');
    });

    it('refuses a promotion piece on a pawn move that promotes nothing, unlike chess.js', () => {
      const fen = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
      assert.equal(playFast(new Chess(fen), 'e2', 'e3', 'q'), undefined);
      // chess.js's move() plays it as e3: the difference is deliberate (DESIGN 2.4).
      assert.equal(new Chess(fen).move({ from: 'e2', to: 'e3', promotion: 'q' }).san, 'e3');
    });
  });

  describe('SAN disambiguation', () => {
    // Queens on a1, a3 and c1 all reach b2: a1 shares a file with a3 and a rank with c1.
    const threeQueens = '8/7k/8/8/8/Q7/8/Q1Q4K w - - 0 1';

    it('names the file when the other queens share no file with the mover', () => {
      playBoth(threeQueens, 'c1', 'b2', undefined, { san: 'Qcb2', after: '8/7k/8/8/8/Q7/1Q6/Q6K b - - 1 1' });
    });

    it('names the rank when another queen shares the file', () => {
      playBoth(threeQueens, 'a3', 'b2', undefined, { san: 'Q3b2', after: '8/7k/8/8/8/8/1Q6/Q1Q4K b - - 1 1' });
    });

    it('names file and rank when other queens share both', () => {
      playBoth(threeQueens, 'a1', 'b2', undefined, { san: 'Qa1b2', after: '8/7k/8/8/8/Q7/1Q6/2Q4K b - - 1 1' });
    });

    it('does not disambiguate against a pinned piece that cannot move there', () => {
      // The knight on f3 also reaches d2 but is pinned to the king on h1 by the bishop on d5.
      playBoth('7k/8/8/3b4/8/5N2/8/1N5K w - - 0 1', 'b1', 'd2', undefined, {
        san: 'Nd2',
        after: '7k/8/8/3b4/8/5N2/3N4/7K b - - 1 1',
      });
    });
  });

  describe('en passant', () => {
    // Black has just played c7-c5; taking en passant empties the fifth rank between king and rook.
    const exposing = '8/8/8/KPp4r/8/8/8/7k w - c6 0 2';

    it('refuses an en passant capture that would expose the own king', () => {
      assertIllegal(exposing, 'b5', 'c6');
    });

    it('plays the same capture once no rook waits behind the pawns', () => {
      const move = playBoth('8/8/8/KPp5/8/8/8/7k w - c6 0 2', 'b5', 'c6', undefined, {
        san: 'bxc6',
        after: '8/8/2P5/K7/8/8/8/7k b - - 0 2',
      });
      assert.equal(move.flags, 'e');
    });

    it('still allows the other pawn moves of that position', () => {
      playBoth(exposing, 'b5', 'b6', undefined, { san: 'b6', after: '8/8/1P6/K1p4r/8/8/8/7k b - - 0 2' });
    });
  });

  describe('castling', () => {
    it('refuses castling through an attacked square', () => {
      assertIllegal('k4r2/8/8/8/8/8/8/4K2R w K - 0 1', 'e1', 'g1');
    });

    it('refuses castling into check', () => {
      assertIllegal('k5r1/8/8/8/8/8/8/4K2R w K - 0 1', 'e1', 'g1');
    });

    it('refuses castling out of check', () => {
      assertIllegal('k3r3/8/8/8/8/8/8/4K2R w K - 0 1', 'e1', 'g1');
    });

    it('allows queenside castling when only b1, which the king does not cross, is attacked', () => {
      const move = playBoth('1r5k/8/8/8/8/8/8/R3K3 w Q - 0 1', 'e1', 'c1', undefined, {
        san: 'O-O-O',
        after: '1r5k/8/8/8/8/8/8/2KR4 b - - 1 1',
      });
      assert.equal(move.flags, 'q');
    });
  });

  describe('double check', () => {
    // The rook on e1 and the knight on d6 both check the king on e8.
    const doubleCheck = '4k3/2p5/3N1b2/8/8/8/8/4R2K b - - 0 1';

    it('allows only king moves', () => {
      const legal = new Chess(doubleCheck).moves({ verbose: true });
      assert.deepEqual(legal.map((m) => m.lan).sort(), ['e8d7', 'e8d8', 'e8f8']);
      playBoth(doubleCheck, 'e8', 'd8', undefined, { san: 'Kd8', after: '3k4/2p5/3N1b2/8/8/8/8/4R2K w - - 1 2' });
    });

    it('refuses a block', () => {
      assertIllegal(doubleCheck, 'f6', 'e7');
    });

    it('refuses capturing one of the two checkers', () => {
      assertIllegal(doubleCheck, 'c7', 'd6');
    });
  });

  describe('endings', () => {
    const backRank = '7k/P5pp/8/8/8/8/8/4K3 w - - 0 1';

    it('promotes with mate (=Q#) and ChessGame ends the game by checkmate', () => {
      playBoth(backRank, 'a7', 'a8', 'q', { san: 'a8=Q#', after: 'Q6k/6pp/8/8/8/8/8/4K3 b - - 0 1' });
      const game = new ChessGame({ fen: backRank });
      const outcome = game.play({ from: 'a7', to: 'a8', promotion: 'q' });
      assert.ok(outcome.ok);
      assert.deepEqual(outcome.value.ending, { result: '1-0', winner: 'white', termination: 'checkmate' });
      assert.deepEqual(outcome.value.position, { in_check: true, in_checkmate: true, in_stalemate: false, in_draw: false });
    });

    it('mates with an underpromotion to a rook as well (=R#)', () => {
      playBoth(backRank, 'a7', 'a8', 'r', { san: 'a8=R#', after: 'R6k/6pp/8/8/8/8/8/4K3 b - - 0 1' });
      const outcome = new ChessGame({ fen: backRank }).play({ from: 'a7', to: 'a8', promotion: 'r' });
      assert.equal(outcome.ok && outcome.value.ending?.termination, 'checkmate');
    });

    // The bishop arriving on d5 pins the knight on b7: its moves are pseudo-legal but none is legal.
    const beforeStalemate = 'k7/1n1N1B2/1K6/8/8/8/8/8 w - - 0 1';

    it('detects the stalemate a move creates although the stalemated side has pseudo-legal moves', () => {
      const fast = new Chess(beforeStalemate);
      playFast(fast, 'f7', 'd5');
      assert.equal(hasLegalMove(fast), false);
      playBoth(beforeStalemate, 'f7', 'd5', undefined, { san: 'Bd5', after: 'k7/1n1N4/1K6/3B4/8/8/8/8 b - - 1 1' });
      const outcome = new ChessGame({ fen: beforeStalemate }).play({ from: 'f7', to: 'd5' });
      assert.ok(outcome.ok);
      assert.deepEqual(outcome.value.ending, { result: '1/2-1/2', winner: null, termination: 'stalemate' });
      assert.deepEqual(outcome.value.position, { in_check: false, in_checkmate: false, in_stalemate: true, in_draw: true });
    });

    it('sees no stalemate when the knight is left free', () => {
      const fast = new Chess(beforeStalemate);
      playFast(fast, 'f7', 'e6');
      assert.equal(hasLegalMove(fast), true);
      const outcome = new ChessGame({ fen: beforeStalemate }).play({ from: 'f7', to: 'e6' });
      assert.equal(outcome.ok && outcome.value.ending, null);
    });
  });
});
