import type { TimeControl } from './timeControl.ts';
// Who plays whom in a seek pool. Pure: the pool actor supplies the seeks and the time.

export type SeekColor = 'white' | 'black' | 'random';

export type Seek = {
  id: string;
  userId: string;
  rating: number;
  color: SeekColor;
  /** When the seek entered the pool (ms). */
  since: number;
};

/**
 * The rating difference a seek accepts after waiting: ±100 at first, wider by 50 a second,
 * anyone after 10 s (so nobody waits out the seek's lifetime for want of a close rating).
 */
export const WINDOW = { startPoints: 100, pointsPerSecond: 50, anyoneAfterMs: 10_000 } as const;

export function ratingWindow(waitedMs: number): number {
  if (waitedMs >= WINDOW.anyoneAfterMs) return Infinity;
  return WINDOW.startPoints + (WINDOW.pointsPerSecond * Math.max(0, waitedMs)) / 1000;
}

/** White with black, random with anything; two seekers wanting the same colour cannot meet. */
export function colorsCompatible(a: SeekColor, b: SeekColor): boolean {
  return a === 'random' || b === 'random' || a !== b;
}

/** A pair is acceptable when the rating gap fits the more patient one's window. */
export function acceptable(a: Seek, b: Seek, now: number): boolean {
  if (a.userId === b.userId || !colorsCompatible(a.color, b.color)) return false;
  const gap = Math.abs(a.rating - b.rating);
  return gap <= Math.max(ratingWindow(now - a.since), ratingWindow(now - b.since));
}

/** The closest-rated acceptable partner for `seek` among `waiting` (earliest on ties). */
export function findPartner(seek: Seek, waiting: readonly Seek[], now: number): Seek | undefined {
  let best: Seek | undefined;
  for (const w of waiting) {
    if (w.id === seek.id || !acceptable(seek, w, now)) continue;
    const gap = Math.abs(w.rating - seek.rating);
    if (!best || gap < Math.abs(best.rating - seek.rating) || (gap === Math.abs(best.rating - seek.rating) && w.since < best.since)) {
      best = w;
    }
  }
  return best;
}

/**
 * Pairs the waiting seeks among themselves (their windows widen as they wait): the longest
 * waiting first, each with its closest acceptable partner; nobody is in two pairs.
 */
export function pairWaiting(waiting: readonly Seek[], now: number): Array<[Seek, Seek]> {
  const open = [...waiting].sort((a, b) => a.since - b.since);
  const pairs: Array<[Seek, Seek]> = [];
  const taken = new Set<string>();
  for (const seek of open) {
    if (taken.has(seek.id)) continue;
    const partner = findPartner(seek, open.filter((s) => !taken.has(s.id) && s.userId !== seek.userId), now);
    if (!partner) continue;
    taken.add(seek.id).add(partner.id);
    pairs.push([seek, partner]);
  }
  return pairs;
}

/** Colours for a pair: preferences first, a coin for whatever they leave open. */
export function assignColors(a: Seek, b: Seek, coin: () => boolean): { white: Seek; black: Seek } {
  if (a.color === 'white' || b.color === 'black') return { white: a, black: b };
  if (a.color === 'black' || b.color === 'white') return { white: b, black: a };
  return coin() ? { white: a, black: b } : { white: b, black: a };
}

/** One seek pool per time control and rating mode. */
export type PoolKey = { timeControl: TimeControl; initialTime: number; increment: number; rated: boolean };

/** The pool's room id (Colyseus allows [A-Za-z0-9_-]). */
export const poolId = (k: PoolKey) => `pool_${k.timeControl}_${k.initialTime}_${k.increment}_${k.rated ? 'rated' : 'casual'}`;
