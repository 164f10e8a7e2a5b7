/**
 * `minedit eval run` end to end with the BUILT CLI (bin/minedit.js → dist/) against the fake endpoint,
 * for what makes a run comparable with the over-editing paper's numbers: an answer with no code by the
 * paper's extractor (src/core/paper-extract.ts) is `NO_CODE` in samples.jsonl and in report.md's outcome
 * counts, not `UNPARSABLE`; and a row in the paper's own format, built by `tasks build --format corrupted`
 * and evaluated with `--prompt paper-generic` / `paper-explicit`, is asked with exactly the messages the
 * authors' code sent (tests/oracle/paper_prompt.py, CPython, from the raw row).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMinedit as run, writeSeedTasks } from "./cli-process.js";
import { type KnownTask, taskModel } from "./fake-model.js";
import { type FakeServer, startFakeOpenAI } from "./fake-openai-server.js";

const ORACLE = join(import.meta.dirname, "..", "oracle", "paper_prompt.py");

const readJsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let dir: string;
let server: FakeServer;
let taskFile: string;
let config: string;
let tasks: KnownTask[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "minedit-eval-paper-"));
  ({ taskFile, tasks, config } = writeSeedTasks(dir, 2));
  // The first task is answered with prose only, the second with its gold in a ```python block.
  server = await startFakeOpenAI({
    model: taskModel({
      tasks,
      behaviour: (taskId) => (taskId === tasks[0]?.task_id ? "prose" : "gold"),
    }),
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("eval run scores as the paper decides NO_CODE", () => {
  it("labels a prose-only answer NO_CODE in samples.jsonl and report.md", { timeout: 300_000 }, async () => {
    const out = join(dir, "run");
    const result = await run([
      "eval",
      "run",
      "--tasks",
      taskFile,
      "--model",
      "fake-model",
      "--base-url",
      server.url,
      "--out",
      out,
      "--n",
      "1",
      "--resamples",
      "200",
      "--concurrency",
      "1",
      "--threads",
      "1",
      "--config",
      config,
    ]);
    expect(result.status, result.stderr).toBe(0);
    const samples = readJsonl(join(out, "samples.jsonl"));
    expect(samples.map((s) => [s.task_id, s.outcome, s.passed, s.program])).toEqual([
      [tasks[0]?.task_id, "NO_CODE", false, null],
      [tasks[1]?.task_id, "PASSED", true, expect.any(String)],
    ]);
    const report = readFileSync(join(out, "report.md"), "utf8");
    const outcomes = report.slice(report.indexOf("## Outcomes"));
    expect(outcomes).toMatch(/^\| NO_CODE +\| +1 \|/m);
    expect(outcomes).toMatch(/^\| PASSED +\| +1 \|/m);
    expect(outcomes).not.toContain("UNPARSABLE");
  });
});

describe("eval run with the paper's prompts", () => {
  const F = "```";
  // The paper's row shape: a statement ending in a fence, surrounded by spaces; the program unfenced.
  const paperRow = {
    task_id: "BigCodeBench/hand",
    prompt: `  Return double the input.\nYou should write self-contained code starting with:\n${F}\ndef task_func(x):\n${F}`,
    corrupted_solution: "def task_func(x):\n    return x * 3",
    canonical_solution: "def task_func(x):\n    return x * 2",
    test_code:
      "import unittest\nclass TestCases(unittest.TestCase):\n    def test_two(self):\n        self.assertEqual(task_func(2), 4)\n",
    mutation_type: "mutate_numeric_constants",
  };

  it("sends exactly the authors' messages for a row built by tasks build --format corrupted", {
    timeout: 300_000,
  }, async () => {
    const source = join(dir, "paper-source.jsonl");
    writeFileSync(source, `${JSON.stringify(paperRow)}\n`);
    const built = join(dir, "paper-tasks.jsonl");
    const build = await run(["tasks", "build", "--source", source, "--format", "corrupted", "--out", built]);
    expect(build.status, build.stderr).toBe(0);
    const [task] = readJsonl(built);
    expect(task?.statement).toBe(paperRow.prompt);
    expect(task?.corrupted).toBe(paperRow.corrupted_solution);
    // the paper's family name becomes minedit's, so the task has a domain (src/core/corruption/paper-names.ts)
    expect([task?.domain, task?.corruptions]).toEqual(["in-domain", [{ family: "numeric_constants" }]]);

    const styles = ["paper-generic", "paper-explicit"] as const;
    const oracle = spawnSync("python3", [ORACLE], {
      input: JSON.stringify(styles.map((style) => ({ row: paperRow, style }))),
      encoding: "utf8",
    });
    expect(oracle.stderr).toBe("");
    const expected = JSON.parse(oracle.stdout) as unknown[];
    for (const [i, style] of styles.entries()) {
      const before = server.requests.length;
      const out = join(dir, `run-${style}`);
      const result = await run([
        ...["eval", "run", "--tasks", built, "--model", "fake-model", "--base-url", server.url],
        ...["--out", out, "--n", "1", "--prompt", style, "--resamples", "200"],
        ...["--concurrency", "1", "--threads", "1", "--config", config],
      ]);
      expect(result.status, result.stderr).toBe(0);
      const requests = server.requests.slice(before);
      expect(requests).toHaveLength(1);
      expect(requests[0]?.body.messages).toEqual(expected[i]);
      expect(JSON.parse(readFileSync(join(out, "run.json"), "utf8")).prompt).toBe(style);
    }
  });
});
