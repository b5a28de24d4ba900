import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseMoves } from '../../src/db/gameExport.ts';

describe("the export's move string", () => {
  it('reads back every SAN and clock it was made of, in order', () => {
    const san = fc.stringMatching(/^[KQRBNa-h1-8x=+#O-]{1,7}$/).filter((s) => !/^-?\d+$/.test(s));
    fc.assert(
      fc.property(fc.array(fc.tuple(san, fc.integer({ min: -86_400_000, max: 2_000_000_000 })), { maxLength: 300 }), (moves) => {
        const text = moves.map(([s, clock]) => `${s} ${clock}`).join(' ');
        assert.deepEqual(parseMoves(text), { sans: moves.map(([s]) => s), clocks: moves.map(([, clock]) => clock) });
      }),
    );
  });

  it('is no moves for a game without any', () => {
    assert.deepEqual(parseMoves(''), { sans: [], clocks: [] });
  });
});
