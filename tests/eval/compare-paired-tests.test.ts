/**
 * `eval compare`'s p-values for the edit metrics and the over-edit share, checked against scipy 1.10.1:
 * the test writes two seeded run directories, the comparison reads them back, and
 * tests/oracle/compare_tests_oracle.py reads the same files on its own — pairs the tasks, takes each
 * run's mean over passing samples per task, forms B − A — and asks scipy for `wilcoxon` and `binomtest`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { seededRandom } from "../../src/core/corruption/engine.js";
import { runMetrics } from "../../src/eval/build-report.js";
import { compareRuns } from "../../src/eval/compare.js";
import { renderCompareMarkdown, renderReportMarkdown } from "../../src/eval/markdown.js";
import type { RunManifest, SampleRecord, TaskRecord } from "../../src/eval/records.js";
import {
  type CompareReport,
  CompareReportSchema,
  type PairedMetrics,
  type PairedTests,
  type Statistics,
} from "../../src/eval/report-schema.js";
import { readRun, writeRun } from "../../src/eval/run-files.js";
import { sampleRecord, taskRecord } from "./helpers.js";

const STATS: Statistics = {
  method: "cluster-bootstrap-percentile",
  unit: "problem",
  resamples: 200,
  seed: 0,
  level: 0.95,
};
const FAMILIES = ["comparison_operators", "arithmetic_operators", "numeric_constants", "swap_arguments"];
/** A family whose excesses are arbitrary doubles, one sample each: no zero difference, so scipy's exact method. */
const CONTINUOUS = "continuous_excess";

type ScipyTests = {
  tasks: number;
  wilcoxon: { statistic: number; pvalue: number } | { error: string } | null;
  positive: number;
  negative: number;
  ties: number;
  binomtest: number | null;
} | null;
type ScipyGroup = {
  excess: ScipyTests;
  added_cc: ScipyTests;
  over_edit: { a: number; b: number; tasks: number } | null;
};

/** Two runs of 80 repair tasks with seeded outcomes; B edits a little less than A on average. */
function makeRuns(): { tasks: TaskRecord[]; a: SampleRecord[]; b: SampleRecord[] } {
  const random = seededRandom("compare-paired-tests");
  const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const tasks: TaskRecord[] = [];
  const a: SampleRecord[] = [];
  const b: SampleRecord[] = [];
  for (let i = 0; i < 80; i += 1) {
    const id = `t${String(i).padStart(2, "0")}`;
    const continuous = i >= 60;
    const families = continuous
      ? [CONTINUOUS]
      : [...new Set([FAMILIES[int(0, 3)] as string, FAMILIES[int(0, 3)] as string])];
    tasks.push(
      taskRecord(id, {
        problem_id: `p${Math.floor(i / 2)}`,
        domain: i % 3 === 0 ? "ood" : "in-domain",
        families,
      }),
    );
    const samples = continuous ? 1 : int(1, 3);
    for (const [run, shift] of [
      [a, 0],
      [b, -1],
    ] as const) {
      for (let s = 0; s < samples; s += 1) {
        const passed = continuous || random() < 0.8;
        const excess = continuous
          ? Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(7 * random())
          : int(-2, 5) + shift;
        run.push(
          sampleRecord(id, s, passed, {
            excess: passed ? excess : null,
            // Some passing samples have no CC (e.g. the visitor could not parse): left out of that mean only.
            added_cc: passed && random() < 0.9 ? int(0, 3) + (shift < 0 && random() < 0.3 ? -1 : 0) : null,
          }),
        );
      }
    }
  }
  return { tasks, a, b };
}

function manifest(name: string): RunManifest {
  const template = JSON.parse(
    readFileSync(join(import.meta.dirname, "..", "fixtures", "eval", "golden", "run-a", "run.json"), "utf8"),
  ) as RunManifest;
  return { ...template, name, samples: 3 };
}

function expectTests(ours: PairedTests | null, theirs: ScipyTests, what: string): void {
  if (theirs === null) {
    expect(ours, what).toBeNull();
    return;
  }
  if (ours === null) throw new Error(`${what}: no tests, scipy has ${theirs.tasks} differences`);
  expect(ours.sign, what).toMatchObject({
    positive: theirs.positive,
    negative: theirs.negative,
    ties: theirs.ties,
  });
  expect(ours.wilcoxon.n + ours.wilcoxon.zeros, what).toBe(theirs.tasks);
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.abs(y);
  if (theirs.binomtest === null) expect(ours.sign.p_value, what).toBe(1);
  else
    expect(
      close(ours.sign.p_value, theirs.binomtest),
      `${what} sign ${ours.sign.p_value} vs ${theirs.binomtest}`,
    ).toBe(true);
  const w = theirs.wilcoxon;
  if (w === null || "error" in w) {
    // scipy refuses all-zero differences; ours says "no evidence": n = 0, p = 1.
    expect(ours.wilcoxon, what).toMatchObject({ n: 0, p_value: 1 });
    return;
  }
  expect(ours.wilcoxon.statistic, what).toBe(w.statistic);
  expect(
    close(ours.wilcoxon.p_value, w.pvalue),
    `${what} wilcoxon ${ours.wilcoxon.p_value} vs ${w.pvalue}`,
  ).toBe(true);
}

/**
 * Compares run directories A and B with `compareRuns`, asks the oracle about the same directories, and
 * checks every group's tests and over-edit shares; returns the report and the Wilcoxon methods used.
 */
async function compareAgainstScipy(
  dirA: string,
  dirB: string,
): Promise<{ report: CompareReport; methods: Set<string> }> {
  const runA = await readRun(dirA);
  const runB = await readRun(dirB);
  const reportA = await runMetrics(runA, STATS, []);
  const reportB = await runMetrics(runB, STATS, []);
  const report: CompareReport = compareRuns(
    { report: reportA, ...runA },
    { report: reportB, ...runB },
    { statistics: STATS, alpha: 0.05, power: 0.8 },
  );
  expect(CompareReportSchema.parse(report)).toEqual(report);

  const oracle = spawnSync("/usr/bin/python3", ["-s", "tests/oracle/compare_tests_oracle.py", dirA, dirB], {
    encoding: "utf8",
  });
  if (oracle.status !== 0) throw new Error(oracle.stderr);
  const scipy = JSON.parse(oracle.stdout) as Record<string, ScipyGroup>;

  const ours: [string, PairedMetrics][] = [["all", report.overall as PairedMetrics]];
  for (const [name, m] of Object.entries(report.domains)) ours.push([`domain:${name}`, m]);
  for (const [name, m] of Object.entries(report.families.contains)) ours.push([`contains:${name}`, m]);
  for (const [name, m] of Object.entries(report.families.exact)) ours.push([`exact:${name}`, m]);
  expect(ours.map(([name]) => name).sort()).toEqual(Object.keys(scipy).sort());
  const methods = new Set<string>();
  for (const [name, m] of ours) {
    const theirs = scipy[name] as ScipyGroup;
    expectTests(m.excess_tests, theirs.excess, `${name} excess`);
    expectTests(m.added_cc_tests, theirs.added_cc, `${name} added CC`);
    expect(m.joint_passing, name).toBe(theirs.excess?.tasks ?? 0);
    if (m.excess_tests !== null) methods.add(m.excess_tests.wilcoxon.method);
    if (theirs.over_edit === null) expect(m.over_edit_delta).toBeNull();
    else {
      expect(m.over_edit_a).toBeCloseTo(theirs.over_edit.a, 12);
      expect(m.over_edit_b).toBeCloseTo(theirs.over_edit.b, 12);
      expect(m.over_edit_delta?.estimate).toBeCloseTo(theirs.over_edit.b - theirs.over_edit.a, 12);
    }
  }
  return { report, methods };
}

describe("eval compare: signed-rank and sign tests of the edit deltas, and the over-edit share", () => {
  const root = mkdtempSync(join(tmpdir(), "minedit-compare-tests-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("equal scipy's wilcoxon and binomtest on the per-task differences of every group", async () => {
    const { tasks, a, b } = makeRuns();
    await writeRun(join(root, "a"), { manifest: manifest("A"), tasks, samples: a });
    await writeRun(join(root, "b"), { manifest: manifest("B"), tasks, samples: b });
    const { report, methods } = await compareAgainstScipy(join(root, "a"), join(root, "b"));
    // Both of scipy's methods were exercised: > 50 differences (normal), and the continuous family (exact).
    expect([...methods].sort()).toEqual(["exact", "normal"]);
    expect(report.families.contains[CONTINUOUS]?.excess_tests?.wilcoxon.method).toBe("exact");

    // The Markdown shows the p-values beside their deltas.
    const cells = (line: string) => line.split("|").map((cell) => cell.trim());
    const lines = renderCompareMarkdown(report).split("\n");
    const header = cells(lines.find((line) => line.startsWith("| Tasks of ")) as string);
    const allRow = cells(lines.find((line) => line.startsWith("| all ")) as string);
    const overall = report.overall as PairedMetrics;
    const column = (name: string) => header.indexOf(name);
    expect(header.slice(column("Δ Excess Lev."), column("Δ Over-edit") + 1)).toEqual([
      "Δ Excess Lev.",
      "Wilcoxon p (excess)",
      "Sign p (excess)",
      "Δ Added CC",
      "Wilcoxon p (CC)",
      "Sign p (CC)",
      "Δ Over-edit",
    ]);
    expect(allRow[column("Wilcoxon p (excess)")]).toBe(
      formatP(overall.excess_tests?.wilcoxon.p_value as number),
    );
    expect(allRow[column("Sign p (excess)")]).toBe(formatP(overall.excess_tests?.sign.p_value as number));
    expect(allRow[column("Wilcoxon p (CC)")]).toBe(
      formatP(overall.added_cc_tests?.wilcoxon.p_value as number),
    );
    expect(allRow[column("Sign p (CC)")]).toBe(formatP(overall.added_cc_tests?.sign.p_value as number));
  });

  it("equal scipy on the golden runs (doubles as excess, two samples per task, failures of every kind)", async () => {
    const golden = join(import.meta.dirname, "..", "fixtures", "eval", "golden");
    const { report } = await compareAgainstScipy(join(golden, "run-a"), join(golden, "run-b"));
    expect(report.overall?.excess_tests?.wilcoxon.n).toBeGreaterThan(0);
  });

  it("reports the over-edit share (e > 0) of passing repairs beside the minimal share", async () => {
    const { tasks, a } = makeRuns();
    await writeRun(join(root, "only-a"), { manifest: manifest("A"), tasks, samples: a });
    const runA = await readRun(join(root, "only-a"));
    const report = await runMetrics(runA, STATS, []);
    // Hand count from the records: passing samples with an excess, and how many of those exceed 0.
    const scored = a.filter((s) => s.passed && s.excess !== null);
    const over = scored.filter((s) => (s.excess as number) > 0).length;
    const overall = report.overall;
    expect(overall?.over_edit_share?.estimate).toBeCloseTo(over / scored.length, 12);
    expect((overall?.over_edit_share?.estimate ?? 0) + (overall?.minimal_share?.estimate ?? 0)).toBeCloseTo(
      1,
      12,
    );
    // Same resamples as the minimal share, so the interval is its mirror image.
    expect(overall?.over_edit_share?.low).toBeCloseTo(1 - (overall?.minimal_share?.high ?? 0), 12);
    expect(overall?.over_edit_share?.high).toBeCloseTo(1 - (overall?.minimal_share?.low ?? 0), 12);
    const markdown = renderReportMarkdown({ v: "minedit-eval-report/1", statistics: STATS, runs: [report] });
    const table6 = markdown.split("\n").find((line) => line.startsWith("| Run ") && line.includes("Minimal"));
    expect(table6?.replace(/ +/g, " ")).toContain("| Minimal ↑ | Over-edit ↓ |");
  });
});

/** The p-value format of the compare Markdown, restated: 4 decimals, or 2 significant digits below 1e-4. */
function formatP(p: number): string {
  return p >= 1e-4 ? p.toFixed(4) : p.toExponential(1);
}
