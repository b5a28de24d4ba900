import { z } from 'zod';

/** Zod issues → the interface's `details`: field name → array of messages. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  for (const issue of issues) {
    const field = issue.path.length ? issue.path.join('.') : '_';
    (details[field] ??= []).push(issue.message);
  }
  return details;
}

/** One of `values`, refused with the message the API gives every such field. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });
