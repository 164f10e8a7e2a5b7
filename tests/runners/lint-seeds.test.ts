/**
 * The C++ and Java lint seed programs (datasets/lint/{cpp,java}.jsonl, built by
 * scripts/build-lint-seeds.mjs): the JSONL files are current, every expected output is what the Python
 * reference prints, and every solution passes its own tests in the real sandbox with the real compilers.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCppTests } from "../../src/runners/cpp.js";
import { runJavaTests } from "../../src/runners/java.js";
import type { StdioTests } from "../../src/runners/python.js";
import { createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import { DEFAULT_LIMITS, type Sandbox } from "../../src/sandbox/sandbox.js";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createBwrapSandbox();
});

afterAll(async () => {
  await sandbox.close();
});

describe("seed programs (datasets/lint)", () => {
  test("the JSONL files are current (scripts/build-lint-seeds.mjs --check)", () => {
    execFileSync(process.execPath, ["scripts/build-lint-seeds.mjs", "--check"], { stdio: "pipe" });
  });

  test("every expected output is what the Python reference prints (scripts/lint-seed-references.py)", () => {
    execFileSync("python3", ["scripts/lint-seed-references.py"], { stdio: "pipe" });
  });

  type SeedRow = { problem_id: string; language: string; solution: string; tests: StdioTests };
  const seeds = (language: string): SeedRow[] =>
    readFileSync(new URL(`../../datasets/lint/${language}.jsonl`, import.meta.url), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as SeedRow);

  test.each([
    ["cpp", runCppTests],
    ["java", runJavaTests],
  ] as const)(
    "every %s seed passes its own tests",
    async (language, run) => {
      const rows = seeds(language);
      expect(rows.length).toBeGreaterThanOrEqual(20);
      // Two at a time: compiling is CPU-bound and the machine has two cores.
      const failures: string[] = [];
      const queue = [...rows];
      const worker = async () => {
        for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
          expect(row.language).toBe(language);
          const o = await run(sandbox, row.solution, row.tests, DEFAULT_LIMITS);
          if (o.verdict !== "PASSED" || o.testsPassed !== row.tests.cases.length) {
            failures.push(`${row.problem_id}: ${o.verdict} ${o.detail}\n${o.stderrTail}`);
          }
        }
      };
      await Promise.all([worker(), worker()]);
      expect(failures).toEqual([]);
    },
    240_000,
  );
});
