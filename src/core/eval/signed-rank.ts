/**
 * The Wilcoxon signed-rank test of matched pairs (F. Wilcoxon (1945), "Individual Comparisons by Ranking
 * Methods", Biometrics Bulletin 1(6): 80–83), two-sided, with exactly the behaviour of
 * `scipy.stats.wilcoxon(d)` in scipy 1.10.1 under its defaults (zero_method "wilcox", no continuity
 * correction, mode "auto"), so that numbers can be checked against scipy and compared with work that
 * used it. The rules, in our words:
 *
 * - Zeros are dropped ("wilcox"); the others are ranked by |d| with tied values sharing their average
 *   rank. W+ and W− are the rank sums of the positive and negative differences; the statistic is
 *   min(W+, W−).
 * - Exact when the input has at most 50 differences AND none is zero (scipy counts the zeros towards the
 *   50 before dropping them, and leaves the exact method as soon as one zero is present): the p-value is
 *   2 · min(P(R ≤ w), P(R ≥ w)), capped at 1, under the null distribution of R, the rank sum of a random
 *   subset of {1, …, n}; exactly 1 when w is the centre ⌊n(n+1)/4⌋. Here w is W+ rounded DOWN to an
 *   integer: scipy keeps the exact method when |d| has ties and then truncates a half-integer W+
 *   (`int(r_plus)`), which is only approximately right for tied ranks — reproduced, not repaired, so the
 *   numbers stay scipy's.
 * - Otherwise the normal approximation with the tie correction and without continuity correction:
 *   z = (T − n(n+1)/4) / σ, σ² = (n(n+1)(2n+1) − ½ Σ t(t² − 1)) / 24 over the groups of t tied |d|, and
 *   p = 2 (1 − Φ(|z|)).
 *
 * Ties and zeros are exact floating-point equality, as scipy's `rankdata` and `d == 0` see them. A
 * difference of two rounded table values is not always the double nearest its decimal value
 * (0.930 − 0.912 ≠ 0.018 in binary): callers that mean decimal ties round the differences first, or
 * compute them from integers.
 *
 * Where this departs from scipy: no differences, or only zeros, give n = 0 and p = 1 here (scipy returns
 * NaN for an empty input and raises for all zeros), because "no evidence either way" is what a report
 * row needs.
 *
 * Pure: no I/O.
 */
import { normalSurvival } from "./normal-cdf.js";

export type SignedRankResult = {
  /** Non-zero differences used (zeros dropped, the "wilcox" zero method). */
  n: number;
  /** Differences equal to zero, dropped. */
  zeros: number;
  /** min(W+, W−), scipy's two-sided statistic. */
  statistic: number;
  /** Two-sided p-value; 1 when n = 0. */
  pValue: number;
  /** "exact" (the exact null distribution) or "normal" (normal approximation, tie-corrected). */
  method: "exact" | "normal";
};

/** scipy 1.10's mode "auto": the exact distribution for at most this many differences (zeros included). */
const EXACT_MAX = 50;

/**
 * The two-sided Wilcoxon signed-rank test of the paired differences (e.g. B − A per matched unit).
 * Throws `RangeError` for a difference that is not a finite number.
 */
export function wilcoxonSignedRank(differences: readonly number[]): SignedRankResult {
  for (const d of differences)
    if (!Number.isFinite(d)) throw new RangeError(`signed-rank test needs finite differences, got ${d}`);
  const nonZero = differences.filter((d) => d !== 0);
  const n = nonZero.length;
  const zeros = differences.length - n;
  const method = differences.length <= EXACT_MAX && zeros === 0 ? "exact" : "normal";
  if (n === 0) return { n, zeros, statistic: 0, pValue: 1, method };

  const { ranks, tieSizes } = averageRanks(nonZero.map(Math.abs));
  // Ranks are multiples of ½ far below 2⁵², so these sums are exact in any order.
  let plus = 0;
  let minus = 0;
  nonZero.forEach((d, i) => {
    if (d > 0) plus += ranks[i] as number;
    else minus += ranks[i] as number;
  });
  const statistic = Math.min(plus, minus);
  const pValue = method === "exact" ? exactPValue(n, Math.floor(plus)) : normalPValue(n, statistic, tieSizes);
  return { n, zeros, statistic, pValue, method };
}

/**
 * Average ranks (1-based) of `values` in input order, and the sizes of the groups of equal values that
 * have more than one member.
 */
function averageRanks(values: readonly number[]): { ranks: number[]; tieSizes: number[] } {
  const order = values.map((_, i) => i).sort((i, j) => (values[i] as number) - (values[j] as number));
  const ranks = new Array<number>(values.length);
  const tieSizes: number[] = [];
  for (let start = 0; start < order.length; ) {
    let end = start + 1;
    while (end < order.length && values[order[end] as number] === values[order[start] as number]) end += 1;
    const rank = (start + 1 + end) / 2; // mean of ranks start+1 … end
    for (let k = start; k < end; k += 1) ranks[order[k] as number] = rank;
    if (end - start > 1) tieSizes.push(end - start);
    start = end;
  }
  return { ranks, tieSizes };
}

/**
 * The exact two-sided p-value for W+ = `plus` (an integer) among n non-zero differences. The null
 * distribution is counted, not approximated: ways(s) = the number of subsets of {1, …, n} summing to s,
 * built one rank at a time (ways_k(s) = ways_{k−1}(s) + ways_{k−1}(s − k)). Every count and tail sum is
 * an integer ≤ 2ⁿ ≤ 2⁵⁰, exact in a double, and dividing by 2ⁿ is exact too, so the p-value is the
 * exact rational rounded once.
 */
function exactPValue(n: number, plus: number): number {
  const total = (n * (n + 1)) / 2;
  if (plus === Math.floor(total / 2)) return 1;
  const ways = new Array<number>(total + 1).fill(0);
  ways[0] = 1;
  for (let k = 1; k <= n; k += 1) {
    const top = (k * (k + 1)) / 2;
    for (let s = top; s >= k; s -= 1) ways[s] = (ways[s] as number) + (ways[s - k] as number);
  }
  let lower = 0;
  for (let s = 0; s <= plus; s += 1) lower += ways[s] as number;
  let upper = 0;
  for (let s = plus; s <= total; s += 1) upper += ways[s] as number;
  return Math.min(1, (2 * Math.min(lower, upper)) / 2 ** n);
}

/**
 * The normal-approximation two-sided p-value, in scipy's order of operations (so z is the same double):
 * mean n(n+1)/4, variance (n(n+1)(2n+1) − ½ Σ t(t² − 1)) / 24, no continuity correction.
 */
function normalPValue(n: number, statistic: number, tieSizes: readonly number[]): number {
  const mean = n * (n + 1) * 0.25;
  let variance24 = n * (n + 1) * (2 * n + 1);
  let tieTerm = 0;
  for (const t of tieSizes) tieTerm += t * (t * t - 1);
  variance24 -= 0.5 * tieTerm;
  const z = (statistic - mean) / Math.sqrt(variance24 / 24);
  return 2 * normalSurvival(Math.abs(z));
}
