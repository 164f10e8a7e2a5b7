/**
 * Python test runners (docs/sandbox.md): build the files of a test program for one test style, run it in a
 * {@link Sandbox}, and turn what happened into a verdict with tests passed / total.
 *
 * - `unittest` (BigCodeBench) and `assert` (HumanEval) run `sandbox/python/harness.py`, which executes
 *   program and tests in one namespace and reports on stdout in records authenticated with a random nonce
 *   it reads from stdin before any candidate code runs (an HMAC of each record keyed with it: the nonce is
 *   never in the output; see the harness's docstring for the protocol and what it defends against). A run
 *   without the final record never passes.
 * - `stdio` (DeepCoder / CodeContests) runs all cases of a rollout in ONE sandboxed process:
 *   `harness.py stdio` forks a child per case that runs the program as `python3 main.py` would, and
 *   reports each case's exit status, stdout and stderr tail in nonce-tagged records the child cannot
 *   write (it holds no fd of the channel and cannot ptrace the harness); the output is compared here
 *   ({@link outputMatches}, the one implementation). The cases share one wall budget,
 *   `limits.wallTimeMs`, and with `limits.cpuTimeMs` one CPU-time budget of that (the wall one is then the
 *   backstop), so a rollout costs at most that much whatever the number of cases: every case is
 *   run, in order, after a failing one too (so `testsPassed` counts all cases), until the budget is
 *   spent; cases the budget did not reach count as failed. The verdict is that of the first case that did
 *   not pass. A program may exit on its own (`sys.exit(0)` after printing is fine): a case passes on exit
 *   status 0 and matching output. Each case's stdout and stderr are capped at `limits.maxOutputBytes`
 *   together, as when every case was its own run, and all cases' stdout at 8× that (the server holds it);
 *   after each case every process it left is killed. A run without the harness's final record never
 *   passes.
 *
 * Verdicts: PASSED; FAILED_TESTS (wrong answer, failed assertion, test runner tampered with);
 * TIMEOUT; MEMORY_LIMIT; RUNTIME_ERROR (the program raised or exited while loading, died without a
 * result, or exceeded the output limit); INFRA_ERROR only when the sandbox or the harness broke before
 * candidate code ran, or the task's tests themselves are unusable (they do not compile, or have no
 * tests), neither of which the candidate can cause.
 *
 * Why one long file: the three test styles share the harness protocol defined here (nonce-tagged records,
 * limits, the verdict mapping); split, each style would need the protocol from the others.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { constants as osConstants } from "node:os";
import { DEFAULT_LIMITS_CONFIG } from "../config.js";
import type { Verdict } from "../core/reward.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { HARNESS_BYTECODE_FILE, HARNESS_LOADER, HARNESS_SOURCE } from "../sandbox/harness-source.js";
import { stderrShowsOutOfMemory } from "../sandbox/out-of-memory.js";
import type { RuntimeName } from "../sandbox/runtimes.js";
import type { ExecutionLimits, ExecutionResult, Sandbox } from "../sandbox/sandbox.js";

export type PythonTests =
  /** BigCodeBench: a `TestCases(unittest.TestCase)` class; program and tests run in one namespace. */
  (
    | { style: "unittest"; code: string }
    /** HumanEval: `def check(candidate)`, called as `check(<entryPoint>)`. */
    | { style: "assert"; code: string; entryPoint: string }
    /**
     * DeepCoder: exact match after trimming trailing whitespace per line and trailing blank lines, or,
     * with `floatTolerance`, numeric tokens may differ by that much (absolute or relative).
     */
    | { style: "stdio"; cases: { input: string; output: string }[]; floatTolerance?: number }
  ) & {
    /**
     * The task runtime program and tests run in (src/sandbox/runtimes.ts: the libraries they may import);
     * absent: the standard library's. Part of the tests because it decides their outcome as they do.
     */
    runtime?: RuntimeName;
  };

/** Stdin/stdout cases; the C++ and Java runners (compiled.ts) take the same shape. */
export type StdioTests = Extract<PythonTests, { style: "stdio" }>;

export type TestOutcome = {
  verdict: Verdict;
  testsPassed: number;
  testsTotal: number;
  wallTimeMs: number;
  /** CPU time (user + system) of the run, when the sandbox measures it. */
  cpuTimeMs?: number;
  /** Time the run spent sleeping or blocked (neither running nor waiting for a CPU), when measured. */
  idleTimeMs?: number;
  /** The last {@link STDERR_TAIL_CHARS} characters of the program's stderr (tracebacks of failures). */
  stderrTail: string;
  /** One line for humans: the first failure, or why the run has no result. Empty when PASSED. */
  detail: string;
  /**
   * Why an `INFRA_ERROR` has no result: the task's tests cannot be used (the same on every run), or the
   * sandbox or the harness broke (another run, on a fresh sandbox, may well succeed).
   */
  infraCause?: "unusable_tests" | "sandbox";
};

/** How much of stderr a {@link TestOutcome} keeps. */
export const STDERR_TAIL_CHARS = 4096;

/** Names the harness's code, for results remembered across starts (a changed harness may judge anew). */
export const HARNESS_DIGEST = createHash("sha256").update(HARNESS_SOURCE).digest("hex").slice(0, 16);

/**
 * `python3 -s`: no user site directory; the sandbox environment fixes the hash seed and bytecode. (Not
 * `-S`: `site` puts the distribution's dist-packages, or a virtualenv's site-packages, on `sys.path`, which
 * BigCodeBench programs import from; it costs ~2 ms of a run.)
 */
const PYTHON = ["python3", "-s"];

/**
 * Compiling the harness's source costs ~7–10 ms per run; its bytecode loads in ~0.2 ms. So the harness is
 * compiled ONCE per sandbox, by that sandbox's own interpreter in an ordinary run (marshal's format is
 * specific to the interpreter version), and each run gets the base64 bytecode as a file plus HARNESS_LOADER.
 * Nothing but our own harness is compiled there; every run still starts a fresh sandbox and interpreter
 * (or a fresh fork of a warm one, which runs its own copy of the same bytecode: forkserver.py).
 */
const HARNESS_COMPILER =
  "import marshal,binascii,sys;sys.stdout.write(binascii.b2a_base64(marshal.dumps(compile(open('harness.py').read(),'harness.py','exec')),newline=False).decode())";
const compiledHarness = new WeakMap<Sandbox, Promise<string | null>>();

/** The harness as files and the argv prefix that runs it with `args`: bytecode when it compiled, else source. */
async function harnessRun(
  sandbox: Sandbox,
  args: string[],
): Promise<{ files: Record<string, string>; argv: string[] }> {
  let bytecode = compiledHarness.get(sandbox);
  if (bytecode === undefined) {
    bytecode = compileHarness(sandbox);
    compiledHarness.set(sandbox, bytecode);
  }
  const b64 = await bytecode;
  if (b64 === null)
    return { files: { "harness.py": HARNESS_SOURCE }, argv: [...PYTHON, "harness.py", ...args] };
  // `-c`: sys.argv is ["-c", ...args], the same indexing as `harness.py ...args`.
  return { files: { [HARNESS_BYTECODE_FILE]: b64 }, argv: [...PYTHON, "-c", HARNESS_LOADER, ...args] };
}

async function compileHarness(sandbox: Sandbox): Promise<string | null> {
  try {
    const r = await sandbox.run({
      files: { "harness.py": HARNESS_SOURCE },
      argv: [...PYTHON, "-c", HARNESS_COMPILER],
      limits: DEFAULT_LIMITS_CONFIG.harnessCompile,
    });
    const text = r.stdout.trim();
    // Anything else (the sandbox is down, the output is cut): run from source, which always works.
    return r.exitCode === 0 && !r.outputTruncated && /^[A-Za-z0-9+/=]+$/.test(text) ? text : null;
  } catch {
    return null;
  }
}

function tail(text: string): string {
  return text.length > STDERR_TAIL_CHARS ? text.slice(-STDERR_TAIL_CHARS) : text;
}

/**
 * Runs `program` against `tests` in `sandbox`, in the tests' runtime. Never throws for what the program
 * does; throws `MineditError(Cancelled)` when `signal` aborts, and rethrows request errors
 * (`InvalidArgument`; `FailedPrecondition` when the runtime is not installed). A sandbox that cannot
 * start yields the `INFRA_ERROR` verdict.
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

/**
 * Runs the sandbox, mapping "could not start" to `{ infra }` and cancellation to a thrown error. Shared
 * with the compiled-language runners (compiled.ts).
 */
export async function execute(
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

/** An `INFRA_ERROR` outcome: by default a sandbox fault (worth a retry); see {@link unusableTests}. */
export function infraOutcome(detail: string, wallTimeMs = 0, stderr = ""): TestOutcome {
  return {
    verdict: "INFRA_ERROR",
    testsPassed: 0,
    testsTotal: 0,
    wallTimeMs,
    stderrTail: tail(stderr),
    detail,
    infraCause: "sandbox",
  };
}

/** The tests cannot be used whatever the program: `INFRA_ERROR` that no retry changes. */
export function unusableTests(detail: string): TestOutcome {
  return { ...infraOutcome(`unusable tests: ${detail}`), infraCause: "unusable_tests" };
}

// ---------------------------------------------------------------------------------------------------
// unittest and assert styles

type HarnessRecord = {
  kind: "ready" | "loaded" | "test" | "fail" | "case" | "result";
  value: Record<string, unknown>;
};

/**
 * The nonce-tagged records in the harness's stdout (the stdio style's). Lines without the exact nonce are
 * the program's.
 */
export function parseHarnessRecords(stdout: string, nonce: string): HarnessRecord[] {
  const records: HarnessRecord[] = [];
  const prefix = `@@minedit:${nonce}:`;
  for (const line of stdout.split("\n")) {
    if (!line.startsWith(prefix)) continue;
    const record = parseRecord(line.slice(prefix.length));
    if (record !== undefined) records.push(record);
  }
  return records;
}

/** Hex digits of a record's tag (see {@link parseTaggedRecords}). */
const TAG_CHARS = 32;

/**
 * The records of the unittest and assert styles, `@@minedit:<tag>:<kind>:<json>`, whose tag is the first
 * {@link TAG_CHARS} hex digits of HMAC-SHA256("<kind>:<json>") keyed with the nonce; other lines are the
 * program's. The harness never writes the nonce itself: under Docker the run's stdout is a pipe, and any
 * process holding its write end (the program, its subprocesses) can open the read end through
 * /proc/self/fd and read the records as they are written, which must not let it write one.
 */
export function parseTaggedRecords(stdout: string, nonce: string): HarnessRecord[] {
  const records: HarnessRecord[] = [];
  const prefix = "@@minedit:";
  for (const line of stdout.split("\n")) {
    if (!line.startsWith(prefix) || line.charAt(prefix.length + TAG_CHARS) !== ":") continue;
    const tag = line.slice(prefix.length, prefix.length + TAG_CHARS);
    const signed = line.slice(prefix.length + TAG_CHARS + 1);
    if (createHmac("sha256", nonce).update(signed).digest("hex").slice(0, TAG_CHARS) !== tag) continue;
    const record = parseRecord(signed);
    if (record !== undefined) records.push(record);
  }
  return records;
}

/** One record from `<kind>:<json>`, or undefined when it is not one. */
function parseRecord(text: string): HarnessRecord | undefined {
  const colon = text.indexOf(":");
  const kind = text.slice(0, colon);
  if (
    kind !== "ready" &&
    kind !== "loaded" &&
    kind !== "test" &&
    kind !== "fail" &&
    kind !== "case" &&
    kind !== "result"
  )
    return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(colon + 1));
    if (typeof value === "object" && value !== null) return { kind, value: value as Record<string, unknown> };
  } catch {
    // A torn line (the run was killed mid-write) carries nothing.
  }
  return undefined;
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
  const harness = await harnessRun(
    sandbox,
    tests.style === "unittest" ? ["unittest"] : ["assert", tests.entryPoint],
  );
  const run = await execute(sandbox, {
    // The tests travel on stdin after the nonce, never as a file: a fresh bwrap sandbox's init (dumpable)
    // keeps the last block of every file it copied in, where a subprocess could read it (/proc/1/mem).
    files: { ...harness.files, "program.py": program },
    argv: harness.argv,
    stdin: `${nonce}\n${tests.code}`,
    limits,
    ...(tests.runtime === undefined ? {} : { runtime: tests.runtime }),
    ...(signal === undefined ? {} : { signal }),
  });
  if ("infra" in run) return infraOutcome(run.infra);
  return interpretHarnessRun(run.result, nonce, limits);
}

/** The run's CPU and idle time for a {@link TestOutcome}, when the sandbox measured them. */
const cpuOf = (result: ExecutionResult): { cpuTimeMs?: number; idleTimeMs?: number } => ({
  ...(result.cpuTimeMs === undefined ? {} : { cpuTimeMs: result.cpuTimeMs }),
  ...(result.idleTimeMs === undefined ? {} : { idleTimeMs: result.idleTimeMs }),
});

/** Which limit killed a timed-out run: the CPU-time limit, the idle limit, or the wall limit (or backstop). */
function timeoutDetail(result: ExecutionResult, limits: ExecutionLimits): string {
  if (result.cpuLimitExceeded === true && limits.cpuTimeMs !== undefined) {
    return `killed after the ${limits.cpuTimeMs} ms CPU time limit`;
  }
  if (result.idleLimitExceeded === true && limits.idleTimeMs !== undefined) {
    return `killed after ${limits.idleTimeMs} ms idle (sleeping or blocked: the idle limit)`;
  }
  return `killed after the ${limits.wallTimeMs} ms wall limit`;
}

function interpretHarnessRun(result: ExecutionResult, nonce: string, limits: ExecutionLimits): TestOutcome {
  const records = parseTaggedRecords(result.stdout, nonce);
  const finals = records.filter((r) => r.kind === "result");
  const ready = records.find((r) => r.kind === "ready");
  const loaded = records.find((r) => r.kind === "loaded");
  const progress = records.filter((r) => r.kind === "test");
  const base = { wallTimeMs: result.wallTimeMs, ...cpuOf(result), stderrTail: tail(result.stderr) };
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
    return { ...unusableTests(str(final.value.detail)), ...base };
  }
  if (ready === undefined) {
    // Candidate code only runs after `ready`: whatever ended the run before it is not the candidate's.
    const how = result.timedOut ? "timed out" : `exited (code ${result.exitCode}, signal ${result.signal})`;
    return { ...infraOutcome(`the test harness ${how} before running the program`), ...base };
  }
  if (result.timedOut) return partial("TIMEOUT", timeoutDetail(result, limits));
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
  // A failure the harness reported as it happened (`fail`, or a `test` record with ok false) stands,
  // whatever the final record says: nothing the program does later can take it back.
  const failed = new Set<string>();
  let firstFailure = "";
  for (const r of records) {
    if (r.kind === "fail" || (r.kind === "test" && r.value.ok !== true)) {
      failed.add(str(r.value.name));
      if (firstFailure === "" && r.kind === "fail") {
        firstFailure = `${str(r.value.name)}: ${str(r.value.detail)}`;
      }
    }
  }
  const testsTotal = num(v.total);
  const testsPassed = Math.min(num(v.passed), Math.max(0, testsTotal - failed.size));
  const outcome = { testsPassed, testsTotal, ...base, detail: str(v.detail) || firstFailure };
  switch (v.status) {
    case "ok":
      if (v.all_ok === true && failed.size === 0 && testsPassed === testsTotal && testsTotal > 0) {
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

/** Each case's stdout and stderr together, as a separate run's output limit (a multiple bounds the run). */
const STDIO_TOTAL_OUTPUT_FACTOR = 8;
/** How much of each case's stderr the harness reports (bytes; at least STDERR_TAIL_CHARS characters). */
const STDIO_STDERR_TAIL_BYTES = 16 * 1024 + 4;
/**
 * The harness's own deadline is this much before the sandbox's wall limit, which also counts sandbox and
 * interpreter start-up: the harness then usually kills a hanging case itself and still reports. (If the
 * sandbox's limit comes first, the records written so far are used just the same.)
 */
const STDIO_STARTUP_ALLOWANCE_MS = 150;

function signalLabel(signal: number | null): string | null {
  if (signal === null) return null;
  for (const [name, value] of Object.entries(osConstants.signals)) {
    if (value === signal) return name;
  }
  return `signal ${signal}`;
}

const b64 = (v: unknown): string => Buffer.from(str(v), "base64").toString("utf8");

/**
 * One sandboxed process for all cases: `harness.py stdio` forks a child per case (see the harness), and
 * reports each case's exit status and stdout; the comparison ({@link outputMatches}) and the verdict
 * rules are here.
 */
async function runStdio(
  sandbox: Sandbox,
  program: string,
  tests: StdioTests,
  limits: ExecutionLimits,
  signal: AbortSignal | undefined,
): Promise<TestOutcome> {
  if (tests.cases.length === 0) return unusableTests("no stdio cases");
  const plan = await planStdioRun(sandbox, tests, limits);
  const run = await execute(sandbox, {
    files: { ...plan.files, "main.py": program },
    argv: plan.argv,
    stdin: plan.stdin,
    limits: { ...limits, maxOutputBytes: plan.maxOutputBytes },
    ...(tests.runtime === undefined ? {} : { runtime: tests.runtime }),
    ...(signal === undefined ? {} : { signal }),
  });
  if ("infra" in run) return infraOutcome(run.infra);
  return interpretStdioRun(run.result, plan.nonce, tests, limits);
}

/**
 * How to run `harness.py stdio` for `tests` (non-empty): its files (without `main.py`, the program it
 * runs per case), argv, stdin (nonce and inputs) and the sandbox output limit its records need. Shared
 * with the compiled-language runners, which run the harness after compiling, with a `main.py` that
 * executes the binary; {@link interpretStdioRun} reads the result.
 */
export async function planStdioRun(
  sandbox: Sandbox,
  tests: StdioTests,
  limits: ExecutionLimits,
): Promise<{
  nonce: string;
  files: Record<string, string>;
  argv: string[];
  stdin: string;
  maxOutputBytes: number;
}> {
  const total = tests.cases.length;
  const nonce = randomBytes(16).toString("hex");
  const stdin = [`${nonce}\n${total}\n`];
  for (const testCase of tests.cases) stdin.push(`${Buffer.byteLength(testCase.input)}\n`, testCase.input);
  const caseCap = limits.maxOutputBytes;
  const totalCap = caseCap * STDIO_TOTAL_OUTPUT_FACTOR;
  // The records carry the outputs in base64 (4/3), each case also a stderr tail; the harness enforces
  // the caps, the sandbox's own output limit only stops a harness gone wrong.
  const recordsCap =
    Math.ceil((totalCap * 4) / 3) + total * (Math.ceil((STDIO_STDERR_TAIL_BYTES * 4) / 3) + 512) + (1 << 16);
  const budget = Math.max(1, limits.wallTimeMs - STDIO_STARTUP_ALLOWANCE_MS);
  // With a CPU limit the cases share it as CPU time (the harness stops a case that spends it, and still
  // reports); the wall budget is then the backstop's.
  const cpu =
    limits.cpuTimeMs === undefined
      ? []
      : [String(Math.max(1, limits.cpuTimeMs - STDIO_STARTUP_ALLOWANCE_MS))];
  const harness = await harnessRun(sandbox, [
    "stdio",
    String(budget),
    String(caseCap),
    String(totalCap),
    ...cpu,
  ]);
  return { nonce, ...harness, stdin: stdin.join(""), maxOutputBytes: recordsCap };
}

/** The outcome of a `harness.py stdio` run planned by {@link planStdioRun}. */
export function interpretStdioRun(
  result: ExecutionResult,
  nonce: string,
  tests: StdioTests,
  limits: ExecutionLimits,
): TestOutcome {
  const total = tests.cases.length;
  const records = parseHarnessRecords(result.stdout, nonce);
  const ready = records.find((r) => r.kind === "ready");
  const finals = records.filter((r) => r.kind === "result");
  const wallTimeMs = result.wallTimeMs;
  if (ready === undefined) {
    // Candidate code only runs after `ready`: whatever ended the run before it is not the candidate's.
    const how = result.timedOut ? "timed out" : `exited (code ${result.exitCode}, signal ${result.signal})`;
    return infraOutcome(`the test harness ${how} before running the program`, wallTimeMs, result.stderr);
  }
  // The run is one process tree for all cases: its CPU time is the cases' sum (and the harness's).
  const cpu = cpuOf(result);
  const wallSpent = (label: string) => `${label}: wall budget of ${limits.wallTimeMs} ms spent`;
  const cpuSpent = (label: string) => `${label}: CPU time limit of ${limits.cpuTimeMs} ms spent`;
  const idleSpent = (label: string) =>
    `${label}: idle limit of ${limits.idleTimeMs} ms spent (sleeping or blocked)`;
  const byIndex = new Map<number, Record<string, unknown>>();
  let forged = finals.length > 1;
  for (const r of records) {
    if (r.kind !== "case") continue;
    const index = r.value.index;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= total) forged = true;
    else if (byIndex.has(index)) forged = true;
    else byIndex.set(index, r.value);
  }
  if (forged) {
    // The harness writes each record once; more means someone else knew the nonce and had the channel.
    return {
      verdict: "FAILED_TESTS",
      testsPassed: 0,
      testsTotal: total,
      wallTimeMs,
      ...cpu,
      stderrTail: tail(result.stderr),
      detail: "test runner tampered: duplicate case or result records",
    };
  }
  const final = finals[0];
  const reached = final === undefined ? total : num(final.value.reached);

  let passed = 0;
  let firstFailure: { verdict: Verdict; detail: string; stderr: string } | undefined;
  let lastStderr = "";
  for (const [index, testCase] of tests.cases.entries()) {
    const label = `case ${index + 1}`;
    const r = byIndex.get(index);
    if (r === undefined) {
      // No report for this case: the budget ran out before it, or the run ended during it.
      let failure: { verdict: Verdict; detail: string };
      if (final !== undefined && index >= reached) {
        const what = final.value.cpu === true ? "CPU time limit" : "wall budget";
        failure = { verdict: "TIMEOUT", detail: `${what} spent before ${label}` };
      } else if (result.timedOut) {
        failure = {
          verdict: "TIMEOUT",
          detail:
            result.cpuLimitExceeded === true
              ? cpuSpent(label)
              : result.idleLimitExceeded === true
                ? idleSpent(label)
                : wallSpent(label),
        };
      } else if (result.outputTruncated) {
        failure = { verdict: "RUNTIME_ERROR", detail: `${label}: output limit exceeded` };
      } else {
        const how = result.signal !== null ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
        failure = {
          verdict: "RUNTIME_ERROR",
          detail: `${label}: the test harness ended without a result (${how})`,
        };
      }
      firstFailure ??= { ...failure, stderr: result.stderr };
      break;
    }
    const stderr = b64(r.err);
    lastStderr = stderr;
    const exitCode = typeof r.exit === "number" ? r.exit : null;
    const killedBy = signalLabel(typeof r.signal === "number" ? r.signal : null);
    let failure: { verdict: Verdict; detail: string } | undefined;
    if (r.timed_out === true) {
      failure = { verdict: "TIMEOUT", detail: r.cpu === true ? cpuSpent(label) : wallSpent(label) };
    } else if (r.truncated === true) {
      failure = { verdict: "RUNTIME_ERROR", detail: `${label}: output limit exceeded` };
    } else if (exitCode !== 0) {
      failure = stderrShowsOutOfMemory(stderr)
        ? { verdict: "MEMORY_LIMIT", detail: `${label}: out of memory` }
        : {
            verdict: "RUNTIME_ERROR",
            detail: `${label}: ${killedBy !== null ? `killed by ${killedBy}` : `exit code ${exitCode}`}`,
          };
    } else {
      const stdout = b64(r.out);
      if (!outputMatches(stdout, testCase.output, tests.floatTolerance)) {
        failure = {
          verdict: "FAILED_TESTS",
          detail: `${label}: wrong answer, expected ${preview(testCase.output)}, got ${preview(stdout)}`,
        };
      }
    }
    if (failure === undefined) {
      passed++;
    } else {
      firstFailure ??= { ...failure, stderr };
      if (r.timed_out === true) break;
    }
  }
  if (firstFailure === undefined && final === undefined) {
    // Every case reported but no final record: the harness did not finish; never a pass.
    const how = result.signal !== null ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
    firstFailure = {
      verdict: "RUNTIME_ERROR",
      detail: `the test harness ended without its final record (${how})`,
      stderr: result.stderr,
    };
  }
  if (firstFailure === undefined) {
    return {
      verdict: "PASSED",
      testsPassed: passed,
      testsTotal: total,
      wallTimeMs,
      ...cpu,
      stderrTail: tail(lastStderr),
      detail: "",
    };
  }
  return {
    verdict: firstFailure.verdict,
    testsPassed: passed,
    testsTotal: total,
    wallTimeMs,
    ...cpu,
    stderrTail: tail(firstFailure.stderr),
    detail: firstFailure.detail,
  };
}
