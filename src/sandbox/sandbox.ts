/**
 * The one execution-sandbox interface (docs/sandbox.md, §7). Runners (src/runners/) build the files and argv
 * of a test program and hand them to a `Sandbox`; backends (bwrap.ts, the embedded default; docker.ts,
 * the production one) decide how the isolation is done. A backend must give every run:
 *
 * - a private, writable scratch directory as the working directory, holding exactly `files`;
 *   nothing of the host outside the language runtime is readable, nothing outside scratch is writable;
 * - no network;
 * - the limits of {@link ExecutionLimits}, with the whole process tree gone when a run ends, times out or
 *   is cancelled.
 *
 * What the program did (exit code, signal, timeout, output) is data in the {@link ExecutionResult}. A
 * backend throws `MineditError(ErrorCode.Unavailable, …)` only when the sandbox itself could not start,
 * which callers turn into the `INFRA_ERROR` verdict (docs/reward.md#the-formula: infrastructure faults are not failures),
 * and `FailedPrecondition` naming the runtime when the request's task runtime is not installed.
 */
import { DEFAULT_LIMITS_CONFIG, type RunLimits } from "../config.js";
import type { RuntimeName } from "./runtimes.js";

/**
 * Resource limits for one run: the fields every limit profile has (src/config.ts `RunLimits`, each
 * documented there: wall time, memory, processes, file size, output), plus the time limits only some runs
 * have. Units are in the names. A new limit is a field of the profiles' schema, read by the backends.
 */
export type ExecutionLimits = RunLimits & {
  /**
   * CPU-time limit of the run (user + system), when the backend enforces one; absent: the wall limit
   * alone. Unlike wall time it does not grow when the machine is busy.
   */
  cpuTimeMs?: number;
  /**
   * Idle-time limit of the run: time in which none of its threads ran or waited for a CPU (sleeping,
   * blocked), when the backend enforces one (the warm fork servers do); absent: none. Like CPU time, and
   * unlike wall time, it does not grow when the machine is busy: a CPU-starved run waits for a CPU, which
   * is not idle. It ends a program that sleeps or blocks for ever long before the wall backstop.
   */
  idleTimeMs?: number;
};

/**
 * The `limits.tests` profile's defaults (src/config.ts, docs/sandbox.md#limits) as the limits of one run,
 * by wall clock alone: for runs outside a configured scorer (a sandbox's start-up bounds, the tests of
 * the sandbox and the runners). Configured scoring takes its limits from the config
 * (src/scoring/limits.ts).
 */
export const DEFAULT_LIMITS: ExecutionLimits = Object.freeze(
  (({ cpuTimeMs: _cpu, ...wallClock }) => wallClock)(DEFAULT_LIMITS_CONFIG.tests),
);

/** One program execution. */
export type ExecutionRequest = {
  /** Files written into the scratch directory before start: relative path → UTF-8 content. */
  files: Record<string, string>;
  /** The command, resolved on the sandbox's PATH; runs with the scratch directory as cwd. */
  argv: string[];
  /** Bytes fed to stdin (UTF-8), then stdin is closed. Absent means empty stdin. */
  stdin?: string;
  limits: ExecutionLimits;
  /**
   * The task runtime the program needs (src/sandbox/runtimes.ts): its libraries' /etc entries and
   * environment, and with warm interpreters its pool of fork servers. Absent: the standard library's.
   */
  runtime?: RuntimeName;
  /** Aborting kills the run promptly; the result then has `cancelled: true`. */
  signal?: AbortSignal;
};

/** What happened. Exactly one of `exitCode` / `signal` is non-null unless the run never started. */
export type ExecutionResult = {
  exitCode: number | null;
  /** Name of the signal that ended the program (`"SIGKILL"`), or null. */
  signal: string | null;
  /** Captured stdout, decoded as UTF-8 (invalid bytes replaced), at most `maxOutputBytes` together with stderr. */
  stdout: string;
  stderr: string;
  /**
   * Killed because `wallTimeMs` passed, or `cpuTimeMs` (then `cpuLimitExceeded` too), or `idleTimeMs`
   * (then `idleLimitExceeded`).
   */
  timedOut: boolean;
  /** Killed because the run's CPU time passed `limits.cpuTimeMs` (absent: not, or no CPU limit). */
  cpuLimitExceeded?: boolean;
  /** Killed because the run's idle time passed `limits.idleTimeMs` (absent: not, or no idle limit). */
  idleLimitExceeded?: boolean;
  /** The program ran out of memory (allocation failure reported by the runtime, or killed for memory). */
  memoryExceeded: boolean;
  /** Killed because it wrote more than `maxOutputBytes`; the captured output is a prefix. */
  outputTruncated: boolean;
  /** Wall time from start to the end of the process tree. */
  wallTimeMs: number;
  /** CPU time (user + system) the run used, when the backend measures it. */
  cpuTimeMs?: number;
  /** Idle time of the run (see `ExecutionLimits.idleTimeMs`), when the backend measures it. */
  idleTimeMs?: number;
  /** Killed (or never started) because the request's `signal` was aborted. */
  cancelled: boolean;
};

/** The result of a run that never started its program (cancelled first, or refused). */
export function emptyResult(fields: { cancelled: boolean; wallTimeMs: number }): ExecutionResult {
  return {
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    timedOut: false,
    memoryExceeded: false,
    outputTruncated: false,
    ...fields,
  };
}

export interface Sandbox {
  /** Backend name for logs and reports, e.g. `"bwrap"`. */
  readonly name: string;
  /**
   * Runs one program. Resolves with what the program did; rejects with `MineditError(Unavailable)` only
   * when the sandbox itself cannot start (or the sandbox was closed), with `FailedPrecondition` when the
   * request's runtime is not installed.
   */
  run(request: ExecutionRequest): Promise<ExecutionResult>;
  /**
   * A sandbox whose every run starts from nothing any earlier run touched, for retrying a run the sandbox
   * broke. Backends that reuse state between runs (warm interpreters) return their plain backend; absent
   * means every run of this sandbox is already fresh.
   */
  fresh?(): Sandbox;
  /** Kills every running program and releases the backend; later `run` calls reject. */
  close(): Promise<void>;
}
