import assert from 'node:assert/strict';
import fc from 'fast-check';
import { foldForMatching } from '../../src/domain/text.ts';

// The one form names and chat are matched against word lists in (src/domain/text.ts).

const fold = (text: string) => foldForMatching(text).text;

describe('the form text is matched against word lists in', () => {
  it('reads look-alike letters of Cyrillic and Greek, full-width and styled letters as the Latin ones', () => {
    assert.equal(fold('fu\u0441k'), 'fuck', 'Cyrillic es');
    assert.equal(fold('\u0455\u04bb\u0456\u0442'), 'shlt', 'all Cyrillic');
    assert.equal(fold('\u0392\u0399\u03a4\u0421\u041d'), 'bltch', 'Greek and Cyrillic capitals');
    assert.equal(fold('ｆｕｃｋ'), 'fuck');
    assert.equal(fold('\u{1d41f}\u{1d42e}\u{1d41c}\u{1d424}'), 'fuck', 'mathematical bold');
  });

  it('drops combining marks and accents, keeping the letters they sit on', () => {
    assert.equal(fold('f\u0332u\u0332c\u0332k\u0332'), 'fuck');
    assert.equal(fold('f\u0336u\u0336c\u0336k\u0336'), 'fuck');
    assert.equal(fold('Café ñandú'), 'cafe nandu');
  });

  it('reads digits and signs as letters inside a word with a letter, and a number as a number', () => {
    assert.equal(fold('sh1t a$$ b!tch wh0r3 8@st4rd'), 'shlt ass bltch whore bastard');
    assert.equal(fold('455 2026 $5'), '455 2026 .5');
    assert.equal(fold('ass! really|'), 'ass. really.', 'a sign that ends a word is punctuation');
  });

  it('reads i, l, 1, ! and | as one letter, and ph as f', () => {
    assert.equal(fold('Ill I1|i phuck'), 'lll llll fuck');
  });

  it('keeps separators as one character each: white space and _ as a space, anything else as a dot', () => {
    assert.equal(fold('f u_c.k-😀'), 'f u c.k..');
  });

  it('says for each folded character which characters of the text it came from', () => {
    const f = foldForMatching('a\u0332 phé');
    assert.equal(f.text, 'a fe');
    assert.deepEqual(f.start, [0, 2, 3, 5]);
    assert.deepEqual(f.end, [2, 3, 5, 6], 'a mark goes with its letter, ph is one f');
  });

  it('gives every folded character a non-empty range of the text, in order', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
        const f = foldForMatching(text);
        assert.equal(f.start.length, f.text.length);
        assert.equal(f.end.length, f.text.length);
        for (let i = 0; i < f.text.length; i++) {
          assert.ok(f.start[i] < f.end[i] && f.end[i] <= text.length);
          if (i > 0) assert.ok(f.start[i] >= f.start[i - 1]);
        }
      }),
    );
  });
});
