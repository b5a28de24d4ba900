import { foldForMatching, type FoldedText } from '../domain/text.ts';

/**
 * The bundled list of words a username must not contain (the interface's username rule), and
 * chat masks (DESIGN 2.11). Two lists, because plain substring matching refuses innocent names
 * (the "Scunthorpe problem"): words in ANYWHERE are found wherever they occur, words in WHOLE only
 * as a whole word (the name itself, a part between underscores, a word of a message), so
 * "therapist", "grapes" and "class" pass. Names and chat are read the same way, in the one form
 * src/domain/text.ts `foldForMatching` gives (look-alikes, leetspeak, marks, `ph`), and so are
 * the lists.
 */
const ANYWHERE = [
  'fuck', 'shit', 'cunt', 'bitch', 'nigger', 'nigga', 'faggot', 'whore', 'slut', 'bastard',
  'wanker', 'asshole', 'arsehole', 'cocksucker', 'dickhead', 'motherf', 'retard', 'pussy',
  'penis', 'vagina', 'dildo', 'blowjob', 'handjob', 'jizz', 'twat', 'tranny', 'porn', 'hitler',
  'kike', 'chink', 'gook', 'wetback', 'raghead', 'paki', 'molest', 'incest', 'bollock', 'clit',
  'scrotum', 'testicle', 'orgasm', 'masturbat', 'cumshot', 'bukkake',
  // Spellings by ear: "phuck" is read as "fuck" already (ph), these are not.
  'fuk', 'fuq', 'biatch',
];
const WHOLE = [
  'ass', 'arse', 'rape', 'rapist', 'raping', 'cock', 'dick', 'fag', 'fags', 'cum', 'tits',
  'anal', 'anus', 'spic', 'kkk', 'sex', 'sexy', 'piss', 'prick', 'coon', 'dyke', 'hoe', 'hoes',
  'nude', 'nudes', 'xxx', 'jap', 'negro', 'nazi', 'nazis', 'pedo', 'paedo', 'semen', 'boner', 'azz',
];
/** Innocent words and names that contain an ANYWHERE word; they are blanked before matching. */
const ALLOWED = [
  'scunthorpe', 'penistone', 'shitake', 'shiitake', 'yoshit', 'toshit', 'hoshit', 'kinoshita',
  'matsushita', 'pakistan', 'clitheroe', 'snigger', 'fukushima', 'fukuoka', 'fukuyama', 'fukui', 'fuqua',
];

/**
 * A list word as a pattern: the word in the folded form, each letter written up to 30 times
 * ("fuuuck", "shiiit"; bounded, so a long run of one letter costs a bounded try at each place).
 */
const wordPattern = (word: string) => [...foldForMatching(word).text].map((c) => `${c}{1,30}`).join('');
const anywhere = new RegExp(ANYWHERE.map(wordPattern).join('|'));
const whole = new RegExp(`^(?:${WHOLE.map(wordPattern).join('|')})$`);
const allowed = new RegExp(ALLOWED.map(wordPattern).join('|'), 'g');
/** Every place an ANYWHERE word starts, overlapping ones included ("motherfucker"). */
const anywhereAt = new RegExp(`(?=(${anywhere.source}))`, 'g');

/** Where offensive words are in a text: ranges [start, end) of its UTF-16 offsets. */
export type Span = [start: number, end: number];

/**
 * Names are short (at most 60 characters); a longer one is refused for its length whatever it
 * says, so only this much of it is read (a 60 KB name cost 160 ms to read whole).
 */
const NAME_READ = 256;

/** True when the name contains an offensive word (usernames, club and tournament names). */
export function containsOffensiveWord(name: string): boolean {
  return offensiveSpans(name.slice(0, NAME_READ)).length > 0;
}

/**
 * Chat text with every offensive word masked (DESIGN 2.11): each letter, digit or sign of it
 * becomes one `*`, its combining marks go, and what separated its letters stays ("f.u.c.k" →
 * "*.*.*.*"); the rest of the text is left as it was.
 */
export function maskOffensiveWords(text: string): string {
  const spans = offensiveSpans(text);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const c of text) {
    const i = at;
    at += c.length;
    if (!spans.some(([s, e]) => i >= s && i < e)) out += c;
    else if (/\p{M}/u.test(c)) continue;
    else out += /[\p{L}\p{N}@$!|]/u.test(c) ? '*' : c;
  }
  return out;
}

/**
 * The offensive words of a text. It is read in the folded form, as words (runs of letters
 * between separators) and as what separators may hide: letters spelled out one by one, whatever
 * is between them ("f u c k", "f_u_c_k", "f.u.c.k"), and pieces of a word joined by signs with no
 * space ("fu.ck", "s-hit"). A WHOLE word counts as one of those whole, an ANYWHERE word wherever
 * it is in one, unless it is inside an ALLOWED word ("Scunthorpe").
 */
export function offensiveSpans(text: string): Span[] {
  const folded = foldForMatching(text);
  const spans: Span[] = [];
  for (const word of candidates(folded.text)) {
    const letters = word.map((i) => folded.text[i]).join('');
    const blanked = letters.replace(allowed, (w) => '_'.repeat(w.length));
    if (whole.test(blanked)) spans.push(spanOf(folded, word, 0, word.length));
    for (const m of blanked.matchAll(anywhereAt)) spans.push(spanOf(folded, word, m.index, m.index + m[1].length));
  }
  return spans;
}

const spanOf = (f: FoldedText, word: number[], from: number, to: number): Span => [f.start[word[from]], f.end[word[to - 1]]];

/** A word of the folded text: the positions of its letters, and what separates it from the word before (' ' and '.'). */
type Word = { at: number[]; gap: string };

/** The words to look at, each as the positions of its letters in the folded text. */
function candidates(text: string): number[][] {
  const words: Word[] = [];
  for (const m of text.matchAll(/([ .]*)([^ .]+)/g)) {
    const at = [...m[2]].map((_, k) => m.index + m[1].length + k);
    words.push({ at, gap: m[1] });
  }
  const found = words.map((w) => w.at);
  // Letters spelled out one by one, one separator between each ("f u c k", "f.u.c.k", "f - u - c - k").
  found.push(...runs(words, (w, before, first) => w.at.length === 1 && before.at.length === 1 && (before === first || w.gap === before.gap)));
  // Pieces joined by signs alone, with no space between them ("fu.ck").
  found.push(...runs(words, (w) => !w.gap.includes(' ')));
  return found;
}

/**
 * Every maximal run of two or more words in which each word after the first goes on from the one
 * before (`first`: the run's first word).
 */
function runs(words: Word[], goesOn: (w: Word, before: Word, first: Word) => boolean): number[][] {
  const found: number[][] = [];
  let run: Word[] = [];
  for (const [i, w] of words.entries()) {
    const before = words[i - 1];
    if (i > 0 && goesOn(w, before, run[0])) run.push(w);
    else {
      if (run.length > 1) found.push(run.flatMap((r) => r.at));
      // The word before may start the next run ("I, f u c k": the run is "f u c k").
      run = i > 0 && run.length > 1 && goesOn(w, before, before) ? [before, w] : [w];
    }
  }
  if (run.length > 1) found.push(run.flatMap((r) => r.at));
  return found;
}
