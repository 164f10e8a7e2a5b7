/**
 * The study's bootstrap intervals over settings (Figure 3's per-prompt means, Appendix C.3's paired
 * change), on the paper's Table 17 (datasets/published/): each interval contains its estimate, the same
 * seed gives the same bytes and another seed other draws, and the bounds agree loosely with a percentile
 * bootstrap written independently in numpy (Debian's python3; another generator, so only loosely).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildStudy, type StudyReport, type StudySetting } from "../../src/eval/study.js";
import { parseSummaryRows } from "../../src/eval/study-settings.js";

const TABLE17 = join(import.meta.dirname, "..", "..", "datasets", "published", "over-editing-table17.csv");
const PAIR: [string, string] = ["generic", "explicit"];

function table17(): StudySetting[] {
  return parseSummaryRows(readFileSync(TABLE17, "utf8"), TABLE17).map((row) => ({
    ...row,
    name: `${row.model} · ${row.prompt} · ${row.reasoning}`,
    kind: "summary",
    pass_at_k: null,
    per_task: null,
  }));
}

const study = (seed: number): StudyReport =>
  buildStudy(table17(), { pair: PAIR, bootstrap: { resamples: 2000, seed, level: 0.95 } });

// Our own percentile bootstrap: resample the 50 settings (or the 50 pairs' differences) with replacement,
// 20 000 times, and take numpy's default (linear) 2.5 and 97.5 percentiles.
const NUMPY = `
import csv, json, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
rng = np.random.default_rng(12345)
def interval(values):
    values = np.array(values)
    means = values[rng.integers(0, len(values), (20000, len(values)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return [float(low), float(high)]
out = {"means": {}, "change": {}}
for metric in ("pass1", "excess", "added_cc"):
    a = {(r["model"], r["reasoning"]): float(r[metric]) for r in rows if r["prompt"] == "generic"}
    b = {(r["model"], r["reasoning"]): float(r[metric]) for r in rows if r["prompt"] == "explicit"}
    out["means"][metric] = {"generic": interval(list(a.values())), "explicit": interval(list(b.values()))}
    out["change"][metric] = interval([b[k] - a[k] for k in a])
print(json.dumps(out))
`;

describe("bootstrap intervals over settings (Table 17)", () => {
  const report = study(0);

  it("contain their estimates and repeat bit for bit under one seed, not under another", () => {
    for (const m of report.matched.metrics) {
      expect(m.change.low, m.metric).toBeLessThanOrEqual(m.change.estimate);
      expect(m.change.high, m.metric).toBeGreaterThanOrEqual(m.change.estimate);
    }
    for (const p of report.prompt_means)
      for (const v of Object.values(p.metrics))
        if (v !== null) {
          expect(v.low).toBeLessThanOrEqual(v.estimate);
          expect(v.high).toBeGreaterThanOrEqual(v.estimate);
        }
    expect(JSON.stringify(study(0))).toBe(JSON.stringify(report));
    const other = study(1);
    expect(other.matched.metrics[0]?.change.estimate).toBe(report.matched.metrics[0]?.change.estimate);
    expect(other.matched.metrics[0]?.change.low).not.toBe(report.matched.metrics[0]?.change.low);
  });

  it("agree with an independent numpy percentile bootstrap within the draws' noise", () => {
    const python = spawnSync("/usr/bin/python3", ["-c", NUMPY, TABLE17], { encoding: "utf8" });
    expect(python.status, python.stderr).toBe(0);
    const numpy = JSON.parse(python.stdout) as {
      means: Record<string, Record<string, [number, number]>>;
      change: Record<string, [number, number]>;
    };
    // Tolerance: a fifth of the interval's width (the Monte-Carlo error of a 2.5 % quantile with 2000
    // draws is a few percent of the width; a wrong resampling unit or statistic is off by far more).
    const close = (ours: { low: number; high: number }, theirs: [number, number], what: string) => {
      const tolerance = (theirs[1] - theirs[0]) / 5;
      expect(Math.abs(ours.low - theirs[0]), `${what} low`).toBeLessThan(tolerance);
      expect(Math.abs(ours.high - theirs[1]), `${what} high`).toBeLessThan(tolerance);
    };
    for (const metric of ["pass1", "excess", "added_cc"] as const) {
      const change = report.matched.metrics.find((m) => m.metric === metric);
      close(
        change?.change as { low: number; high: number },
        numpy.change[metric] as [number, number],
        metric,
      );
      for (const p of report.prompt_means)
        close(
          p.metrics[metric] as { low: number; high: number },
          numpy.means[metric]?.[p.prompt] as [number, number],
          `${metric} ${p.prompt}`,
        );
    }
    // The paper's own paired model-bootstrap interval for the Pass@1 gain is [+1.49, +3.05] points.
    const pass = report.matched.metrics.find((m) => m.metric === "pass1");
    expect(Math.abs((pass?.change.low as number) - 0.0149)).toBeLessThan(0.002);
    expect(Math.abs((pass?.change.high as number) - 0.0305)).toBeLessThan(0.002);
  });
});
