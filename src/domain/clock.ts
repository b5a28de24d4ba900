// A Fischer chess clock in integer milliseconds. It owns no timer: every call gets `now`, so the
// room decides when to look (it schedules its flag timer at `flagAt()`), and tests need no fakes.

import type { Color } from './game.js';
import { resumeAfterOutage, type StoredClocks } from './outage.ts';
import { err, ok, type Result } from '../result.ts';

export interface ClockConfig {
  initialMs: number;
  incrementMs: number;
  /**
   * A correspondence clock (DESIGN 2.11): `initialMs` is the period of every move. It runs from
   * the first move on, and each move gives the mover the whole period again.
   */
  perMove?: boolean;
}

/** Plain data, safe to store as JSON and to rebuild the clock from on another node. */
export interface ClockSnapshot extends ClockConfig {
  whiteMs: number;
  blackMs: number;
  /** Half-moves made so far; the clock runs from the third one on. */
  plies: number;
  whiteQuotaMs: number;
  blackQuotaMs: number;
}

/** A clock's whole state as data: the snapshot plus when the running turn began (null: stopped). */
export interface ClockState extends ClockSnapshot {
  turnStartedAt: number | null;
}

/** A move the clock took. */
export type TimedMove = {
  color: Color;
  /** The mover's clock after the move, increment included. */
  remainingMs: number;
  /** Time charged to the mover for this move (after lag compensation). */
  usedMs: number;
  compensatedMs: number;
};

/** A move made after the mover's flag fell: `flagged` lost on time. */
export type ClockMoveResult = Result<TimedMove, { flagged: Color }>;

/** Moves before this ply are untimed: clocks start when Black makes the first move. */
const FIRST_TIMED_PLY = 2;

/**
 * Lichess's lag quota gain: min(1 s, (estimate × 2/5 + 15) cs), estimate = initial + 40 × increment
 * in whole seconds. Slow games get the full second; bullet gets less, as a second there is a lot.
 */
export function lagQuotaGainMs({ initialMs, incrementMs }: ClockConfig): number {
  const estimateSeconds = Math.floor((initialMs + 40 * incrementMs) / 1000);
  const gainCentis = Math.min(100, Math.floor((estimateSeconds * 2) / 5) + 15);
  return gainCentis * 10;
}

export class ChessClock {
  readonly initialMs: number;
  readonly incrementMs: number;
  readonly quotaGainMs: number;
  readonly quotaMaxMs: number;
  readonly perMove: boolean;
  private readonly remainingMs: Record<Color, number>;
  private readonly quotaMs: Record<Color, number>;
  private plies = 0;
  /** When the side to move's current turn began; null while the clock does not run. */
  private turnStartedAt: number | null = null;

  constructor(config: ClockConfig) {
    this.initialMs = config.initialMs;
    this.incrementMs = config.incrementMs;
    this.perMove = config.perMove === true;
    this.quotaGainMs = lagQuotaGainMs(config);
    this.quotaMaxMs = this.quotaGainMs * 7;
    this.remainingMs = { white: config.initialMs, black: config.initialMs };
    this.quotaMs = { white: this.quotaGainMs * 3, black: this.quotaGainMs * 3 };
  }

  /**
   * Rebuilds a clock (rehydration): the side to move's turn restarts at `now`, so the time
   * during which no node hosted the game is charged to nobody.
   */
  static restore(snapshot: ClockSnapshot, now: number): ChessClock {
    const clock = new ChessClock(snapshot);
    clock.remainingMs.white = snapshot.whiteMs;
    clock.remainingMs.black = snapshot.blackMs;
    clock.quotaMs.white = snapshot.whiteQuotaMs;
    clock.quotaMs.black = snapshot.blackQuotaMs;
    clock.plies = snapshot.plies;
    if (clock.started) clock.turnStartedAt = Math.round(now);
    return clock;
  }

  /**
   * The clock of a game a node takes over at `now` (rehydration), from what the game's row stored.
   * Time during which no node hosted the game is charged to nobody (outage.ts): the side to move
   * pays the hosted part of its turn, which restarts at `now`, and a first-move deadline moves on
   * by the rest. Not so per move (correspondence): a game nobody hosts is the normal case and its
   * deadline stands, so the running turn goes on from its stored start, each side's period whole.
   */
  static resume(
    config: ClockConfig,
    stored: StoredClocks & { plies: number; whiteQuotaMs?: number; blackQuotaMs?: number },
    now: number,
  ): { clock: ChessClock; firstMoveDeadline: number | null } {
    const fresh = new ChessClock(config);
    const resumed = fresh.perMove
      ? { whiteMs: fresh.initialMs, blackMs: fresh.initialMs, firstMoveDeadline: null }
      : resumeAfterOutage(stored, now);
    const clock = ChessClock.restore(
      {
        ...config,
        whiteMs: resumed.whiteMs,
        blackMs: resumed.blackMs,
        plies: stored.plies,
        whiteQuotaMs: stored.whiteQuotaMs ?? fresh.quota('white'),
        blackQuotaMs: stored.blackQuotaMs ?? fresh.quota('black'),
      },
      fresh.perMove ? (stored.turnStartedAt ?? now) : now,
    );
    return { clock, firstMoveDeadline: resumed.firstMoveDeadline };
  }

  /** Rebuilds a clock exactly as it was, running turn included (no time is forgiven). */
  static fromState(state: ClockState): ChessClock {
    const clock = ChessClock.restore(state, 0);
    clock.turnStartedAt = state.turnStartedAt;
    return clock;
  }

  /** Everything needed to rebuild this clock, as plain data. */
  state(): ClockState {
    return { ...this.snapshot(), turnStartedAt: this.turnStartedAt };
  }

  /** When the running turn began; null while the clock is stopped. */
  get turnStart(): number | null {
    return this.turnStartedAt;
  }

  /** The service only starts games from the initial position, so White moves on even plies. */
  get turn(): Color {
    return this.plies % 2 === 0 ? 'white' : 'black';
  }

  get started(): boolean {
    return this.perMove || this.plies >= FIRST_TIMED_PLY;
  }

  get running(): boolean {
    return this.turnStartedAt !== null;
  }

  quota(color: Color): number {
    return this.quotaMs[color];
  }

  remaining(color: Color, now: number): number {
    const base = this.remainingMs[color];
    if (this.turnStartedAt === null || color !== this.turn) return base;
    return Math.max(0, base - (Math.round(now) - this.turnStartedAt));
  }

  times(now: number): Record<Color, number> {
    return { white: this.remaining('white', now), black: this.remaining('black', now) };
  }

  /** When the side to move runs out of time, if nothing happens before; null while stopped. */
  flagAt(): number | null {
    return this.turnStartedAt === null ? null : this.turnStartedAt + this.remainingMs[this.turn];
  }

  /**
   * A correspondence move's deadline (the opponent's period ends then), which the game's row keeps
   * for the sweeper; null on a clock that is not per move, whose flag the room's timer watches.
   */
  moveDeadline(): number | null {
    return this.perMove ? this.flagAt() : null;
  }

  /** The colour whose flag has fallen at `now`, if any. */
  flagged(now: number): Color | null {
    const at = this.flagAt();
    return at !== null && Math.round(now) >= at ? this.turn : null;
  }

  /**
   * Records a move by the side to move at `now`. `lagMs` is the client's measured network lag
   * (realtime moves only; REST moves pass nothing and get no compensation). The opponent's turn
   * starts at `nextTurnAt`, `now` unless told: a move timed when it reached the service but made
   * later starts the next turn when it is made.
   */
  move(now: number, lagMs?: number, nextTurnAt: number = now): ClockMoveResult {
    now = Math.round(now);
    const color = this.turn;
    if (!this.started) {
      this.plies++;
      // Black's first move starts White's clock.
      if (this.started) this.turnStartedAt = Math.round(nextTurnAt);
      return ok({ color, remainingMs: this.remainingMs[color], usedMs: 0, compensatedMs: 0 });
    }
    if (this.turnStartedAt === null) throw new Error('ChessClock.move called while paused');

    // The flag is judged before compensation: flagAt() is what the room's timer uses, so a move
    // that arrives after it must lose whether or not the timer has fired yet.
    const elapsed = Math.max(0, now - this.turnStartedAt);
    if (elapsed >= this.remainingMs[color]) return err({ flagged: color });

    // Lag cannot exceed the time the move took; capping here keeps unused quota for later.
    const lag = lagMs !== undefined && Number.isFinite(lagMs) ? Math.max(0, Math.round(lagMs)) : 0;
    const compensatedMs = Math.min(lag, this.quotaMs[color], elapsed);
    this.quotaMs[color] = Math.min(this.quotaMaxMs, this.quotaMs[color] - compensatedMs + this.quotaGainMs);

    const usedMs = elapsed - compensatedMs;
    if (this.perMove) this.remainingMs[color] = this.initialMs;
    else this.remainingMs[color] += this.incrementMs - usedMs;
    this.plies++;
    this.turnStartedAt = Math.round(nextTurnAt);
    return ok({ color, remainingMs: this.remainingMs[color], usedMs, compensatedMs });
  }

  /** Books the running turn's time so far and stops the clock (game over, or room going away). */
  pause(now: number): void {
    if (this.turnStartedAt === null) return;
    this.remainingMs[this.turn] = this.remaining(this.turn, now);
    this.turnStartedAt = null;
  }

  /**
   * The clock booked at `now` for a turn that restarts later (a node letting the game go, a
   * takeback): each side's time as it stands at `now`, the running turn counted on from `now`.
   * A clock per move books nothing: its deadline stands whoever hosts the game, or nobody, so the
   * running turn keeps its start, and every turn has the whole period.
   */
  bookedAt(now: number): { whiteMs: number; blackMs: number; turnStartedAt: number } {
    if (this.perMove) return { whiteMs: this.initialMs, blackMs: this.initialMs, turnStartedAt: this.turnStartedAt ?? now };
    return { whiteMs: this.remaining('white', now), blackMs: this.remaining('black', now), turnStartedAt: now };
  }

  resume(now: number): void {
    if (this.started && this.turnStartedAt === null) this.turnStartedAt = Math.round(now);
  }

  /**
   * Without `now`, times are as of the start of the current turn (what is persisted with a move);
   * with `now`, the side to move is charged up to `now` (what is persisted when pausing).
   */
  snapshot(now?: number): ClockSnapshot {
    const at = (c: Color) => (now === undefined ? this.remainingMs[c] : this.remaining(c, now));
    return {
      initialMs: this.initialMs,
      incrementMs: this.incrementMs,
      ...(this.perMove ? { perMove: true } : {}),
      whiteMs: at('white'),
      blackMs: at('black'),
      plies: this.plies,
      whiteQuotaMs: this.quotaMs.white,
      blackQuotaMs: this.quotaMs.black,
    };
  }
}
