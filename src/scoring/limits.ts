/** The limits of one sandboxed test run, as the configuration's `limits.tests` profile sets them (docs/sandbox.md#limits). */
import { availableParallelism } from "node:os";
import type { Config } from "../config.js";
import type { ExecutionLimits } from "../sandbox/sandbox.js";

/** Wall-clock time a run may take beyond `factor × cpu limit` (start-up, a short sleep or wait). */
const BACKSTOP_SLACK_MS = 5_000;

/**
 * The wall-clock backstop of a run whose time limit is `cpuTimeMs` of CPU: a program that uses its whole
 * CPU budget while `concurrency` runs share `cores` cores gets about cores/concurrency of a core, so it
 * may need `concurrency / cores` times its CPU in wall time; the backstop allows 1.5× that (at least 2×,
 * other load on the machine) plus {@link BACKSTOP_SLACK_MS}, and never less than `floorMs`. So only a
 * program that sleeps or waits reaches it: oversubscribing the cores never turns a CPU-bound run that
 * stays within its limit into a TIMEOUT (tests/sandbox/cpu-limits.test.ts).
 */
export function wallBackstopMs(cpuTimeMs: number, concurrency: number, cores: number, floorMs = 0): number {
  const factor = Math.max(2, (1.5 * concurrency) / Math.max(1, cores));
  return Math.max(floorMs, Math.ceil(factor * cpuTimeMs) + BACKSTOP_SLACK_MS);
}

/**
 * The configured limits: with `limits.tests.cpuTimeMs` (the default) the CPU time is the time limit and
 * the wall limit the backstop of {@link wallBackstopMs} (at least `limits.tests.wallTimeMs`); with 0, the
 * wall limit alone.
 */
export function executionLimits(config: Config, cores = availableParallelism()): ExecutionLimits {
  const { cpuTimeMs, ...wallClock } = config.limits.tests;
  const limits: ExecutionLimits = { ...wallClock };
  if (cpuTimeMs > 0) {
    limits.cpuTimeMs = cpuTimeMs;
    limits.wallTimeMs = wallBackstopMs(
      cpuTimeMs,
      config.sandbox.executionConcurrency,
      cores,
      limits.wallTimeMs,
    );
  }
  return limits;
}
