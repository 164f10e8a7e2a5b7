/**
 * The JSON reports of `minedit eval`, versioned and validated when read back: `report.json` (one or more
 * runs' metrics, {@link REPORT_VERSION}) and `compare.json` (a paired comparison of two runs,
 * {@link COMPARE_VERSION}). docs/eval.md documents every field; the version changes whenever a field's
 * meaning does, so a report read months later says which definitions it used.
 *
 * Conventions: an {@link IntervalSchema} is a point estimate with its bootstrap confidence interval
 * (cluster bootstrap by problem, seeded; `statistics` says how); `null` where the quantity is undefined
 * (no task, or no passing repair to average over). Rates are fractions in [0, 1], not percentages.
 *
 * Pure: no I/O.
 */
import { z } from "zod";
import { OUTCOMES } from "./records.js";

export const REPORT_VERSION = "minedit-eval-report/1";
export const COMPARE_VERSION = "minedit-eval-compare/1";

export const IntervalSchema = z.object({ estimate: z.number(), low: z.number(), high: z.number() });
export type IntervalValue = z.output<typeof IntervalSchema>;

const MaybeInterval = IntervalSchema.nullable();

/** How the intervals were computed. */
export const StatisticsSchema = z.object({
  method: z.literal("cluster-bootstrap-percentile"),
  unit: z.literal("problem"),
  resamples: z.number().int(),
  seed: z.number(),
  level: z.number(),
});
export type Statistics = z.output<typeof StatisticsSchema>;

/** The metrics of one group of tasks (all, a domain, a family, a suite). */
export const GroupMetricsSchema = z.object({
  tasks: z.number().int(),
  problems: z.number().int(),
  /** Samples in the denominator: tasks × n. */
  samples: z.number().int(),
  passed_samples: z.number().int(),
  /** Mean over tasks of pass@1 = c/n (c passing of n samples): over every task, failures of every kind included. */
  pass_at_1: MaybeInterval,
  /** Unbiased pass@k (Chen et al. 2021) for each k ≤ n asked for. */
  pass_at_k: z.record(z.string(), MaybeInterval),
  /** Mean e(M) = d(M, C) − d(G, C) over passing samples. */
  excess: MaybeInterval,
  /** Mean CC(M) − CC(G), paper visitor, over passing samples. */
  added_cc: MaybeInterval,
  /** Mean added CC with SonarSource's rules over passing samples (no interval). */
  added_cc_sonar: z.number().nullable(),
  /** Share of passing samples with e(M) ≤ 0 (at most the gold's edits). */
  minimal_share: MaybeInterval,
  /**
   * Share of passing samples with e(M) > 0 (more edits than the gold's): the over-edit share, the
   * complement of `minimal_share` over the same samples (passing samples without an excess count in neither).
   */
  over_edit_share: MaybeInterval,
  /** Mean raw token edits Levenshtein(tokens(M), tokens(C)) over passing samples. */
  token_edits: MaybeInterval,
  /** Samples per outcome (every outcome listed, zeros included); they sum to `samples`. */
  outcomes: z.record(z.enum(OUTCOMES), z.number().int()),
  /** Samples stopped at max_tokens, and how many of those still passed. */
  truncated: z.number().int(),
  truncated_passed: z.number().int(),
});
export type GroupMetrics = z.output<typeof GroupMetricsSchema>;

/** LintEval's metrics (docs/lint.md) over a run's lint tasks, computed from the counts of each sample. */
export const LintGroupSchema = z.object({
  instances: z.number().int(),
  passed: z.number().int(),
  pass_at_1: MaybeInterval,
  reduction_at_p: z.number().nullable(),
  new_at_p: z.number().nullable(),
  delta_line_at_p: z.number().nullable(),
  line_per_fix_at_p: z.number().nullable(),
  style_score: z.number().nullable(),
});
export type LintGroup = z.output<typeof LintGroupSchema>;

const FamilyMetricsSchema = GroupMetricsSchema.extend({ domain: z.string() });

const SummarySchema = z.object({
  count: z.number().int(),
  mean: z.number().nullable(),
  median: z.number().nullable(),
  q1: z.number().nullable(),
  q3: z.number().nullable(),
  p95: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
});

export const RunReportSchema = z.object({
  name: z.string(),
  model: z.string().nullable(),
  endpoint: z.string().nullable(),
  prompt: z.string(),
  samples_per_task: z.number().int(),
  scope: z.string(),
  reward_version: z.string(),
  tasks: z.object({
    total: z.number().int(),
    evaluated: z.number().int(),
    excluded: z.array(z.object({ task_id: z.string(), reason: z.string() })),
  }),
  overall: GroupMetricsSchema.nullable(),
  domains: z.record(z.string(), GroupMetricsSchema),
  families: z.object({
    /** By exact family combination (`a + b`). */
    exact: z.record(z.string(), FamilyMetricsSchema),
    /** By family: every task that contains it. */
    contains: z.record(z.string(), FamilyMetricsSchema),
  }),
  lint: z.object({ overall: LintGroupSchema, languages: z.record(z.string(), LintGroupSchema) }).nullable(),
  retention: z.record(z.string(), GroupMetricsSchema),
  /** The evaluated repair tasks (the paper's Tables 7–8): per function of G, and d_tok(G, C) per task. */
  task_set: z.object({
    executable_lines: SummarySchema,
    tokens: SummarySchema,
    gold_token_edits: SummarySchema,
  }),
});
export type RunReport = z.output<typeof RunReportSchema>;

export const ReportSchema = z.object({
  v: z.literal(REPORT_VERSION),
  statistics: StatisticsSchema,
  runs: z.array(RunReportSchema),
});
export type Report = z.output<typeof ReportSchema>;

/**
 * Two-sided tests of the per-task paired differences B − A of an edit metric over the joint-passing
 * tasks: the Wilcoxon signed-rank test and the sign test, both as scipy 1.10.1 computes them
 * (src/core/eval/signed-rank.ts, sign-test.ts). Zeros (tasks where both runs agree) are dropped by both.
 */
export const PairedTestsSchema = z.object({
  wilcoxon: z.object({
    /** Non-zero differences ranked; `zeros` dropped. */
    n: z.number().int(),
    zeros: z.number().int(),
    /** min(W+, W−). */
    statistic: z.number(),
    p_value: z.number(),
    /** "exact" null distribution (≤ 50 differences, no zero) or tie-corrected "normal" approximation. */
    method: z.enum(["exact", "normal"]),
  }),
  sign: z.object({
    positive: z.number().int(),
    negative: z.number().int(),
    ties: z.number().int(),
    p_value: z.number(),
  }),
});
export type PairedTests = z.output<typeof PairedTestsSchema>;

/** One paired comparison of runs A and B on a group of tasks both evaluated. Deltas are B − A. */
export const PairedMetricsSchema = z.object({
  tasks: z.number().int(),
  problems: z.number().int(),
  pass_a: z.number().nullable(),
  pass_b: z.number().nullable(),
  /** pass@1 of B minus A, with a paired bootstrap interval (both runs resampled together, by problem). */
  pass_delta: MaybeInterval,
  /** Exact McNemar test on the paired (task, sample) outcomes; `p_holm` adjusted across the families of a set. */
  mcnemar: z.object({
    both: z.number().int(),
    only_a: z.number().int(),
    only_b: z.number().int(),
    neither: z.number().int(),
    p_value: z.number(),
    p_holm: z.number().nullable(),
  }),
  /** Tasks both runs repair (at least one passing sample each): what the edit deltas average over. */
  joint_passing: z.number().int(),
  excess_a: z.number().nullable(),
  excess_b: z.number().nullable(),
  excess_delta: MaybeInterval,
  /** Signed-rank and sign test of the per-task excess differences (null: no joint-passing task). */
  excess_tests: PairedTestsSchema.nullable(),
  added_cc_a: z.number().nullable(),
  added_cc_b: z.number().nullable(),
  added_cc_delta: MaybeInterval,
  added_cc_tests: PairedTestsSchema.nullable(),
  /** Over-edit share (passing samples with e > 0) per joint-passing task, averaged, and its paired delta. */
  over_edit_a: z.number().nullable(),
  over_edit_b: z.number().nullable(),
  over_edit_delta: MaybeInterval,
  /** Minimum detectable effects at `alpha`/`power` for this task count (null: none detectable). */
  mde: z.object({
    pass: z.number().nullable(),
    excess: z.number().nullable(),
    added_cc: z.number().nullable(),
    over_edit: z.number().nullable(),
  }),
});
export type PairedMetrics = z.output<typeof PairedMetricsSchema>;

const PairedFamilySchema = PairedMetricsSchema.extend({ domain: z.string() });

export const CompareReportSchema = z.object({
  v: z.literal(COMPARE_VERSION),
  statistics: StatisticsSchema,
  alpha: z.number(),
  power: z.number(),
  a: RunReportSchema,
  b: RunReportSchema,
  paired: z.object({
    tasks: z.number().int(),
    /** Tasks of either run that are not in the comparison, and why. */
    unpaired: z.array(z.object({ task_id: z.string(), reason: z.string() })),
  }),
  overall: PairedMetricsSchema.nullable(),
  domains: z.record(z.string(), PairedMetricsSchema),
  families: z.object({
    exact: z.record(z.string(), PairedFamilySchema),
    contains: z.record(z.string(), PairedFamilySchema),
  }),
  retention: z.record(z.string(), PairedMetricsSchema),
});
export type CompareReport = z.output<typeof CompareReportSchema>;

/** The default statistics: 2000 resamples, seed 0, 95 %. */
export const DEFAULT_STATISTICS: Statistics = {
  method: "cluster-bootstrap-percentile",
  unit: "problem",
  resamples: 2000,
  seed: 0,
  level: 0.95,
};
