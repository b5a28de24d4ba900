import type { Clock, TimerHandle } from '../time.ts';

/** Named timers of one owner on an injected clock: setting a name replaces its timer; all go at once on close. */
export class Timers<Name extends string> {
  private handles = new Map<Name, TimerHandle>();

  constructor(private readonly clock: Clock) {}

  once(name: Name, delayMs: number, run: () => void): void {
    this.clear(name);
    this.handles.set(
      name,
      this.clock.setTimeout(() => {
        this.handles.delete(name);
        run();
      }, Math.max(0, delayMs)),
    );
  }

  /** Runs `run` every `periodMs` until cleared. */
  every(name: Name, periodMs: number, run: () => void): void {
    this.once(name, periodMs, () => {
      this.every(name, periodMs, run);
      run();
    });
  }

  clear(name: Name): void {
    this.clock.clearTimeout(this.handles.get(name));
    this.handles.delete(name);
  }

  clearAll(): void {
    for (const handle of this.handles.values()) this.clock.clearTimeout(handle);
    this.handles.clear();
  }
}
