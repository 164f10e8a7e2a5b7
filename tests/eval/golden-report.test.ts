/**
 * The golden report: a small fixed pair of runs (tests/fixtures/eval/golden/run-a and run-b: 14 shipped
 * seed tasks, in-domain and OOD, two samples each; run A with an API error, a missing sample and two
 * truncations) rendered to JSON and Markdown, with every number checked against an independent
 * implementation: tests/oracle/eval_report_oracle.py reads the same scored rows (tasks.jsonl,
 * samples.jsonl) and computes each count, mean, pass@k, bootstrap interval (its own mulberry32 + FNV-1a
 * seeding, written from the published generator, numpy's type-7 quantile), McNemar / Wilcoxon / sign
 * p-value (scipy 1.10.1), Holm adjustment and MDE from the definitions in docs/eval.md; and the run's
 * `task_set` (paper Tables 7–8: executable lines and tokens per outermost function of each evaluated
 * task's gold program, raw gold token edits in the run's distance scope; count, mean and numpy's type-7
 * quantiles) with CPython's own ast.unparse and tokenize, and tests/oracle/paper_body_scope.py for the
 * `function_body` scope.
 *
 * Tolerances, per kind: counts and denominators exact; every other number (means, pass@k, interval ends,
 * p-values, MDEs) within 1e-12 relative (absolute at 0). The oracle's object must have the report's exact
 * keys: a group, an outcome or a pass@k the oracle does not find fails.
 *
 * The Markdown: every table cell that shows a number is rebuilt from the oracle's values with the
 * documented formats (3 decimals, intervals `e [l, h]`, signed deltas `+x`/`−x`, p-values 4 decimals) and
 * compared cell by cell. The files under tests/fixtures/eval/golden/expected/ keep the layout only: the
 * Markdown with each number replaced by `#`, reviewed by hand when the layout changes (no write path).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCompare, buildReport } from "../../src/eval/build-report.js";
import { CompareReportSchema, ReportSchema, type Statistics } from "../../src/eval/report-schema.js";
import { readRun } from "../../src/eval/run-files.js";

const GOLDEN = join(import.meta.dirname, "..", "fixtures", "eval", "golden");
const ORACLE = join(import.meta.dirname, "..", "oracle", "eval_report_oracle.py");
const STATS: Statistics = {
  method: "cluster-bootstrap-percentile",
  unit: "problem",
  resamples: 1000,
  seed: 0,
  level: 0.95,
};
const KS = [2];
const ALPHA = 0.05;
const POWER = 0.8;
const RELATIVE = 1e-12;

// biome-ignore lint/suspicious/noExplicitAny: the oracle's JSON is walked generically.
type Json = any;

/** The oracle's answer for `request` (scipy under Debian's /usr/bin/python3, as the other eval oracles). */
function askOracle(request: object): Json {
  const run = spawnSync("/usr/bin/python3", ["-s", ORACLE], {
    input: JSON.stringify({
      resamples: STATS.resamples,
      seed: STATS.seed,
      level: STATS.level,
      ks: KS,
      ...request,
    }),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`oracle failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Keys whose values are counts or denominators: compared exactly. */
const COUNT_KEYS = new Set([
  "tasks",
  "problems",
  "samples",
  "passed_samples",
  "truncated",
  "truncated_passed",
  "total",
  "evaluated",
  "both",
  "only_a",
  "only_b",
  "neither",
  "joint_passing",
  "n",
  "zeros",
  "positive",
  "negative",
  "ties",
  "count",
]);

type Tally = { counts: number; reals: number; other: number };

/** Every leaf of `expected` (the oracle) equals the same path of `actual`; both have the same keys. */
function agree(actual: Json, expected: Json, path: string, tally: Tally, countContext = false): void {
  if (expected === null || typeof expected !== "object") {
    if (typeof expected === "number") {
      expect(typeof actual, path).toBe("number");
      if (countContext || COUNT_KEYS.has(path.split(".").pop() as string)) {
        expect(Number.isInteger(expected), `${path}: the oracle's count is an integer`).toBe(true);
        expect(actual, path).toBe(expected);
        tally.counts += 1;
      } else {
        const scale = Math.max(Math.abs(actual), Math.abs(expected));
        expect(Math.abs(actual - expected), `${path}: ${actual} vs oracle ${expected}`).toBeLessThanOrEqual(
          RELATIVE * scale,
        );
        tally.reals += 1;
      }
    } else {
      expect(actual, path).toEqual(expected);
      tally.other += 1;
    }
    return;
  }
  expect(actual, `${path} is ${JSON.stringify(actual)} where the oracle has a value`).not.toBeNull();
  if (Array.isArray(expected)) {
    expect(actual.length, `${path}.length`).toBe(expected.length);
    for (const [i, e] of expected.entries()) agree(actual[i], e, `${path}[${i}]`, tally);
    return;
  }
  expect(Object.keys(actual).sort(), `${path}: keys`).toEqual(Object.keys(expected).sort());
  for (const key of Object.keys(expected))
    agree(actual[key], expected[key], `${path}.${key}`, tally, key === "outcomes" || countContext);
}

/** The run-level fields the oracle computes; the rest are the manifest's. */
function checkRun(actual: Json, expected: Json, path: string, tally: Tally): void {
  for (const key of ["tasks", "overall", "domains", "families", "task_set"])
    agree(actual[key], expected[key], `${path}.${key}`, tally);
  // The fixture has repair tasks only: no lint corpus and no retention suites.
  expect(actual.lint, `${path}.lint`).toBeNull();
  expect(actual.retention, `${path}.retention`).toEqual({});
}

// ---- Markdown: the documented number formats, applied to the oracle's values ----

const DASH = "—";
const fx = (v: number | null | undefined, digits = 3) =>
  v === null || v === undefined || !Number.isFinite(v) ? DASH : v.toFixed(digits);
const signed = (v: number | null | undefined, digits = 3) => {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  const text = Math.abs(v).toFixed(digits);
  return v < 0 && Number(text) !== 0 ? `−${text}` : `+${text}`;
};
const pv = (v: number | null | undefined) =>
  v === null || v === undefined || !Number.isFinite(v)
    ? DASH
    : v >= 1e-4 || v === 0
      ? v.toFixed(4)
      : v.toExponential(1);
const iv = (i: Json, sign = false) => {
  if (i === null || i === undefined) return DASH;
  const f = sign ? signed : fx;
  return `${f(i.estimate)} [${f(i.low)}, ${f(i.high)}]`;
};
const est = (i: Json) => (i === null || i === undefined ? null : i.estimate);
const DOMAIN_TITLE: Record<string, string> = { "in-domain": "In-domain", ood: "Out-of-domain" };

/** A family table's groups in the Markdown's order: in-domain families, then OOD, each by name. */
function byDomain(groups: Record<string, Json>): [string, Json][] {
  const rank = (d: string) => ["in-domain", "ood", "mixed"].indexOf(d);
  return Object.entries(groups).sort(
    ([x, gx], [y, gy]) => rank(gx.domain) - rank(gy.domain) || (x < y ? -1 : x > y ? 1 : 0),
  );
}

/** The rows (cells trimmed, header and rule dropped) of the first table after the line starting `heading`. */
function table(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  const at = lines.findIndex((l) => l.startsWith(heading));
  expect(at, `no "${heading}" in the Markdown`).toBeGreaterThanOrEqual(0);
  let i = at + 1;
  while (i < lines.length && !(lines[i] as string).startsWith("|")) i += 1;
  const rows: string[][] = [];
  for (; i < lines.length && (lines[i] as string).startsWith("|"); i += 1)
    rows.push(
      (lines[i] as string)
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
  return rows.slice(2);
}

/**
 * The Markdown with every number (digits, with sign, decimals, exponent) replaced by `#`, and each table
 * row's cells trimmed: a column's width follows the widest number in it, so padding is not layout (and a
 * Markdown formatter may re-align the reviewed file's tables).
 */
function layout(markdown: string): string {
  return markdown
    .replace(/[-−+]?\d+(\.\d+)?(e[-+]?\d+)?/g, "#")
    .split("\n")
    .map((line) => (line.startsWith("|") ? tableRowLayout(line) : line))
    .join("\n");
}

/** One table row with its cells trimmed, and a rule's dashes shortened to three (its alignment colons kept). */
function tableRowLayout(line: string): string {
  const cells = line
    .slice(1, -1)
    .split("|")
    .map((c) => c.trim().replace(/^(:?)-+(:?)$/, "$1---$2"));
  return `| ${cells.join(" | ")} |`;
}

function checkLayout(name: string, markdown: string): void {
  const expected = readFileSync(join(GOLDEN, "expected", name), "utf8");
  expect(layout(markdown), `${name}: the layout differs from the reviewed file`).toBe(layout(expected));
}

/** The Table 3 row of one run (in-domain, then OOD: Pass@1, excess, added CC, each with its interval). */
function table3Row(name: string, run: Json): string[] {
  const cells = [name];
  for (const d of ["in-domain", "ood"]) {
    const g = run.domains[d];
    cells.push(iv(g.pass_at_1), iv(g.excess), iv(g.added_cc));
  }
  return cells;
}

/** A family row of the single-run report. */
function familyRow(name: string, g: Json): string[] {
  return [
    name,
    g.domain,
    String(g.tasks),
    iv(g.pass_at_1),
    iv(g.excess),
    iv(g.added_cc),
    fx(est(g.minimal_share)),
    fx(est(g.over_edit_share)),
  ];
}

/** A row of the paired tables (the family tables add the Holm p after McNemar's). */
function pairedRow(first: string[], m: Json, holm: boolean): string[] {
  const test = (t: Json, kind: "wilcoxon" | "sign") => pv(t === null ? null : t[kind].p_value);
  return [
    ...first,
    String(m.tasks),
    fx(m.pass_a),
    fx(m.pass_b),
    iv(m.pass_delta, true),
    `${m.mcnemar.only_a}/${m.mcnemar.only_b}`,
    pv(m.mcnemar.p_value),
    ...(holm ? [pv(m.mcnemar.p_holm)] : []),
    String(m.joint_passing),
    iv(m.excess_delta, true),
    test(m.excess_tests, "wilcoxon"),
    test(m.excess_tests, "sign"),
    iv(m.added_cc_delta, true),
    test(m.added_cc_tests, "wilcoxon"),
    test(m.added_cc_tests, "sign"),
    iv(m.over_edit_delta, true),
    fx(m.mde.pass),
    fx(m.mde.excess),
  ];
}

const NAMED_OUTCOMES = [
  "PASSED",
  "FAILED_TESTS",
  "UNPARSABLE",
  "NO_CODE",
  "TIMEOUT",
  "MEMORY_LIMIT",
  "RUNTIME_ERROR",
  "COMPILE_ERROR",
  "INFRA_ERROR",
  "INVALID_TASK",
  "API_ERROR",
  "MISSING",
];

describe("the golden report", () => {
  it("states in report.json and report.md the numbers the oracle computes", async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const { report, markdown } = await buildReport([a], STATS, KS);
    expect(ReportSchema.parse(report)).toEqual(report);
    const oracle = askOracle({ run: join(GOLDEN, "run-a") });
    const tally: Tally = { counts: 0, reals: 0, other: 0 };
    expect(report.runs).toHaveLength(1);
    checkRun(report.runs[0], oracle, "runs[0]", tally);
    // Read off the fixture by hand, as a check on the oracle itself: 14 tasks × 2 samples, nothing dropped.
    expect(oracle.overall.samples).toBe(28);
    expect(oracle.overall.outcomes.API_ERROR).toBe(1);
    expect(oracle.overall.outcomes.MISSING).toBe(1);
    // Four gold programs with 3, 1, 1 and 6 outermost functions, used by 4, 4, 4 and 2 tasks.
    expect(oracle.task_set.executable_lines.count).toBe(32);
    expect(oracle.task_set.gold_token_edits.count).toBe(14);
    expect(tally.counts + tally.reals).toBeGreaterThan(900);

    checkLayout("report.md", markdown);
    expect(markdown).toContain(
      `Intervals: 95 % percentile bootstrap, resampling problems (a problem's tasks move together), ${STATS.resamples} resamples, seed ${STATS.seed}.`,
    );
    expect(markdown).toContain(
      `**base**: ${oracle.tasks.evaluated} of ${oracle.tasks.total} tasks evaluated, 2 sample(s) per task`,
    );
    expect(table(markdown, "## Pass@1, excess edit distance")).toEqual([table3Row("base", oracle)]);

    const outcomes = table(markdown, "## Outcomes");
    const domains = ["in-domain", "ood"].map((d) => oracle.domains[d]);
    const shown = NAMED_OUTCOMES.filter((o) => domains.some((g) => g.outcomes[o] > 0));
    expect(outcomes).toEqual([
      ...shown.map((o) => [o, ...domains.map((g) => String(g.outcomes[o]))]),
      ["truncated (of which passed)", ...domains.map((g) => `${g.truncated} (${g.truncated_passed})`)],
      ["total", ...domains.map((g) => String(g.samples))],
    ]);

    const editRow = (title: string, g: Json) => [
      "base",
      title,
      String(g.tasks),
      fx(est(g.pass_at_1)),
      fx(est(g.token_edits), 1),
      fx(est(g.excess)),
      fx(est(g.added_cc)),
      fx(g.added_cc_sonar),
      fx(est(g.minimal_share)),
      fx(est(g.over_edit_share)),
    ];
    expect(table(markdown, "## Edit size")).toEqual([
      editRow("all", oracle.overall),
      ...["in-domain", "ood"].map((d) => editRow(DOMAIN_TITLE[d] as string, oracle.domains[d])),
    ]);
    expect(table(markdown, "## pass@k")).toEqual(
      ["in-domain", "ood"].map((d) => ["base", DOMAIN_TITLE[d], iv(oracle.domains[d].pass_at_k["2"])]),
    );
    expect(table(markdown, "Tasks containing the family")).toEqual(
      byDomain(oracle.families.contains).map(([name, g]) => familyRow(name, g)),
    );
    expect(table(markdown, "By exact family combination")).toEqual(
      byDomain(oracle.families.exact).map(([name, g]) => familyRow(name, g)),
    );
    const set = oracle.task_set;
    const summary = (title: string, x: Json) => [
      title,
      ...[x.mean, x.median, x.q1, x.q3, x.p95, x.min, x.max].map((v: number) => fx(v, 2)),
    ];
    expect(table(markdown, "## Evaluated tasks")).toEqual([
      summary("Executable lines (per function of G)", set.executable_lines),
      summary("Python tokens (per function of G)", set.tokens),
      summary("Gold token edit dist. (per task)", set.gold_token_edits),
    ]);
  });

  it("states in compare.json and compare.md the paired numbers the oracle computes", async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const b = await readRun(join(GOLDEN, "run-b"));
    const { report, markdown } = await buildCompare(
      a,
      b,
      { statistics: STATS, alpha: ALPHA, power: POWER },
      KS,
    );
    expect(CompareReportSchema.parse(report)).toEqual(report);
    const oracle = askOracle({
      compare: [join(GOLDEN, "run-a"), join(GOLDEN, "run-b")],
      alpha: ALPHA,
      power: POWER,
    });
    const tally: Tally = { counts: 0, reals: 0, other: 0 };
    checkRun(report.a, oracle.a, "a", tally);
    checkRun(report.b, oracle.b, "b", tally);
    expect(report.paired.tasks).toBe(oracle.paired.tasks);
    expect(report.paired.tasks).toBe(14);
    expect(report.paired.unpaired).toEqual([]);
    for (const key of ["overall", "domains", "families"] as const)
      agree(report[key], oracle[key], key, tally);
    expect(report.retention).toEqual({});
    expect(tally.counts + tally.reals).toBeGreaterThan(2000);

    checkLayout("compare.md", markdown);
    expect(markdown).toContain(`${oracle.paired.tasks} tasks paired (evaluated by both runs).`);
    expect(markdown).toContain(`detectable at α = ${ALPHA} with power ${POWER} on these tasks.`);
    expect(table(markdown, "## Side by side")).toEqual([
      table3Row("base", oracle.a),
      table3Row("tuned", oracle.b),
    ]);
    expect(table(markdown, "## Paired comparison")).toEqual([
      pairedRow(["all"], oracle.overall, false),
      ...["in-domain", "ood"].map((d) => pairedRow([DOMAIN_TITLE[d] as string], oracle.domains[d], false)),
    ]);
    expect(table(markdown, "## Per corruption family")).toEqual(
      byDomain(oracle.families.contains).map(([name, m]: [string, Json]) =>
        pairedRow([name, m.domain], m, true),
      ),
    );
    expect(table(markdown, "## Per exact family combination")).toEqual(
      byDomain(oracle.families.exact).map(([name, m]: [string, Json]) =>
        pairedRow([name, m.domain], m, true),
      ),
    );
  });

  it("is the same bytes every time (seeded intervals, no clock)", async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const first = await buildReport([a], STATS, KS);
    const second = await buildReport([a], STATS, KS);
    expect(second.markdown).toBe(first.markdown);
    expect(second.html).toBe(first.html);
  });
});
