// How an arena's times and standings read on the page (no DOM: unit-tested in Node).

import { formatTimeControl } from '../timeControl.ts';
import type { Standing, TournamentSummary } from '../types/api.ts';

/** "0:09", "12:03", "1:02:03": a countdown in whole seconds, never below zero. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** "in 12 min", "in 2 h 5 min", "in 3 days", "4 min ago": `ms` from now (negative: past). */
export function relativeTime(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const words =
    minutes < 1 ? 'less than a minute'
      : minutes < 60 ? `${minutes} min`
        : minutes < 48 * 60 ? `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`
          : `${Math.round(minutes / 1440)} days`;
  return ms >= 0 ? `in ${words}` : `${words} ago`;
}

/** "3+2 rated blitz". */
export const describeArena = (t: Pick<TournamentSummary, 'initial_time' | 'increment' | 'rated' | 'time_control'>) =>
  `${formatTimeControl(t.initial_time, t.increment)} ${t.rated ? 'rated' : 'casual'} ${t.time_control}`;

/** Where the arena is in its life at server time `now`: what the countdown says. */
export function arenaTiming(t: Pick<TournamentSummary, 'status' | 'starts_at' | 'ends_at'>, now: number): string {
  const starts = Date.parse(t.starts_at);
  const ends = Date.parse(t.ends_at);
  if (t.status === 'finished') return 'Finished';
  if (t.status === 'upcoming') return now < starts ? `Starts in ${formatCountdown(starts - now)}` : 'Starting…';
  return now < ends ? `Ends in ${formatCountdown(ends - now)}` : 'Time is up: the last games are being played';
}

/**
 * On fire (README, "Tournaments"): after two wins in a row each further win scores 4 and a draw
 * 2, until a game that is not a win.
 */
export const onFire = (s: Pick<Standing, 'streak'>) => s.streak >= 2;

export const fireTitle = (s: Pick<Standing, 'streak'>) => `On fire: ${s.streak} wins in a row. A win now scores 4, a draw 2.`;
