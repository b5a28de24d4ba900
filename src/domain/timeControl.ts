// Time controls: the category a game is rated in follows from its clock, so a client cannot
// ask for a "classical" 1+0 game and farm classical rating with bullet games.
import { err, ok, type Result } from '../result.ts';

/** The categories of clocked games, judged from the clock (categoryOf). */
export const LIVE_TIME_CONTROLS = ['bullet', 'blitz', 'rapid', 'classical'] as const;
export type LiveTimeControl = (typeof LIVE_TIME_CONTROLS)[number];
/** Every category a game is rated in: the clocked ones and correspondence (days per move). */
export const TIME_CONTROLS = [...LIVE_TIME_CONTROLS, 'correspondence'] as const;
export type TimeControl = (typeof TIME_CONTROLS)[number];

/** A correspondence game's period per move, in days (DESIGN 2.11). */
export const DAYS_PER_MOVE = [1, 2, 3, 5, 7, 10, 14] as const;
export type DaysPerMove = (typeof DAYS_PER_MOVE)[number];
export const DAY_MS = 86_400_000;

export const MAX_INITIAL_TIME = 10_800; // 3 hours
export const MAX_INCREMENT = 180;

/** Seconds. Lichess's estimate of a game's length: 40 moves each. */
export function estimatedDuration(initial: number, increment: number): number {
  return initial + 40 * increment;
}

export function categoryOf(initial: number, increment: number): LiveTimeControl {
  const estimate = estimatedDuration(initial, increment);
  if (estimate < 180) return 'bullet';
  if (estimate < 480) return 'blitz';
  if (estimate < 1500) return 'rapid';
  return 'classical';
}

export interface TimeControlInput {
  time_control: unknown;
  initial_time?: unknown;
  increment?: unknown;
  days_per_move?: unknown;
}

/**
 * A valid time control. A correspondence game has `days_per_move` and reports `initial_time` and
 * `increment` as 0 (whatever was sent: they are ignored); a clocked game has `days_per_move` null.
 */
export interface ValidTimeControl {
  time_control: TimeControl;
  initial_time: number;
  increment: number;
  days_per_move: DaysPerMove | null;
}

/** Field name → message, the shape of `error.details` in a 400 VALIDATION_ERROR. */
export type FieldErrors = Record<string, string>;

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

const DAY_PER_MOVE_VALUES: readonly number[] = DAYS_PER_MOVE;

function isTimeControl(value: unknown): value is LiveTimeControl {
  return typeof value === 'string' && (LIVE_TIME_CONTROLS as readonly string[]).includes(value);
}

/** Every problem is reported at once so a client can fix its form in one round trip. */
export function validateTimeControl(
  input: TimeControlInput,
): Result<ValidTimeControl, FieldErrors> {
  const errors: FieldErrors = {};
  const { time_control, initial_time, increment, days_per_move } = input;
  if (time_control === 'correspondence') {
    if (!DAY_PER_MOVE_VALUES.includes(days_per_move as number)) {
      return err({ days_per_move: `days_per_move must be one of ${DAYS_PER_MOVE.join(', ')} for a correspondence game` });
    }
    return ok({ time_control: 'correspondence', initial_time: 0, increment: 0, days_per_move: days_per_move as DaysPerMove });
  }
  if (days_per_move !== undefined && days_per_move !== null) {
    errors.days_per_move = 'days_per_move is only for time_control correspondence';
  }

  if (!isIntegerIn(initial_time, 0, MAX_INITIAL_TIME)) {
    errors.initial_time = `initial_time must be an integer number of seconds between 0 and ${MAX_INITIAL_TIME}`;
  }
  if (!isIntegerIn(increment, 0, MAX_INCREMENT)) {
    errors.increment = `increment must be an integer number of seconds between 0 and ${MAX_INCREMENT}`;
  }
  if (!isTimeControl(time_control)) {
    errors.time_control = `time_control must be one of ${TIME_CONTROLS.join(', ')}`;
  }
  // The remaining checks need both numbers; without them the messages above say enough.
  if (isIntegerIn(initial_time, 0, MAX_INITIAL_TIME) && isIntegerIn(increment, 0, MAX_INCREMENT)) {
    if (initial_time === 0 && increment === 0) {
      errors.initial_time = 'initial_time and increment cannot both be 0';
    } else if (isTimeControl(time_control)) {
      const expected = categoryOf(initial_time, increment);
      if (time_control !== expected) {
        errors.time_control = `time_control must be ${expected} for ${initial_time}+${increment} (estimate initial_time + 40 × increment = ${estimatedDuration(initial_time, increment)} s)`;
      }
    }
  }

  if (Object.keys(errors).length > 0) return err(errors);
  return ok({ time_control: time_control as TimeControl, initial_time: initial_time as number, increment: increment as number, days_per_move: null });
}
