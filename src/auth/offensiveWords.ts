/**
 * The bundled list of words a username must not contain (the interface's username rule). Two lists, because
 * plain substring matching refuses innocent names (the "Scunthorpe problem"): words in
 * ANYWHERE are refused wherever they occur, words in WHOLE only as a whole part of the name
 * (the name itself, or a part between underscores), so "therapist", "grapes" and "class" pass.
 */
const ANYWHERE = [
  'fuck', 'shit', 'cunt', 'bitch', 'nigger', 'nigga', 'faggot', 'whore', 'slut', 'bastard',
  'wanker', 'asshole', 'arsehole', 'cocksucker', 'dickhead', 'motherf', 'retard', 'pussy',
  'penis', 'vagina', 'dildo', 'blowjob', 'handjob', 'jizz', 'twat', 'tranny', 'porn', 'hitler',
  'kike', 'chink', 'gook', 'wetback', 'raghead', 'paki', 'molest', 'incest', 'bollock', 'clit',
  'scrotum', 'testicle', 'orgasm', 'masturbat', 'cumshot', 'bukkake',
];
const WHOLE = [
  'ass', 'arse', 'rape', 'rapist', 'raping', 'cock', 'dick', 'fag', 'fags', 'cum', 'tits',
  'anal', 'anus', 'spic', 'kkk', 'sex', 'sexy', 'piss', 'prick', 'coon', 'dyke', 'hoe', 'hoes',
  'nude', 'nudes', 'xxx', 'jap', 'negro', 'nazi', 'nazis', 'pedo', 'paedo', 'semen', 'boner',
];
/** Innocent words and names that contain an ANYWHERE word; they are blanked before matching. */
const ALLOWED = [
  'scunthorpe', 'penistone', 'shitake', 'shiitake', 'yoshit', 'toshit', 'hoshit', 'kinoshita',
  'matsushita', 'pakistan', 'clitheroe',
];

/** Letters and the characters commonly swapped in for them (0→o, 1→i/l, 3→e, 4→a, 5→s, 7→t, @→a, $→s). */
const LOOKALIKES: Record<string, string> = { o: '0', i: '1', l: '1', e: '3', a: '4@', s: '5$', t: '7' };

const escapeClass = (chars: string) => chars.replace(/[\\\]^-]/g, '\\$&');
/** "ass" → /[a4@][s5$][s5$]/: matching the lookalikes at once handles mixed swaps ("a5s"). */
const lookalikePattern = (word: string) =>
  [...word].map((c) => (LOOKALIKES[c] ? `[${escapeClass(c + LOOKALIKES[c])}]` : c)).join('');

const anywhere = new RegExp(ANYWHERE.map(lookalikePattern).join('|'));
const whole = new RegExp(`^(?:${WHOLE.map(lookalikePattern).join('|')})$`);
const allowed = new RegExp(ALLOWED.map(lookalikePattern).join('|'), 'g');

/** True when the name contains an offensive word, compared case-insensitively after folding lookalikes. */
export function containsOffensiveWord(name: string): boolean {
  const parts = name.toLowerCase().replace(allowed, '_').split('_');
  const joined = joinSpelledOut(parts);
  return [...parts, ...joined].some((part) => whole.test(part)) || anywhere.test(joined.join('_'));
}

/** Letters spelled out one by one ("f_u_c_k") are joined back, so the padding cannot hide a word. */
function joinSpelledOut(parts: string[]): string[] {
  const joined: string[] = [];
  let run = '';
  for (const part of parts) {
    if (part.length === 1) {
      run += part;
      continue;
    }
    if (run) joined.push(run);
    run = '';
    joined.push(part);
  }
  if (run) joined.push(run);
  return joined;
}

/** A word of chat text: letters, digits and the lookalikes folded above. */
const CHAT_WORD = /[\p{L}\p{M}\p{N}@$]+/gu;
/** Every place an ANYWHERE word starts, overlapping ones included ("motherfucker"). */
const anywhereAt = new RegExp(`(?=(${anywhere.source}))`, 'g');

/**
 * Chat text with every offensive word masked by as many `*` (DESIGN 2.11): a WHOLE word when it is
 * a whole word of the text, an ANYWHERE word wherever it occurs inside one (the ALLOWED words
 * excepted). Only ASCII is lower-cased, so positions in the folded word are positions in the text.
 */
export function maskOffensiveWords(text: string): string {
  return text.replace(CHAT_WORD, (word) => {
    const folded = word.replace(/[A-Z]/g, (c) => c.toLowerCase());
    if (whole.test(folded)) return '*'.repeat(word.length);
    const blanked = folded.replace(allowed, (w) => '_'.repeat(w.length));
    const hidden = new Uint8Array(word.length);
    for (const m of blanked.matchAll(anywhereAt)) hidden.fill(1, m.index, m.index + m[1].length);
    return hidden.includes(1) ? word.split('').map((c, i) => (hidden[i] ? '*' : c)).join('') : word;
  });
}
