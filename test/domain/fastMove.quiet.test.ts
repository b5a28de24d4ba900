import assert from 'node:assert/strict';
import { Chess, SQUARES } from 'chess.js';
import fc from 'fast-check';
import { playQuiet } from '../../src/domain/fastMove.ts';

const PROMOTIONS = [undefined, 'q', 'r', 'b', 'n'] as const;

/** A position `picks` random legal moves into a game. */
function positionAfter(picks: number[]): Chess {
  const chess = new Chess();
  for (const pick of picks) {
    const options = chess.moves();
    if (options.length === 0) break;
    chess.move(options[pick % options.length]!);
  }
  return chess;
}

/** playQuiet (the puzzle importer's replay) judged against chess.js's public legal moves. */
describe('playQuiet (chess.js internals, for replaying known lines)', () => {
  it('plays exactly the moves chess.js holds legal, reaching the same position', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 60 }), fc.constantFrom(...SQUARES), fc.constantFrom(...SQUARES), fc.constantFrom(...PROMOTIONS), (picks, from, to, promotion) => {
        const reference = positionAfter(picks);
        const quiet = new Chess(reference.fen());
        const legal = reference.moves({ verbose: true }).find((m) => m.from === from && m.to === to && m.promotion === promotion);
        assert.equal(playQuiet(quiet, from, to, promotion), !!legal, `${reference.fen()} ${from}${to}${promotion ?? ''}`);
        if (legal) reference.move(legal);
        assert.equal(quiet.fen(), reference.fen(), 'a refused move leaves the position as it was');
      }),
      { numRuns: 400 },
    );
  });

  it('plays every legal move of random games, and refuses a pinned piece’s move and a king walking into check', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 120 }), (picks) => {
        const reference = new Chess();
        const quiet = new Chess();
        for (const pick of picks) {
          const options = reference.moves({ verbose: true });
          if (options.length === 0) break;
          const m = options[pick % options.length]!;
          reference.move(m);
          assert.ok(playQuiet(quiet, m.from, m.to, m.promotion), m.lan);
          assert.equal(quiet.fen(), reference.fen());
        }
      }),
      { numRuns: 40 },
    );
    // The knight on d2 is pinned to the king on e1 by the bishop on b4; a king in check from a1 may not stay on the first rank.
    const pinned = new Chess('4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1');
    assert.equal(playQuiet(pinned, 'd2', 'f3'), false);
    const king = new Chess('4k3/8/8/8/8/8/8/r3K3 w - - 0 1');
    assert.equal(playQuiet(king, 'e1', 'd1'), false);
    assert.equal(playQuiet(king, 'e1', 'e2'), true);
  });
});
