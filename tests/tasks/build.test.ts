/**
 * `minedit tasks build` and `minedit tasks stats`, run in-process through the CLI's `main` with the real
 * corruption engine, importers and bubblewrap sandbox. Every built task is re-run here, independently of
 * the builder: its gold program must pass its tests and its corrupted program must fail them, and undoing
 * the recorded corruptions must give the gold program back. Also: resuming (a second run adds nothing; a
 * torn last line is recovered into the file an uninterrupted run writes), determinism across seeds and
 * parallelism, rejection counts, bad source rows, already-corrupted sources, the server's task store
 * serving a built file, and the CLI's help and usage errors.
 *
 * The problems are the project's own (datasets/seed/problems.jsonl) and small ones written here.
 */
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { gzipSync } from "node:zlib";
import { Client, credentials } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { parseConfig } from "../../src/config.js";
import { revertCorruptions } from "../../src/core/corruption/engine.js";
import { IN_DOMAIN_FAMILIES } from "../../src/core/corruption/in-domain/index.js";
import type { AppliedCorruption } from "../../src/core/corruption/types.js";
import { Verdict } from "../../src/gen/minedit/v1/reward_pb.js";
import { runPythonTests } from "../../src/runners/python.js";
import { createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import { DEFAULT_LIMITS } from "../../src/sandbox/sandbox.js";
import { parseStoredTask, TaskStore } from "../../src/scoring/task-store.js";
import { startService } from "../../src/server/service.js";
import { type BuildSummary, buildTasks } from "../../src/tasks/build.js";
import type { BuiltTaskRow } from "../../src/tasks/task-set.js";
import { scoreBatch } from "../server/harness.js";

const ROOT = join(import.meta.dirname, "..", "..");

type Run = { status: number; stdout: string; stderr: string };

async function minedit(...args: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const status = await main(args, {
    stdin: Readable.from([]),
    stdout: sink((t) => {
      stdout += t;
    }),
    stderr: sink((t) => {
      stderr += t;
    }),
  });
  return { status, stdout, stderr };
}

/** Markdown with the table padding collapsed: cells are padded to their column's width. */
const squeeze = (text: string) => text.replace(/ {2,}/g, " ");

const readRows = (file: string): BuiltTaskRow[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as BuiltTaskRow);

const seedProblems = readFileSync(join(ROOT, "datasets", "seed", "problems.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line !== "");
const seedProblem = (id: string) => {
  const line = seedProblems.find((l) => (JSON.parse(l) as { problem_id: string }).problem_id === id);
  if (line === undefined) throw new Error(`no seed problem ${id}`);
  return line;
};

/** A problem row in the project's own format (datasets/seed/problems.jsonl). */
function problem(id: string, solution: string, check: string, entryPoint: string): string {
  return JSON.stringify({
    problem_id: id,
    statement: `Problem ${id}.`,
    entry_point: entryPoint,
    solution,
    tests: { style: "assert", code: check },
  });
}

let dir: string;
let source: string;
let out: string;
let first: Run;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "minedit-tasks-"));
  source = join(dir, "problems.jsonl");
  // One problem of each test style, then two bad rows (lines 4 and 5).
  writeFileSync(
    source,
    [
      seedProblem("seed/006-rotate-grid"),
      seedProblem("seed/044-mask-card"),
      seedProblem("seed/051-column-sums"),
      "{not json",
      JSON.stringify({ problem_id: "x", statement: "s", tests: { style: "assert", code: "" } }),
      "",
    ].join("\n"),
  );
  out = join(dir, "tasks.jsonl");
  first = await minedit(
    ...["tasks", "build", "--source", source, "--out", out, "--variants", "2", "--seed", "5"],
    ...["--concurrency", "2"],
  );
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a build", () => {
  it("exits 1 for the bad source rows, reports them by line, and builds the others", () => {
    expect(first.status, first.stderr).toBe(1);
    expect(first.stderr).toContain(`${source}:4: invalid JSON`);
    expect(first.stderr).toMatch(new RegExp(`${source}:5: .*solution`));
    expect(first.stderr).toMatch(/3 problems built, \d+ tasks written .*0 skipped.*2 bad source rows/);
  });

  it("writes task rows in source order with stable ids, split, source and domain", () => {
    const rows = readRows(out);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const problems = [...new Set(rows.map((r) => r.problem_id))];
    expect(problems).toEqual([
      "minedit/seed/006-rotate-grid",
      "minedit/seed/044-mask-card",
      "minedit/seed/051-column-sums",
    ]);
    for (const row of rows) {
      expect(row.task_id).toMatch(/^minedit\/seed\/\d{3}-[a-z-]+\/test\/v[12]$/);
      expect(row).toMatchObject({ split: "test", source: "minedit", domain: "in-domain" });
      expect(row).not.toHaveProperty("runtime"); // stdlib, the default, is left implicit
      expect(row.corruptions.length).toBeGreaterThanOrEqual(1);
      expect(row.corruptions.length).toBeLessThanOrEqual(2);
      expect(row.corrupted).not.toBe(row.gold);
    }
    expect(new Set(rows.map((r) => r.task_id)).size).toBe(rows.length);
  });

  it("records each corruption at its place in the gold program; undoing them gives the gold program", () => {
    for (const row of readRows(out)) {
      const applied = row.corruptions as AppliedCorruption[];
      for (const c of applied) {
        expect(row.gold.slice(c.start, c.end)).toBe(c.original);
        const lineStart =
          row.gold
            .split("\n")
            .slice(0, c.line - 1)
            .join("\n").length + (c.line > 1 ? 1 : 0);
        expect(c.start - lineStart).toBe(c.column);
      }
      expect(revertCorruptions(row.corrupted, applied)).toBe(row.gold);
    }
  });

  it("every task: the gold program passes its tests and the corrupted program fails them", async () => {
    const sandbox = await createBwrapSandbox();
    try {
      for (const row of readRows(out)) {
        const { tests } = parseStoredTask(row);
        const gold = await runPythonTests(sandbox, row.gold, tests, DEFAULT_LIMITS);
        const corrupted = await runPythonTests(sandbox, row.corrupted, tests, DEFAULT_LIMITS);
        expect(gold.verdict, `${row.task_id} gold: ${gold.detail}`).toBe("PASSED");
        expect(corrupted.verdict, row.task_id).not.toBe("PASSED");
        expect(corrupted.verdict, row.task_id).not.toBe("INFRA_ERROR");
      }
    } finally {
      await sandbox.close();
    }
  }, 60_000);

  it("prints the report and writes it beside the task file, with the build log", () => {
    const markdown = readFileSync(join(dir, "tasks.report.md"), "utf8");
    expect(first.stdout).toBe(markdown);
    expect(markdown).toContain("# Task set report: tasks.jsonl");
    expect(squeeze(markdown)).toContain("| Gold token edit dist. |");
    const json = JSON.parse(readFileSync(join(dir, "tasks.report.json"), "utf8"));
    expect(json.tasks).toBe(readRows(out).length);
    expect(json.all.rejected.problems).toBe(3);
    const log = readFileSync(join(dir, "tasks.build.log"), "utf8").trim().split("\n");
    expect(log.map((l) => JSON.parse(l).problem_id)).toEqual([
      "minedit/seed/006-rotate-grid",
      "minedit/seed/044-mask-card",
      "minedit/seed/051-column-sums",
    ]);
  });
});

describe("resuming", () => {
  it("a second run adds nothing and reports the problems as skipped", async () => {
    const before = readFileSync(out, "utf8");
    const again = await minedit(
      ...["tasks", "build", "--source", source, "--out", out, "--variants", "2", "--seed", "5"],
    );
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("0 problems built, 0 tasks written");
    expect(again.stderr).toContain("3 skipped (already in");
    expect(readFileSync(out, "utf8")).toBe(before);
    expect(again.stdout).toBe(first.stdout);
  }, 60_000);

  it("refuses to resume a split with other options, which are recorded in the build log", async () => {
    const log = readFileSync(join(dir, "tasks.build.log"), "utf8").trim().split("\n");
    expect(JSON.parse(log[0] as string).settings).toEqual({
      families: IN_DOMAIN_FAMILIES.map((f) => f.name),
      mix: "paper",
      corruptions: "1-2",
      variants: 2,
      candidates: 8,
      seed: 5,
    });
    const before = readFileSync(out, "utf8");
    const otherMix = await minedit(
      ...["tasks", "build", "--source", source, "--out", out, "--variants", "2", "--seed", "5"],
      ...["--mix", "blocks"],
    );
    expect(otherMix.status).toBe(2);
    expect(otherMix.stderr).toContain("was built with other options (families comparison_operators,");
    expect(otherMix.stderr).toContain("mix paper, corruptions 1-2");
    const other = await minedit(
      ...["tasks", "build", "--source", source, "--out", out, "--variants", "2", "--seed", "6"],
    );
    expect(other.status).toBe(2);
    expect(other.stderr).toContain('split "test" of');
    expect(other.stderr).toContain("was built with other options (families comparison_operators,");
    expect(other.stderr).toContain("seed 5); resume it with those");
    expect(readFileSync(out, "utf8")).toBe(before);
  }, 30_000);

  it("a torn last line (an interrupted problem) is dropped and that problem built again", async () => {
    const torn = join(dir, "torn.jsonl");
    copyFileSync(out, torn);
    const log = readFileSync(join(dir, "tasks.build.log"), "utf8").trim().split("\n");
    // The last problem's rows were being written when the run died: half of its last line is there,
    // and its log line never was.
    const size = Buffer.byteLength(readFileSync(out, "utf8"));
    const lastLine = readFileSync(out, "utf8").trimEnd().split("\n").at(-1) as string;
    truncateSync(torn, size - Math.floor(Buffer.byteLength(lastLine) / 2));
    writeFileSync(join(dir, "torn.build.log"), `${log.slice(0, -1).join("\n")}\n`);
    const resumed = await minedit(
      ...["tasks", "build", "--source", source, "--out", torn, "--variants", "2", "--seed", "5"],
    );
    expect(resumed.stderr).toMatch(/dropped \d+ row\(s\) of an interrupted problem/);
    expect(resumed.stderr).toContain("1 problems built");
    expect(resumed.stderr).toContain("2 skipped");
    expect(readFileSync(torn, "utf8")).toBe(readFileSync(out, "utf8"));
  }, 60_000);

  it("a last row without its newline is kept, and the next row goes on a line of its own", async () => {
    const unterminated = join(dir, "unterminated.jsonl");
    const full = readFileSync(out, "utf8");
    const firstProblem = readRows(out)[0]?.problem_id;
    // Keep the first problem's rows, the last without its newline, and its log line.
    const keptRows = full.split("\n").filter((l) => l !== "" && JSON.parse(l).problem_id === firstProblem);
    writeFileSync(unterminated, keptRows.join("\n"));
    const log = readFileSync(join(dir, "tasks.build.log"), "utf8").split("\n");
    writeFileSync(join(dir, "unterminated.build.log"), `${log[0]}\n`);
    const resumed = await minedit(
      ...["tasks", "build", "--source", source, "--out", unterminated, "--variants", "2", "--seed", "5"],
    );
    expect(resumed.stderr).toContain("2 problems built");
    expect(resumed.stderr).toContain("1 skipped");
    expect(readFileSync(unterminated, "utf8")).toBe(full);
  }, 60_000);
});

describe("interrupting", () => {
  it("an aborted build leaves whole problems in source order; resuming completes the same file", async () => {
    const interrupted = join(dir, "interrupted.jsonl");
    const sandbox = await createBwrapSandbox();
    const abort = new AbortController();
    let summary: BuildSummary;
    try {
      summary = await buildTasks({
        source,
        families: IN_DOMAIN_FAMILIES,
        // The CLI's default for the in-domain families, which built `out`.
        mix: "paper",
        corruptions: { min: 1, max: 2 },
        variants: 2,
        candidates: 8,
        seed: 5,
        split: "test",
        out: interrupted,
        sandbox,
        limits: DEFAULT_LIMITS,
        concurrency: 1,
        signal: abort.signal,
        // Ctrl-C as soon as the first problem is finished.
        onProgress: (done) => {
          if (done === 1) abort.abort();
        },
      });
    } finally {
      await sandbox.close();
    }
    expect(summary.interrupted).toBe(true);
    expect(summary.processed).toBe(1);
    const firstProblem = readRows(out)[0]?.problem_id;
    expect(readRows(interrupted).every((r) => r.problem_id === firstProblem)).toBe(true);
    expect(readFileSync(out, "utf8").startsWith(readFileSync(interrupted, "utf8"))).toBe(true);
    const resumed = await minedit(
      ...["tasks", "build", "--source", source, "--out", interrupted, "--variants", "2", "--seed", "5"],
    );
    expect(resumed.stderr).toContain("2 problems built");
    expect(readFileSync(interrupted, "utf8")).toBe(readFileSync(out, "utf8"));
  }, 60_000);
});

describe("determinism", () => {
  it("the same seed gives the same file, whatever the parallelism", async () => {
    const serial = join(dir, "serial.jsonl");
    const run = await minedit(
      ...["tasks", "build", "--source", source, "--out", serial, "--variants", "2", "--seed", "5"],
      ...["--concurrency", "1"],
    );
    expect(run.status).toBe(1);
    expect(readFileSync(serial, "utf8")).toBe(readFileSync(out, "utf8"));
  }, 60_000);
});

describe("rejections", () => {
  let run: Run;
  let rejectOut: string;
  beforeAll(async () => {
    const rejectSource = join(dir, "reject.jsonl");
    writeFileSync(
      rejectSource,
      [
        // x + 1 → x - 1 still passes this weak test.
        problem(
          "weak",
          "def bump(x):\n    return x + 1\n",
          "def check(candidate):\n    assert candidate(0) in (1, -1)\n",
          "bump",
        ),
        // The gold program fails its own test.
        problem(
          "wrong",
          "def two():\n    return 1 + 1\n",
          "def check(candidate):\n    assert candidate() == 3\n",
          "two",
        ),
        // Nothing for arithmetic_operators to corrupt.
        problem(
          "plain",
          "def ident(x):\n    return x\n",
          "def check(candidate):\n    assert candidate(4) == 4\n",
          "ident",
        ),
      ].join("\n"),
    );
    rejectOut = join(dir, "reject.jsonl.out");
    run = await minedit(
      ...[
        "tasks",
        "build",
        "--source",
        rejectSource,
        "--out",
        rejectOut,
        "--families",
        "arithmetic_operators",
      ],
      ...["--corruptions", "1", "--candidates", "1", "--split", "dev"],
    );
  }, 60_000);

  it("counts candidates that still pass, gold programs that fail, and problems without a site", () => {
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "3 problems built, 0 tasks written (rejected: 1 still_passed, 1 gold_failed, 1 no_site)",
    );
    expect(readRows(rejectOut)).toEqual([]);
    expect(squeeze(run.stdout)).toContain(
      "| `still_passed` | candidate: the corrupted program still passed the tests | 1 |",
    );
    expect(squeeze(run.stdout)).toContain(
      "| `gold_failed` | problem: the gold program did not pass its own tests | 1 |",
    );
    expect(squeeze(run.stdout)).toContain(
      "| `no_site` | problem: no site for any requested corruption family | 1 |",
    );
    const log = readFileSync(`${rejectOut}.build.log`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(log.map((e) => [e.problem_id, e.split, e.tasks, e.rejected])).toEqual([
      ["minedit/weak", "dev", 0, { still_passed: 1 }],
      ["minedit/wrong", "dev", 0, { gold_failed: 1 }],
      ["minedit/plain", "dev", 0, { no_site: 1 }],
    ]);
    expect(log[1].note).toMatch(/^gold FAILED_TESTS/);
  });

  it("problems without tasks count as finished when resuming", async () => {
    const again = await minedit(
      ...["tasks", "build", "--source", join(dir, "reject.jsonl"), "--out", rejectOut],
      ...["--families", "arithmetic_operators", "--corruptions", "1", "--candidates", "1", "--split", "dev"],
    );
    expect(again.stderr).toContain("0 problems built");
    expect(again.stderr).toContain("3 skipped");
    expect(squeeze(again.stdout)).toContain(
      "| `gold_failed` | problem: the gold program did not pass its own tests | 1 |",
    );
  }, 30_000);
});

describe("already-corrupted sources", () => {
  it("are verified, not corrupted again; their rows name the source's families", async () => {
    const corruptedSource = join(dir, "corrupted.jsonl");
    const row = (id: string, corrupted: string, families: string[]) =>
      JSON.stringify({
        task_id: id,
        canonical_solution: "def double(x):\n    return x * 2\n",
        corrupted_solution: corrupted,
        test_code: "def check(candidate):\n    assert candidate(2) == 4\n",
        entry_point: "double",
        mutation_types: families,
      });
    writeFileSync(
      corruptedSource,
      [
        row("c1", "def double(x):\n    return x * 3\n", ["numeric_constants"]),
        row("c2", "def double(x):\n    return x + x\n", ["arithmetic_operators"]),
        row("c3", "def double(x):\n    return x * 2 + 1\n", ["made_up", "numeric_constants"]),
      ].join("\n"),
    );
    const target = join(dir, "corrupted-tasks.jsonl");
    const report = join(dir, "reports", "corrupted.md");
    const run = await minedit(
      ...["tasks", "build", "--source", corruptedSource, "--out", target, "--variants", "3"],
      ...["--report", report],
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("3 problems built, 2 tasks written (rejected: 1 still_passed)");
    const rows = readRows(target);
    expect(rows.map((r) => [r.task_id, r.source, r.domain, r.corruptions])).toEqual([
      ["corrupted/c1/test/v1", "corrupted", "in-domain", [{ family: "numeric_constants" }]],
      [
        "corrupted/c3/test/v1",
        "corrupted",
        "unknown",
        [{ family: "made_up" }, { family: "numeric_constants" }],
      ],
    ]);
    expect(rows[0]?.corrupted).toBe("def double(x):\n    return x * 3\n");
    // --report: the Markdown there, the JSON beside it, nothing beside the task file.
    expect(readFileSync(report, "utf8")).toBe(run.stdout);
    expect(JSON.parse(readFileSync(join(dir, "reports", "corrupted.json"), "utf8")).tasks).toBe(2);
    expect(existsSync(join(dir, "corrupted-tasks.report.md"))).toBe(false);
  }, 60_000);
});

describe("the server's task store", () => {
  it("loads a built task file, and the engine serves its tasks", async () => {
    const store = await TaskStore.load([out]);
    const rows = readRows(out);
    expect(store.size).toBe(rows.length);
    const task = rows[0] as BuiltTaskRow;
    const config = parseConfig({
      server: { port: 0 },
      pool: { threads: 1 },
      sandbox: { executionConcurrency: 2 },
    });
    const engine = await startService(config, [out], true);
    const client = new Client(`127.0.0.1:${engine.server.port}`, credentials.createInsecure());
    try {
      const ref = { case: "taskId" as const, value: task.task_id };
      const response = await scoreBatch(client, {
        rollouts: [
          { id: "gold", completion: task.gold, taskRef: ref },
          { id: "corrupted", completion: task.corrupted, taskRef: ref },
        ],
      });
      const [gold, corrupted] = response.results;
      expect(gold).toMatchObject({ id: "gold", verdict: Verdict.PASSED });
      expect(gold?.reward).toBeCloseTo(0.1, 12);
      expect(corrupted?.id).toBe("corrupted");
      expect(corrupted?.verdict).not.toBe(Verdict.PASSED);
      expect(corrupted?.reward).toBe(-0.2);
    } finally {
      client.close();
      await engine.close();
    }
  }, 60_000);
});

describe("task runtimes", () => {
  it("rows name the runtime their problem needs; BigCodeBench's own .jsonl.gz; the server runs them in it", async () => {
    const tests = (cases: string[]) =>
      `import unittest\nclass TestCases(unittest.TestCase):\n${cases.map((c, i) => `    def test_${i}(self):\n        ${c}\n`).join("")}`;
    const bigcodebench = [
      {
        task_id: "Mini/1",
        complete_prompt: 'def task_func(xs):\n    """Sum of the positive numbers of xs."""\n',
        canonical_solution:
          "    total = 0\n    for x in xs:\n        if x > 0:\n            total += x\n    return total\n",
        instruct_prompt: "Sum the positive numbers.",
        test: tests([
          "self.assertEqual(task_func([1, -2, 3]), 4)",
          "self.assertEqual(task_func([0, 0, 5]), 5)",
          "self.assertEqual(task_func([-1, -2]), 0)",
          "self.assertEqual(task_func([]), 0)",
        ]),
        entry_point: "task_func",
        libs: "[]",
      },
      {
        task_id: "Mini/2",
        complete_prompt:
          'import pandas as pd\n\ndef task_func(rows):\n    """Mean of column a over the rows whose b is positive."""\n',
        canonical_solution:
          "    df = pd.DataFrame(rows)\n    kept = df[df['b'] > 0]\n    return float(kept['a'].mean())\n",
        instruct_prompt: "Average a where b is positive.",
        test: tests([
          "self.assertEqual(task_func([{'a': 2, 'b': 1}, {'a': 4, 'b': 0}, {'a': 6, 'b': 3}]), 4.0)",
          "self.assertEqual(task_func([{'a': 1, 'b': -1}, {'a': 3, 'b': 2}]), 3.0)",
          "self.assertEqual(task_func([{'a': 5, 'b': 1}, {'a': 7, 'b': 1}]), 6.0)",
        ]),
        entry_point: "task_func",
        libs: "['pandas']",
      },
    ];
    const gz = join(dir, "Mini.jsonl.gz");
    writeFileSync(gz, gzipSync(bigcodebench.map((r) => JSON.stringify(r)).join("\n")));
    const target = join(dir, "runtime-tasks.jsonl");
    // Uniform: the paper mix's weights draw Mini/2's `>`→`>=` and `mean`→`median` (which pass its
    // tests) almost always, and its `0`→`1` (which fails them) hardly ever.
    const run = await minedit(
      ...["tasks", "build", "--source", gz, "--out", target, "--candidates", "8", "--mix", "uniform"],
    );
    expect(run.status, run.stderr).toBe(0);
    const rows = readRows(target);
    expect(rows.map((r) => [r.problem_id, r.runtime])).toEqual([
      ["bigcodebench/Mini/1", undefined], // stdlib: the default is left implicit
      ["bigcodebench/Mini/2", "bigcodebench"],
    ]);
    expect(parseStoredTask(rows[1]).tests.runtime).toBe("bigcodebench");

    const config = parseConfig({
      server: { port: 0 },
      pool: { threads: 1 },
      sandbox: { executionConcurrency: 1 },
    });
    const engine = await startService(config, [target], true);
    const client = new Client(`127.0.0.1:${engine.server.port}`, credentials.createInsecure());
    try {
      const task = rows[1] as BuiltTaskRow;
      const ref = { case: "taskId" as const, value: task.task_id };
      const response = await scoreBatch(client, {
        rollouts: [
          { id: "gold", completion: task.gold, taskRef: ref },
          { id: "corrupted", completion: task.corrupted, taskRef: ref },
        ],
      });
      expect(response.results.map((r) => [r.id, r.verdict])).toEqual([
        ["gold", Verdict.PASSED],
        ["corrupted", Verdict.FAILED_TESTS],
      ]);
    } finally {
      client.close();
      await engine.close();
    }
  }, 120_000);
});

describe("minedit tasks stats", () => {
  it("prints the report of a built file, as Markdown or JSON", async () => {
    const markdown = await minedit("tasks", "stats", out);
    expect(markdown.status).toBe(0);
    expect(markdown.stdout).toBe(first.stdout);
    const json = await minedit("tasks", "stats", out, "--json");
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(readFileSync(join(dir, "tasks.report.json"), "utf8")));
  });

  it("reads any task file; rows that are not tasks are reported and make the exit code 1", async () => {
    const file = join(dir, "hand.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ task_id: "a", gold: "x = 1\n", corrupted: "x = 2\n" }),
        JSON.stringify({ task_id: "c" }),
        // The last line has no newline: still a row.
        JSON.stringify({ task_id: "b", gold: "x = [1, 2]\n", corrupted: "x = [1, 2, 3]\n", split: "s" }),
      ].join("\n"),
    );
    const run = await minedit("tasks", "stats", file, "--json");
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}:2: missing field "corrupted"`);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report.splits)).toEqual(["(none)", "s"]);
    // x = 1 → x = 2: one token of 4 (x = 1 NEWLINE); [1, 2] → [1, 2, 3]: 2 token edits of 10.
    expect(report.all.goldTokenEditDistance).toMatchObject({ count: 2, mean: 1.5, min: 1, max: 2 });
    expect(report.splits.s.normalizedGoldDistance.mean).toBeCloseTo(2 / 10, 12);
    expect(report.all.rejected).toBeNull();
  });
});

describe("help and usage errors", () => {
  it("--help describes the options, the row format and gives examples", async () => {
    const help = await minedit("tasks", "build", "--help");
    expect(help.status).toBe(0);
    for (const text of [
      "Usage: minedit tasks build --source FILE --out FILE",
      "--families SPEC",
      "--corruptions N|A-B",
      "--mix NAME           how corruptions are drawn: paper | uniform | blocks",
      "paper: the over-editing paper's mix",
      "blocks: uniform, and edge_case_guards also inserts or removes whole guards",
      "--variants N",
      "--seed N",
      "--split NAME",
      "--report FILE.md",
      "Examples:",
      "minedit tasks build --source datasets/seed/problems.jsonl --families ood",
    ]) {
      expect(help.stdout).toContain(text);
    }
    expect((await minedit("tasks", "--help")).stdout).toContain("minedit tasks stats FILE");
    expect((await minedit("tasks", "stats", "--help")).stdout).toContain("Usage: minedit tasks stats FILE");
    expect((await minedit("--help")).stdout).toContain("tasks build|stats");
  });

  it.each([
    [["tasks"], "missing subcommand"],
    [["tasks", "frobnicate"], 'unknown subcommand "frobnicate"'],
    [["tasks", "build", "--out", "x.jsonl"], "missing --source FILE"],
    [["tasks", "build", "--source", "datasets/seed/problems.jsonl"], "missing --out FILE"],
    [["tasks", "build", "--source", "nope.jsonl", "--out", "x.jsonl"], "--source: cannot read nope.jsonl"],
    [
      ["tasks", "build", "--source", "datasets/seed/problems.jsonl", "--out", "x", "--format", "csv"],
      'unknown format "csv"',
    ],
    [
      ["tasks", "build", "--source", "datasets/seed/problems.jsonl", "--out", "x", "--families", "bogus"],
      'unknown corruption family "bogus"',
    ],
    [
      ["tasks", "build", "--source", "datasets/seed/problems.jsonl", "--out", "x", "--corruptions", "2-1"],
      "--corruptions: invalid corruption count",
    ],
    [
      ["tasks", "build", "--source", "datasets/seed/problems.jsonl", "--out", "x", "--mix", "table9"],
      '--mix: unknown corruption mix "table9"; valid: paper, uniform, blocks',
    ],
    [
      [
        "tasks",
        "build",
        "--source",
        "datasets/seed/problems.jsonl",
        "--out",
        "x",
        "--families",
        "ood",
      ].concat(["--mix", "paper"]),
      "--mix: the paper mix has weights for the 14 in-domain families only",
    ],
    [
      ["tasks", "build", "--source", "datasets/seed/problems.jsonl", "--out", "x", "--variants", "0"],
      "--variants: expected an integer ≥ 1",
    ],
    [
      [
        "tasks",
        "build",
        "--source",
        "datasets/seed/problems.jsonl",
        "--out",
        "x",
        "--variants",
        "3",
        "--candidates",
        "2",
      ],
      "--candidates (2) must be at least --variants (3)",
    ],
    [
      ["tasks", "build", "--source", "datasets/seed/problems.jsonl", "--out", "x", "--split", "a/b"],
      "--split: expected letters",
    ],
    [
      ["tasks", "build", "--source", "datasets/seed/problems.jsonl", "--out", "x", "--bogus"],
      "Unknown option '--bogus'",
    ],
    [["tasks", "stats"], "missing FILE"],
    [["tasks", "stats", "nope.jsonl"], "cannot read nope.jsonl"],
  ])("%j → exit 2: %s", async (args, message) => {
    const run = await minedit(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe("");
  });

  it("refuses to append to a file that is not a task file", async () => {
    const notTasks = join(dir, "not-tasks.jsonl");
    writeFileSync(notTasks, '{"hello": 1}\n');
    const run = await minedit("tasks", "build", "--source", source, "--out", notTasks);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`${notTasks}:1: missing field "task_id"`);
    expect(readFileSync(notTasks, "utf8")).toBe('{"hello": 1}\n');
  }, 30_000);
});
