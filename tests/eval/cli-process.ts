/**
 * What the eval tests that drive the BUILT CLI (bin/minedit.js → dist/) share: running a process to its
 * end with its output collected, and a small task file of the shipped seed tasks with a gate cache of its
 * own (so a test never reads another run's remembered verdicts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KnownTask } from "./fake-model.js";

export const ROOT = join(import.meta.dirname, "..", "..");
export const CLI = join(ROOT, "bin", "minedit.js");

export type ProcessResult = { status: number | null; stdout: string; stderr: string; seconds: number };

/** Runs `command` in the repository's root; `onSpawn` gets the child (e.g. to kill it midway). */
export function runProcess(
  command: string,
  args: readonly string[],
  onSpawn?: (child: ChildProcess) => void,
): Promise<ProcessResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (status) =>
      resolve({ status, stdout, stderr, seconds: (performance.now() - started) / 1000 }),
    );
    onSpawn?.(child);
  });
}

/** `minedit ARGS` with the built CLI. */
export function runMinedit(
  args: readonly string[],
  onSpawn?: (child: ChildProcess) => void,
): Promise<ProcessResult> {
  return runProcess(process.execPath, [CLI, ...args], onSpawn);
}

/**
 * The first `count` tasks of datasets/tasks/in-domain.jsonl as `dir/tasks.jsonl`, and `dir/config.json`
 * giving the ground-truth gate a cache in `dir/gate`.
 */
export function writeSeedTasks(
  dir: string,
  count: number,
): { taskFile: string; tasks: KnownTask[]; config: string } {
  const rows = readFileSync(join(ROOT, "datasets", "tasks", "in-domain.jsonl"), "utf8")
    .split("\n")
    .slice(0, count);
  const taskFile = join(dir, "tasks.jsonl");
  writeFileSync(taskFile, `${rows.join("\n")}\n`);
  const config = join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ tasks: { gateCacheDir: join(dir, "gate") } }));
  return { taskFile, tasks: rows.map((l) => JSON.parse(l) as KnownTask), config };
}
