/**
 * Effect sizes of a paired comparison of two runs A and B on the same tasks (issue 14 item 5): index i of
 * both inputs is the same task. Reported with bootstrap intervals by the comparison; McNemar's test takes
 * the discordant counts of {@link pairedTable}.
 *
 * Pure: no I/O.
 */

/** The 2×2 table of paired pass/fail outcomes: how many tasks both runs pass, only A, only B, neither. */
export type PairedTable = { both: number; onlyA: number; onlyB: number; neither: number };

/** Counts the paired outcomes. Throws `RangeError` when the two lists differ in length. */
export function pairedTable(a: readonly boolean[], b: readonly boolean[]): PairedTable {
  checkSameLength(a.length, b.length);
  const table = { both: 0, onlyA: 0, onlyB: 0, neither: 0 };
  for (let i = 0; i < a.length; i += 1) {
    if (a[i]) {
      if (b[i]) table.both += 1;
      else table.onlyA += 1;
    } else if (b[i]) table.onlyB += 1;
    else table.neither += 1;
  }
  return table;
}

/**
 * The paired risk difference: pass rate of A minus pass rate of B over the same tasks, in [−1, 1]
 * (a fraction, not percentage points). Equals (onlyA − onlyB) / n: only discordant tasks move it, which
 * is why McNemar's test looks at them alone.
 *
 * Throws `RangeError` when the lists differ in length or are empty (no tasks: no rate). Inside a
 * bootstrap statistic, guard with `a.length === 0 ? null : …`.
 */
export function riskDifference(a: readonly boolean[], b: readonly boolean[]): number {
  const table = pairedTable(a, b);
  if (a.length === 0) throw new RangeError("risk difference of no tasks");
  return (table.onlyA - table.onlyB) / a.length;
}

/**
 * The mean paired difference: the mean of a − b over pairs [a, b] of one task's values in runs A and B
 * (e.g. excess edit distance over repairs both runs pass), in the unit of the values.
 *
 * Throws `RangeError` for no pairs. Inside a bootstrap statistic, guard with `pairs.length === 0 ? null : …`.
 */
export function meanDifference(pairs: readonly (readonly [number, number])[]): number {
  if (pairs.length === 0) throw new RangeError("mean difference of no pairs");
  let sum = 0;
  for (const [a, b] of pairs) sum += a - b;
  return sum / pairs.length;
}

function checkSameLength(a: number, b: number): void {
  if (a !== b) throw new RangeError(`paired runs must cover the same tasks: ${a} vs ${b} outcomes`);
}
