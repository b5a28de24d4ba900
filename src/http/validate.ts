import { z } from 'zod';
import { AppError } from '../errors.ts';
import { issuesToDetails } from '../util/zod.ts';


export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError('VALIDATION_ERROR', 'Invalid request data', issuesToDetails(result.error.issues));
  return result.data;
}

/** A JSON body must be an object; anything else (array, string, null) is a shape error. */
export const objectBody = (value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) ? value : {});

/** Query helpers: query strings are strings, these coerce them with the documented bounds. */
export const pageQuery = {
  page: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1, 'must be at least 1').default(1),
  limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').default(20),
};

