// The one rule for text a person names something with (usernames, full names, club names and
// descriptions, tournament names): what it must not hide. Field rules (lengths, alphabets,
// offensive words) come on top of it. Pure: the schemas of each area call it.

export type TextRules = {
  /** Multi-line text (a description): line breaks and tabs are allowed. */
  lineBreaks?: boolean;
  /** Running text (a chat message) may have a word mixing alphabets: only a name could pass for another. */
  mixedAlphabets?: boolean;
};

const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/u;
const CONTROL_BUT_LINES = /[^\P{Cc}\n\r\t]/u;
/**
 * General category Cf: direction overrides, isolates and marks (U+202E shows text reversed),
 * zero-width spaces and joiners, the BOM, soft hyphens, tags. Each is invisible, or moves what
 * is visible, so a name could look like another one or hide a word the offensive-word list knows.
 */
const FORMAT = /\p{Cf}/u;
const SURROGATE = /\p{Cs}/u;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/**
 * The alphabets whose letters are drawn alike (Latin a, Cyrillic а, Greek α; o, о, ο …). A word
 * that mixes them is a look-alike of a word in one of them; a word in one, or a name with words
 * in several, is ordinary. (Scripts that are written mixed, like Han and kana, are not listed.)
 */
const LOOK_ALIKE_SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Greek}/u, /\p{Script=Cyrillic}/u];

/** The stored form of a name: compatibility forms (full-width, styled, ligatures, odd spaces) become the plain letters they look like. */
export const normalizeText = (text: string): string => text.normalize('NFKC');

/** What is wrong with `text` under the rule, one message per kind of problem (none: it is fine). */
export function textProblems(text: string, rules: TextRules = {}): string[] {
  const problems: string[] = [];
  if (rules.lineBreaks ? CONTROL_BUT_LINES.test(text) : CONTROL.test(text)) {
    problems.push(rules.lineBreaks ? 'must not contain control characters other than line breaks and tabs' : 'must not contain control characters');
  }
  if (FORMAT.test(text)) problems.push('must not contain invisible formatting characters (direction overrides, zero-width characters)');
  if (SURROGATE.test(text)) problems.push('must not contain unpaired surrogates');
  if (rules.mixedAlphabets) return problems;
  // Judged on the plain form: a styled 𝐚 is a Latin a.
  const words = normalizeText(text).match(WORD) ?? [];
  if (words.some((word) => LOOK_ALIKE_SCRIPTS.filter((script) => script.test(word)).length > 1)) {
    problems.push('must not mix Latin, Greek and Cyrillic letters within a word');
  }
  return problems;
}

/**
 * A text in the form it is matched against a word list in (the offensive words of usernames, club
 * and tournament names, and chat): `text` holds one character per letter as it is read, and
 * `start[i]`..`end[i]` is the part of the original (UTF-16 offsets) that character i came from,
 * so a word found in the folded form can be masked in the original.
 */
export type FoldedText = { text: string; start: number[]; end: number[] };

/**
 * Letters of other alphabets drawn like Latin ones (Unicode's confusables, the ones a keyboard
 * offers): Cyrillic с is a c, Greek ο an o. Keyed by the letter as written, since some look
 * Latin only in one case (Greek Η is an h, η an n).
 */
const HOMOGLYPHS: Record<string, string> = {
  // Cyrillic
  а: 'a', А: 'a', в: 'b', В: 'b', е: 'e', Е: 'e', ѕ: 's', Ѕ: 's', і: 'i', І: 'i', ј: 'j', Ј: 'j', к: 'k', К: 'k',
  м: 'm', М: 'm', н: 'h', Н: 'h', о: 'o', О: 'o', р: 'p', Р: 'p', с: 'c', С: 'c', т: 't', Т: 't', у: 'y', У: 'y',
  х: 'x', Х: 'x', ь: 'b', Ь: 'b', ԁ: 'd', ԛ: 'q', ԝ: 'w', Ԝ: 'w', һ: 'h', Һ: 'h', ӏ: 'l', Ӏ: 'l', ү: 'y', Ү: 'y', п: 'n',
  // Greek
  α: 'a', Α: 'a', β: 'b', Β: 'b', γ: 'y', ε: 'e', Ε: 'e', ζ: 'z', Ζ: 'z', η: 'n', Η: 'h', ι: 'i', Ι: 'i', κ: 'k',
  Κ: 'k', μ: 'u', Μ: 'm', ν: 'v', Ν: 'n', ο: 'o', Ο: 'o', ρ: 'p', Ρ: 'p', τ: 't', Τ: 't', υ: 'u', Υ: 'y', χ: 'x',
  Χ: 'x', ω: 'w', ς: 'c',
  // Armenian
  ո: 'n', ս: 'u', օ: 'o', հ: 'h', ց: 'g',
  // Latin letters that lower-casing leaves apart
  ı: 'i', ſ: 's',
};
/**
 * Digits and signs written for letters ("sh1t", "a$$", "b!tch"), read as letters only inside a
 * word that has a letter: a number stays a number ("455" is not "ass"). 1, i, l, !, | and I all
 * stand for one another, so they fold to one letter, l.
 */
const LEET: Record<string, string> = { '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g', '@': 'a', $: 's', '!': 'l', '|': 'l', i: 'l' };
const SIGNS = ['@', '$', '!', '|'];
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;
const SPACE = /[\s_]/u;

/**
 * The one form text is matched against word lists in, for names and chat alike. Per character:
 * compatibility forms and accents come off (NFKD, combining marks dropped: a styled or
 * full-width letter, é, f̲ read as the plain letter), look-alike letters of Cyrillic and Greek
 * become the Latin ones, case folds; inside a word with a letter in it, digits and signs written
 * for letters become those letters; `ph` reads as `f`. Anything else is a separator: a space (white
 * space, `_`) or a `.` (punctuation, symbols, emoji), which the matcher may see through when it
 * joins letters spelled out one by one ("f u c k", "f.u.c.k").
 */
export function foldForMatching(text: string): FoldedText {
  const chars: string[] = [];
  const start: number[] = [];
  const end: number[] = [];
  let at = 0;
  for (const c of text) {
    const from = at;
    at += c.length;
    // A combining mark belongs to the character before it: it folds to nothing, and is masked with it.
    if (MARK.test(c)) {
      if (end.length > 0 && end[end.length - 1] === from) end[end.length - 1] = at;
      continue;
    }
    if (c < '\x80') {
      // ASCII: nothing to decompose.
      chars.push(/[A-Za-z0-9@$!|]/.test(c) ? c.toLowerCase() : c === '_' || /\s/.test(c) ? ' ' : '.');
      start.push(from);
      end.push(at);
      continue;
    }
    const base = HOMOGLYPHS[c] ?? [...c.normalize('NFKD')].filter((d) => !MARK.test(d)).map((d) => HOMOGLYPHS[d] ?? d.toLowerCase()).join('');
    for (const b of base.normalize('NFKD')) {
      if (MARK.test(b)) continue;
      // One UTF-16 unit per folded character: a letter beyond the BMP (no list word has one) is U+FFFD.
      chars.push(LETTER_OR_DIGIT.test(b) || b in LEET ? (b.length > 1 ? '\uFFFD' : b) : SPACE.test(b) ? ' ' : '.');
      start.push(from);
      end.push(at);
    }
  }
  foldLeet(chars);
  return joinPh({ text: chars.join(''), start, end });
}

/**
 * Leetspeak inside words that have a letter; `!` and `|` only before a letter or digit ("ass!"
 * ends a word). Letters spelled out one by one ("s h i 7") and pieces joined by signs alone
 * ("sh.1t") count as one word here, as the matcher reads them.
 */
function foldLeet(chars: string[]): void {
  const runs: { from: number; to: number }[] = [];
  for (let i = 0; i < chars.length; ) {
    let j = i;
    while (j < chars.length && chars[j] !== ' ' && chars[j] !== '.') j++;
    if (j > i) runs.push({ from: i, to: j });
    i = j + 1;
  }
  const isSign = (i: number) => chars[i] === '!' || chars[i] === '|';
  const oneLetter = (r: { from: number; to: number } | undefined) => r !== undefined && r.to - r.from === 1;
  const words: { from: number; to: number; gap: string }[] = [];
  for (const [k, { from, to: end }] of runs.entries()) {
    // A sign that ends a word is punctuation ("ass!"), unless it is a letter spelled out ("s h ! t").
    let to = end;
    if (!(to - from === 1 && oneLetter(runs[k - 1]) && oneLetter(runs[k + 1]))) while (to > from && isSign(to - 1)) chars[--to] = '.';
    const before = words.at(-1);
    if (to > from) words.push({ from, to, gap: before === undefined ? '' : chars.slice(before.to, from).join('') });
  }
  for (let g = 0; g < words.length; ) {
    let h = g + 1;
    const single = (k: number) => words[k].to - words[k].from === 1;
    const spelledOut = (k: number) => single(k) && single(k - 1) && (k - 1 === g || words[k].gap === words[k - 1].gap);
    while (h < words.length && (!words[h].gap.includes(' ') || spelledOut(h))) h++;
    const group = chars.slice(words[g].from, words[h - 1].to).filter((c) => c !== ' ' && c !== '.');
    const letters = group.some((c) => !/\p{N}/u.test(c) && !SIGNS.includes(c));
    for (let k = words[g].from; k < words[h - 1].to; k++) {
      if (chars[k] === ' ' || chars[k] === '.') continue;
      // Without a letter it is a number, and its signs are separators ("$5" is not "s5").
      if (letters) chars[k] = LEET[chars[k]] ?? chars[k];
      else if (!/\p{N}/u.test(chars[k])) chars[k] = '.';
    }
    g = h;
  }
}

/** "ph" reads as "f" (phuck): one folded character for the two. */
function joinPh(f: FoldedText): FoldedText {
  if (!f.text.includes('ph')) return f;
  const out: FoldedText = { text: '', start: [], end: [] };
  const chars: string[] = [];
  for (let i = 0; i < f.text.length; i++) {
    if (f.text[i] === 'p' && f.text[i + 1] === 'h') {
      chars.push('f');
      out.start.push(f.start[i]);
      out.end.push(f.end[i + 1]);
      i++;
      continue;
    }
    chars.push(f.text[i]);
    out.start.push(f.start[i]);
    out.end.push(f.end[i]);
  }
  out.text = chars.join('');
  return out;
}
