import type { TimeControl } from './types/api.ts';

/**
 * The category a clock belongs to (DESIGN 2.4, Lichess's rule): the estimated game length
 * `initial + 40 × increment` seconds is under 3 minutes → bullet, under 8 → blitz, under 25 →
 * rapid, else classical. The API refuses a `time_control` that does not match, so the app always
 * sends the category this gives.
 */
export function categoryOf(initialSeconds: number, incrementSeconds: number): TimeControl {
  const estimate = initialSeconds + 40 * incrementSeconds;
  if (estimate < 180) return 'bullet';
  if (estimate < 480) return 'blitz';
  if (estimate < 1500) return 'rapid';
  return 'classical';
}

/** "5+3", "½+0", "90+30": minutes and increment seconds, as players write them. */
export function formatTimeControl(initialSeconds: number, incrementSeconds: number): string {
  const minutes = initialSeconds / 60;
  const shown = minutes === 0.25 ? '¼' : minutes === 0.5 ? '½' : minutes === 0.75 ? '¾' : Number.isInteger(minutes) ? String(minutes) : minutes.toFixed(1);
  return `${shown}+${incrementSeconds}`;
}

/** The days a correspondence move may take (the API's choices). */
export const DAYS_PER_MOVE = [1, 2, 3, 5, 7, 10, 14] as const;

type Kind = { time_control: TimeControl; initial_time: number; increment: number; days_per_move?: number | null; rated?: boolean };

/**
 * A game's kind as players say it: "5+3 rated blitz", "3 days/move rated correspondence" (a
 * correspondence game's clock fields are 0; where a view leaves out its days, "rated
 * correspondence"). Without `rated`, no mode.
 */
export function describeKind(g: Kind): string {
  const clock = g.time_control !== 'correspondence'
    ? formatTimeControl(g.initial_time, g.increment)
    : g.days_per_move ? `${g.days_per_move} day${g.days_per_move === 1 ? '' : 's'}/move` : '';
  const mode = g.rated === undefined ? '' : g.rated ? 'rated' : 'casual';
  return [clock, mode, g.time_control].filter(Boolean).join(' ');
}

/** The quick-pairing buttons of the lobby (Lichess's set). */
export const QUICK_PAIRINGS: [minutes: number, increment: number][] = [
  [1, 0], [2, 1], [3, 0], [3, 2], [5, 0], [5, 3], [10, 0], [10, 5], [15, 10], [30, 0], [30, 20],
];
