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
