/**
 * Descriptive statistics of a list of numbers: mean, median and quantiles, as the evaluation reports
 * them. An empty list has no mean or median, so those return `null` — the same "undefined on this sample"
 * the statistics of `bootstrapByGroup` return, so `(s) => mean(s.map(f))` is a valid bootstrap statistic.
 *
 * Pure: no I/O. Sums in index order, so the same input gives the same bits everywhere.
 */

/** Arithmetic mean; `null` for an empty list. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Median (the mean of the two middle values for an even count); `null` for an empty list. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return quantileOfSorted(
    [...values].sort((x, y) => x - y),
    0.5,
  );
}

/**
 * The p-quantile of values already sorted ascending, by linear interpolation between order statistics
 * (R type 7, NumPy's default, the same definition as the task-set report): with h = (n − 1)p, 0-based,
 * q = x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋ + 1] − x[⌊h⌋]).
 *
 * Throws `RangeError` for an empty list or p outside [0, 1]. The order is not checked.
 */
export function quantileOfSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError("quantile of an empty list");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile level must be in [0, 1], got ${p}`);
  const h = (sorted.length - 1) * p;
  const below = Math.floor(h);
  const low = sorted[below] as number;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return low + (h - below) * (high - low);
}
