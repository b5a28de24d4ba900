import type { Clock, TimerHandle } from '../../src/time.ts';

type Timer = { id: number; at: number; run: () => void };

/**
 * A clock that moves only when told: `advance(ms)` fires every timer that falls due, in order,
 * letting promise chains started by one timer run before the next fires. Tests of flags,
 * deadlines and TTLs take milliseconds instead of the seconds they describe.
 */
export class ManualClock implements Clock {
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(private current = Date.UTC(2026, 0, 1, 12)) {}

  now(): number {
    return this.current;
  }

  setTimeout(run: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, delayMs), run };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle) this.timers = this.timers.filter((t) => t.id !== handle.id);
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward without firing anything: a timer that is late (the event loop was busy). */
  skip(ms: number): void {
    this.current += ms;
  }

  /** Moves time forward by `ms`, firing due timers in order of their deadline. */
  async advance(ms: number): Promise<void> {
    const until = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.run();
      await settle();
    }
    this.current = until;
    await settle();
  }
}

/** A manual clock whose timers fire a millisecond before their time, as Node's may on the wall clock. */
export class EarlyClock extends ManualClock {
  override setTimeout(run: () => void, delayMs: number): TimerHandle {
    return super.setTimeout(run, delayMs - 1);
  }
}

/**
 * The shared test service's clock: wall time and Node's timers, moved forward by `skip(ms)` for
 * rules that wait on time alone (a claim after CLAIM_SECONDS) and back by `reset()`, which a test
 * that skips must call when it ends (the database's now() does not move with it).
 */
export class ShiftedClock implements Clock {
  private offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  setTimeout(run: () => void, delayMs: number): TimerHandle {
    return { id: setTimeout(run, Math.max(0, delayMs)) };
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle) clearTimeout(handle.id as NodeJS.Timeout);
  }

  skip(ms: number): void {
    this.offset += ms;
  }

  reset(): void {
    this.offset = 0;
  }
}

/** Lets pending promise callbacks and I/O callbacks of this turn run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
