/**
 * The paired comparison of two runs on the same tasks (issue 14 item 5): did B repair as often as A, and
 * does it edit less? Tasks are paired by id; a task only one run evaluated (or the gate excluded in
 * either) is left out and listed, so both sides of every number cover the same tasks.
 *
 * Per group of paired tasks (all, each domain, each family and family combination, each retention
 * suite), all deltas B − A:
 * - pass@1 delta with a paired cluster-bootstrap interval (both runs' outcomes of a problem resampled
 *   together): `riskDifference` of the outcomes when both runs have one sample per task, else
 *   `meanDifference` of the per-task pass@1 — the same number for n = 1;
 * - exact McNemar on the paired outcomes — (task, sample index) pairs for the indices both runs have
 *   (with n > 1 those pairs are not independent: then the bootstrap interval, which resamples problems,
 *   is the one to read) — with Holm-adjusted p-values across the families of each family set;
 * - excess and added CC (paper visitor) deltas over the tasks both runs repair ("joint passing": each
 *   task's mean over its passing samples, in each run), with paired bootstrap intervals, and two-sided
 *   Wilcoxon signed-rank and sign-test p-values of the per-task differences (as scipy 1.10.1 computes
 *   them); the over-edit share (passing samples with e > 0) per joint-passing task the same way, with an
 *   interval only. Pass@1 keeps the exact McNemar test: its per-task differences with one sample are
 *   −1/0/+1, on which the sign test IS McNemar's test and a signed-rank test would only rank ties;
 * - the minimum detectable effect of each at α and power for this task count: the pass-rate MDE from the
 *   observed discordant rate (Connor 1987), the mean MDEs from the observed SD of the per-task deltas.
 *
 * Pure: no I/O.
 */
import { bootstrapByGroup } from "../core/eval/bootstrap.js";
import { mean } from "../core/eval/descriptive.js";
import { mcnemarExact } from "../core/eval/mcnemar.js";
import { holmAdjust } from "../core/eval/multiple-testing.js";
import { meanDifference, pairedTable, riskDifference } from "../core/eval/paired-effects.js";
import { mdePairedMean, mdePairedProportion } from "../core/eval/power.js";
import { signTest } from "../core/eval/sign-test.js";
import { wilcoxonSignedRank } from "../core/eval/signed-rank.js";
import { familyGroupings } from "./eval-task.js";
import { overEdited } from "./metrics.js";
import type { SampleRecord, TaskRecord } from "./records.js";
import {
  COMPARE_VERSION,
  type CompareReport,
  type PairedMetrics,
  type PairedTests,
  type RunReport,
  type Statistics,
} from "./report-schema.js";
import { byProblem, joinSamples } from "./task-samples.js";

/** One run as the comparison reads it. */
export type ComparedRun = {
  report: RunReport;
  tasks: readonly TaskRecord[];
  samples: readonly SampleRecord[];
};

export type CompareOptions = {
  statistics: Statistics;
  alpha: number;
  power: number;
};

/** One task of both runs. */
export type TaskPair = { task: TaskRecord; a: SampleRecord[]; b: SampleRecord[] };

const rate = (samples: readonly SampleRecord[]) =>
  samples.length === 0 ? 0 : samples.filter((s) => s.passed).length / samples.length;

function passingMean(
  samples: readonly SampleRecord[],
  value: (s: SampleRecord) => number | null,
): number | null {
  const values = samples
    .filter((s) => s.passed)
    .flatMap((s) => {
      const v = value(s);
      return v === null ? [] : [v];
    });
  return mean(values);
}

/** Pairs the two runs' evaluated tasks by id; the rest are listed with why. */
export function pairTasks(
  a: ComparedRun,
  b: ComparedRun,
): { pairs: TaskPair[]; unpaired: { task_id: string; reason: string }[] } {
  const joinedA = new Map(joinSamples(a.tasks, a.samples).map((t) => [t.task.task_id, t]));
  const joinedB = new Map(joinSamples(b.tasks, b.samples).map((t) => [t.task.task_id, t]));
  const excludedA = new Map(
    a.tasks.filter((t) => t.excluded !== null).map((t) => [t.task_id, t.excluded as string]),
  );
  const excludedB = new Map(
    b.tasks.filter((t) => t.excluded !== null).map((t) => [t.task_id, t.excluded as string]),
  );
  const pairs: TaskPair[] = [];
  const unpaired: { task_id: string; reason: string }[] = [];
  for (const [id, left] of joinedA) {
    const right = joinedB.get(id);
    if (right === undefined) {
      const why = excludedB.get(id);
      unpaired.push({
        task_id: id,
        reason: why === undefined ? `not in run B (${b.report.name})` : `excluded in run B: ${why}`,
      });
      continue;
    }
    pairs.push({ task: left.task, a: left.samples, b: right.samples });
  }
  for (const id of joinedB.keys()) {
    if (joinedA.has(id)) continue;
    const why = excludedA.get(id);
    unpaired.push({
      task_id: id,
      reason: why === undefined ? `not in run A (${a.report.name})` : `excluded in run A: ${why}`,
    });
  }
  return { pairs, unpaired };
}

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
function standardDeviation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values) as number;
  let sum = 0;
  for (const v of values) sum += (v - m) ** 2;
  return Math.sqrt(sum / (values.length - 1));
}

const finiteOrNull = (value: number) => (Number.isFinite(value) ? value : null);

/** The signed-rank and sign tests of per-task differences B − A; null for none. */
function pairedTests(differences: readonly number[]): PairedTests | null {
  if (differences.length === 0) return null;
  const rank = wilcoxonSignedRank(differences);
  const sign = signTest(differences);
  return {
    wilcoxon: {
      n: rank.n,
      zeros: rank.zeros,
      statistic: rank.statistic,
      p_value: rank.pValue,
      method: rank.method,
    },
    sign: { positive: sign.positive, negative: sign.negative, ties: sign.ties, p_value: sign.pValue },
  };
}

/** The paired metrics of one group of task pairs (Holm's p is filled in by the caller). */
export function pairedMetrics(pairs: readonly TaskPair[], options: CompareOptions): PairedMetrics {
  const groups = byProblem(pairs);
  const boot = options.statistics;
  const bootstrap = { resamples: boot.resamples, seed: boot.seed, level: boot.level };
  const single = pairs.every((p) => p.a.length === 1 && p.b.length === 1);
  const passDelta = (sample: readonly TaskPair[]) => {
    if (sample.length === 0) return null;
    if (single)
      return riskDifference(
        sample.map((p) => p.b[0]?.passed === true),
        sample.map((p) => p.a[0]?.passed === true),
      );
    return meanDifference(sample.map((p) => [rate(p.b), rate(p.a)] as const));
  };
  // McNemar on the (task, sample index) pairs both runs have.
  const outcomesA: boolean[] = [];
  const outcomesB: boolean[] = [];
  for (const pair of pairs) {
    const shared = Math.min(pair.a.length, pair.b.length);
    for (let i = 0; i < shared; i += 1) {
      outcomesA.push(pair.a[i]?.passed === true);
      outcomesB.push(pair.b[i]?.passed === true);
    }
  }
  const table = pairedTable(outcomesA, outcomesB);
  const test = mcnemarExact(table.onlyA, table.onlyB);
  const edit = (value: (s: SampleRecord) => number | null) => {
    const joint = pairs.flatMap((p) => {
      const a = passingMean(p.a, value);
      const b = passingMean(p.b, value);
      return a === null || b === null ? [] : [{ task: p.task, a, b }];
    });
    const deltas = joint.map((j) => j.b - j.a);
    return {
      joint,
      tests: pairedTests(deltas),
      a: mean(joint.map((j) => j.a)),
      b: mean(joint.map((j) => j.b)),
      delta:
        joint.length === 0
          ? null
          : bootstrapByGroup(
              byProblem(joint),
              (s) => (s.length === 0 ? null : meanDifference(s.map((j) => [j.b, j.a] as const))),
              bootstrap,
            ),
      mde:
        joint.length === 0
          ? null
          : finiteOrNull(mdePairedMean(joint.length, standardDeviation(deltas), options)),
    };
  };
  const excess = edit((s) => s.excess);
  const addedCc = edit((s) => s.added_cc);
  const overEdit = edit(overEdited);
  const pairCount = outcomesA.length;
  return {
    tasks: pairs.length,
    problems: groups.length,
    pass_a: pairs.length === 0 ? null : mean(pairs.map((p) => rate(p.a))),
    pass_b: pairs.length === 0 ? null : mean(pairs.map((p) => rate(p.b))),
    pass_delta: pairs.length === 0 ? null : bootstrapByGroup(groups, passDelta, bootstrap),
    mcnemar: {
      both: table.both,
      only_a: table.onlyA,
      only_b: table.onlyB,
      neither: table.neither,
      p_value: test.pValue,
      p_holm: null,
    },
    joint_passing: excess.joint.length,
    excess_a: excess.a,
    excess_b: excess.b,
    excess_delta: excess.delta,
    excess_tests: excess.tests,
    added_cc_a: addedCc.a,
    added_cc_b: addedCc.b,
    added_cc_delta: addedCc.delta,
    added_cc_tests: addedCc.tests,
    over_edit_a: overEdit.a,
    over_edit_b: overEdit.b,
    over_edit_delta: overEdit.delta,
    mde: {
      pass:
        pairCount === 0
          ? null
          : finiteOrNull(mdePairedProportion(pairCount, test.discordant / pairCount, options)),
      excess: excess.mde,
      added_cc: addedCc.mde,
      over_edit: overEdit.mde,
    },
  };
}

/** Paired metrics per key, with Holm's adjustment across the keys. */
function pairedBy(
  pairs: readonly TaskPair[],
  keys: (pair: TaskPair) => readonly string[],
  options: CompareOptions,
): Record<string, PairedMetrics & { domain: string }> {
  const parts = new Map<string, TaskPair[]>();
  for (const pair of pairs) {
    for (const key of keys(pair)) {
      const list = parts.get(key) ?? [];
      list.push(pair);
      parts.set(key, list);
    }
  }
  const names = [...parts.keys()].sort();
  const metrics = names.map((name) => pairedMetrics(parts.get(name) as TaskPair[], options));
  const adjusted = holmAdjust(metrics.map((m) => m.mcnemar.p_value));
  const out: Record<string, PairedMetrics & { domain: string }> = {};
  names.forEach((name, i) => {
    const members = parts.get(name) as TaskPair[];
    const domains = new Set(members.map((m) => m.task.domain));
    const m = metrics[i] as PairedMetrics;
    out[name] = {
      ...m,
      mcnemar: { ...m.mcnemar, p_holm: adjusted[i] as number },
      domain: domains.size === 1 ? ([...domains][0] as string) : "mixed",
    };
  });
  return out;
}

/** The comparison report of runs A and B. */
export function compareRuns(a: ComparedRun, b: ComparedRun, options: CompareOptions): CompareReport {
  const { pairs, unpaired } = pairTasks(a, b);
  const repair = pairs.filter((p) => p.task.kind === "repair");
  const generation = pairs.filter((p) => p.task.kind === "generation");
  const domains: Record<string, PairedMetrics> = {};
  for (const [name, m] of Object.entries(pairedBy(repair, (p) => [p.task.domain], options))) {
    const { domain: _domain, ...rest } = m;
    domains[name] = { ...rest, mcnemar: { ...rest.mcnemar, p_holm: null } };
  }
  const retention: Record<string, PairedMetrics> = {};
  const suites = new Map<string, TaskPair[]>();
  for (const pair of generation) {
    const suite = pair.task.domain.replace(/^retention:/, "");
    suites.set(suite, [...(suites.get(suite) ?? []), pair]);
  }
  for (const name of [...suites.keys()].sort())
    retention[name] = pairedMetrics(suites.get(name) as TaskPair[], options);
  return {
    v: COMPARE_VERSION,
    statistics: options.statistics,
    alpha: options.alpha,
    power: options.power,
    a: a.report,
    b: b.report,
    paired: { tasks: pairs.length, unpaired },
    overall: repair.length === 0 ? null : pairedMetrics(repair, options),
    domains,
    families: familyGroupings(repair, (pairs, keys) => pairedBy(pairs, keys, options)),
    retention,
  };
}
