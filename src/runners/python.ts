/**
 * Python test runners (SPEC §2.6): build the files of a test program for one test style, run it in a
 * {@link Sandbox}, and turn what happened into a verdict with tests passed / total.
 *
 * - `unittest` (BigCodeBench) and `assert` (HumanEval) run `sandbox/python/harness.py`, which executes
 *   program and tests in one namespace and reports on stdout in records tagged with a random nonce it
 *   reads from stdin before any candidate code runs (see the harness's docstring for the protocol and
 *   what it defends against). A run without the final record never passes.
 * - `stdio` (DeepCoder / CodeContests) runs the program once per case, each as its own sandboxed
 *   process, and compares stdout here. The cases share one wall budget, `limits.wallTimeMs`, so a rollout
 *   costs at most that much whatever the number of cases: every case is run, in order, after a failing
 *   one too (so `testsPassed` counts all cases), until the budget is spent; cases the budget did not
 *   reach count as failed. The verdict is that of the first case that did not pass.
 *
 * Verdicts: PASSED; FAILED_TESTS (wrong answer, failed assertion, test runner tampered with);
 * TIMEOUT; MEMORY_LIMIT; RUNTIME_ERROR (the program raised or exited while loading, died without a
 * result, or exceeded the output limit); INFRA_ERROR only when the sandbox or the harness broke before
 * candidate code ran, or the task's tests themselves are unusable (they do not compile, or have no
 * tests), neither of which the candidate can cause.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Verdict } from "../core/reward.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { ExecutionLimits, ExecutionResult, Sandbox } from "../sandbox/sandbox.js";

export type PythonTests =
  /** BigCodeBench: a `TestCases(unittest.TestCase)` class; program and tests run in one namespace. */
  | { style: "unittest"; code: string }
  /** HumanEval: `def check(candidate)`, called as `check(<entryPoint>)`. */
  | { style: "assert"; code: string; entryPoint: string }
  /**
   * DeepCoder: exact match after trimming trailing whitespace per line and trailing blank lines, or,
   * with `floatTolerance`, numeric tokens may differ by that much (absolute or relative).
   */
  | { style: "stdio"; cases: { input: string; output: string }[]; floatTolerance?: number };

export type TestOutcome = {
  verdict: Verdict;
  testsPassed: number;
  testsTotal: number;
  wallTimeMs: number;
  /** The last {@link STDERR_TAIL_CHARS} characters of the program's stderr (tracebacks of failures). */
  stderrTail: string;
  /** One line for humans: the first failure, or why the run has no result. Empty when PASSED. */
  detail: string;
};

/** How much of stderr a {@link TestOutcome} keeps. */
export const STDERR_TAIL_CHARS = 4096;

/** The harness, shipped beside the sources at the repository top level and read once at startup. */
const HARNESS = readFileSync(new URL("../../sandbox/python/harness.py", import.meta.url), "utf8");

/** `python3 -s`: no user site directory; the sandbox environment fixes the hash seed and bytecode. */
const PYTHON = ["python3", "-s"];

function tail(text: string): string {
  return text.length > STDERR_TAIL_CHARS ? text.slice(-STDERR_TAIL_CHARS) : text;
}

/**
 * Runs `program` against `tests` in `sandbox`. Never throws for what the program does; throws
 * `MineditError(Cancelled)` when `signal` aborts, and rethrows request errors (`InvalidArgument`). A
 * sandbox that cannot start yields the `INFRA_ERROR` verdict.
 */
export async function runPythonTests(
  sandbox: Sandbox,
  program: string,
  tests: PythonTests,
  limits: ExecutionLimits,
  signal?: AbortSignal,
): Promise<TestOutcome> {
  if (tests.style === "stdio") {
    return runStdio(sandbox, program, tests, limits, signal);
  }
  return runHarness(sandbox, program, tests, limits, signal);
}

/** Runs the sandbox, mapping "could not start" to null and cancellation to a thrown error. */
async function execute(
  sandbox: Sandbox,
  request: Parameters<Sandbox["run"]>[0],
): Promise<{ result: ExecutionResult } | { infra: string }> {
  let result: ExecutionResult;
  try {
    result = await sandbox.run(request);
  } catch (e) {
    if (isMineditError(e) && e.code === ErrorCode.Unavailable) return { infra: e.rawMessage };
    throw e;
  }
  if (result.cancelled) throw new MineditError(ErrorCode.Cancelled, "test run cancelled");
  return { result };
}

function infraOutcome(detail: string, wallTimeMs = 0, stderr = ""): TestOutcome {
  return {
    verdict: "INFRA_ERROR",
    testsPassed: 0,
    testsTotal: 0,
    wallTimeMs,
    stderrTail: tail(stderr),
    detail,
  };
}

// ---------------------------------------------------------------------------------------------------
// unittest and assert styles

type HarnessRecord = { kind: "ready" | "loaded" | "test" | "result"; value: Record<string, unknown> };

/** The nonce-tagged records in the harness's stdout. Lines without the exact nonce are the program's. */
export function parseHarnessRecords(stdout: string, nonce: string): HarnessRecord[] {
  const records: HarnessRecord[] = [];
  const prefix = `@@minedit:${nonce}:`;
  for (const line of stdout.split("\n")) {
    if (!line.startsWith(prefix)) continue;
    const rest = line.slice(prefix.length);
    const colon = rest.indexOf(":");
    const kind = rest.slice(0, colon);
    if (kind !== "ready" && kind !== "loaded" && kind !== "test" && kind !== "result") continue;
    try {
      const value: unknown = JSON.parse(rest.slice(colon + 1));
      if (typeof value === "object" && value !== null)
        records.push({ kind, value: value as Record<string, unknown> });
    } catch {
      // A torn line (the run was killed mid-write) carries nothing.
    }
  }
  return records;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

async function runHarness(
  sandbox: Sandbox,
  program: string,
  tests: Extract<PythonTests, { style: "unittest" | "assert" }>,
  limits: ExecutionLimits,
  signal: AbortSignal | undefined,
): Promise<TestOutcome> {
  const nonce = randomBytes(16).toString("hex");
  const argv =
    tests.style === "unittest"
      ? [...PYTHON, "harness.py", "unittest"]
      : [...PYTHON, "harness.py", "assert", tests.entryPoint];
  const run = await execute(sandbox, {
    files: { "harness.py": HARNESS, "program.py": program, "tests.py": tests.code },
    argv,
    stdin: `${nonce}\n`,
    limits,
    ...(signal === undefined ? {} : { signal }),
  });
  if ("infra" in run) return infraOutcome(run.infra);
  return interpretHarnessRun(run.result, nonce);
}

function interpretHarnessRun(result: ExecutionResult, nonce: string): TestOutcome {
  const records = parseHarnessRecords(result.stdout, nonce);
  const finals = records.filter((r) => r.kind === "result");
  const ready = records.find((r) => r.kind === "ready");
  const loaded = records.find((r) => r.kind === "loaded");
  const progress = records.filter((r) => r.kind === "test");
  const base = { wallTimeMs: result.wallTimeMs, stderrTail: tail(result.stderr) };
  const estimatedTotal = num(loaded?.value.total ?? ready?.value.total);
  const progressPassed = progress.filter((r) => r.value.ok === true).length;
  const partial = (verdict: Verdict, detail: string): TestOutcome => ({
    verdict,
    testsPassed: 0,
    testsTotal: Math.max(estimatedTotal, progress.length),
    ...base,
    detail: `${detail}${progress.length > 0 ? ` (${progressPassed}/${progress.length} tests passed before that)` : ""}`,
  });

  const final = finals.length === 1 ? finals[0] : undefined;
  // The harness judges the tests unusable only before `ready`, i.e. before candidate code ran.
  if (final !== undefined && final.value.status === "tests_invalid" && ready === undefined) {
    return { ...infraOutcome(`unusable tests: ${str(final.value.detail)}`), ...base };
  }
  if (ready === undefined) {
    // Candidate code only runs after `ready`: whatever ended the run before it is not the candidate's.
    const how = result.timedOut ? "timed out" : `exited (code ${result.exitCode}, signal ${result.signal})`;
    return { ...infraOutcome(`the test harness ${how} before running the program`), ...base };
  }
  if (result.timedOut) return partial("TIMEOUT", `killed after the ${result.wallTimeMs} ms wall limit`);
  if (result.outputTruncated) return partial("RUNTIME_ERROR", "output limit exceeded");
  if (finals.length > 1) {
    // The harness writes one final record; two means someone else knew the nonce.
    return partial("FAILED_TESTS", "test runner tampered: more than one result record");
  }
  if (final === undefined) {
    if (result.memoryExceeded) return partial("MEMORY_LIMIT", "out of memory");
    const how = result.signal !== null ? `killed by ${result.signal}` : `exited with code ${result.exitCode}`;
    return partial("RUNTIME_ERROR", `the program ${how} before the tests reported a result`);
  }

  const v = final.value;
  const outcome = { testsPassed: num(v.passed), testsTotal: num(v.total), ...base, detail: str(v.detail) };
  switch (v.status) {
    case "ok":
      if (v.all_ok === true && outcome.testsPassed === outcome.testsTotal && outcome.testsTotal > 0) {
        return { verdict: "PASSED", ...outcome, detail: "" };
      }
      return { verdict: v.memory_error === true ? "MEMORY_LIMIT" : "FAILED_TESTS", ...outcome };
    case "program_error":
      return { verdict: v.memory_error === true ? "MEMORY_LIMIT" : "RUNTIME_ERROR", ...outcome };
    case "tampered":
      return { verdict: "FAILED_TESTS", ...outcome, testsPassed: 0 };
    case "tests_invalid":
      return partial("FAILED_TESTS", "test runner tampered: a tests_invalid record after candidate code ran");
    default:
      return partial("RUNTIME_ERROR", `unknown harness status ${JSON.stringify(v.status)}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// stdio style

/** Lines with trailing whitespace removed, trailing blank lines dropped (`\r\n` and `\n` alike). */
function canonicalLines(text: string): string[] {
  const lines = text.split("\n").map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function tokenMatches(actual: string, expected: string, tolerance: number): boolean {
  if (actual === expected) return true;
  if (!DECIMAL.test(actual) || !DECIMAL.test(expected)) return false;
  const a = Number(actual);
  const b = Number(expected);
  const diff = Math.abs(a - b);
  // Absolute or relative, as contest checkers do: a large answer may be off in its last digits.
  return diff <= tolerance || diff <= tolerance * Math.abs(b);
}

/**
 * Whether a program's stdout matches the expected output: equal after trimming trailing whitespace of
 * each line and dropping trailing blank lines; with `floatTolerance`, lines may instead match token by
 * token (split on whitespace), numeric tokens within the tolerance (absolute or relative).
 */
export function outputMatches(actual: string, expected: string, floatTolerance?: number): boolean {
  const got = canonicalLines(actual);
  const want = canonicalLines(expected);
  if (got.length !== want.length) return false;
  for (let i = 0; i < got.length; i++) {
    const a = got[i] as string;
    const b = want[i] as string;
    if (a === b) continue;
    if (floatTolerance === undefined) return false;
    const at = a.split(/\s+/).filter((t) => t !== "");
    const bt = b.split(/\s+/).filter((t) => t !== "");
    if (at.length !== bt.length || at.some((t, j) => !tokenMatches(t, bt[j] as string, floatTolerance)))
      return false;
  }
  return true;
}

function preview(text: string): string {
  const s = JSON.stringify(text);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

async function runStdio(
  sandbox: Sandbox,
  program: string,
  tests: Extract<PythonTests, { style: "stdio" }>,
  limits: ExecutionLimits,
  signal: AbortSignal | undefined,
): Promise<TestOutcome> {
  const total = tests.cases.length;
  if (total === 0) return infraOutcome("unusable tests: no stdio cases");
  const started = performance.now();
  let passed = 0;
  let firstFailure: { verdict: Verdict; detail: string; stderr: string } | undefined;
  let lastStderr = "";
  for (const [index, testCase] of tests.cases.entries()) {
    const remaining = limits.wallTimeMs - Math.round(performance.now() - started);
    if (remaining <= 0) {
      firstFailure ??= {
        verdict: "TIMEOUT",
        detail: `wall budget spent before case ${index + 1}`,
        stderr: lastStderr,
      };
      break;
    }
    const run = await execute(sandbox, {
      files: { "main.py": program },
      argv: [...PYTHON, "main.py"],
      stdin: testCase.input,
      limits: { ...limits, wallTimeMs: remaining },
      ...(signal === undefined ? {} : { signal }),
    });
    if ("infra" in run) return infraOutcome(run.infra, Math.round(performance.now() - started));
    const r = run.result;
    lastStderr = r.stderr;
    const label = `case ${index + 1}`;
    let failure: { verdict: Verdict; detail: string } | undefined;
    if (r.timedOut) {
      failure = { verdict: "TIMEOUT", detail: `${label}: wall budget of ${limits.wallTimeMs} ms spent` };
    } else if (r.outputTruncated) {
      failure = { verdict: "RUNTIME_ERROR", detail: `${label}: output limit exceeded` };
    } else if (r.exitCode !== 0) {
      failure = r.memoryExceeded
        ? { verdict: "MEMORY_LIMIT", detail: `${label}: out of memory` }
        : {
            verdict: "RUNTIME_ERROR",
            detail: `${label}: ${r.signal !== null ? `killed by ${r.signal}` : `exit code ${r.exitCode}`}`,
          };
    } else if (!outputMatches(r.stdout, testCase.output, tests.floatTolerance)) {
      failure = {
        verdict: "FAILED_TESTS",
        detail: `${label}: wrong answer, expected ${preview(testCase.output)}, got ${preview(r.stdout)}`,
      };
    }
    if (failure === undefined) {
      passed++;
    } else {
      firstFailure ??= { ...failure, stderr: r.stderr };
      if (r.timedOut) break;
    }
  }
  const wallTimeMs = Math.round(performance.now() - started);
  if (firstFailure === undefined) {
    return {
      verdict: "PASSED",
      testsPassed: passed,
      testsTotal: total,
      wallTimeMs,
      stderrTail: tail(lastStderr),
      detail: "",
    };
  }
  return {
    verdict: firstFailure.verdict,
    testsPassed: passed,
    testsTotal: total,
    wallTimeMs,
    stderrTail: tail(firstFailure.stderr),
    detail: firstFailure.detail,
  };
}
