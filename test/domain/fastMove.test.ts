import assert from 'node:assert/strict';
import { Chess, SQUARES } from 'chess.js';
import fc from 'fast-check';
import { hasLegalMove, playFast } from '../../src/domain/fastMove.ts';
import { assertSameAsPublicMove } from '../helpers/chess.ts';

const PROMOTIONS = [undefined, 'q', 'r', 'b', 'n'] as const;

/**
 * The per-move path uses chess.js internals; these properties hold it to chess.js's public
 * move(), field by field, on random games, so an upgrade that changes the internals fails here.
 */
describe('playFast (chess.js internals on the per-move path)', () => {
  it('plays every legal move exactly as chess.js move() does', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 160 }), (picks) => {
        const reference = new Chess();
        const fast = new Chess();
        for (const pick of picks) {
          const options = reference.moves({ verbose: true });
          if (options.length === 0) break;
          const choice = options[pick % options.length];
          const expected = reference.move({ from: choice.from, to: choice.to, promotion: choice.promotion });
          const played = playFast(fast, choice.from, choice.to, choice.promotion);
          assert.ok(played, `playFast refused ${choice.san}`);
          assertSameAsPublicMove(played, expected);
          assert.equal(hasLegalMove(fast), reference.moves().length > 0);
          assert.equal(fast.isThreefoldRepetition(), reference.isThreefoldRepetition());
        }
      }),
      { numRuns: 60 },
    );
  });

  it('refuses exactly the moves chess.js refuses, and a promotion piece on a move that promotes nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.constantFrom(...SQUARES),
        fc.constantFrom(...SQUARES),
        fc.constantFrom(...PROMOTIONS),
        (picks, from, to, promotion) => {
          const chess = new Chess();
          for (const pick of picks) {
            const options = chess.moves();
            if (options.length === 0) break;
            chess.move(options[pick % options.length]);
          }
          const copy = new Chess(chess.fen());
          let legal = true;
          try {
            // chess.js ignores a stray promotion piece; UCI (and playFast) call `e2e3q` no move.
            legal = copy.move({ from, to, promotion }).promotion === promotion;
          } catch {
            legal = false;
          }
          const played = playFast(new Chess(chess.fen()), from, to, promotion);
          assert.equal(played !== undefined, legal, `${from}${to}${promotion ?? ''} in ${chess.fen()}`);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('sees stalemate: no legal move, not in check', () => {
    const stalemate = new Chess('7k/5Q2/6K1/8/8/8/8/8 b - - 0 1');
    assert.equal(hasLegalMove(stalemate), false);
    assert.equal(hasLegalMove(new Chess()), true);
  });
});
