/**
 * The server's task store: repair tasks loaded from JSONL files at start (datasets/), looked up by id
 * when a rollout names a `task_id`. A row is
 * `{"task_id", "gold", "corrupted", "entry_point", "tests": {"style": "unittest"|"assert"|"stdio", ...}}`
 * (other fields — statement, corruptions, split, source — are kept for export but not needed to score).
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { z } from "zod";
import { ErrorCode, MineditError } from "../errors.js";
import type { PythonTests } from "../runners/python.js";

export type StoredTask = {
  taskId: string;
  corrupted: string;
  gold: string;
  tests: PythonTests;
  entryPoint: string;
};

const TestsSchema = z.discriminatedUnion("style", [
  z.object({ style: z.literal("unittest"), code: z.string() }),
  z.object({ style: z.literal("assert"), code: z.string() }),
  z.object({
    style: z.literal("stdio"),
    cases: z.array(z.object({ input: z.string(), output: z.string() })).min(1),
    float_tolerance: z.number().nonnegative().optional(),
  }),
]);

const TaskRowSchema = z.object({
  task_id: z.string().min(1),
  corrupted: z.string(),
  gold: z.string(),
  entry_point: z.string().default(""),
  tests: TestsSchema,
});

/** Parses one task row; throws MineditError InvalidArgument naming the field. */
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
  let pythonTests: PythonTests;
  if (tests.style === "unittest") pythonTests = { style: "unittest", code: tests.code };
  else if (tests.style === "assert") {
    if (entry_point === "") {
      throw new MineditError(
        ErrorCode.InvalidArgument,
        "entry_point: assert-style tests need the entry point",
        {
          field: "entry_point",
        },
      );
    }
    pythonTests = { style: "assert", code: tests.code, entryPoint: entry_point };
  } else {
    pythonTests =
      tests.float_tolerance === undefined
        ? { style: "stdio", cases: tests.cases }
        : { style: "stdio", cases: tests.cases, floatTolerance: tests.float_tolerance };
  }
  return { taskId: task_id, corrupted, gold, tests: pythonTests, entryPoint: entry_point };
}

export class TaskStore {
  private constructor(private readonly tasks: Map<string, StoredTask>) {}

  static fromTasks(tasks: Iterable<StoredTask>): TaskStore {
    return new TaskStore(new Map([...tasks].map((t) => [t.taskId, t])));
  }

  /** Loads JSONL task files; any bad row or duplicate id stops the load with `FILE:LINE: reason`. */
  static async load(files: readonly string[]): Promise<TaskStore> {
    const tasks = new Map<string, StoredTask>();
    for (const file of files) {
      const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
      let lineNumber = 0;
      for await (const line of lines) {
        lineNumber += 1;
        if (line.trim() === "") continue;
        const where = `${file}:${lineNumber}`;
        let task: StoredTask;
        try {
          task = parseStoredTask(JSON.parse(line));
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new MineditError(ErrorCode.InvalidArgument, `${where}: ${reason}`);
        }
        if (tasks.has(task.taskId)) {
          throw new MineditError(ErrorCode.InvalidArgument, `${where}: duplicate task_id "${task.taskId}"`);
        }
        tasks.set(task.taskId, task);
      }
    }
    return new TaskStore(tasks);
  }

  get(taskId: string): StoredTask | undefined {
    return this.tasks.get(taskId);
  }

  get size(): number {
    return this.tasks.size;
  }

  values(): IterableIterator<StoredTask> {
    return this.tasks.values();
  }
}
