/**
 * The bootstrap interval of a mean paired difference when the matched units are independent (e.g. the
 * settings of a published table, each one measured under condition A and condition B): each unit is its
 * own resampling group of `bootstrapByGroup` (bootstrap.ts), so a resample draws whole pairs and keeps
 * A and B of a unit together. When units are clustered (several tasks from one problem), call
 * `bootstrapByGroup` with the clusters instead.
 *
 * Pure: no I/O.
 */
import { type BootstrapOptions, bootstrapByGroup, type Interval } from "./bootstrap.js";
import { meanDifference } from "./paired-effects.js";

/**
 * The percentile bootstrap interval of mean(b − a) over `pairs` of [a, b]; `estimate` is that mean on
 * the pairs given. Options and reproducibility as `bootstrapByGroup`. Throws `RangeError` for no pairs
 * or a non-finite value.
 */
export function pairedMeanDifferenceInterval(
  pairs: readonly (readonly [number, number])[],
  options: BootstrapOptions = {},
): Interval {
  if (pairs.length === 0) throw new RangeError("paired bootstrap of no pairs");
  const swapped = pairs.map(([a, b]) => [b, a] as const);
  const interval = bootstrapByGroup(
    swapped.map((pair) => [pair]),
    (sample) => meanDifference(sample),
    options,
  );
  // Every resample of ≥ 1 pair has a mean, so the interval exists.
  return interval as Interval;
}
