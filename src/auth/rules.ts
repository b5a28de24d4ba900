import { z } from 'zod';
import { normalizeText, textProblems } from '../domain/text.ts';
import { isCountryCode } from './countries.ts';
import { containsOffensiveWord } from './offensiveWords.ts';
import { MAX_PASSWORD_BYTES } from './passwords.ts';

/**
 * The account field rules of the interface and docs/design.md 2.2, as zod schemas: request bodies are
 * built from them, and every broken rule becomes its own message under the field's name.
 */

export const requiredString = () => z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') });

/** Text that is searched or stored as is: PostgreSQL text cannot hold NUL, and no name needs control characters. */
export const plainText = () => requiredString().refine((s) => !/\p{Cc}/u.test(s), 'must not contain control characters');

/** Adds one issue per message, so a password that breaks three rules reports all three. */
const rules = (check: (value: string) => string[]) => (value: string, ctx: z.RefinementCtx) => {
  for (const message of check(value)) ctx.addIssue({ code: 'custom', message });
};

/**
 * The one form of an email address, used to store it, to find its account and to key its login
 * throttle, so that two spellings reach the same account exactly when they count as one.
 * Compatibility forms fold to their plain letters (NFKC: `ｉｖａｎ` is `ivan`), then case folds
 * fully (lower, upper, lower: `ß` and `ẞ` become `ss`; `İ` becomes `i̇`, which is not
 * `i`), then NFKC again because case mapping may leave a decomposed sequence. The database only
 * compares these strings for equality: its `lower()` follows the server's locale and would
 * disagree with this function on exactly such letters.
 */
export function normalizeEmail(raw: string): string {
  return raw.normalize('NFKC').trim().toLowerCase().toUpperCase().toLowerCase().normalize('NFKC');
}

/**
 * The one form of a typed username, used to find its account (compared with `lower(username)`)
 * and to key the login throttle of a name that reaches no account: the names' plain form (NFKC,
 * `normalizeText`: `ｋｉｗｉ` is `kiwi`), trimmed, lower-cased in code. Usernames are ASCII, so a
 * form that is not ASCII reaches no account: `kİwi` becomes `ki̇wi` (i + U+0307), not `kiwi` as
 * PostgreSQL's `lower()` would have it, and `kıwi` stays itself (docs/decisions.md).
 */
export const normalizeUsername = (raw: string): string => normalizeText(raw).trim().toLowerCase();

/**
 * What a login names its account by, in the form it is looked up by: an address when its plain
 * form has an `@` (a full-width `＠` is one; no username has one), else a username.
 */
export type LoginIdentifier = { kind: 'email' | 'username'; key: string };
export const parseLoginIdentifier = (raw: string): LoginIdentifier =>
  normalizeText(raw).includes('@') ? { kind: 'email', key: normalizeEmail(raw) } : { kind: 'username', key: normalizeUsername(raw) };

export const Email = requiredString()
  .max(254, 'must be at most 254 characters')
  .transform(normalizeEmail)
  .pipe(z.email({ error: 'must be a valid email address' }).max(254, 'must be at most 254 characters'))
  .meta({ format: 'email', maxLength: 254, description: 'compared after NFKC normalisation, trimming and case folding' });

export function passwordProblems(password: string): string[] {
  const problems: string[] = [];
  if ([...password].length < 8) problems.push('must be at least 8 characters');
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) problems.push(`must be at most ${MAX_PASSWORD_BYTES} bytes`);
  if (!/\p{L}/u.test(password)) problems.push('must contain at least one letter');
  if (!/\p{Nd}/u.test(password)) problems.push('must contain at least one digit');
  return problems;
}
export const Password = requiredString()
  .superRefine(rules(passwordProblems))
  .meta({
    minLength: 8,
    pattern: '^(?=[\\s\\S]*\\p{L})(?=[\\s\\S]*\\p{Nd})',
    description: `at least 8 characters with a letter and a digit; at most ${MAX_PASSWORD_BYTES} bytes of UTF-8`,
  });

export function usernameProblems(username: string): string[] {
  const problems: string[] = [];
  if (username.length < 3 || username.length > 20) problems.push('must be 3 to 20 characters');
  const hidden = textProblems(username);
  if (hidden.length > 0) problems.push(...hidden);
  else if (!/^[A-Za-z0-9_]*$/.test(username)) problems.push('may contain only letters, digits and underscores');
  else if (containsOffensiveWord(username)) problems.push('must not contain offensive words');
  return problems;
}
export const Username = requiredString()
  .superRefine(rules(usernameProblems))
  .meta({ minLength: 3, maxLength: 20, pattern: '^[A-Za-z0-9_]+$', description: '3 to 20 letters, digits and underscores; no offensive words' });

/** A full name: stored in its plain form (NFKC), trimmed, under the rule every name follows. */
export const FullName = requiredString()
  .overwrite((s) => normalizeText(s).trim())
  .max(100, 'must be at most 100 characters')
  .superRefine(rules(textProblems))
  .meta({ description: 'NFKC-normalised and trimmed, then at most 100 characters; no control or format characters' });

export const Country = requiredString()
  .trim()
  .toUpperCase()
  .refine((s) => /^[A-Z]{2}$/.test(s) && isCountryCode(s), 'must be a two-letter ISO 3166-1 country code')
  .meta({ pattern: '^\\s*[A-Za-z]{2}\\s*$', description: 'an ISO 3166-1 alpha-2 code (either case, stored upper-case)' });

const isHttpUrl = (s: string) => {
  if (!URL.canParse(s) || /[\s\p{Cc}]/u.test(s)) return false;
  const url = new URL(s);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
};
export const AvatarUrl = requiredString()
  .max(2048, 'must be at most 2048 characters')
  .refine(isHttpUrl, 'must be an http(s) URL')
  .meta({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$', description: 'an http(s) URL' });
