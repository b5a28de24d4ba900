import assert from 'node:assert/strict';
import { uciLine } from '../../src/domain/uciLine.ts';

describe('uciLine', () => {
  it("writes SAN as UCI: castling as the king's move, a promotion's piece fifth, en passant by its squares", () => {
    assert.deepEqual(uciLine(['e4', 'e6', 'Nf3', 'd5', 'Be2', 'dxe4', 'O-O', 'Nf6']), ['e2e4', 'e7e6', 'g1f3', 'd7d5', 'f1e2', 'd5e4', 'e1g1', 'g8f6']);
    assert.deepEqual(uciLine(['a4', 'h5', 'a5', 'h4', 'a6', 'h3', 'axb7', 'hxg2', 'bxa8=Q', 'gxh1=N']).slice(-2), ['b7a8q', 'g2h1n']);
    assert.deepEqual(uciLine(['e4', 'a6', 'e5', 'd5', 'exd6']).at(-1), 'e5d6');
    assert.deepEqual(uciLine([]), []);
  });
});
