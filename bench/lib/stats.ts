/**
 * Small statistics helpers: percentiles of latency samples and medians across runs.
 *
 * @module
 */

/** The `p`-th percentile (0..100) of `sorted` (ascending), nearest-rank. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The median of `values`, ignoring non-finite ones (NaN when none are left). */
export function median(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 === 1 ? (finite[mid] as number) : ((finite[mid - 1] as number) + (finite[mid] as number)) / 2;
}

/** Sorts a copy of the samples ascending. */
export function sorted(samples: readonly number[]): Float64Array {
  return Float64Array.from(samples).sort();
}
