/**
 * `minedit eval study`:
 * - summary rows: the format, its errors (FILE:LINE), names, sizes and series;
 * - the over-editing paper's own Table 17 (datasets/published/) through the study reproduces the numbers
 *   the paper publishes in Appendix C.3 and §3.2 (means, the change, 40 of 50 settings improved, the sign
 *   test's p), and its Wilcoxon p-values equal scipy's on the same table (Debian's python3-scipy);
 * - a study of real runs: `eval run` (the built CLI) against a local OpenAI-compatible server for two
 *   model sizes of one series and a second model, each under two prompts, one with reasoning, one sampled
 *   four times at temperature 1 — scored in the sandbox — plus the published table; every table and
 *   figure is there with the values counted by hand from the fixed answers; the page in headless chromium
 *   has every figure's marks and visible labels, and a screenshot is kept in .cache/study-page/.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStudy, type StudyReport, type StudySetting } from "../../src/eval/study.js";
import { modelSeries, parseSummaryRows, sizeFromModelName } from "../../src/eval/study-settings.js";
import { ROOT, runMinedit, runProcess, writeSeedTasks } from "./cli-process.js";
import { type Behaviour, taskModel } from "./fake-model.js";
import { type FakeServer, startFakeOpenAI } from "./fake-openai-server.js";

const TABLE17 = join(ROOT, "datasets", "published", "over-editing-table17.csv");
const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = join(ROOT, ".cache", "study-page");
const BOOTSTRAP = { resamples: 2000, seed: 0, level: 0.95 };

function summarySettings(path: string): StudySetting[] {
  return parseSummaryRows(readFileSync(path, "utf8"), path).map((row) => ({
    ...row,
    name: `${row.model} ${row.prompt} ${row.reasoning}`,
    kind: "summary",
    pass_at_k: null,
    per_task: null,
  }));
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "minedit-study-"));
});

afterAll(() => {
  if (process.env.KEEP_STUDY_DIR !== "1") rmSync(dir, { recursive: true, force: true });
});

describe("summary rows", () => {
  it("reads CSV and JSONL rows, with reasoning, size from the name, and optional columns", () => {
    const csv = parseSummaryRows(
      'model,prompt,reasoning,pass1,excess,added_cc,over_edit,note\n"Qwen2.5-Coder-14B-Instruct",generic,off,0.803,0.135,0.146,0.673,"a, b"\n',
      "t.csv",
    );
    expect(csv).toEqual([
      {
        source: "t.csv:2",
        model: "Qwen2.5-Coder-14B-Instruct",
        prompt: "generic",
        reasoning: null,
        size: 14,
        label: null,
        metrics: {
          pass1: { estimate: 0.803, low: null, high: null },
          excess: { estimate: 0.135, low: null, high: null },
          added_cc: { estimate: 0.146, low: null, high: null },
          over_edit: { estimate: 0.673, low: null, high: null },
        },
        tasks: null,
        samples: null,
        temperature: null,
      },
    ]);
    const jsonl = parseSummaryRows(
      '{"model":"m","prompt":"explicit","reasoning":true,"pass1":0.5,"size":3,"samples":8,"temperature":1}\n',
      "t.jsonl",
    );
    expect(jsonl[0]).toMatchObject({
      reasoning: "on",
      size: 3,
      samples: 8,
      temperature: 1,
      source: "t.jsonl:1",
    });
  });

  it("names the file, line and column of a bad row", () => {
    expect(() => parseSummaryRows("model,prompt,pass1\nm,generic,\n", "s.csv")).toThrow(
      's.csv:2: column "pass1" is required',
    );
    expect(() => parseSummaryRows("model,prompt,pass1\nm,generic,1.2\n", "s.csv")).toThrow(
      's.csv:2: column "pass1" must be in [0, 1], got 1.2',
    );
    expect(() => parseSummaryRows("model,prompt,pass1\nm,generic,x\n", "s.csv")).toThrow(
      's.csv:2: column "pass1" is not a number: "x"',
    );
    expect(() => parseSummaryRows("model,prompt,pass1\nm,generic\n", "s.csv")).toThrow(
      "s.csv:2: 2 fields where the header has 3",
    );
    expect(() => parseSummaryRows('{"model":"m"}\nnot json\n', "s.jsonl")).toThrow("s.jsonl:2: not JSON");
  });

  it("reads sizes and series from model names, not active-parameter counts", () => {
    expect(sizeFromModelName("Qwen3-Coder-30B-A3B-Instruct")).toBe(30);
    expect(sizeFromModelName("Qwen2.5-Coder-0.5B-Instruct")).toBe(0.5);
    expect(sizeFromModelName("Llama-3.1-70B-Instruct")).toBe(70);
    expect(sizeFromModelName("GPT-5.5")).toBeNull();
    expect(modelSeries("Qwen2.5-Coder-14B-Instruct")).toBe("Qwen2.5-Coder-*-Instruct");
  });

  it("refuses two settings it cannot tell apart, saying how to name them", () => {
    const rows = summarySettings(TABLE17).slice(0, 1);
    expect(() =>
      buildStudy([...rows, ...rows], { pair: ["generic", "explicit"], bootstrap: BOOTSTRAP }),
    ).toThrow(/two settings are the same model, prompt, reasoning and size .*--setting DIR:reasoning/);
  });
});

describe("the paper's Table 17 through the study", () => {
  let report: StudyReport;
  beforeAll(() => {
    report = buildStudy(summarySettings(TABLE17), { pair: ["generic", "explicit"], bootstrap: BOOTSTRAP });
  });

  it("reproduces the published Appendix C.3 and §3.2 numbers", () => {
    expect(report.matched.pairs).toHaveLength(50);
    const pass = report.matched.metrics.find((m) => m.metric === "pass1");
    // "Pass@1 increases from 81.49% to 83.74% (+2.26 percentage points) … in 40 of 50 settings …
    // two-sided sign test (p = 9.26 × 10⁻⁶)"; the paired bootstrap CI [+1.49, +3.05] is the paper's draw.
    expect(pass?.mean_a).toBeCloseTo(0.8149, 4);
    expect(pass?.mean_b).toBeCloseTo(0.8374, 4);
    expect(pass?.change.estimate).toBeCloseTo(0.0226, 4);
    expect(pass?.improved).toBe(40);
    expect(pass?.sign_test.p_value).toBeCloseTo(9.26e-6, 8);
    expect(pass?.change.low).toBeGreaterThan(0.0149 - 0.002);
    expect(pass?.change.high).toBeLessThan(0.0305 + 0.002);
    // "lowering average excess Levenshtein distance from 0.195 to 0.131, reducing added cognitive
    // complexity by 26.6%"
    const excess = report.matched.metrics.find((m) => m.metric === "excess");
    expect(excess?.mean_a).toBeCloseTo(0.195, 3);
    expect(excess?.mean_b).toBeCloseTo(0.131, 3);
    const cc = report.matched.metrics.find((m) => m.metric === "added_cc");
    expect(1 - (cc?.mean_b as number) / (cc?.mean_a as number)).toBeCloseTo(0.266, 3);
    // Figure 3's means are over the same 50 settings.
    expect(report.prompt_means.map((p) => [p.prompt, p.settings])).toEqual([
      ["generic", 50],
      ["explicit", 50],
    ]);
    expect(report.prompt_means[0]?.metrics.pass1?.estimate).toBeCloseTo(0.8149, 4);
  });

  it("gives scipy's Wilcoxon signed-rank statistics and p-values on the same table", () => {
    const script = `
import csv, json, sys
from scipy import stats
rows = list(csv.DictReader(open(sys.argv[1])))
out = {}
for metric in ("pass1", "excess", "added_cc"):
    a = {(r["model"], r["reasoning"]): float(r[metric]) for r in rows if r["prompt"] == "generic"}
    b = {(r["model"], r["reasoning"]): float(r[metric]) for r in rows if r["prompt"] == "explicit"}
    d = [b[k] - a[k] for k in a]
    w = stats.wilcoxon(d)
    out[metric] = [float(w.statistic), float(w.pvalue)]
print(json.dumps(out))
`;
    const python = spawnSync("/usr/bin/python3", ["-W", "ignore", "-c", script, TABLE17], {
      encoding: "utf8",
    });
    expect(python.status, python.stderr).toBe(0);
    const scipy = JSON.parse(python.stdout) as Record<string, [number, number]>;
    // The table is rounded to three or four decimals, so Pass@1 has ties and scipy's p (1.03e-6) is not
    // the paper's 9.88e-8, which was computed before rounding.
    for (const m of report.matched.metrics.filter((x) => x.metric !== "over_edit")) {
      const [statistic, p] = scipy[m.metric] as [number, number];
      expect(m.wilcoxon.statistic, m.metric).toBe(statistic);
      expect(Math.abs(m.wilcoxon.p_value - p) / p, m.metric).toBeLessThan(1e-9);
    }
  });
});

// ---- a study of real runs -------------------------------------------------------------------------------

/**
 * What each model answers, per task (by its position in the task file) — see fake-model.ts: "gold" passes
 * with excess 0, "rewrite" passes with a guard the gold does not have (excess > 0, added CC > 0),
 * "corrupted" fails.
 */
const PLAN: Record<string, Behaviour[]> = {
  "alpha-7B generic": ["gold", "rewrite", "corrupted", "corrupted"],
  "alpha-7B explicit": ["gold", "gold", "gold", "corrupted"],
  "alpha-14B generic": ["gold", "rewrite", "rewrite", "corrupted"],
  "alpha-14B generic high": ["gold", "gold", "rewrite", "corrupted"],
  "alpha-14B explicit": ["gold", "gold", "gold", "rewrite"],
  "beta generic": ["rewrite", "rewrite", "corrupted", "corrupted"],
  "beta explicit": ["gold", "rewrite", "corrupted", "corrupted"],
};
const TASKS = 4;

describe("a study of runs from a local endpoint", () => {
  let server: FakeServer;
  let taskFile: string;
  let config: string;
  const runs: string[] = [];

  beforeAll(async () => {
    const seeded = writeSeedTasks(dir, TASKS);
    ({ taskFile, config } = seeded);
    const tasks = seeded.tasks;
    server = await startFakeOpenAI({
      models: ["alpha-7B", "alpha-14B", "beta", "gamma"],
      model: taskModel({
        tasks,
        behaviour: (taskId, choice, body) => {
          const index = tasks.findIndex((t) => t.task_id === taskId);
          const messages = body.messages as { content: string }[];
          const explicit = messages.some((m) => m.content.includes("keep as much of the original code"));
          if (body.model === "gamma") {
            // Four samples per task, seeds 0…3: gold on even task + sample, else unchanged.
            const sample = choice + (typeof body.seed === "number" ? body.seed : 0);
            return (index + sample) % 2 === 0 ? "gold" : "corrupted";
          }
          const key = [body.model, explicit ? "explicit" : "generic", body.reasoning_effort]
            .filter((p) => typeof p === "string")
            .join(" ");
          return (PLAN[key] as Behaviour[])[index] as Behaviour;
        },
      }),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  const evalRun = async (name: string, extra: string[]) => {
    const out = join(dir, name);
    const result = await runMinedit([
      "eval",
      "run",
      "--tasks",
      taskFile,
      "--base-url",
      server.url,
      "--out",
      out,
      "--seed",
      "0",
      "--resamples",
      "200",
      "--concurrency",
      "2",
      "--threads",
      "1",
      "--config",
      config,
      ...extra,
    ]);
    expect(result.status, result.stderr).toBe(0);
    runs.push(out);
  };

  it("runs seven settings and a four-sample one against the endpoint", { timeout: 600_000 }, async () => {
    await evalRun("a7-generic", ["--model", "alpha-7B", "--prompt", "generic"]);
    await evalRun("a7-explicit", ["--model", "alpha-7B", "--prompt", "explicit"]);
    await evalRun("a14-generic", ["--model", "alpha-14B", "--prompt", "generic"]);
    await evalRun("a14-generic-high", [
      "--model",
      "alpha-14B",
      "--prompt",
      "generic",
      "--reasoning-effort",
      "high",
    ]);
    await evalRun("a14-explicit", ["--model", "alpha-14B", "--prompt", "explicit"]);
    await evalRun("b-generic", ["--model", "beta", "--prompt", "generic"]);
    await evalRun("b-explicit", ["--model", "beta", "--prompt", "explicit"]);
    await evalRun("gamma", [
      "--model",
      "gamma",
      "--prompt",
      "generic",
      "--n",
      "4",
      "--temperature",
      "1",
      "--one-per-request",
    ]);
  });

  it("renders every table and figure with the hand-counted values", { timeout: 300_000 }, async () => {
    const out = join(dir, "study");
    const result = await runMinedit([
      "eval",
      "study",
      ...runs,
      "--summary",
      TABLE17,
      "--resamples",
      "300",
      "--out",
      out,
    ]);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, "study.json"), "utf8")) as StudyReport;
    const setting = (name: string) => {
      const found = report.settings.find((s) => s.name === name);
      expect(found, name).toBeDefined();
      return found as StudyReport["settings"][number];
    };
    // Pass@1 = passing tasks / 4 (the plan above); over-edit = passing samples with excess > 0 over passing
    // samples, counted from each run's samples.jsonl.
    const samplesOf = (run: string) =>
      readFileSync(join(dir, run, "samples.jsonl"), "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as { task_id: string; passed: boolean; excess: number | null });
    const overEdit = (run: string) => {
      const passing = samplesOf(run).filter((x) => x.passed);
      return passing.filter((x) => (x.excess as number) > 0).length / passing.length;
    };
    expect(setting("alpha-7B · generic").metrics.pass1?.estimate).toBe(0.5);
    expect(setting("alpha-7B · generic").metrics.over_edit?.estimate).toBeCloseTo(overEdit("a7-generic"), 12);
    expect(setting("alpha-7B · explicit").metrics.pass1?.estimate).toBe(0.75);
    // Gold answers only: excess 0, nothing over-edited.
    expect(setting("alpha-7B · explicit").metrics.over_edit?.estimate).toBe(0);
    expect(setting("alpha-7B · explicit").metrics.excess?.estimate).toBe(0);
    expect(setting("alpha-14B · generic").metrics.pass1?.estimate).toBe(0.75);
    expect(setting("alpha-14B · generic").metrics.over_edit?.estimate).toBeCloseTo(
      overEdit("a14-generic"),
      12,
    );
    expect(setting("alpha-14B · generic · high").reasoning).toBe("high");
    expect(setting("alpha-14B · explicit").metrics.pass1?.estimate).toBe(1);
    expect(setting("beta · generic").metrics.over_edit?.estimate).toBeCloseTo(overEdit("b-generic"), 12);
    expect(setting("alpha-7B · generic").size).toBe(7);
    expect(setting("alpha-7B · generic").metrics.excess?.low).not.toBeNull();

    // C.3 over our three pairs plus the table's 50: the runs' pairs are alpha-7B, alpha-14B and beta.
    expect(report.matched.pairs).toHaveLength(53);
    const runPairs = report.matched.pairs.filter((p) => /alpha|beta/.test(p.a)).map((p) => p.a);
    expect(runPairs.sort()).toEqual(["alpha-14B · generic", "alpha-7B · generic", "beta · generic"]);

    // Figure 4: alpha-14B with reasoning, generic prompt. Both repair tasks 0, 1 and 2 (the plan); the
    // expected difference is read from the two runs' samples.
    const all = report.reasoning.find((r) => r.family === "all");
    expect(all).toMatchObject({ model: "alpha-14B", reasoning: "high", prompt: "generic", tasks: 3 });
    const off = new Map(samplesOf("a14-generic").map((x) => [x.task_id, x]));
    const joint = samplesOf("a14-generic-high").flatMap((x) => {
      const other = off.get(x.task_id);
      return x.passed && other?.passed ? [(x.excess as number) - (other.excess as number)] : [];
    });
    expect(joint).toHaveLength(3);
    expect(all?.excess as number).toBeCloseTo(joint.reduce((a, b) => a + b, 0) / 3, 12);
    expect(all?.excess as number).toBeLessThan(0);

    // Figure 5: the alpha series at 7B and 14B, under both prompts (and the reasoning variant).
    const alpha = report.scaling.filter((p) => p.series === "alpha-*");
    expect(alpha.map((p) => `${p.prompt} ${p.size} ${p.reasoning}`).sort()).toEqual([
      "explicit 14 null",
      "explicit 7 null",
      "generic 14 high",
      "generic 14 null",
      "generic 7 null",
    ]);

    // Table 19: gamma, 4 samples at temperature 1, each task passing 2 of 4: pass@1 0.5, pass@4 1.
    expect(report.repeated).toHaveLength(1);
    expect(report.repeated[0]).toMatchObject({ samples: 4, temperature: 1 });
    expect(report.repeated[0]?.pass1?.estimate).toBe(0.5);
    expect(report.repeated[0]?.pass_at_k?.estimate).toBe(1);

    const markdown = readFileSync(join(out, "study.md"), "utf8");
    expect(result.stdout).toBe(markdown);
    for (const heading of [
      "Settings (Tables 17 and 18)",
      "(Figure 3)",
      "(Appendix C.3)",
      "(Figure 4)",
      "(Figure 5)",
      "(Table 19)",
    ])
      expect(markdown).toContain(heading);
  });

  it("shows every figure with its marks and visible labels in headless chromium", {
    timeout: 120_000,
  }, async () => {
    const page = join(dir, "study", "study.html");
    const profile = mkdtempSync(join(dir, "profile-"));
    const common = [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      `--user-data-dir=${profile}`,
    ];
    const dumped = await runProcess(CHROMIUM, [...common, "--dump-dom", `file://${page}`]);
    expect(dumped.status, dumped.stderr).toBe(0);
    const dom = dumped.stdout;
    const svg = (id: string) => {
      const start = dom.indexOf(`data-chart="${id}"`);
      expect(start, `figure ${id}`).toBeGreaterThan(-1);
      return dom.slice(start, dom.indexOf("</svg>", start));
    };
    const texts = (s: string) => [...s.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] as string);
    // Figure 2: a point per setting (58), lines and arrowheads for the 53 pairs, names as text.
    const fig2 = svg("fig2");
    expect(
      (fig2.match(/role="graphics-symbol"[^>]*aria-roledescription="point"/g) ?? []).length,
    ).toBeGreaterThanOrEqual(58);
    expect(texts(fig2)).toContain("alpha-7B");
    expect(texts(fig2)).toContain("Claude Opus 4.7 · high");
    expect(fig2).toContain('aria-roledescription="line mark"');
    // Figure 3: bars and whiskers per prompt with n.
    const fig3 = svg("fig3");
    expect(fig3).toContain('aria-roledescription="bar"');
    expect(texts(fig3)).toContain("n = 53");
    // Figure 4: bars per family; Figure 5: lines against size.
    expect(svg("fig4")).toContain('aria-roledescription="bar"');
    expect(texts(svg("fig4"))).toContain("all");
    expect(svg("fig5")).toContain('aria-roledescription="line mark"');
    expect(texts(svg("fig5"))).toContain("Model size (B parameters)");

    mkdirSync(SCREENSHOTS, { recursive: true });
    const png = join(SCREENSHOTS, "study.png");
    const shot = await runProcess(CHROMIUM, [
      ...common,
      "--hide-scrollbars",
      "--window-size=1400,9000",
      `--screenshot=${png}`,
      `file://${page}`,
    ]);
    expect(shot.status, shot.stderr).toBe(0);
    const bytes = readFileSync(png);
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(bytes.length).toBeGreaterThan(50_000);
    process.stdout.write(`study page screenshot: ${png}\n`);
  });
});
