/**
 * The lint task builder (`minedit lint tasks`, src/lint/build-tasks.ts) on shipped seeds of every
 * language, with the real analyzers and the real sandbox: seeds that pass and have alerts become tasks
 * whose alerts are the analyzer's; a solution that fails its tests and one without alerts are skipped by
 * reason; bad rows are reported with their line numbers; the report counts per file, category and rule.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLintSandbox, Linter } from "../../src/analyzers/linter.js";
import { main } from "../../src/cli/main.js";
import type { Alert } from "../../src/core/lint/alert.js";
import {
  buildLintTasks,
  type LintSource,
  parseLintSource,
  SKIP_REASONS,
} from "../../src/lint/build-tasks.js";
import { DEFAULT_LIMITS, type Sandbox } from "../../src/sandbox/sandbox.js";
import { parseLintTask } from "../../src/scoring/lint-task.js";
import { readJsonl, tempDir } from "../export/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");

function seedRows(file: string): Record<string, unknown>[] {
  return readJsonl(join(ROOT, file));
}

function byId(rows: Record<string, unknown>[], id: string): Record<string, unknown> {
  const row = rows.find((r) => r.problem_id === id);
  if (row === undefined) throw new Error(`no seed ${id}`);
  return row;
}

const PYTHON = seedRows("datasets/seed/problems.jsonl");
const CPP = seedRows("datasets/lint/cpp.jsonl");
const JAVA = seedRows("datasets/lint/java.jsonl");

/** A Python file Pylint has nothing to say about. */
const CLEAN_PYTHON =
  '"""Sums."""\n\n\ndef add_numbers(first, second):\n    """Return the sum."""\n    return first + second\n';

let sandbox: Sandbox;
let linter: Linter;
beforeAll(async () => {
  sandbox = await createLintSandbox();
  linter = await Linter.create({ sandbox, concurrency: 2 });
});
afterAll(async () => {
  await linter.close();
  await sandbox.close();
});

function sources(rows: Record<string, unknown>[], language: "python" | "cpp" | "java"): LintSource[] {
  return rows.map((row) => parseLintSource(row, language, "seeds.jsonl"));
}

describe("buildLintTasks on shipped seeds", () => {
  it("C++ and Java seeds: tasks carry the analyzer's alerts, stdio tests and versions", async () => {
    const cpp = sources([byId(CPP, "lint/cpp/03-gcd-lcm"), byId(CPP, "lint/cpp/12-lis-length")], "cpp");
    const java = sources(
      [byId(JAVA, "lint/java/01-prefix-sums"), byId(JAVA, "lint/java/02-max-subarray")],
      "java",
    );
    const built = await buildLintTasks([...cpp, ...java], {
      sandbox,
      linter,
      limits: DEFAULT_LIMITS,
      concurrency: 2,
      splitOf: () => "train",
    });
    expect(built.skipped).toEqual({});
    expect(built.tasks.map((t) => t.taskId)).toEqual([
      "lint/cpp/03-gcd-lcm:lint",
      "lint/cpp/12-lis-length:lint",
      "lint/java/01-prefix-sums:lint",
      "lint/java/02-max-subarray:lint",
    ]);
    const [gcd, , prefix, maxSub] = built.tasks;
    // The alerts are exactly what the analyzer reports on the file now.
    const again = await linter.analyze("java", [prefix?.original as string]);
    expect(prefix?.alerts).toEqual(again[0]);
    expect(gcd?.analyzers).toEqual({ "clang-tidy": "14.0.6" });
    expect(maxSub?.analyzers).toEqual({ pmd: "7.28.0" });
    expect(maxSub?.alerts.map((a: Alert) => a.ruleId)).toContain("UnnecessaryImport");
    expect(gcd?.tests.style).toBe("stdio");
    for (const task of built.tasks) {
      expect(task.kind).toBe("lint_refactor");
      expect(task.alerts.length).toBeGreaterThan(0);
    }
  }, 60_000);
});

describe("minedit lint tasks", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeAll(() => {
    dir = tempDir("lint-tasks");
  });
  afterAll(() => dir.remove());

  it("builds Python tasks, skips by reason, reports bad rows by line, writes both reports", async () => {
    const good = ["seed/001-merge-bookings", "seed/002-rle-compress", "seed/041-rle-expand"].map((id) =>
      byId(PYTHON, id),
    );
    const roman = byId(PYTHON, "seed/003-roman-numerals");
    const broken = {
      ...roman,
      problem_id: "x/broken",
      solution: String(roman.solution).replace('return "".join(parts)', 'return "".join(parts[1:])'),
    };
    const clean = {
      problem_id: "x/clean",
      statement: "Add two numbers.",
      entry_point: "add_numbers",
      solution: CLEAN_PYTHON,
      tests: { style: "assert", code: "def check(candidate):\n    assert candidate(2, 3) == 5\n" },
    };
    const source = join(dir.path, "sources.jsonl");
    writeFileSync(
      source,
      [
        ...good.map((r) => JSON.stringify(r)),
        JSON.stringify(broken),
        "{not json",
        JSON.stringify(clean),
        JSON.stringify({ ...good[0], language: "java" }),
        JSON.stringify(good[1]),
      ].join("\n"),
    );
    const out = join(dir.path, "python.jsonl");
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const chunks: string[] = [];
    const errors: string[] = [];
    stdout.on("data", (c: Buffer) => chunks.push(c.toString()));
    stderr.on("data", (c: Buffer) => errors.push(c.toString()));
    const status = await main(
      ["lint", "tasks", "--language", "python", "--source", source, "--out", out, "--concurrency", "2"],
      { stdin: new PassThrough(), stdout, stderr },
    );
    const err = errors.join("");
    expect(status).toBe(1);
    expect(err).toContain(`${source}:5: `);
    expect(err).toMatch(new RegExp(`${source}:7: language: the row is java, but python was asked for`));
    expect(err).toContain(`${source}:8: duplicate problem_id "seed/002-rle-compress" (first at ${source}:2)`);

    const tasks = readJsonl(out).map((row) => parseLintTask(row));
    expect(tasks.map((t) => t.taskId)).toEqual([
      "seed/001-merge-bookings:lint",
      "seed/002-rle-compress:lint",
      "seed/041-rle-expand:lint",
    ]);
    expect(tasks[0]?.alerts.map((a) => a.ruleId).sort()).toEqual(["C0114", "C0116"]);
    expect(tasks.every((t) => t.split === "train" && t.analyzers.pylint === "2.16.2")).toBe(true);

    const report = JSON.parse(readFileSync(join(dir.path, "python.report.json"), "utf8"));
    expect(report.files).toEqual({
      read: 8,
      bad: 3,
      badReasons: { "invalid row": 2, "duplicate problem_id": 1 },
      kept: 3,
      skipped: { "solution fails its tests (FAILED_TESTS)": 1, [SKIP_REASONS.noAlerts]: 1 },
    });
    const alerts = tasks.reduce((n, t) => n + t.alerts.length, 0);
    expect(
      report.perFile.map((f: { alerts: number }) => f.alerts).reduce((a: number, b: number) => a + b),
    ).toBe(alerts);
    expect(report.rules.find((r: { ruleId: string }) => r.ruleId === "C0114")).toMatchObject({
      tool: "pylint",
      category: "Style",
      alerts: 3,
      tasks: 3,
    });
    expect(report.categories.find((c: { category: string }) => c.category === "Style").alerts).toBe(alerts);
    const markdown = readFileSync(join(dir.path, "python.report.md"), "utf8");
    expect(chunks.join("")).toBe(markdown);
    expect(markdown).toContain("## Per rule");
    const row = markdown.split("\n").find((line) => line.startsWith("| `seed/001-merge-bookings:lint`"));
    expect(row?.split("|").map((cell) => cell.trim())).toEqual([
      "",
      "`seed/001-merge-bookings:lint`",
      "python",
      "train",
      "2",
      "0",
      "0",
      "0",
      "2",
      "0",
      "",
    ]);
  }, 60_000);

  it("usage errors exit 2 before anything runs", async () => {
    const run = async (args: string[]) => {
      const stderr = new PassThrough();
      const errors: string[] = [];
      stderr.on("data", (c: Buffer) => errors.push(c.toString()));
      const status = await main(["lint", "tasks", ...args], {
        stdin: new PassThrough(),
        stdout: new PassThrough(),
        stderr,
      });
      return { status, stderr: errors.join("") };
    };
    expect((await run(["--out", "x.jsonl"])).status).toBe(2);
    expect((await run(["--language", "go", "--out", "x.jsonl"])).stderr).toContain("--language: expected");
    expect((await run(["--language", "python", "--out", "x", "--split", "a=0.5"])).stderr).toContain(
      "weights must sum to 1",
    );
  });
});
