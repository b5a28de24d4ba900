// Percentiles of latencies and other samples, one definition for every benchmark and test: the
// value at rank floor(p × (n − 1)) of the samples in ascending order (numpy's "lower"), so p = 1
// is the maximum, p = 0.5 the lower median, and every figure is a sample that was measured.

const ascending = (values: readonly number[]) => Float64Array.from(values).sort();
const rank = (sorted: Float64Array, p: number) => (sorted.length ? sorted[Math.floor(p * (sorted.length - 1))] : NaN);

/** The value at fraction `p` (0 to 1) of `values`; NaN when there are none. */
export const percentile = (values: readonly number[], p: number): number => rank(ascending(values), p);

export type Percentiles = { p50: number; p90: number; p99: number; max: number };

/** The median, p90, p99 and maximum of `values`, rounded to `digits` decimals (NaN, null in JSON, when there are none). */
export function percentiles(values: readonly number[], digits = 2): Percentiles {
  const sorted = ascending(values);
  const at = (p: number) => Number(rank(sorted, p).toFixed(digits));
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
}
