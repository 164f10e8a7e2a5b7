/**
 * The sandbox `minedit serve` and `minedit score` execute with, from the config: the bubblewrap backend,
 * with warm interpreters (warm-python.ts) unless `sandbox.warmInterpreters` is off. A host where the fork
 * servers cannot run still executes, in fresh sandboxes, after saying so through `warn`.
 */
import type { SandboxConfig } from "../config.js";
import { isMineditError } from "../errors.js";
import { createBwrapSandbox } from "./bwrap.js";
import type { Sandbox } from "./sandbox.js";
import { WarmPythonSandbox } from "./warm-python.js";

export async function createConfiguredSandbox(
  config: SandboxConfig,
  warn: (message: string) => void,
): Promise<Sandbox> {
  const base = await createBwrapSandbox({ pythonPath: config.pythonPath });
  if (!config.warmInterpreters) return base;
  try {
    return await WarmPythonSandbox.create(base, { slots: config.executionConcurrency });
  } catch (error) {
    if (!isMineditError(error)) throw error;
    warn(`warm interpreters unavailable, every execution starts a fresh sandbox: ${error.rawMessage}`);
    return createBwrapSandbox({ pythonPath: config.pythonPath });
  }
}
