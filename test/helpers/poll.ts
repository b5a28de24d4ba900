import assert from 'node:assert/strict';

/**
 * Polls `check` every `everyMs` in real time until it gives a truthy value, which it returns; fails
 * naming `what` after `ms`. For what happens outside this process's clock: engine processes,
 * other service processes.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  o: { ms?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (o.ms ?? 30_000);
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, o.everyMs ?? 20));
  }
}
