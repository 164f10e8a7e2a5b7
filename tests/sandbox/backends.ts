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

/**
 * Python that sets `others`: the processes a program sees besides itself and its ancestors (the sandbox's
 * init, the harness, with warm interpreters the fork server) — leftovers of an earlier run would be there.
 */
export const OTHER_PROCESSES = `import os
def parent(pid):
    stat = open(f'/proc/{pid}/stat', 'rb').read()
    return int(stat[stat.rindex(b')') + 2:].split()[1])
line, pid = {os.getpid()}, os.getpid()
while pid > 1:
    pid = parent(pid)
    line.add(pid)
others = sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) not in line)`;
