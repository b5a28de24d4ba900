// Clocks across an outage (DESIGN 1: "Time during which no node hosted the game is not charged
// to either clock"). A node records, in the game's row, the last moment it knew it hosted the
// game (each lease renewal, each move, its release). The node that takes the game over charges
// the side to move for the hosted part of the turn and forgives the rest, and moves the
// first-move deadline on by the time nobody hosted the game.
import type { Color } from './game.ts';

export type StoredClocks = {
  /** Remaining times as stored: at the start of the running turn (or booked up to a release). */
  whiteMs: number;
  blackMs: number;
  sideToMove: Color;
  /** When the running turn began (null: the clock is not running). */
  turnStartedAt: number | null;
  /** The last moment a node is known to have hosted the game (null: not recorded). */
  hostedAt: number | null;
  firstMoveDeadline: number | null;
  /** How long a first move may take, so the moment a deadline was set is known too. */
  firstMoveMs: number;
};

export type ResumedClocks = { whiteMs: number; blackMs: number; firstMoveDeadline: number | null };

/** The clocks to resume with at `now`; the side to move's turn restarts at `now`. */
export function resumeAfterOutage(c: StoredClocks, now: number): ResumedClocks {
  const deadlineSetAt = c.firstMoveDeadline === null ? null : c.firstMoveDeadline - c.firstMoveMs;
  const known = [c.hostedAt, c.turnStartedAt, deadlineSetAt].filter((t): t is number => t !== null);
  // Nothing says when hosting stopped: forgive nothing of the gap but what cannot be known.
  const lastHosted = known.length ? Math.min(now, Math.max(...known)) : now;

  let { whiteMs, blackMs } = c;
  if (c.turnStartedAt !== null) {
    const charged = Math.max(0, lastHosted - c.turnStartedAt);
    if (c.sideToMove === 'white') whiteMs = Math.max(0, whiteMs - charged);
    else blackMs = Math.max(0, blackMs - charged);
  }
  const unhosted = Math.max(0, now - lastHosted);
  const firstMoveDeadline = c.firstMoveDeadline === null ? null : c.firstMoveDeadline + unhosted;
  return { whiteMs, blackMs, firstMoveDeadline };
}
