/**
 * Shared helpers of the export tests: run `minedit export` in-process (the real CLI entry, real metrics
 * workers from dist/, real sandbox), read what it wrote with real readers, and the demo tasks.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect } from "vitest";
import { main } from "../../src/cli/main.js";

export const ROOT = join(import.meta.dirname, "..", "..");
export const DEMO_TASKS = join(ROOT, "datasets", "seed", "demo-tasks.jsonl");

export type Run = { status: number; stdout: string; stderr: string };

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString("utf8");
}

/** Runs `minedit export ARGS` in this process; one worker thread, two sandbox runs at once. */
export async function exportCli(args: string[]): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const status = await main(["export", "--threads", "1", ...args], {
    stdin: new PassThrough(),
    stdout,
    stderr,
  });
  return { status, stdout: out(), stderr: err() };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `minedit-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function writeJsonl(path: string, rows: readonly unknown[]): void {
  writeFileSync(path, rows.map((row) => `${typeof row === "string" ? row : JSON.stringify(row)}\n`).join(""));
}

export type DemoTask = {
  task_id: string;
  problem_id: string;
  statement: string;
  gold: string;
  corrupted: string;
  split: string;
  [key: string]: unknown;
};

export function demoTasks(): DemoTask[] {
  return readJsonl(DEMO_TASKS) as DemoTask[];
}

export function demoTask(id: string): DemoTask {
  const task = demoTasks().find((t) => t.task_id === id);
  if (task === undefined) throw new Error(`no demo task ${id}`);
  return task;
}

/** d(X, Y) for each pair, computed by CPython 3.11 (tests/oracle/edit_distance_oracle.py). */
export function pythonDistances(pairs: readonly [string, string][]): number[] {
  const result = spawnSync("python3", [join(ROOT, "tests", "oracle", "edit_distance_oracle.py")], {
    input: JSON.stringify(pairs),
    encoding: "utf8",
  });
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as number[];
}

/** A completion as a model writes it: a sentence and the program in a fence. */
export function fenced(program: string): string {
  return `Here is the fixed function:\n\n\`\`\`python\n${program}\`\`\`\n`;
}

/** `minedit export --kind KIND --format FORMAT ARGS...`, in-process (see {@link exportCli}). */
export function exportKind(kind: string, format: string, ...args: string[]): Promise<Run> {
  return exportCli(["--kind", kind, "--format", format, ...args]);
}
