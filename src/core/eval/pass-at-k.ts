/**
 * The unbiased pass@k estimator of Chen et al. (2021), "Evaluating Large Language Models Trained on Code",
 * §2.1 eq. (1): with n samples of a task of which c pass, the probability that at least one of k samples
 * drawn without replacement from those n passes,
 *
 *   pass@k = 1 − C(n − c, k) / C(n, k).
 *
 * Averaged over tasks it is an unbiased estimate of the pass@k of the model (drawing k fresh samples),
 * unlike 1 − (1 − c/n)^k, which is biased low. Pure: no I/O.
 */

/**
 * pass@k for one task: n samples, c of them passing, k ≤ n. Returns a probability in [0, 1].
 *
 * Computed from the paper's numerically stable product (its Figure 3),
 * C(n − c, k) / C(n, k) = ∏_{i = n − c + 1}^{n} (1 − k / i), so no binomial coefficient is ever formed
 * and large n does not overflow — here summed in log space, pass@k = −expm1(Σ log1p(−k / i)), so a small
 * pass@k (1 − a product near 1) keeps its relative precision too. Identities: pass@1 = c / n; c = 0 gives
 * 0; n − c < k gives 1 (every draw of k must contain a passing sample).
 *
 * Throws `RangeError` unless n, c and k are integers with 0 ≤ c ≤ n and 1 ≤ k ≤ n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k))
    throw new RangeError(`pass@k needs integers, got n=${n}, c=${c}, k=${k}`);
  if (n < 1 || c < 0 || c > n) throw new RangeError(`pass@k needs 0 ≤ c ≤ n and n ≥ 1, got n=${n}, c=${c}`);
  if (k < 1 || k > n) throw new RangeError(`pass@k needs 1 ≤ k ≤ n, got k=${k}, n=${n}`);
  if (c === 0) return 0;
  if (n - c < k) return 1;
  let logAllFail = 0;
  for (let i = n - c + 1; i <= n; i += 1) logAllFail += Math.log1p(-k / i);
  return -Math.expm1(logAllFail);
}
