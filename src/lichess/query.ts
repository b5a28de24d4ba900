// How Lichess's query parameters and body fields read: booleans as `true`/`false` (or `1`/`0` in
// a query), numbers in a range, lists separated by commas; a body's field as a form's text or a
// JSON value alike. Every bad value is a 400 naming the parameter.
import { z } from 'zod';

/** A boolean parameter, `fallback` when absent. */
export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

/** A boolean parameter that filters only when given. */
export const optionalFlag = () =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1'));

/** An integer from `min` to `max`. */
export const integer = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

/** Names separated by commas (blanks dropped), at least one, at most `max`. */
export const commaList = (max: number, what: string) =>
  z
    .string({ error: `must be ${what} separated by commas` })
    .transform((s) => s.split(',').map((x) => x.trim()).filter((x) => x !== ''))
    .refine((list) => list.length > 0, `must name at least one of ${what}`)
    .refine((list) => list.length <= max, `at most ${max} ${what}`);

/** A body's field left empty: a form's `''`, JSON's `null` (berserk sends every parameter, null when unset). */
export const given = (v: unknown) => (v === null || v === '' ? undefined : v);

/** A form's number as text (`15`, `0.5`) read as a number; anything else as it is. */
const numeric = (whole: boolean) => (v: unknown) => {
  const value = given(v);
  return typeof value === 'string' && (whole ? /^\s*-?\d+\s*$/ : /^\s*\d+(\.\d+)?\s*$/).test(value) ? Number(value) : value;
};

/** A body's whole number from `min` to `max`, as a form's text or a JSON number; absent when left empty. */
export const formInt = (min: number, max: number) =>
  z.preprocess(
    numeric(true),
    z.number({ error: 'must be a whole number' }).int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`).optional(),
  );

/** A body's number from `min` to `max` (`0.5` too), as a form's text or a JSON number; absent when left empty. */
export const formNumber = (min: number, max: number) =>
  z.preprocess(numeric(false), z.number({ error: 'must be a number' }).min(min, `must be at least ${min}`).max(max, `must be at most ${max}`).optional());

/** A body's `true`/`false`, as a form's text or a JSON boolean; absent when left empty. */
export const formBool = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : given(v)), z.boolean({ error: 'must be true or false' }).optional());
