/**
 * Time, injected. Everything that computes a deadline, fires a timer or stamps an event asks a
 * Clock instead of `Date.now()`/`setTimeout`, so tests drive flags, expiries and TTLs with a
 * manual clock (test/helpers/clock.ts) instead of waiting in real time.
 */
export type TimerHandle = { readonly id: unknown };

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
  setTimeout(run: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
}

/** The real clock: wall time and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, delayMs) => ({ id: setTimeout(run, Math.max(0, delayMs)) }),
  clearTimeout: (handle) => {
    if (handle) clearTimeout(handle.id as NodeJS.Timeout);
  },
};

/** Resolves after `ms` on `clock`. */
export const sleep = (ms: number, clock: Clock = systemClock): Promise<void> =>
  new Promise((resolve) => clock.setTimeout(resolve, ms));

/**
 * Settles `promise` within `ms`: with its own outcome, or with `onTimeout()` (a value, or a
 * thrown error) when the time runs out first.
 */
export function withTimeout<T, F = never>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => F = () => {
    throw new Error(`timed out after ${ms} ms`);
  },
  clock: Clock = systemClock,
): Promise<T | F> {
  return new Promise<T | F>((resolve, reject) => {
    const timer = clock.setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
    promise.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clock.clearTimeout(timer);
        reject(error);
      },
    );
  });
}
