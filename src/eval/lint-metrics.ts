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
import { aggregate, type ScoredInstance } from "../core/lint/metrics.js";
import type { LintGroup } from "./report-schema.js";
import { byProblem, type MetricsOptions, type TaskSamples } from "./task-samples.js";

/** LintEval's metrics of a group of lint tasks. */
export function lintGroup(items: readonly TaskSamples[], options: MetricsOptions): LintGroup {
  // A sample that could not be analyzed (no lint counts) is an instance outside P.
  const instances: ScoredInstance[] = items.flatMap((item) =>
    item.samples.map(({ lint, passed }) => ({
      counts:
        lint === null
          ? { original: 0, fixed: 0, introduced: 0 }
          : { original: lint.alerts_original, fixed: lint.alerts_fixed, introduced: lint.alerts_new },
      passed: passed && lint !== null,
      diffLines: lint?.diff_lines ?? 0,
    })),
  );
  const metrics = aggregate(instances);
  const pass1 = (sample: readonly TaskSamples[]) =>
    sample.length === 0
      ? null
      : mean(
          sample.map((t) =>
            t.samples.length === 0 ? 0 : t.samples.filter((s) => s.passed).length / t.samples.length,
          ),
        );
  return {
    instances: metrics.instances,
    passed: metrics.passed,
    pass_at_1: items.length === 0 ? null : bootstrapByGroup(byProblem(items), pass1, options.bootstrap),
    reduction_at_p: metrics.reductionAtP,
    new_at_p: metrics.newAtP,
    delta_line_at_p: metrics.deltaLineAtP,
    line_per_fix_at_p: metrics.linePerFixAtP,
    style_score: metrics.styleScore,
  };
}
