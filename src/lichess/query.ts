// How Lichess's query parameters read: booleans as `true`/`false` (or `1`/`0`), integers in a
// range, lists separated by commas. Every bad value is a 400 naming the parameter.
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
