// A benchmark's command line: `--name value` options and bare `--name` flags.

/** The value after `--name` (a number when the fallback is one), or the fallback when it is not given. */
export function arg(name: string, fallback: number): number;
export function arg(name: string, fallback: string): string;
export function arg(name: string): string | undefined;
export function arg(name: string, fallback?: number | string): number | string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  const value = i > 0 ? process.argv[i + 1] : undefined;
  if (value === undefined) return fallback;
  return typeof fallback === 'number' ? Number(value) : value;
}

/** Whether `--name` is on the command line. */
export const flag = (name: string): boolean => process.argv.includes(`--${name}`);
