/**
 * The server's task store: tasks loaded from JSONL files at start (datasets/), looked up by id when a
 * rollout names a `task_id`. Two kinds of rows, told apart by `kind`:
 * - a repair row (no `kind`):
 *   `{"task_id", "gold", "corrupted", "entry_point", "tests": {"style": "unittest"|"assert"|"stdio", ...}}`
 *   (other fields — statement, corruptions, split, source — are kept for export but not needed to score);
 * - a lint row (`"kind": "lint_refactor"`): the format of src/scoring/lint-task.ts.
 * Task ids are unique across both kinds.
 */
import { createReadStream } from "node:fs";
import { z } from "zod";
import { ErrorCode, MineditError } from "../errors.js";
import { jsonlLines } from "../io/inputs.js";
import type { PythonTests } from "../runners/python.js";
import { isLintTaskRow, type LintTask, parseLintTask } from "./lint-task.js";
import { TestsRowSchema, testsFromRow } from "./tests-row.js";

export type StoredTask = {
  taskId: string;
  corrupted: string;
  gold: string;
  tests: PythonTests;
  entryPoint: string;
};

const TaskRowSchema = z.object({
  task_id: z.string().min(1),
  corrupted: z.string(),
  gold: z.string(),
  entry_point: z.string().default(""),
  tests: TestsRowSchema,
});

/** Parses one repair task row; throws MineditError InvalidArgument naming the field. */
export function parseStoredTask(row: unknown): StoredTask {
  const parsed = TaskRowSchema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") ?? "";
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `${field || "row"}: ${issue?.message ?? "invalid task"}`,
      { field },
    );
  }
  const { task_id, corrupted, gold, entry_point, tests } = parsed.data;
  return {
    taskId: task_id,
    corrupted,
    gold,
    tests: testsFromRow(tests, entry_point),
    entryPoint: entry_point,
  };
}

export class TaskStore {
  private constructor(
    private readonly tasks: Map<string, StoredTask>,
    private readonly lintTasks: Map<string, LintTask>,
  ) {}

  static fromTasks(tasks: Iterable<StoredTask>, lintTasks: Iterable<LintTask> = []): TaskStore {
    return new TaskStore(
      new Map([...tasks].map((t) => [t.taskId, t])),
      new Map([...lintTasks].map((t) => [t.taskId, t])),
    );
  }

  /** Loads JSONL task files; any bad row or duplicate id stops the load with `FILE:LINE: reason`. */
  static async load(files: readonly string[]): Promise<TaskStore> {
    const tasks = new Map<string, StoredTask>();
    const lintTasks = new Map<string, LintTask>();
    for (const file of files) {
      for await (const { line: lineNumber, text: line } of jsonlLines(createReadStream(file))) {
        const where = `${file}:${lineNumber}`;
        let task: StoredTask | LintTask;
        try {
          const row: unknown = JSON.parse(line);
          task = isLintTaskRow(row) ? parseLintTask(row) : parseStoredTask(row);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new MineditError(ErrorCode.InvalidArgument, `${where}: ${reason}`);
        }
        if (tasks.has(task.taskId) || lintTasks.has(task.taskId)) {
          throw new MineditError(ErrorCode.InvalidArgument, `${where}: duplicate task_id "${task.taskId}"`);
        }
        if ("kind" in task) lintTasks.set(task.taskId, task);
        else tasks.set(task.taskId, task);
      }
    }
    return new TaskStore(tasks, lintTasks);
  }

  /** The repair task with this id. */
  get(taskId: string): StoredTask | undefined {
    return this.tasks.get(taskId);
  }

  /** The lint task with this id. */
  getLint(taskId: string): LintTask | undefined {
    return this.lintTasks.get(taskId);
  }

  /** Repair tasks. */
  get size(): number {
    return this.tasks.size;
  }

  /** Lint tasks. */
  get lintSize(): number {
    return this.lintTasks.size;
  }

  /** The repair tasks. */
  values(): IterableIterator<StoredTask> {
    return this.tasks.values();
  }

  /** The lint tasks. */
  lintValues(): IterableIterator<LintTask> {
    return this.lintTasks.values();
  }
}
