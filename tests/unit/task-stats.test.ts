/**
 * The task-set report (src/core/task-stats.ts) on a hand-made task set whose every number was counted by
 * hand (token counts are those of CPython's tokenize on ast.unparse output, NEWLINE included), plus the
 * quantile definition checked against Python's `statistics.quantiles(method="inclusive")`.
 */
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_FAMILIES } from "../../src/core/corruption/registry.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import {
  computeTaskStats,
  familyCategory,
  functionMeasures,
  quantile,
  renderTaskReport,
  type StatsTask,
  summarize,
  type TaskReport,
} from "../../src/core/task-stats.js";

beforeAll(async () => {
  await loadPythonGrammar();
});

// f: 21 tokens (def f ( x ) : NL | if x > 0 : NL | return x + 1 NL | return 0 NL); body: 3 lines, 14 tokens.
const F = "def f(x):\n    if x > 0:\n        return x + 1\n    return 0\n";
// g: 26 tokens; the docstring (STRING NL) is not executable: body 4 lines, 4 + 6 + 4 + 3 = 17 tokens.
const G =
  'def g(items):\n    """Sum."""\n    total = 0\n    for item in items:\n        total += item\n    return total\n';
// h and K.m: 31 tokens; h: 1 line, 8 tokens (return max ( a , b ) NL); m: 1 line, 3 tokens (return 1 NL).
const H = "def h(a, b):\n    return max(a, b)\n\n\nclass K:\n    def m(self):\n        return 1\n";

const TASKS: StatsTask[] = [
  {
    taskId: "f/v1",
    problemId: "f",
    split: "test",
    gold: F,
    corrupted: F.replace(">", ">="),
    corruptions: [{ family: "comparison_operators" }],
  },
  {
    taskId: "g/v1",
    problemId: "g",
    split: "test",
    gold: G,
    corrupted: G.replace("= 0", "= 1").replace("+=", "-="),
    corruptions: [{ family: "accumulator_initialization" }, { family: "arithmetic_operators" }],
  },
  {
    taskId: "h/v1",
    problemId: "h",
    split: "ood",
    gold: H,
    corrupted: H.replace("max", "min"),
    corruptions: [{ family: "min_max_swap" }],
  },
  {
    taskId: "z/v1",
    problemId: "z",
    split: "ood",
    gold: "def z():\n    return 1\n",
    corrupted: "def z(:\n",
    corruptions: [{ family: "mystery" }],
  },
];

describe("computeTaskStats on a hand-counted task set", () => {
  let report: TaskReport;
  beforeAll(() => {
    report = computeTaskStats(TASKS, {
      rejections: new Map([["test", { counts: { still_passed: 3, gold_failed: 1 }, problems: 3 }]]),
      families: ALL_FAMILIES,
    });
  });

  it("counts tasks, problems and splits", () => {
    expect(report.tasks).toBe(4);
    expect(report.problems).toBe(4);
    expect(Object.keys(report.splits)).toEqual(["ood", "test"]);
    expect(report.splits.test?.tasks).toBe(2);
    expect(report.splits.test?.applications).toBe(3);
    expect(report.all.applications).toBe(5);
  });

  it("corruptions per task", () => {
    expect(report.splits.test?.corruptionsPerTask).toEqual([
      { corruptions: 1, tasks: 1, share: 0.5 },
      { corruptions: 2, tasks: 1, share: 0.5 },
    ]);
    expect(report.all.corruptionsPerTask).toEqual([
      { corruptions: 1, tasks: 3, share: 0.75 },
      { corruptions: 2, tasks: 1, share: 0.25 },
    ]);
  });

  it("gold token edit distance, normalized gold distance and line edit distance", () => {
    const test = report.splits.test;
    expect(test?.goldTokenEditDistance).toEqual({
      count: 2,
      mean: 1.5,
      median: 1.5,
      q1: 1.25,
      q3: 1.75,
      p95: 1.95,
      min: 1,
      max: 2,
    });
    expect(test?.normalizedGoldDistance.mean).toBeCloseTo((1 / 21 + 2 / 26) / 2, 12);
    expect(test?.normalizedGoldDistance.min).toBeCloseTo(1 / 21, 12);
    expect(test?.normalizedGoldDistance.max).toBeCloseTo(2 / 26, 12);
    // Over function bodies as the paper's extract_function_body cuts them (docs/reward.md): f has no
    // docstring, so its body starts at the def line — all 21 tokens; g's starts after its docstring: 17.
    expect(test?.bodyNormalizedGoldDistance.mean).toBeCloseTo((1 / 21 + 2 / 17) / 2, 12);
    expect(test?.bodyNormalizedGoldDistance.min).toBeCloseTo(1 / 21, 12);
    expect(test?.goldLineEditDistance.mean).toBe(1.5);
    expect(test?.goldTokenEditsAtMost).toEqual([
      { edits: 1, share: 0.5 },
      { edits: 2, share: 1 },
      { edits: 3, share: 1 },
      { edits: 4, share: 1 },
    ]);
    // All splits: token edits [1, 2, 1] (the unparsable task is left out).
    expect(report.all.goldTokenEditDistance).toMatchObject({ count: 3, median: 1, q1: 1, q3: 1.5 });
    expect(report.all.goldTokenEditDistance.mean).toBeCloseTo(4 / 3, 12);
    expect(report.splits.ood?.normalizedGoldDistance.mean).toBeCloseTo(1 / 31, 12);
  });

  it("unparsable tasks are listed and left out", () => {
    expect(report.splits.ood?.unparsable).toEqual(["z/v1"]);
    expect(report.splits.ood?.goldTokenEditDistance.count).toBe(1);
    expect(report.all.unparsable).toEqual(["z/v1"]);
  });

  it("executable lines and tokens per function", () => {
    expect(report.splits.test?.functions).toBe(2);
    expect(report.splits.test?.executableLinesPerFunction).toMatchObject({ mean: 3.5, min: 3, max: 4 });
    expect(report.splits.test?.tokensPerFunction).toMatchObject({ mean: 15.5, min: 14, max: 17 });
    // ood: h (1 line, 8 tokens) and K.m (1 line, 3 tokens); z does not parse as a task.
    expect(report.splits.ood?.tokensPerFunction).toMatchObject({ count: 2, median: 5.5, q1: 4.25, q3: 6.75 });
    expect(report.splits.ood?.executableLinesPerFunction).toMatchObject({ mean: 1, max: 1 });
  });

  it("family table: applications, shares, tasks containing the family, titles and domains", () => {
    expect(report.splits.test?.families).toEqual([
      {
        family: "accumulator_initialization",
        title: "Accumulator Initialization",
        domain: "in-domain",
        category: "Computation/value",
        applications: 1,
        share: 1 / 3,
        tasks: 1,
        taskShare: 0.5,
      },
      expect.objectContaining({ family: "arithmetic_operators", applications: 1, share: 1 / 3 }),
      expect.objectContaining({ family: "comparison_operators", category: "Predicate/control flow" }),
    ]);
    expect(report.splits.ood?.families.map((f) => [f.family, f.domain, f.category])).toEqual([
      ["min_max_swap", "ood", "API/data semantics"],
      ["mystery", "unknown", "Other"],
    ]);
  });

  it("category table: a task with two families of one category counts once", () => {
    expect(report.splits.test?.categories).toEqual([
      {
        category: "Predicate/control flow",
        families: ["comparison_operators"],
        applications: 1,
        share: 1 / 3,
        tasks: 1,
        taskShare: 0.5,
      },
      {
        category: "Computation/value",
        families: ["accumulator_initialization", "arithmetic_operators"],
        applications: 2,
        share: 2 / 3,
        tasks: 1,
        taskShare: 0.5,
      },
    ]);
  });

  it("rejections per split, summed over all splits; null when not recorded", () => {
    expect(report.splits.test?.rejected).toEqual({
      counts: { still_passed: 3, gold_failed: 1 },
      problems: 3,
      total: 4,
    });
    expect(report.splits.ood?.rejected).toBeNull();
    expect(report.all.rejected).toMatchObject({ total: 4, problems: 3 });
  });

  it("renders Markdown tables", () => {
    const markdown = renderTaskReport(report, "Task set report: hand.jsonl");
    // Cells are padded to the column width; compare with single spaces.
    const squeezed = markdown.replace(/ {2,}/g, " ");
    expect(markdown).toMatch(/^# Task set report: hand.jsonl\n\n4 tasks from 4 problems in 2 splits/);
    expect(markdown).toContain("## Split `test`");
    expect(squeezed).toContain("| Gold token edit dist. | 1.50 | 1.50 | 1.25 | 1.75 | 1.95 | 1 | 2 |");
    expect(squeezed).toContain("| Accumulator Initialization | in-domain | 1 | 33.3% | 1 (50.0%) |");
    expect(squeezed).toContain("| Computation/value | 2 | 2 | 66.7% | 1 (50.0%) |");
    expect(squeezed).toContain(
      "| `still_passed` | candidate: the corrupted program still passed the tests | 3 |",
    );
    // Columns padded as the formatter (Biome) pads them: text left, numbers right, at least 3 wide.
    expect(markdown).toContain(
      [
        "| Corruptions | Tasks | Share |",
        "| ----------- | ----: | ----: |",
        "| 1           |     1 | 50.0% |",
        "| 2           |     1 | 50.0% |",
      ].join("\n"),
    );
    expect(markdown).toContain("Not recorded (no build log next to the task file).");
    expect(markdown).toContain("1 tasks do not parse");
  });
});

describe("functionMeasures", () => {
  it("skips docstrings, blank lines and comments; nested functions belong to the outer one", () => {
    const program =
      'import os\n\ndef f(x):\n    """Doc."""\n    # note\n\n    y = x + 1\n    return y\n\n' +
      "class A:\n    def m(self):\n        def inner():\n            return 1\n        return inner()\n\nprint(f(1))\n";
    // f: y = x + 1 NL return y NL; m: def inner ( ) : NL return 1 NL return inner ( ) NL.
    expect(functionMeasures(program)).toEqual([
      { name: "f", executableLines: 2, tokens: 9 },
      { name: "m", executableLines: 3, tokens: 14 },
    ]);
  });

  it("a function with only a docstring has no executable line", () => {
    expect(functionMeasures('def f():\n    """Only a docstring."""\n')).toEqual([
      { name: "f", executableLines: 0, tokens: 0 },
    ]);
  });
});

describe("summaries", () => {
  it("empty and single values", () => {
    expect(summarize([])).toEqual({
      count: 0,
      mean: null,
      median: null,
      q1: null,
      q3: null,
      p95: null,
      min: null,
      max: null,
    });
    expect(summarize([7])).toEqual({ count: 1, mean: 7, median: 7, q1: 7, q3: 7, p95: 7, min: 7, max: 7 });
  });

  it("quartiles match Python's statistics.quantiles(method='inclusive')", () => {
    const samples = [
      [1, 2, 3, 4],
      [3, 1, 4, 1, 5, 9, 2, 6],
      [0.5, 0.25, 0.125],
      [10, 10, 10, 11, 40, 2, 7],
    ];
    const python = spawnSync(
      "python3",
      [
        "-c",
        "import json, statistics, sys\n" +
          "print(json.dumps([statistics.quantiles(s, n=4, method='inclusive') for s in json.load(sys.stdin)]))",
      ],
      { input: JSON.stringify(samples), encoding: "utf8" },
    );
    expect(python.status, python.stderr).toBe(0);
    const expected = JSON.parse(python.stdout) as number[][];
    samples.forEach((sample, i) => {
      const sorted = [...sample].sort((a, b) => a - b);
      const [q1, median, q3] = expected[i] as number[];
      expect(quantile(sorted, 0.25)).toBeCloseTo(q1 as number, 12);
      expect(quantile(sorted, 0.5)).toBeCloseTo(median as number, 12);
      expect(quantile(sorted, 0.75)).toBeCloseTo(q3 as number, 12);
    });
  });
});

it("every corruption family of the engine has a Table 10 category", () => {
  expect(ALL_FAMILIES).toHaveLength(34);
  expect(ALL_FAMILIES.filter((f) => familyCategory(f.name) === "Other").map((f) => f.name)).toEqual([]);
});
