/**
 * The two ways the bwrap backend executes Python, for test suites that must hold for both: a fresh
 * sandbox and interpreter per run, and warm interpreters (fork servers, src/sandbox/warm-python.ts).
 */
import { createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { WarmPythonSandbox } from "../../src/sandbox/warm-python.js";

export async function createWarmSandbox(slots = 2): Promise<WarmPythonSandbox> {
  return WarmPythonSandbox.create(await createBwrapSandbox(), { slots });
}

export const BACKENDS: readonly (readonly [string, () => Promise<Sandbox>])[] = [
  ["fresh sandbox per run", () => createBwrapSandbox()],
  ["warm interpreters", () => createWarmSandbox()],
];
