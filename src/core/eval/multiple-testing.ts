/**
 * Holm's step-down correction for testing many families at once (issue 14 item 5: one McNemar test per
 * corruption family): it controls the family-wise error rate at α under any dependence between the tests,
 * and is uniformly more powerful than Bonferroni. S. Holm (1979), "A Simple Sequentially Rejective Multiple
 * Test Procedure", Scand. J. Statist. 6:65–70; adjusted p-values as R's `p.adjust(method = "holm")`.
 *
 * Pure: no I/O.
 */

/**
 * Holm-adjusted p-values, in the input order: with the m p-values sorted ascending p₍₁₎ ≤ … ≤ p₍ₘ₎,
 *
 *   p̃₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1) · p₍ⱼ₎),
 *
 * so they never decrease along the sorted order and never exceed 1. Rejecting the hypotheses with
 * p̃ ≤ α is Holm's procedure at level α. Ties get equal adjusted values whatever their order.
 *
 * Throws `RangeError` when a p-value is not in [0, 1] (NaN included).
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  for (const p of pValues)
    if (!(p >= 0 && p <= 1)) throw new RangeError(`p-value must be in [0, 1], got ${p}`);
  const m = pValues.length;
  const order = pValues
    .map((_, index) => index)
    .sort((x, y) => (pValues[x] as number) - (pValues[y] as number));
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * (pValues[index] as number)));
    adjusted[index] = running;
  });
  return adjusted;
}
