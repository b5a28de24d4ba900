import assert from 'node:assert/strict';
import fc from 'fast-check';
import { containsOffensiveWord, maskOffensiveWords } from '../../src/auth/offensiveWords.ts';

// Chat masking and the name rule read text the same way (src/domain/text.ts foldForMatching): what
// hides a word from one hides it from neither.

/** Words of the list, and ways of writing each letter that a reader still reads as that letter. */
const WORDS = ['fuck', 'shit', 'cunt', 'bitch', 'whore', 'bastard', 'asshole', 'dickhead'];
const DISGUISES: Record<string, string[]> = {
  a: ['a', 'A', '4', '@', '\u0430', '\u03b1', '\uff41'],
  b: ['b', 'B', '8', '\u0412', '\u03b2'],
  c: ['c', 'C', '\u0441', '\u0421', '\uff43'],
  d: ['d', 'D', '\u0501'],
  e: ['e', 'E', '3', '\u0435', '\u03b5'],
  f: ['f', 'F', 'ph', '\uff46'],
  h: ['h', 'H', '\u04bb', '\u041d'],
  i: ['i', 'I', '1', '!', '|', '\u0456', '\u03b9'],
  k: ['k', 'K', '\u043a', '\u03ba'],
  l: ['l', 'L', '1', '|', '\u04cf'],
  n: ['n', 'N', '\u0578'],
  o: ['o', 'O', '0', '\u043e', '\u03bf'],
  r: ['r', 'R'],
  s: ['s', 'S', '5', '$', '\u0455'],
  t: ['t', 'T', '7', '\u0442', '\u03c4'],
  u: ['u', 'U', '\u03c5', '\uff55'],
  w: ['w', 'W', '\u051d'],
};
const MARKS = ['', '', '\u0332', '\u0336', '\u0301', '\u0308'];
const SEPARATORS = [' ', '.', '-', '_', ' . ', '*'];

/** Innocent text: words that contain a listed word or sit close to one, and ordinary chat. */
const INNOCENT = [
  'Scunthorpe', 'classic', 'assess', 'assessment', 'skill', 'document', 'grape', 'grapes', 'therapist',
  'cocktail', 'Dickens', 'hitchcock', 'passion', 'titan', 'torpedo', 'Penistone', 'shiitake', 'Pakistan',
  'Clitheroe', 'snigger', 'Fukushima', 'assassin', 'bass', 'class', 'glass', 'mass', 'pass', 'compass',
  'Sussex', 'Essex', 'cumulative', 'circumstance', 'scrape', 'drape', 'analysis', 'analyst', 'shuttle',
  'shift', 'shirt', 'fucsia', 'buckle', 'tuck', 'luck', 'duck', 'puck', 'hunt', 'count', 'country',
  'witch', 'pitch', 'ditch', 'hello', 'good', 'game', 'well', 'played', 'thanks', 'nice', 'move', 'sorry',
  'rematch', 'blunder', 'check', 'mate', 'castle', 'knight', 'bishop', 'queen', 'rook', 'pawn', 'draw',
  'Sicilian', 'Najdorf', 'Caro-Kann', 'e4', 'Nf3', 'Bb5', 'O-O', 'gg', 'wp', 'lol', '2026', '1-0', 'I', 'a',
  'Спасибо', 'за', 'игру', 'хорошая', 'партия', 'Καλή', 'παρτίδα', '你好', 'é', 'naïve', 'Ærø',
];

const disguised = (word: string) =>
  fc
    .tuple(
      fc.tuple(...[...word].map((c) => fc.constantFrom(...(DISGUISES[c] ?? [c])))),
      fc.tuple(...[...word].map(() => fc.constantFrom(...MARKS))),
      fc.option(fc.constantFrom(...SEPARATORS), { nil: '' }),
    )
    .map(([letters, marks, sep]) => letters.map((l, i) => l + marks[i]).join(sep))
    // A sign that ends the word is read as punctuation ("ass!"): end on a letter.
    .filter((s) => !/[!|]$/u.test(s));

describe('offensive words in chat and in names, read through their disguises', () => {
  it('masks the ways of hiding a word the probe found: spaces, dots, a Cyrillic с, combining underlines, phuck', () => {
    assert.equal(maskOffensiveWords('f u c k you'), '* * * * you');
    assert.equal(maskOffensiveWords('f.u.c.k'), '*.*.*.*');
    assert.equal(maskOffensiveWords('what the fu\u0441k'), 'what the ****');
    assert.equal(maskOffensiveWords('f\u0332u\u0332c\u0332k\u0332 this'), '**** this');
    assert.equal(maskOffensiveWords('phuck off'), '***** off');
  });

  it('masks repeated letters, spellings by ear and pieces joined by signs', () => {
    assert.equal(maskOffensiveWords('fuuuuck'), '*******');
    assert.equal(maskOffensiveWords('fuk that'), '*** that');
    assert.equal(maskOffensiveWords('fu-ck'), '**-**');
    assert.equal(maskOffensiveWords('s.hit'), '*.***');
  });

  it('keeps the rest of the message as it was written', () => {
    assert.equal(maskOffensiveWords('Très bien, f u c k ça ♞'), 'Très bien, * * * * ça ♞');
    assert.equal(maskOffensiveWords('ＧＧ ｆｕｃｋ'), 'ＧＧ ****');
  });

  it('refuses the same disguises in names', () => {
    for (const name of ['f_u_c_k', 'phuck_you', 'fu\u0441k', 'sh1t', 'Ｓｈｉｔ_Arena']) assert.ok(containsOffensiveWord(name), name);
  });

  it('leaves numbers alone: 455 is not ass, 7175 not tits', () => {
    for (const text of ['455', '7175 points', 'rated 5318008']) assert.equal(maskOffensiveWords(text), text);
  });

  it('masks every letter of a disguised word and nothing around it (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WORDS).chain(disguised), fc.constantFrom(...INNOCENT), fc.constantFrom(...INNOCENT), (hidden, before, after) => {
        const text = `${before}, ${hidden}, ${after}`;
        const masked = maskOffensiveWords(text);
        assert.ok(masked.startsWith(`${before}, `) && masked.endsWith(`, ${after}`), `${JSON.stringify(text)} → ${JSON.stringify(masked)}`);
        const middle = masked.slice(before.length + 2, masked.length - after.length - 2);
        assert.ok(!/[\p{L}\p{N}\p{M}]/u.test(middle), `${JSON.stringify(hidden)} → ${JSON.stringify(middle)}`);
        assert.ok(containsOffensiveWord(hidden), `the name rule finds ${JSON.stringify(hidden)}`);
      }),
      { numRuns: 500 },
    );
  });

  it('never masks ordinary words, whatever their case and the punctuation between them (property)', () => {
    const word = fc.tuple(fc.constantFrom(...INNOCENT), fc.constantFrom('lower', 'upper', 'as is')).map(([w, c]) => (c === 'lower' ? w.toLowerCase() : c === 'upper' ? w.toUpperCase() : w));
    const gap = fc.constantFrom(' ', ', ', '. ', '! ', '? ', ' - ', ' 😀 ');
    fc.assert(
      fc.property(fc.array(fc.tuple(word, gap), { minLength: 1, maxLength: 12 }), (parts) => {
        const text = parts.map(([w, g]) => w + g).join('').trim();
        assert.equal(maskOffensiveWords(text), text);
      }),
      { numRuns: 500 },
    );
  });

  it('lets the same ordinary words through as names', () => {
    for (const w of INNOCENT) if (/^[A-Za-z0-9]+$/.test(w)) assert.equal(containsOffensiveWord(w), false, w);
  });
});
