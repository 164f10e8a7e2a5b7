/**
 * `minedit lint report` end to end, in process (src/cli/main.ts with captured streams): rows of all three
 * languages analyzed in the real sandbox, the metrics of the report checked against counts worked out by
 * hand from the rows, bad rows reported and left out, the Markdown form with the analyzer versions; the
 * rows with tests on both backends (`--sandbox docker`: the same report).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../../src/cli/main.js";
import { DOCKER_SKIP_REASON } from "../sandbox/backends.js";

type Run = { status: number; stdout: string; stderr: string };

async function minedit(args: string[]): Promise<Run> {
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
    stdin: new PassThrough(),
    stdout: sink((t) => {
      stdout += t;
    }),
    stderr: sink((t) => {
      stderr += t;
    }),
  });
  return { status, stdout, stderr };
}

const dir = mkdtempSync(join(tmpdir(), "minedit-lint-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rowsFile(name: string, rows: readonly (Record<string, unknown> | string)[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n")}\n`);
  return path;
}

// Two alerts: W0611 unused-import (Refactor) and C0121 singleton-comparison (Style).
const PY = '"""Doc."""\nimport os\n\nVALUE = int(input())\nif VALUE == None:\n    print(VALUE)\n';
const PY_FIXED = PY.replace("import os\n", ""); // fixes W0611; 1 deleted line
const PY_WORSE = PY.replace(
  "VALUE = int",
  'def helper():\n    """Nothing."""\n    spare = 1\n\n\nVALUE = int',
);
const CPP = "int main() {\n  int *ptr = NULL;\n  return ptr == nullptr ? 0 : 1;\n}\n";
const CPP_FIXED = CPP.replace("NULL", "nullptr");
const JAVA =
  "public class Main {\n    public static void main(String[] args) {\n        int spare = 5;\n        System.out.println(42);\n    }\n}\n";

/** Each backend's per-row report of the rows with tests, compared once both have run. */
const results = new Map<string, unknown>();

describe("minedit lint report", () => {
  test("--json: metrics of rows in three languages, bad rows left out", async () => {
    const file = rowsFile("rows.jsonl", [
      { id: "py-fix", language: "python", original: PY, revised: PY_FIXED, passed: true },
      { id: "py-worse", language: "python", original: PY, revised: PY_WORSE, passed: true },
      { id: "cpp-fix", language: "cpp", original: CPP, revised: CPP_FIXED, passed: false },
      { id: 7, language: "java", original: JAVA, revised: `\n\n${JAVA}`, passed: true },
      { id: "no-passed", language: "python", original: PY, revised: PY },
      "{not json",
      { id: "bad-language", language: "rust", original: "", revised: "", passed: true },
    ]);
    const run = await minedit(["lint", "report", file, "--json"]);
    expect(run.stderr).toContain(`${file}:5: give "passed"`);
    expect(run.stderr).toContain(`${file}:6: invalid JSON`);
    expect(run.stderr).toContain(`${file}:7: field "language"`);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.badRows).toBe(3);
    expect(report.analyzers.map((a: { tool: string; version: string }) => `${a.tool} ${a.version}`)).toEqual([
      "pylint 2.16.2",
      "clang-tidy 14.0.6",
      "pmd 7.28.0",
    ]);
    const byId = new Map(report.rows.map((r: { id: unknown }) => [r.id, r]));
    expect(byId.get("py-fix")).toEqual({
      id: "py-fix",
      language: "python",
      passed: true,
      originalAlerts: 2,
      fixed: 1,
      introduced: 0,
      diffLines: 1,
      styleScore: 0.5,
    });
    // W0612 unused-variable 'spare' is new; 5 added lines.
    expect(byId.get("py-worse")).toMatchObject({
      originalAlerts: 2,
      fixed: 0,
      introduced: 1,
      diffLines: 5,
      styleScore: 0,
    });
    expect(byId.get("cpp-fix")).toMatchObject({
      passed: false,
      fixed: 1,
      introduced: 0,
      diffLines: 2,
      styleScore: 0,
    });
    expect(byId.get(7)).toMatchObject({ fixed: 0, introduced: 0, diffLines: 2 });
    const java = byId.get(7) as { originalAlerts: number };
    expect(java.originalAlerts).toBeGreaterThan(0);

    // Overall, by hand: P = {py-fix, py-worse, java}; Σ Orig = 2 + 2 + J; Fixed 1; New 1; Lines 1 + 5 + 2.
    const overall = report.metrics.overall;
    const orig = 4 + java.originalAlerts;
    expect(overall).toMatchObject({
      instances: 4,
      passed: 3,
      pass1: 0.75,
      originalAlerts: orig,
      fixed: 1,
      introduced: 1,
    });
    expect(overall.reductionAtP).toBe(0);
    expect(overall.newAtP).toBeCloseTo(1 / orig, 12);
    expect(overall.deltaLineAtP).toBeCloseTo(8 / 3, 12);
    expect(overall.linePerFixAtP).toBe(8);
    expect(overall.styleScore).toBeCloseTo(0.5 / 4, 12);
    expect(report.metrics.byLanguage.python).toMatchObject({ reductionAtP: 0, newAtP: 0.25 });
    expect(report.metrics.byLanguage.cpp).toMatchObject({ passed: 0, reductionAtP: null });
    // Per category: the Refactor alert (unused import) was fixed in py-fix, a Refactor one (unused
    // variable) introduced in py-worse; the Style alert stayed in both.
    expect(report.metrics.byCategory.Style).toMatchObject({ fixed: 0, introduced: 0 });
  }, 120_000);

  test("Markdown: versions first, then the tables", async () => {
    const file = rowsFile("py.jsonl", [
      { id: 1, language: "python", original: PY, revised: PY_FIXED, passed: true },
      { id: 2, language: "python", original: PY, revised: PY_WORSE, passed: false },
    ]);
    const run = await minedit(["lint", "report", file]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^# Lint report: .*py\.jsonl\n\nAnalyzers \(pinned\): pylint 2\.16\.2 \(astroid/,
    );
    expect(run.stdout).toContain("| all | 2 | 50.0% | 2 | 1 | 0 | 50.0% | 0.0% | 1.0 | 1.0 | 25.0% |");
    expect(run.stdout).toContain("| python | 2 | 50.0% |");
    expect(run.stdout).toContain("| Other | 0 | — | 0 | 0 | 0 | — | — | — | — | — |");
    expect(run.stderr).toContain("2 rows reported, 0 bad rows");
  });

  test.for(["bwrap", "docker"])(
    "rows with tests instead of `passed`: the revisions run in the sandbox, in every language (--sandbox %s)",
    { timeout: 300_000 },
    async (backend, context) => {
      if (backend === "docker" && DOCKER_SKIP_REASON !== undefined) context.skip(DOCKER_SKIP_REASON);
      const stdio = (input: string, output: string) => ({ style: "stdio", cases: [{ input, output }] });
      const file = rowsFile(`tests-${backend}.jsonl`, [
        // PY reads an int and prints it when it is None: prints nothing for "3".
        { id: "py-pass", language: "python", original: PY, revised: PY_FIXED, tests: stdio("3\n", "") },
        { id: "py-fail", language: "python", original: PY, revised: PY_FIXED, tests: stdio("3\n", "3\n") },
        { id: "cpp-pass", language: "cpp", original: CPP, revised: CPP_FIXED, tests: stdio("", "") },
        {
          id: "cpp-no-compile",
          language: "cpp",
          original: CPP,
          revised: CPP_FIXED.replace("return", "retrun"),
          tests: stdio("", ""),
        },
        { id: "java-pass", language: "java", original: JAVA, revised: JAVA, tests: stdio("", "42\n") },
        {
          id: "cpp-assert",
          language: "cpp",
          original: CPP,
          revised: CPP,
          tests: { style: "assert", code: "" },
          entry_point: "f",
        },
      ]);
      const run = await minedit(["lint", "report", file, "--json", "--sandbox", backend]);
      expect(run.stderr).toContain(`${file}:6: tests: cpp programs take stdio tests only`);
      expect(run.status, run.stderr).toBe(1);
      const report = JSON.parse(run.stdout);
      const passed = Object.fromEntries(
        report.rows.map((row: { id: string; passed: boolean }) => [row.id, row.passed]),
      );
      expect(passed).toEqual({
        "py-pass": true,
        "py-fail": false,
        "cpp-pass": true,
        "cpp-no-compile": false,
        "java-pass": true,
      });
      expect(report.metrics.overall.passed).toBe(3);
      // The alerts are the same on both backends (the bwrap run's, worked out by hand above).
      expect(report.metrics.overall.instances).toBe(5);
      results.set(backend, report.rows);
      if (results.size === 2) expect(results.get("docker")).toEqual(results.get("bwrap"));
    },
  );

  test("usage errors", async () => {
    expect((await minedit(["lint", "report"])).status).toBe(2);
    const backend = await minedit(["lint", "report", join(dir, "missing.jsonl"), "--sandbox", "vm"]);
    expect([backend.status, backend.stderr]).toEqual([
      2,
      expect.stringContaining('--sandbox: expected bwrap or docker, got "vm"'),
    ]);
    expect((await minedit(["lint", "report", join(dir, "missing.jsonl")])).stderr).toContain("cannot read");
    expect((await minedit(["lint", "nope"])).status).toBe(2);
    const help = await minedit(["lint", "report", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Reduction@P");
  });
});
