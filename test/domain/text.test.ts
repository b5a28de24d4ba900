import assert from 'node:assert/strict';
import { normalizeText, textProblems } from '../../src/domain/text.ts';

describe('the rule for names and descriptions people write', () => {
  it('accepts ordinary text in any one script per word, digits, punctuation and emoji', () => {
    for (const text of ['Sunday Blitz', 'Шахматный клуб', 'Σκάκι 2026', '国际象棋 Arena', 'Café Ñandú', 'Arena ♞ 😀', 'Blitz — Шахматы']) {
      assert.deepEqual(textProblems(text), [], text);
    }
  });

  it('refuses control characters and line breaks in a one-line text', () => {
    for (const text of ['Tab\there', 'Nul\u0000x', 'Bell\u0007', 'Line\nbreak', 'Line\u2028sep', 'Para\u2029sep']) {
      assert.deepEqual(textProblems(text), ['must not contain control characters'], JSON.stringify(text));
    }
  });

  it('allows line breaks and tabs where lines are expected, but no other control character', () => {
    assert.deepEqual(textProblems('Blitz on Sundays.\r\n\tAll welcome.\u2028', { lineBreaks: true }), []);
    assert.deepEqual(textProblems('Bell\u0007', { lineBreaks: true }), ['must not contain control characters other than line breaks and tabs']);
  });

  it('refuses every format character: direction overrides and marks, zero-width ones, the BOM, soft hyphens, tags', () => {
    const format = ['\u202e', '\u202d', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u{e0041}'];
    for (const c of format) {
      assert.deepEqual(textProblems(`Arena${c}Cup`), ['must not contain invisible formatting characters (direction overrides, zero-width characters)'], c.codePointAt(0)!.toString(16));
    }
  });

  it('refuses an unpaired surrogate (JSON can carry one; it cannot be stored as text)', () => {
    assert.deepEqual(textProblems('Arena\ud800'), ['must not contain unpaired surrogates']);
  });

  it('refuses a word that mixes Latin, Greek or Cyrillic letters (look-alikes such as Cyrillic а in a Latin name)', () => {
    for (const text of ['P\u0430ypal Arena', 'Arena Ch\u0435ss', 'Ωmega', 'Шахматыx']) {
      assert.deepEqual(textProblems(text), ['must not mix Latin, Greek and Cyrillic letters within a word'], text);
    }
    // Compatibility forms count as the letters they stand for.
    assert.deepEqual(textProblems('\u{1d41a}\u0431'), ['must not mix Latin, Greek and Cyrillic letters within a word']);
  });

  it('reports each kind of problem once', () => {
    assert.deepEqual(textProblems('\u202eT\u0430b\tx\u202e\t'), [
      'must not contain control characters',
      'must not contain invisible formatting characters (direction overrides, zero-width characters)',
      'must not mix Latin, Greek and Cyrillic letters within a word',
    ]);
  });

  it('normalises compatibility forms to the letters they look like (NFKC)', () => {
    assert.equal(normalizeText('ＡＲＥＮＡ \u{1d41a}\u{1d41b} ﬁnal\u00a0cup'), 'ARENA ab final cup');
  });
});
