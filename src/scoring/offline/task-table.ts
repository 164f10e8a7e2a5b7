/**
 * The task file of `minedit score --tasks`: every row read once, by task id, with what each id resolved
 * to — a task, a bad row (with its reason) or a duplicate (with every line defining it) — so a rollout
 * naming it can say exactly why it cannot be scored.
 */
import { lookupTask, type TaskEntry, type TaskLookup } from "../../core/rollout-row.js";
import { parseJsonObject, parseTaskRow, taskIdOf, taskKey } from "../../core/task-file.js";
import { ErrorCode, MineditError } from "../../errors.js";
import { type Input, jsonlLines } from "../../io/inputs.js";
import { DEFAULT_RUNTIME } from "../../sandbox/runtimes.js";
import { errorMessage, NO_TESTS, parseTests, type RolloutRow, type TaskTests } from "./rows.js";

/** A task of the task file; `tests` is present when executing. */
export type TableTask = { corrupted: string; gold: string; tests?: TaskTests };

export type TaskTable = TaskLookup<TableTask> & { loaded: number; bad: number };

/** Loads the task file; when `execute`, a task also needs valid `tests` (else it is a bad task row). */
export async function loadTasks(
  input: Input,
  report: (message: string) => void,
  execute: boolean,
): Promise<TaskTable> {
  const entries = new Map<string, TaskEntry<TableTask>>();
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
    let entry: TaskEntry<TableTask>;
    let id: string | number | undefined;
    try {
      const task = parseTaskRow(row);
      id = task.taskId;
      if (execute) {
        const tests = parseTests(row);
        if (tests === undefined)
          throw new MineditError(ErrorCode.InvalidArgument, NO_TESTS, { field: "tests" });
        // A task file's row without a runtime runs in the default one, as `minedit serve` runs it.
        const runtime = tests.runtime ?? DEFAULT_RUNTIME;
        entry = {
          kind: "ok",
          task: { corrupted: task.corrupted, gold: task.gold, tests: { ...tests, runtime } },
          line,
        };
      } else {
        entry = { kind: "ok", task: { corrupted: task.corrupted, gold: task.gold }, line };
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
  const found = lookupTask(row.taskId as string | number, tasks);
  if (typeof found === "string") return found;
  const { corrupted, gold, tests } = found.task;
  return { corrupted, gold, tests, label: found.label };
}
