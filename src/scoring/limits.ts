/** The limits of one sandboxed test run, as the configuration sets them (SPEC §7). */
import type { Config } from "../config.js";
import type { ExecutionLimits } from "../sandbox/sandbox.js";

export function executionLimits(config: Config): ExecutionLimits {
  const { wallTimeMs, memoryBytes, maxProcesses, maxFileBytes, maxOutputBytes } = config.sandbox;
  return { wallTimeMs, memoryBytes, maxProcesses, maxFileBytes, maxOutputBytes };
}
