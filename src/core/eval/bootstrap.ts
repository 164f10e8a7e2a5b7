/**
 * Percentile bootstrap confidence intervals resampled by group (issue 14 item 4): a problem yields
 * several tasks, whose outcomes are correlated (same gold program, same tests), so the independent units
 * are problems. Resampling tasks one by one would treat correlated tasks as independent evidence and give
 * intervals too narrow; resampling whole problems — the cluster bootstrap, Davison & Hinkley (1997),
 * "Bootstrap Methods and their Application", §3.8 — keeps the correlation inside each draw. The interval
 * is the percentile interval of Efron & Tibshirani (1993), "An Introduction to the Bootstrap", ch. 13.
 *
 * A paired comparison is the same call on groups of task pairs (run A's and run B's outcome on one task)
 * with a paired statistic such as `meanDifference`: both runs are then resampled together.
 *
 * Reproducible: the draws come from `seededRandom` (mulberry32 over the FNV-1a hash of the seed's text,
 * pure 32-bit integer arithmetic), so the same groups, options, seed and a deterministic statistic give the same interval
 * bit for bit on every machine. The same seed and group count give the same draws in every call (common
 * random numbers), so intervals of different metrics on one task set use the same resamples.
 *
 * Pure: no I/O.
 */
import { seededRandom } from "../corruption/engine.js";
import { quantileOfSorted } from "./descriptive.js";

/** A point estimate with a confidence interval, in the unit of the statistic. */
export type Interval = { estimate: number; low: number; high: number };

/**
 * How to bootstrap: `resamples` (default 2000) draws, from the generator seeded with `seed` (default 0),
 * for a two-sided interval of coverage `level` (default 0.95).
 */
export type BootstrapOptions = { resamples?: number; seed?: number; level?: number };

/**
 * The cluster-bootstrap percentile interval of `statistic`.
 *
 * - `estimate` is the statistic of the original sample: every group's items, concatenated in order.
 * - Each of `resamples` resamples draws `groups.length` groups uniformly with replacement (group index
 *   ⌊u · groups.length⌋ for the next generator number u), concatenates their items in draw order and
 *   applies `statistic` to that. `low` and `high` are the (1 − level)/2 and (1 + level)/2 quantiles of the
 *   resampled statistics (linear interpolation, R type 7).
 * - `statistic` returns `null` where it is undefined (e.g. mean excess over passing repairs when none
 *   passes). Null on the original sample → the result is `null`. Null resamples are skipped, so the
 *   interval describes the resamples where the statistic exists; when fewer than half of them are usable
 *   the result is `null` as well, because the interval would then describe a minority of the resamples —
 *   conditioned on an event that is itself unlikely — and read as far more certain than the data allow.
 *
 * The sample passed to `statistic` is a fresh array each call. Throws `RangeError` when `statistic`
 * returns a non-finite number, or for `resamples` not an integer ≥ 1, `level` outside (0, 1), a
 * non-finite `seed`.
 */
export function bootstrapByGroup<T>(
  groups: readonly (readonly T[])[],
  statistic: (sample: readonly T[]) => number | null,
  options: BootstrapOptions = {},
): Interval | null {
  const resamples = options.resamples ?? 2000;
  const level = options.level ?? 0.95;
  const seed = options.seed ?? 0;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`bootstrap resamples must be an integer ≥ 1, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrap level must be in (0, 1), got ${level}`);
  if (!Number.isFinite(seed)) throw new RangeError(`bootstrap seed must be a finite number, got ${seed}`);

  const estimate = checked(
    statistic(
      concatenate(
        groups,
        groups.map((_, index) => index),
      ),
    ),
  );
  if (estimate === null) return null;

  const random = seededRandom(seed);
  const drawn = new Array<number>(groups.length);
  const values: number[] = [];
  for (let r = 0; r < resamples; r += 1) {
    for (let slot = 0; slot < groups.length; slot += 1) drawn[slot] = Math.floor(random() * groups.length);
    const value = checked(statistic(concatenate(groups, drawn)));
    if (value !== null) values.push(value);
  }
  if (values.length * 2 < resamples) return null;
  values.sort((x, y) => x - y);
  return {
    estimate,
    low: quantileOfSorted(values, (1 - level) / 2),
    high: quantileOfSorted(values, (1 + level) / 2),
  };
}

/** The items of the groups at `indices`, in that order. */
function concatenate<T>(groups: readonly (readonly T[])[], indices: readonly number[]): T[] {
  const sample: T[] = [];
  for (const index of indices) for (const item of groups[index] as readonly T[]) sample.push(item);
  return sample;
}

function checked(value: number | null): number | null {
  if (value !== null && !Number.isFinite(value))
    throw new RangeError(`bootstrap statistic must return a finite number or null, got ${value}`);
  return value;
}
