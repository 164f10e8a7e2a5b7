/**
 * A run's metrics (docs/eval.md; the over-editing paper's §3.1 "Metrics"), per group of tasks — all repair
 * tasks, each domain (in-domain / OOD), each exact family combination and each family ("contains"), each
 * retention suite — with cluster-bootstrap confidence intervals by problem (src/core/eval/bootstrap.ts).
 *
 * Denominators, and why:
 * - Pass@1 is over every evaluated task: c/n per task (c passing of its n samples, the unbiased pass@1),
 *   averaged over tasks. A sample that is an API error, missing, truncated, NO_CODE, UNPARSABLE, a sandbox
 *   fault or any failing verdict is a non-passing sample of its task, never left out. Tasks the ground-truth
 *   gate refused are not evaluated: the report lists them, and says how many.
 * - Excess, added CC (paper visitor), the shares of minimal (e ≤ 0) and over-edited (e > 0) repairs and
 *   token edits are means over the passing samples, pooled (each passing repair weighs one, as the paper's "averaged over passing
 *   repairs"); undefined (null) when nothing passes.
 * - Every interval resamples problems (a problem's variants are correlated), with the same seed for every
 *   metric, so the intervals of one run are computed on the same resamples.
 *
 * Lint tasks get LintEval's corpus-level metrics (lint-metrics.ts). Pure: no I/O.
 */
import { bootstrapByGroup } from "../core/eval/bootstrap.js";
import { mean } from "../core/eval/descriptive.js";
import { passAtK } from "../core/eval/pass-at-k.js";
import { familyGroupings } from "./eval-task.js";
import { lintGroup } from "./lint-metrics.js";
import { OUTCOMES, type Outcome, type SampleRecord, type TaskRecord } from "./records.js";
import type { GroupMetrics, LintGroup, RunReport } from "./report-schema.js";
import { byProblem, joinSamples, type MetricsOptions, type TaskSamples } from "./task-samples.js";

const passing = (items: readonly TaskSamples[]): SampleRecord[] =>
  items.flatMap((item) => item.samples.filter((s) => s.passed));

function meanOver(items: readonly TaskSamples[], value: (s: SampleRecord) => number | null): number | null {
  const values: number[] = [];
  for (const sample of passing(items)) {
    const v = value(sample);
    if (v !== null) values.push(v);
  }
  return mean(values);
}

/** 1 when a passing repair edits more than the gold (e(M) > 0), 0 when not, null without an excess. */
export function overEdited(sample: SampleRecord): number | null {
  return sample.excess === null ? null : sample.excess > 0 ? 1 : 0;
}

/** The metrics of one group of tasks. */
export function groupMetrics(items: readonly TaskSamples[], options: MetricsOptions): GroupMetrics {
  const groups = byProblem(items);
  const boot = <T>(g: readonly (readonly T[])[], statistic: (sample: readonly T[]) => number | null) =>
    items.length === 0 ? null : bootstrapByGroup(g, statistic, options.bootstrap);
  const passAt = (k: number) => (sample: readonly TaskSamples[]) =>
    sample.length === 0
      ? null
      : (mean(
          sample.map((t) => passAtK(t.samples.length, t.samples.filter((s) => s.passed).length, k)),
        ) as number);
  const n = Math.min(...items.map((t) => t.samples.length));
  const passAtKs: Record<string, GroupMetrics["pass_at_1"]> = {};
  for (const k of options.ks) {
    if (k > 1 && items.length > 0 && k <= n) passAtKs[String(k)] = boot(groups, passAt(k));
  }
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  let truncated = 0;
  let truncatedPassed = 0;
  let samples = 0;
  for (const item of items) {
    for (const sample of item.samples) {
      samples += 1;
      outcomes[sample.outcome] += 1;
      if (sample.truncated) {
        truncated += 1;
        if (sample.passed) truncatedPassed += 1;
      }
    }
  }
  const passed = passing(items);
  return {
    tasks: items.length,
    problems: groups.length,
    samples,
    passed_samples: passed.length,
    pass_at_1: boot(groups, passAt(1)),
    pass_at_k: passAtKs,
    excess: boot(groups, (s) => meanOver(s, (x) => x.excess)),
    added_cc: boot(groups, (s) => meanOver(s, (x) => x.added_cc)),
    added_cc_sonar: meanOver(items, (x) => x.added_cc_sonar),
    minimal_share: boot(groups, (s) =>
      meanOver(s, (x) => (x.excess === null ? null : x.excess <= 0 ? 1 : 0)),
    ),
    // The complement of minimal_share on the same resamples (the paper's Table 18 "Over-edit" column,
    // defined nowhere in its code: see docs/eval.md).
    over_edit_share: boot(groups, (s) => meanOver(s, overEdited)),
    token_edits: boot(groups, (s) => meanOver(s, (x) => x.token_edits)),
    outcomes,
    truncated,
    truncated_passed: truncatedPassed,
  };
}

/** Items keyed by a group name, in first-appearance order of the names. */
function partition<T>(items: readonly T[], keys: (item: T) => readonly string[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    for (const key of keys(item)) {
      let list = out.get(key);
      if (list === undefined) {
        list = [];
        out.set(key, list);
      }
      list.push(item);
    }
  }
  return out;
}

/** Sorted record of group metrics. */
function metricsBy(
  items: readonly TaskSamples[],
  keys: (item: TaskSamples) => readonly string[],
  options: MetricsOptions,
): Record<string, GroupMetrics & { domain: string }> {
  const parts = partition(items, keys);
  const out: Record<string, GroupMetrics & { domain: string }> = {};
  for (const name of [...parts.keys()].sort()) {
    const members = parts.get(name) as TaskSamples[];
    const domains = new Set(members.map((m) => m.task.domain));
    out[name] = {
      ...groupMetrics(members, options),
      domain: domains.size === 1 ? ([...domains][0] as string) : "mixed",
    };
  }
  return out;
}

const DOMAIN_ORDER = ["in-domain", "ood", "mixed", "unknown"];

/** Everything the report says about one run, given its manifest fields, tasks and samples. */
export function runReport(
  run: Pick<
    RunReport,
    "name" | "model" | "endpoint" | "prompt" | "samples_per_task" | "scope" | "reward_version"
  >,
  tasks: readonly TaskRecord[],
  samples: readonly SampleRecord[],
  options: MetricsOptions,
  taskSet: RunReport["task_set"],
): RunReport {
  const joined = joinSamples(tasks, samples);
  const repair = joined.filter((t) => t.task.kind === "repair");
  const lint = joined.filter((t) => t.task.kind === "lint");
  const generation = joined.filter((t) => t.task.kind === "generation");
  const domainParts = partition(repair, (t) => [t.task.domain]);
  const domains: Record<string, GroupMetrics> = {};
  const rank = (domain: string) =>
    DOMAIN_ORDER.includes(domain) ? DOMAIN_ORDER.indexOf(domain) : DOMAIN_ORDER.length;
  const orderedDomains = [...domainParts.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const name of orderedDomains)
    domains[name] = groupMetrics(domainParts.get(name) as TaskSamples[], options);
  const retention: Record<string, GroupMetrics> = {};
  const suites = partition(generation, (t) => [t.task.domain.replace(/^retention:/, "")]);
  for (const name of [...suites.keys()].sort())
    retention[name] = groupMetrics(suites.get(name) as TaskSamples[], options);
  let lintReport: RunReport["lint"] = null;
  if (lint.length > 0) {
    const languages: Record<string, LintGroup> = {};
    const parts = partition(lint, (t) => [t.task.language]);
    for (const name of [...parts.keys()].sort())
      languages[name] = lintGroup(parts.get(name) as TaskSamples[], options);
    lintReport = { overall: lintGroup(lint, options), languages };
  }
  return {
    ...run,
    tasks: {
      total: tasks.length,
      evaluated: joined.length,
      excluded: tasks.flatMap((t) =>
        t.excluded === null ? [] : [{ task_id: t.task_id, reason: t.excluded }],
      ),
    },
    overall: repair.length === 0 ? null : groupMetrics(repair, options),
    domains,
    families: familyGroupings(repair, (tasks, keys) => metricsBy(tasks, keys, options)),
    lint: lintReport,
    retention,
    task_set: taskSet,
  };
}
