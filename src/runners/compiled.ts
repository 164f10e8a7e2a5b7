/**
 * Test runner for compiled languages (C++ and Java; docs/lint.md, "Execution"): compile the program, then run
 * it on stdin/stdout cases, all in ONE sandbox run, with the verdict rules and output comparison of the
 * Python stdio runner (python.ts `interpretStdioRun`, `outputMatches`). The languages (compiler command,
 * how to start the binary, memory settings) are in cpp.ts and java.ts.
 *
 * One run, two stages. `sandbox/compiled/driver.py` compiles with its own wall budget
 * ({@link CompileOptions.compileTimeMs}), writes a compile record as the first line of stdout, and on
 * success becomes the stdio harness of the Python runner (`harness.py stdio`), whose `main.py` here is a
 * three-line Python wrapper that `exec`s the binary (or `java`) with the case's stdio. So each case is run,
 * timed, capped and cleaned up exactly as a Python stdio case is, and the records are the same.
 *
 * Why one run: the sandbox's scratch directory lives only as long as a run, so the binary would
 * otherwise have to leave the sandbox (base64 on stdout, and back in as a file; `files` are UTF-8 text)
 * and a second sandbox start up; one run is simpler and costs one sandbox start. The compile stage has
 * no nonce: nothing but the driver writes to stdout before its record (candidate code only runs after),
 * and the driver is non-dumpable while the compiler reads candidate source, so a
 * `#include "/proc/<pid>/fd/0"` cannot eat the harness's stdin.
 *
 * Time: the compile budget is separate from `limits.wallTimeMs`, which bounds running the cases exactly
 * as for Python stdio (one budget shared by all cases, from the harness's start); the sandbox's own wall
 * limit is their sum plus a start-up allowance. The outcome's `wallTimeMs` is the whole run, compiling
 * included.
 *
 * Verdicts: those of the stdio runner, plus COMPILE_ERROR when the compiler exits non-zero, is killed or
 * times out (`detail` holds its first error line; `stderrTail` its output — the beginning when long,
 * since the first errors are the ones that matter). INFRA_ERROR when the compiler cannot start at all or
 * the runtime reports it could not start (the language's `compilerBroken` pattern), when the driver
 * ends without its record, or the sandbox is unavailable.
 */

import { readFileSync } from "node:fs";
import { DEFAULT_LIMITS_CONFIG } from "../config.js";
import type { RuntimeName } from "../sandbox/runtimes.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import {
  execute,
  infraOutcome,
  interpretStdioRun,
  planStdioRun,
  STDERR_TAIL_CHARS,
  type StdioTests,
  type TestOutcome,
  unusableTests,
} from "./python.js";

/** How one compiled language builds and starts a program. */
export type CompiledLanguage = {
  /** For messages: `"C++"`, `"Java"`. */
  readonly name: string;
  /**
   * The toolchain runtime its runs ask for (sandbox/runtimes.json): under Docker the image with its
   * compiler, whose fork servers run the driver; under bwrap the host's compiler, as for any runtime.
   */
  readonly runtime: RuntimeName;
  /** The sandbox files (the source under its file name), the compiler argv and how to start the result. */
  prepare(source: string, limits: ExecutionLimits): CompilePlan;
  /**
   * RLIMIT_AS of the run for a requested `memoryBytes` (a runtime that reserves far more address space
   * than it uses, the JVM, gets more and caps its heap itself).
   */
  addressSpaceBytes(memoryBytes: number): number;
  /**
   * Compiler output that means the compiler (or its runtime) could not start: not the candidate's doing.
   * Only believed when the output has no diagnostic about a source file, where the candidate's own text
   * would be quoted.
   */
  readonly compilerBroken?: RegExp;
};

export type CompilePlan = {
  files: Record<string, string>;
  compile: string[];
  /** Extra environment of the compiler and of the program. */
  env: Record<string, string>;
  /** How each case starts the program (argv[0] looked up on PATH unless it contains a slash). */
  run: string[];
  /** Soft RLIMIT_STACK of the program in bytes (capped by the hard limit); absent: inherited. */
  stackBytes?: number;
};

export type CompileOptions = {
  /**
   * Wall budget of the compile stage, from the driver's start. Default: the `compile` limit profile's
   * (docs/sandbox.md#limits), generous, since `g++ -O2` on `<bits/stdc++.h>` takes ~1.5 s on a quiet core
   * and several times that on a loaded machine; a compile that needs longer (a template bomb) is the
   * candidate's COMPILE_ERROR.
   */
  compileTimeMs?: number;
};

/** The driver, shipped beside the sources at the repository top level and read once at startup. */
const DRIVER = readFileSync(new URL("../../sandbox/compiled/driver.py", import.meta.url), "utf8");
/** Compiler output kept by the driver (the beginning). */
const COMPILE_LOG_CAP_BYTES = 64 * 1024;
/** Sandbox start, the driver's and the harness's interpreter start-ups, the last records. */
const STAGES_ALLOWANCE_MS = 2_000;
const COMPILE_RECORD = "@@minedit-compile:";

type CompileRecord = {
  exit: number | null;
  signal: number | null;
  timed_out: boolean;
  missing: string | null;
  log: string;
};

/**
 * Compiles `source` and runs it on `tests` in `sandbox`. Never throws for what the program (or the
 * compiler, on the program's source) does; throws `MineditError(Cancelled)` when `signal` aborts, and
 * rethrows request errors (`InvalidArgument`).
 */
export async function runCompiledTests(
  sandbox: Sandbox,
  language: CompiledLanguage,
  source: string,
  tests: StdioTests,
  limits: ExecutionLimits,
  signal?: AbortSignal,
  options: CompileOptions = {},
): Promise<TestOutcome> {
  if (tests.cases.length === 0) return unusableTests("no stdio cases");
  const compileTimeMs = options.compileTimeMs ?? DEFAULT_LIMITS_CONFIG.compile.wallTimeMs;
  const plan = language.prepare(source, limits);
  const harness = await planStdioRun(sandbox, tests, limits);
  const spec = {
    compile: plan.compile,
    env: plan.env,
    timeout_ms: compileTimeMs,
    log_cap: COMPILE_LOG_CAP_BYTES,
    harness: harness.argv,
  };
  const run = await execute(sandbox, {
    files: { ...harness.files, ...plan.files, "driver.py": DRIVER, "main.py": execWrapper(plan) },
    argv: ["python3", "-s", "driver.py", JSON.stringify(spec)],
    stdin: harness.stdin,
    runtime: language.runtime,
    limits: {
      ...limits,
      wallTimeMs: compileTimeMs + limits.wallTimeMs + STAGES_ALLOWANCE_MS,
      memoryBytes: language.addressSpaceBytes(limits.memoryBytes),
      maxOutputBytes: harness.maxOutputBytes + Math.ceil((COMPILE_LOG_CAP_BYTES * 4) / 3) + 1024,
    },
    ...(signal === undefined ? {} : { signal }),
  });
  if ("infra" in run) return infraOutcome(run.infra);
  const result = run.result;
  const record = parseCompileRecord(result.stdout);
  if (record === null) {
    const how = result.timedOut ? "timed out" : `exited (code ${result.exitCode}, signal ${result.signal})`;
    return infraOutcome(`the compile driver ${how} without a report`, result.wallTimeMs, result.stderr);
  }
  const log = Buffer.from(record.log, "base64").toString("utf8");
  if (record.missing !== null) {
    return infraOutcome(
      `the ${language.name} compiler could not start: ${record.missing}`,
      result.wallTimeMs,
    );
  }
  const aboutSource = Object.keys(plan.files).some((file) => log.includes(`${file}:`));
  if (!aboutSource && language.compilerBroken?.test(log) === true) {
    return infraOutcome(`the ${language.name} compiler's runtime could not start`, result.wallTimeMs, log);
  }
  if (record.exit !== 0) {
    return {
      verdict: "COMPILE_ERROR",
      testsPassed: 0,
      testsTotal: tests.cases.length,
      wallTimeMs: result.wallTimeMs,
      stderrTail: log.length > STDERR_TAIL_CHARS ? log.slice(0, STDERR_TAIL_CHARS) : log,
      detail: compileFailureDetail(record, log, compileTimeMs),
    };
  }
  return interpretStdioRun(result, harness.nonce, tests, limits);
}

/** {@link runCompiledTests} for one language (cpp.ts `runCppTests`, java.ts `runJavaTests`). */
export type CompiledRunner = (
  sandbox: Sandbox,
  source: string,
  tests: StdioTests,
  limits: ExecutionLimits,
  signal?: AbortSignal,
  options?: CompileOptions,
) => Promise<TestOutcome>;

export function compiledRunner(language: CompiledLanguage): CompiledRunner {
  return (sandbox, source, tests, limits, signal, options) =>
    runCompiledTests(sandbox, language, source, tests, limits, signal, options);
}

/** The driver's record: the first line of stdout, which only the driver writes (see the module doc). */
function parseCompileRecord(stdout: string): CompileRecord | null {
  const end = stdout.indexOf("\n");
  const line = end < 0 ? stdout : stdout.slice(0, end);
  if (!line.startsWith(COMPILE_RECORD)) return null;
  try {
    const value = JSON.parse(line.slice(COMPILE_RECORD.length)) as Partial<CompileRecord> | null;
    if (typeof value !== "object" || value === null || typeof value.log !== "string") return null;
    return {
      exit: typeof value.exit === "number" ? value.exit : null,
      signal: typeof value.signal === "number" ? value.signal : null,
      timed_out: value.timed_out === true,
      missing: typeof value.missing === "string" ? value.missing : null,
      log: value.log,
    };
  } catch {
    return null;
  }
}

/** One line: why the compile failed, with the compiler's first error line when it printed one. */
export function compileFailureDetail(
  record: Pick<CompileRecord, "exit" | "signal" | "timed_out">,
  log: string,
  compileTimeMs: number,
): string {
  if (record.timed_out) return `compile error: compilation exceeded ${compileTimeMs} ms`;
  const lines = log.split("\n").map((line) => line.trim());
  const first = lines.find((line) => /\berror\b/i.test(line)) ?? lines.find((line) => line !== "");
  const status =
    record.signal !== null ? `compiler killed by signal ${record.signal}` : `exit code ${record.exit}`;
  const text = first === undefined ? status : first.length > 300 ? `${first.slice(0, 297)}...` : first;
  return `compile error: ${text}`;
}

/**
 * The `main.py` the stdio harness runs per case: restores the signal dispositions a fresh program has
 * (the harness's Python ignores SIGPIPE and SIGXFSZ, and ignored signals survive exec), sets the stack
 * limit, and execs the program with the case's stdio, which the harness has already set up.
 */
function execWrapper(plan: CompilePlan): string {
  const lines = [
    "import os, signal",
    "signal.signal(signal.SIGPIPE, signal.SIG_DFL)",
    "signal.signal(signal.SIGXFSZ, signal.SIG_DFL)",
  ];
  if (plan.stackBytes !== undefined) {
    lines.push(
      "import resource",
      "hard = resource.getrlimit(resource.RLIMIT_STACK)[1]",
      `soft = ${plan.stackBytes} if hard == resource.RLIM_INFINITY else min(${plan.stackBytes}, hard)`,
      "resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))",
    );
  }
  // JSON strings are valid Python string literals.
  lines.push(
    `argv = ${JSON.stringify(plan.run)}`,
    "env = dict(os.environ)",
    `env.update(${JSON.stringify(plan.env)})`,
    "os.execvpe(argv[0], argv, env)",
  );
  return `${lines.join("\n")}\n`;
}
