import assert from 'node:assert/strict';
import fc from 'fast-check';
import { flat } from '../../src/util/strings.ts';

describe('flat', () => {
  it('gives back every string as it was, lone surrogates, quotes and escapes included', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
      const rope = `${a}:${b}"\\\n${a}`;
      assert.equal(flat(rope), rope);
    }));
    assert.equal(flat('\ud800 lone'), '\ud800 lone');
  });
});
