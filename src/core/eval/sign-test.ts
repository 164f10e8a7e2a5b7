/**
 * The sign test of matched pairs: under the null hypothesis that a positive and a negative difference
 * are equally likely, the number of positive ones among the n non-zero differences is Binomial(n, ½).
 * Two-sided exact p-value, zeros dropped (they say nothing about the direction), the same number as
 * `scipy.stats.binomtest(positive, n, 0.5).pvalue` in scipy 1.10.1.
 *
 * It is the same binomial test as the exact McNemar test (McNemar's discordant pairs are the non-zero
 * differences of two 0/1 outcomes), so it is computed by `mcnemarExact` (mcnemar.ts), one home for the
 * two-sided tail at ½. scipy's two-sided rule — sum the probabilities of all counts no more likely than
 * the observed one, "no more likely" with a relative tolerance of 1e−7 — gives exactly
 * min(1, 2 · P(X ≤ min(positive, negative))) at p = ½: the binomial is symmetric, and the pmf of two
 * different counts on one side of the mode differ by a factor of at least 1 + 1/(min + 1), which exceeds
 * 1 + 1e−7 for every count below 10⁷.
 *
 * Pure: no I/O.
 */
import { mcnemarExact } from "./mcnemar.js";

export type SignTestResult = { positive: number; negative: number; ties: number; pValue: number };

/**
 * Two-sided exact binomial sign test over the non-zero differences (ties dropped); p = 1 when all are
 * zero or there are none. Throws `RangeError` for a difference that is not a finite number.
 */
export function signTest(differences: readonly number[]): SignTestResult {
  let positive = 0;
  let negative = 0;
  let ties = 0;
  for (const d of differences) {
    if (!Number.isFinite(d)) throw new RangeError(`sign test needs finite differences, got ${d}`);
    if (d > 0) positive += 1;
    else if (d < 0) negative += 1;
    else ties += 1;
  }
  return { positive, negative, ties, pValue: mcnemarExact(positive, negative).pValue };
}
