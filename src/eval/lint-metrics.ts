/**
 * LintEval's metrics (docs/lint.md; src/core/lint/metrics.ts has the definitions) for the lint tasks of an
 * evaluation, from the counts the scorer reports per sample (|Orig|, Fixed, New) and the unified-diff
 * lines of each revision. Every sample is an instance: N = tasks × n, P = the passing samples, and a
 * sample that failed, was not generated or could not be analyzed is an instance outside P (its style
 * score is 0). Pass@1 gets the same cluster-bootstrap interval as the repair metrics; the corpus-level
 * ratios are reported as LintEval defines them, without intervals. Per alert category needs the alerts
 * themselves: `minedit lint report` gives it.
 *
 * Pure: no I/O.
 */
import { bootstrapByGroup } from "../core/eval/bootstrap.js";
import { mean } from "../core/eval/descriptive.js";
import { styleScore } from "../core/lint/metrics.js";
import type { LintGroup } from "./report-schema.js";
import { byProblem, type MetricsOptions, type TaskSamples } from "./task-samples.js";

const ratio = (numerator: number, denominator: number): number | null =>
  denominator === 0 ? null : numerator / denominator;

/** LintEval's metrics of a group of lint tasks. */
export function lintGroup(items: readonly TaskSamples[], options: MetricsOptions): LintGroup {
  let instances = 0;
  let passed = 0;
  let original = 0;
  let fixed = 0;
  let introduced = 0;
  let lines = 0;
  let scores = 0;
  for (const item of items) {
    for (const sample of item.samples) {
      instances += 1;
      const lint = sample.lint;
      const counts =
        lint === null
          ? { original: 0, fixed: 0, introduced: 0 }
          : { original: lint.alerts_original, fixed: lint.alerts_fixed, introduced: lint.alerts_new };
      scores += styleScore(counts, sample.passed && lint !== null);
      if (!sample.passed || lint === null) continue;
      passed += 1;
      original += counts.original;
      fixed += counts.fixed;
      introduced += counts.introduced;
      lines += lint.diff_lines;
    }
  }
  const pass1 = (sample: readonly TaskSamples[]) =>
    sample.length === 0
      ? null
      : mean(
          sample.map((t) =>
            t.samples.length === 0 ? 0 : t.samples.filter((s) => s.passed).length / t.samples.length,
          ),
        );
  return {
    instances,
    passed,
    pass_at_1: items.length === 0 ? null : bootstrapByGroup(byProblem(items), pass1, options.bootstrap),
    reduction_at_p: ratio(fixed - introduced, original),
    new_at_p: ratio(introduced, original),
    delta_line_at_p: ratio(lines, passed),
    line_per_fix_at_p: ratio(lines, fixed),
    style_score: ratio(scores, instances),
  };
}
