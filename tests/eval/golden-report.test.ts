/**
 * The golden report: a small fixed pair of runs (tests/fixtures/eval/golden/run-a and run-b: 14 shipped
 * seed tasks, in-domain and OOD, two samples each; run A with an API error, a missing sample and two
 * truncations) rendered to JSON and Markdown, compared byte for byte with the committed expected files.
 * A change to a metric, a denominator, an interval or the layout shows up here as a diff to review. After
 * an intended change: `UPDATE_GOLDEN=1 npx vitest run tests/eval/golden-report.test.ts`, then read the diff.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCompare, buildReport } from "../../src/eval/build-report.js";
import { CompareReportSchema, ReportSchema, type Statistics } from "../../src/eval/report-schema.js";
import { readRun } from "../../src/eval/run-files.js";

const GOLDEN = join(import.meta.dirname, "..", "fixtures", "eval", "golden");
const STATS: Statistics = {
  method: "cluster-bootstrap-percentile",
  unit: "problem",
  resamples: 1000,
  seed: 0,
  level: 0.95,
};
const KS = [2];

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, "expected", name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  expect(actual, `${name} differs from the committed golden file`).toBe(readFileSync(path, "utf8"));
}

describe("the golden report", () => {
  it("renders one run's report.json and report.md as committed", async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const { report, markdown } = await buildReport([a], STATS, KS);
    expect(ReportSchema.parse(report)).toEqual(report);
    const run = report.runs[0];
    // The denominators, read off the fixture: 14 tasks × 2 samples, nothing dropped.
    expect(run?.overall?.samples).toBe(28);
    expect(run?.overall?.outcomes.API_ERROR).toBe(1);
    expect(run?.overall?.outcomes.MISSING).toBe(1);
    golden("report.json", `${JSON.stringify(report, null, 2)}\n`);
    golden("report.md", markdown);
  });

  it("renders the comparison's compare.json and compare.md as committed", async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const b = await readRun(join(GOLDEN, "run-b"));
    const { report, markdown } = await buildCompare(a, b, { statistics: STATS, alpha: 0.05, power: 0.8 }, KS);
    expect(CompareReportSchema.parse(report)).toEqual(report);
    expect(report.paired.tasks).toBe(14);
    golden("compare.json", `${JSON.stringify(report, null, 2)}\n`);
    golden("compare.md", markdown);
  });

  it("is the same bytes every time (seeded intervals, no clock)", async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const first = await buildReport([a], STATS, KS);
    const second = await buildReport([a], STATS, KS);
    expect(second.markdown).toBe(first.markdown);
    expect(second.html).toBe(first.html);
  });
});
