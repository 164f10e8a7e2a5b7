/**
 * How the evaluation uses the statistics of src/core/eval/ — checked on cases small enough to compute by
 * hand: denominators (every failure kind counted, excluded tasks out), exact McNemar p-values, Holm's
 * adjustment across families, paired deltas, the minimum detectable effect, pass@k, and intervals that
 * resample problems and are reproducible from their seed.
 */
import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/eval/compare.js";
import { groupMetrics, runReport } from "../../src/eval/metrics.js";
import type { SampleRecord, TaskRecord } from "../../src/eval/records.js";
import type { RunReport, Statistics } from "../../src/eval/report-schema.js";
import { joinSamples } from "../../src/eval/task-samples.js";
import { sampleRecord, taskRecord } from "./helpers.js";

const STATS: Statistics = {
  method: "cluster-bootstrap-percentile",
  unit: "problem",
  resamples: 400,
  seed: 0,
  level: 0.95,
};
const OPTIONS = { bootstrap: { resamples: 400, seed: 0, level: 0.95 }, ks: [2] };
const EMPTY_SET = {
  executable_lines: {
    count: 0,
    mean: null,
    median: null,
    q1: null,
    q3: null,
    p95: null,
    min: null,
    max: null,
  },
  tokens: { count: 0, mean: null, median: null, q1: null, q3: null, p95: null, min: null, max: null },
  gold_token_edits: {
    count: 0,
    mean: null,
    median: null,
    q1: null,
    q3: null,
    p95: null,
    min: null,
    max: null,
  },
};

function report(name: string, tasks: TaskRecord[], samples: SampleRecord[]): RunReport {
  return runReport(
    {
      name,
      model: name,
      endpoint: null,
      prompt: "generic",
      samples_per_task: 1,
      scope: "function_body",
      reward_version: "v",
    },
    tasks,
    samples,
    OPTIONS,
    EMPTY_SET,
  );
}

describe("denominators", () => {
  it("count API errors, missing, unparsable and sandbox faults as failures, and leave excluded tasks out", () => {
    const tasks = ["a", "b", "c", "d", "e", "x"].map((id) =>
      taskRecord(id, id === "x" ? { excluded: "the gold fails its tests" } : {}),
    );
    const samples = [
      sampleRecord("a", 0, true, { excess: 0.2, added_cc: 2, token_edits: 7 }),
      sampleRecord("b", 0, false, { outcome: "API_ERROR", program: null }),
      sampleRecord("c", 0, false, { outcome: "MISSING", program: null }),
      sampleRecord("d", 0, false, { outcome: "UNPARSABLE", program: null }),
      sampleRecord("e", 0, true, {
        outcome: "PASSED",
        excess: -0.1,
        added_cc: 0,
        token_edits: 1,
        truncated: true,
      }),
    ];
    const run = report("r", tasks, samples);
    expect(run.tasks).toEqual({
      total: 6,
      evaluated: 5,
      excluded: [{ task_id: "x", reason: "the gold fails its tests" }],
    });
    const m = run.domains["in-domain"];
    expect(m?.pass_at_1?.estimate).toBe(2 / 5);
    expect(m?.samples).toBe(5);
    expect(m?.outcomes).toMatchObject({
      PASSED: 2,
      API_ERROR: 1,
      MISSING: 1,
      UNPARSABLE: 1,
      FAILED_TESTS: 0,
      INFRA_ERROR: 0,
    });
    // Edit metrics: over the two passing repairs only.
    expect(m?.excess?.estimate).toBeCloseTo(0.05, 12);
    expect(m?.added_cc?.estimate).toBe(1);
    expect(m?.token_edits?.estimate).toBe(4);
    expect(m?.minimal_share?.estimate).toBe(0.5);
    expect([m?.truncated, m?.truncated_passed]).toEqual([1, 1]);
  });

  it("leave the edit metrics undefined when nothing passes", () => {
    const run = report("r", [taskRecord("a")], [sampleRecord("a", 0, false)]);
    expect(run.domains["in-domain"]?.pass_at_1).toEqual({ estimate: 0, low: 0, high: 0 });
    expect(run.domains["in-domain"]?.excess).toBeNull();
  });

  it("group by domain, exact family combination and contained family", () => {
    const tasks = [
      taskRecord("a", { families: ["comparison_operators", "numeric_constants"] }),
      taskRecord("b", { families: ["numeric_constants"] }),
      taskRecord("c", { families: ["min_max_swap"], domain: "ood" }),
    ];
    const run = report("r", tasks, [
      sampleRecord("a", 0, true),
      sampleRecord("b", 0, false),
      sampleRecord("c", 0, true),
    ]);
    expect(Object.keys(run.domains)).toEqual(["in-domain", "ood"]);
    expect(Object.keys(run.families.exact)).toEqual([
      "comparison_operators + numeric_constants",
      "min_max_swap",
      "numeric_constants",
    ]);
    expect(run.families.contains.numeric_constants?.tasks).toBe(2);
    expect(run.families.contains.numeric_constants?.pass_at_1?.estimate).toBe(0.5);
    expect(run.families.contains.min_max_swap?.domain).toBe("ood");
  });
});

describe("pass@k and the bootstrap by problem", () => {
  it("uses the unbiased estimator with n samples per task", () => {
    // Task a: 1 of 4 pass; task b: 2 of 4. pass@1 = (1/4 + 2/4)/2; pass@2 = (1 − C(3,2)/C(4,2) + 1 − C(2,2)/C(4,2))/2.
    const tasks = [taskRecord("a"), taskRecord("b")];
    const samples = [
      ...[true, false, false, false].map((p, i) => sampleRecord("a", i, p)),
      ...[true, true, false, false].map((p, i) => sampleRecord("b", i, p)),
    ];
    const m = groupMetrics(joinSamples(tasks, samples), OPTIONS);
    expect(m.pass_at_1?.estimate).toBeCloseTo(0.375, 12);
    expect(m.pass_at_k["2"]?.estimate).toBeCloseTo((1 - 3 / 6 + 1 - 1 / 6) / 2, 12);
  });

  it("moves a problem's tasks together, and is reproducible from its seed", () => {
    // Two problems: p1's two tasks both pass, p2's both fail. Resampling problems, each resample's pass@1
    // is 0, 0.5 or 1 — never 0.25 or 0.75, which resampling tasks one by one would give.
    const tasks = [
      taskRecord("p1/a", { problem_id: "p1" }),
      taskRecord("p1/b", { problem_id: "p1" }),
      taskRecord("p2/a", { problem_id: "p2" }),
      taskRecord("p2/b", { problem_id: "p2" }),
    ];
    const samples = [
      sampleRecord("p1/a", 0, true),
      sampleRecord("p1/b", 0, true),
      sampleRecord("p2/a", 0, false),
      sampleRecord("p2/b", 0, false),
    ];
    const items = joinSamples(tasks, samples);
    const m = groupMetrics(items, OPTIONS);
    expect(m.problems).toBe(2);
    expect(m.pass_at_1).toEqual({ estimate: 0.5, low: 0, high: 1 });
    expect(groupMetrics(items, OPTIONS)).toEqual(m);
  });
});

describe("the paired comparison", () => {
  // Ten one-task problems in two families. A passes 0–5, B passes 0–3 and 6–9.
  const ids = Array.from({ length: 10 }, (_, i) => `t${i}`);
  const tasks = ids.map((id, i) =>
    taskRecord(id, { families: [i < 5 ? "comparison_operators" : "range_bounds"] }),
  );
  const passA = (i: number) => i <= 5;
  const passB = (i: number) => i <= 3 || i >= 6;
  const samplesA = ids.map((id, i) =>
    sampleRecord(id, 0, passA(i), passA(i) ? { excess: 0.1, added_cc: 1 } : {}),
  );
  const samplesB = ids.map((id, i) =>
    sampleRecord(id, 0, passB(i), passB(i) ? { excess: 0, added_cc: 0 } : {}),
  );
  const compared = compareRuns(
    { report: report("A", tasks, samplesA), tasks, samples: samplesA },
    { report: report("B", tasks, samplesB), tasks, samples: samplesB },
    { statistics: STATS, alpha: 0.05, power: 0.8 },
  );

  it("tests the discordant tasks with the exact McNemar test", () => {
    const m = compared.overall;
    expect(m?.mcnemar).toMatchObject({ both: 4, only_a: 2, only_b: 4, neither: 0 });
    // 2 · P(X ≤ 2), X ~ Binomial(6, ½) = 2 · (1 + 6 + 15) / 64.
    expect(m?.mcnemar.p_value).toBeCloseTo(44 / 64, 12);
    expect(m?.pass_a).toBe(0.6);
    expect(m?.pass_b).toBe(0.8);
    expect(m?.pass_delta?.estimate).toBeCloseTo(0.2, 12);
  });

  it("adjusts the families' p-values with Holm", () => {
    // comparison_operators (t0–t4): only A passes t4 → p = 2 · P(X ≤ 0 | n = 1) = 1.
    // range_bounds (t5–t9): only A t5, only B t6–t9 → p = 2 · (1 + 5)/32 = 0.375.
    // Holm: sorted 0.375, 1 → 2 · 0.375 = 0.75, then max(0.75, 1) = 1.
    const f = compared.families.contains;
    expect(f.comparison_operators?.mcnemar.p_value).toBe(1);
    expect(f.range_bounds?.mcnemar.p_value).toBeCloseTo(0.375, 12);
    expect(f.range_bounds?.mcnemar.p_holm).toBeCloseTo(0.75, 12);
    expect(f.comparison_operators?.mcnemar.p_holm).toBe(1);
  });

  it("averages the edit deltas over the tasks both runs repair", () => {
    const m = compared.overall;
    expect(m?.joint_passing).toBe(4);
    expect(m?.excess_a).toBeCloseTo(0.1, 12);
    expect(m?.excess_b).toBe(0);
    expect(m?.excess_delta).toEqual({ estimate: -0.1, low: -0.1, high: -0.1 });
    expect(m?.added_cc_delta?.estimate).toBe(-1);
    // Every per-task delta is the same: no spread, so any difference is detectable.
    expect(m?.mde.excess).toBe(0);
  });

  it("gives the minimum detectable pass-rate difference for the task count", () => {
    // Connor (1987), solved for δ: √ψ (a√n + b√(n + b² − a²)) / (n + b²), a = z.975, b = z.8. Ten tasks,
    // 60 % discordant: δ = 0.608 > ψ, a difference that cannot exist — nothing is detectable (null).
    const a = 1.959963984540054;
    const b = 0.8416212335729143;
    const mde = (n: number, psi: number) =>
      (Math.sqrt(psi) * (a * Math.sqrt(n) + b * Math.sqrt(n + b * b - a * a))) / (n + b * b);
    expect(mde(10, 0.6)).toBeCloseTo(0.6079, 3);
    expect(compared.overall?.mde.pass).toBeNull();
    // 100 tasks, 10 passed by A only and 10 by B only: ψ = 0.2.
    const many = Array.from({ length: 100 }, (_, i) => taskRecord(`u${i}`));
    const sa = many.map((t, i) => sampleRecord(t.task_id, 0, i < 50));
    const sb = many.map((t, i) => sampleRecord(t.task_id, 0, i < 40 || (i >= 50 && i < 60)));
    const big = compareRuns(
      { report: report("A", many, sa), tasks: many, samples: sa },
      { report: report("B", many, sb), tasks: many, samples: sb },
      { statistics: STATS, alpha: 0.05, power: 0.8 },
    );
    expect(big.overall?.mcnemar.p_value).toBe(1);
    expect(big.overall?.mde.pass).toBeCloseTo(mde(100, 0.2), 10);
    expect(mde(100, 0.2)).toBeCloseTo(0.1238, 4);
  });

  it("pairs only the tasks both runs evaluated, and says why the others are left out", () => {
    const tasksB = tasks.map((t) =>
      t.task_id === "t9" ? { ...t, excluded: "the corrupted program passes its tests" } : t,
    );
    const partial = compareRuns(
      { report: report("A", tasks, samplesA), tasks, samples: samplesA },
      { report: report("B", tasksB, samplesB), tasks: tasksB, samples: samplesB },
      { statistics: STATS, alpha: 0.05, power: 0.8 },
    );
    expect(partial.paired.tasks).toBe(9);
    expect(partial.paired.unpaired).toEqual([
      { task_id: "t9", reason: "excluded in run B: the corrupted program passes its tests" },
    ]);
  });
});
