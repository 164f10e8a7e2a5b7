/**
 * The task file of `minedit score --tasks`: every row read once, by task id, with what each id resolved
 * to — a task, a bad row (with its reason) or a duplicate (with every line defining it) — so a rollout
 * naming it can say exactly why it cannot be scored.
 */
import { parseJsonObject, parseTaskRow, type TaskRow, taskIdOf, taskKey } from "../../core/task-file.js";
import { ErrorCode, MineditError } from "../../errors.js";
import { type Input, jsonlLines } from "../../io/inputs.js";
import { errorMessage, NO_TESTS, parseTests, type RolloutRow, type TaskTests } from "./rows.js";

/** What a task id in the task file resolved to. `tests` is present when executing. */
type TaskEntry =
  | { kind: "ok"; task: TaskRow; tests?: TaskTests; line: number }
  | { kind: "bad"; line: number; reason: string }
  | { kind: "duplicate"; lines: number[] };

export type TaskTable = { name: string; entries: Map<string, TaskEntry>; loaded: number; bad: number };

/** Loads the task file; when `execute`, a task also needs valid `tests` (else it is a bad task row). */
export async function loadTasks(
  input: Input,
  report: (message: string) => void,
  execute: boolean,
): Promise<TaskTable> {
  const entries = new Map<string, TaskEntry>();
  let loaded = 0;
  let bad = 0;
  for await (const { line, text } of jsonlLines(input.stream)) {
    let row: Record<string, unknown>;
    try {
      row = parseJsonObject(text);
    } catch (error) {
      report(`${input.name}:${line}: ${errorMessage(error)}`);
      bad += 1;
      continue;
    }
    let entry: TaskEntry;
    let id: string | number | undefined;
    try {
      const task = parseTaskRow(row);
      id = task.taskId;
      if (execute) {
        const tests = parseTests(row);
        if (tests === undefined)
          throw new MineditError(ErrorCode.InvalidArgument, NO_TESTS, { field: "tests" });
        entry = { kind: "ok", task, tests, line };
      } else {
        entry = { kind: "ok", task, line };
      }
    } catch (error) {
      const reason = errorMessage(error);
      report(`${input.name}:${line}: ${reason}`);
      bad += 1;
      id = taskIdOf(row);
      if (id === undefined) continue;
      entry = { kind: "bad", line, reason };
    }
    const key = taskKey(id);
    const previous = entries.get(key);
    if (previous === undefined) {
      entries.set(key, entry);
      if (entry.kind === "ok") loaded += 1;
      continue;
    }
    const lines = previous.kind === "duplicate" ? previous.lines : [previous.line];
    if (entry.kind === "ok") {
      // A bad row was already counted and reported; only a well-formed duplicate needs its own report.
      report(
        `${input.name}:${line}: duplicate task_id ${JSON.stringify(id)} (also defined at line ${lines.join(", ")})`,
      );
      bad += 1;
    }
    if (previous.kind === "ok") loaded -= 1;
    entries.set(key, { kind: "duplicate", lines: [...lines, line] });
  }
  return { name: input.name, entries, loaded, bad };
}

/** Resolves a row's task; returns the reason when it cannot. */
export function resolveTask(
  row: RolloutRow,
  tasks: TaskTable | undefined,
): { corrupted: string; gold: string; tests: TaskTests | undefined; label: string | undefined } | string {
  if (row.inline !== undefined) {
    const { corrupted, gold, tests } = row.inline;
    return { corrupted, gold, tests, label: undefined };
  }
  const id = row.taskId as string | number;
  const shown = JSON.stringify(id);
  if (tasks === undefined) return `task_id ${shown} given but no --tasks file`;
  const entry = tasks.entries.get(taskKey(id));
  if (entry === undefined) return `unknown task_id ${shown} (not in ${tasks.name})`;
  switch (entry.kind) {
    case "ok":
      return {
        corrupted: entry.task.corrupted,
        gold: entry.task.gold,
        tests: entry.tests,
        label: `task ${shown} (${tasks.name}:${entry.line})`,
      };
    case "bad":
      return `task_id ${shown} refers to a bad task row (${tasks.name}:${entry.line}: ${entry.reason})`;
    case "duplicate":
      return `task_id ${shown} is ambiguous: defined more than once in ${tasks.name} (lines ${entry.lines.join(", ")})`;
  }
}
