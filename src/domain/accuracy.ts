// Lichess's post-game analysis numbers (DESIGN 2.5): Win%, move accuracy, move classes and the
// per-side game accuracy. Checked against lila's modules/analyse/src/main/AccuracyPercent.scala,
// scalachess's eval.scala (WinPercent, Cp) and scalalib's Maths.scala.

/**
 * An engine evaluation from White's point of view. `mate` counts moves to mate (≥ 0); 0 means the
 * side to move is already checkmated. `winner` is the side that mates.
 */
export type Score = { cp: number } | { mate: number; winner: 'white' | 'black' };

export const MOVE_CLASSES = ['best', 'excellent', 'good', 'inaccuracy', 'mistake', 'blunder'] as const;
export type MoveClass = (typeof MOVE_CLASSES)[number];

export interface GameAccuracy {
  /** null when that side made no move. */
  white: number | null;
  black: number | null;
}

/** Beyond ±10 pawns every position counts as won, so a mate scores the same as the cap. */
const CP_CEILING = 1000;
const WIN_PERCENT_SLOPE = 0.00368208; // fitted by Lichess on its own games (lila PR 11148)
const EVALUATION_CAP_PAWNS = 100;

const clamp = (x: number, min: number, max: number) => Math.min(max, Math.max(min, x));
/** Turns -0 into 0, so that a rounded -0.001 does not come out as "-0". */
const unsigned0 = (x: number) => x + 0;

function whiteCentipawns(score: Score): number {
  if ('cp' in score) return clamp(score.cp, -CP_CEILING, CP_CEILING);
  return score.winner === 'white' ? CP_CEILING : -CP_CEILING;
}

/** White's chance of winning, 0..100. */
export function winPercent(score: Score): number {
  const cp = whiteCentipawns(score);
  const winningChances = 2 / (1 + Math.exp(-WIN_PERCENT_SLOPE * cp)) - 1;
  return 50 + 50 * clamp(winningChances, -1, 1);
}

/**
 * Accuracy of one move, 0..100, from the mover's Win% before and after it: the curve Lichess
 * fitted through (0 → 100, 5 → 75, 10 → 60, 20 → 42, 40 → 20, 60 → 5, 80 → 0).
 */
export function moveAccuracy(winBefore: number, winAfter: number): number {
  if (winAfter >= winBefore) return 100;
  const drop = winBefore - winAfter;
  // lila adds +1 here (an "uncertainty bonus" for imperfect analysis); DESIGN 2.5 is our contract
  // and gives the bare curve, so we do not.
  const raw = 103.1668100711649 * Math.exp(-0.04354415386753951 * drop) - 3.166924740191411;
  return clamp(raw, 0, 100);
}

/** `drop` is the mover's Win% before the move minus after it. */
export function classifyMove(drop: number, playedBest: boolean): MoveClass {
  if (playedBest) return 'best';
  if (drop < 2) return 'excellent';
  if (drop < 5) return 'good';
  if (drop < 10) return 'inaccuracy';
  if (drop < 15) return 'mistake';
  return 'blunder';
}

/** Population standard deviation, as lila's Maths.standardDeviation. */
function standardDeviation(xs: readonly number[]): number {
  const mean = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  return Math.sqrt(xs.reduce((sum, x) => sum + (x - mean) ** 2, 0) / xs.length);
}

/** Scala's `sliding(size)`: a list shorter than the window still yields one window, the whole list. */
function sliding<T>(xs: readonly T[], size: number): T[][] {
  if (xs.length === 0) return [];
  if (xs.length <= size) return [xs.slice()];
  return Array.from({ length: xs.length - size + 1 }, (_, i) => xs.slice(i, i + size));
}

/**
 * One weight per move: how much Win% swings around it, so that a move in a sharp stretch of the
 * game counts more than one in a quiet or already decided stretch.
 */
function volatilityWeights(winPercents: readonly number[]): number[] {
  const plies = winPercents.length - 1;
  const windowSize = clamp(Math.floor(plies / 10), 2, 8);
  // The first moves get copies of the first window so that there is one window per move.
  const leading = Math.max(0, Math.min(windowSize, winPercents.length) - 2);
  const first = winPercents.slice(0, windowSize);
  const windows = [...Array.from({ length: leading }, () => first), ...sliding(winPercents, windowSize)];
  return windows.map((window) => clamp(standardDeviation(window), 0.5, 12));
}

/** Like lila's Maths.harmonicMean, values under 1 count as 1, so one 0% move does not zero it. */
function harmonicMean(xs: readonly number[]): number {
  return xs.length / xs.reduce((sum, x) => sum + 1 / Math.max(1, x), 0);
}

function weightedMean(pairs: readonly { value: number; weight: number }[]): number {
  const total = pairs.reduce((sum, p) => sum + p.weight, 0);
  return pairs.reduce((sum, p) => sum + p.value * p.weight, 0) / total;
}

/**
 * Each side's accuracy for a game: the mean of its volatility-weighted mean and its harmonic mean
 * of move accuracies (lila's AccuracyPercent.gameAccuracy).
 *
 * `winPercents` are White's Win% of every position: index 0 is the starting position (White to
 * move), index i the position after ply i. lila does not evaluate the start position: it
 * prepends a fixed Cp.initial = 15 (Win% ≈ 51.4); our caller passes the engine's own evaluation.
 */
export function gameAccuracy(winPercents: readonly number[]): GameAccuracy {
  const weights = volatilityWeights(winPercents);
  const moves: Record<'white' | 'black', { value: number; weight: number }[]> = { white: [], black: [] };
  for (let ply = 0; ply + 1 < winPercents.length; ply++) {
    const before = winPercents[ply]!;
    const after = winPercents[ply + 1]!;
    const weight = weights[ply]!;
    if (ply % 2 === 0) moves.white.push({ value: moveAccuracy(before, after), weight });
    // Black's Win% is 100 − White's: swapping White's before and after gives Black's drop exactly,
    // as lila does, without rounding through 100 − x.
    else moves.black.push({ value: moveAccuracy(after, before), weight });
  }
  const side = (own: { value: number; weight: number }[]) =>
    own.length === 0 ? null : (weightedMean(own) + harmonicMean(own.map((m) => m.value))) / 2;
  return { white: side(moves.white), black: side(moves.black) };
}

/**
 * The `evaluation` of the analysis object: pawns from White's point of view, capped at ±100; a
 * forced mate is ±100 with `mate` signed by the mating side (0 when the position is already mate).
 */
export function evaluationOf(score: Score): { evaluation: number; mate: number | null } {
  if ('cp' in score) {
    const pawns = clamp(score.cp / 100, -EVALUATION_CAP_PAWNS, EVALUATION_CAP_PAWNS);
    return { evaluation: unsigned0(Math.round(pawns * 100) / 100), mate: null };
  }
  const sign = score.winner === 'white' ? 1 : -1;
  return { evaluation: sign * EVALUATION_CAP_PAWNS, mate: unsigned0(sign * score.mate) };
}
