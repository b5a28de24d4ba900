// What the live game, seek pool and tournament actors share: each owns its state on one node (a
// lease with an epoch in PostgreSQL fences out every other node) and changes it one step at a time.
// The lease itself has no shared helper, on purpose: the game's is renewed in bulk by its host (one
// statement per process), the seek pool's inside its one-second pass, the tournament's on a timer
// of its own; and a lost lease means three different things (hand the game back at once, stop the
// pool's passes, drop the arena's room). What they share is the vocabulary below.

/** Why an actor's `open` did not host it: nothing to host, or another node holds its lease. */
export type NotHosted = 'not_active' | 'lease_held';

/**
 * An actor's serial mailbox: a step starts once the previous one has settled, so it sees the
 * state that one left, across its awaits (I/O included). A failed step goes to `failed` and does
 * not stop the steps queued after it; its caller still gets the rejection.
 */
export class Mailbox {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly failed: (err: unknown) => void = () => {}) {}

  run<T>(step: () => T | Promise<T>): Promise<T> {
    const run = this.chain.then(step);
    this.chain = run.catch(this.failed);
    return run;
  }

  /** Resolves once every step queued so far has run. */
  async idle(): Promise<void> {
    await this.chain.catch(() => {});
  }
}
