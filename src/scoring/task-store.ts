/**
 * The server's task store: tasks loaded from JSONL files at start (datasets/), looked up by id when a
 * rollout names a `task_id`. Two kinds of rows, told apart by `kind`:
 * - a repair row (no `kind`):
 *   `{"task_id", "gold", "corrupted", "entry_point", "tests": {"style": "unittest"|"assert"|"stdio", ...}}`
 *   (other fields — statement, corruptions, split, source — are kept for export but not needed to score);
 * - a lint row (`"kind": "lint_refactor"`): the format of src/scoring/lint-task.ts.
 * Task ids are unique across both kinds.
 *
 * A repair row may name its `runtime` (src/sandbox/runtimes.ts: the libraries its tests import; default
 * `stdlib`). A task whose runtime is not installed is refused at load — kept out of the store, one line
 * per runtime saying how many tasks and what to run — and a rollout naming it is told why
 * (FAILED_PRECONDITION, {@link TaskStore.refusal}), never scored against a sandbox that cannot run it.
 */
import { createReadStream } from "node:fs";
import { z } from "zod";
import { ErrorCode, MineditError } from "../errors.js";
import { jsonlLines } from "../io/inputs.js";
import type { PythonTests } from "../runners/python.js";
import {
  DEFAULT_RUNTIME,
  hostRuntimeProblem,
  isRuntimeName,
  RUNTIME_NAMES,
  type RuntimeName,
} from "../sandbox/runtimes.js";
import { isLintTaskRow, type LintTask, parseLintTask } from "./lint-task.js";
import { parseRow } from "./parse-row.js";
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
  runtime: z
    .string()
    .refine(isRuntimeName, {
      error: (issue) => `unknown runtime ${JSON.stringify(issue.input)} (known: ${RUNTIME_NAMES.join(", ")})`,
    })
    .default(DEFAULT_RUNTIME),
});

/** Parses one repair task row; throws MineditError InvalidArgument naming the field. */
export function parseStoredTask(row: unknown): StoredTask {
  const { task_id, corrupted, gold, entry_point, tests, runtime } = parseRow(
    TaskRowSchema,
    row,
    "invalid task",
  );
  const runnerTests = testsFromRow(tests, entry_point);
  return {
    taskId: task_id,
    corrupted,
    gold,
    // The default runtime is left implicit, so tasks of rows without the field look as they always did.
    tests: runtime === DEFAULT_RUNTIME ? runnerTests : { ...runnerTests, runtime },
    entryPoint: entry_point,
  };
}

/** The runtime a task's tests run in. */
export function taskRuntime(task: Pick<StoredTask, "tests">): RuntimeName {
  return task.tests.runtime ?? DEFAULT_RUNTIME;
}

/** How {@link TaskStore.load} tells which runtimes are installed, and where it reports the refused tasks. */
export type TaskStoreOptions = {
  /**
   * The interpreter the sandbox runs (`sandbox.pythonPath`), asked which runtimes' modules it finds;
   * null: no check, every task is served (nothing will be executed). Default: `/usr/bin/python3`.
   */
  pythonPath?: string | null;
  /**
   * Why a runtime cannot run on the configured backend, a sentence beginning `runtime "NAME"`, or null
   * when it can (src/sandbox/create.ts `runtimeProblem`: under Docker, whether it has an image). Default:
   * what `pythonPath` does not find ({@link hostRuntimeProblem}, the bwrap backend's question).
   */
  unavailable?: (runtime: RuntimeName) => Promise<string | null>;
  /** One line per runtime whose tasks were refused. */
  log?: (line: string) => void;
};

export class TaskStore {
  private constructor(
    private readonly tasks: Map<string, StoredTask>,
    private readonly lintTasks: Map<string, LintTask>,
    /** Refused tasks: id → why its runtime cannot run (a sentence beginning `runtime "NAME"`). */
    private readonly refused: Map<string, string> = new Map(),
  ) {}

  static fromTasks(tasks: Iterable<StoredTask>, lintTasks: Iterable<LintTask> = []): TaskStore {
    return new TaskStore(
      new Map([...tasks].map((t) => [t.taskId, t])),
      new Map([...lintTasks].map((t) => [t.taskId, t])),
    );
  }

  /**
   * Loads JSONL task files; any bad row or duplicate id stops the load with `FILE:LINE: reason`. Tasks
   * whose runtime is not installed are refused (see the module comment and {@link TaskStoreOptions}).
   */
  static async load(files: readonly string[], options: TaskStoreOptions = {}): Promise<TaskStore> {
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
    const refused = new Map<string, string>();
    const pythonPath = options.pythonPath === undefined ? "/usr/bin/python3" : options.pythonPath;
    if (pythonPath !== null) {
      const unavailable =
        options.unavailable ?? ((name: RuntimeName) => hostRuntimeProblem(name, pythonPath));
      const needed = new Map<RuntimeName, number>();
      for (const task of tasks.values()) {
        const runtime = taskRuntime(task);
        if (runtime !== DEFAULT_RUNTIME) needed.set(runtime, (needed.get(runtime) ?? 0) + 1);
      }
      for (const [runtime, count] of needed) {
        const problem = await unavailable(runtime);
        if (problem === null) continue;
        for (const task of tasks.values())
          if (taskRuntime(task) === runtime) refused.set(task.taskId, problem);
        options.log?.(`${count} task${count === 1 ? "" : "s"} not served: ${problem}`);
      }
      for (const taskId of refused.keys()) tasks.delete(taskId);
    }
    return new TaskStore(tasks, lintTasks, refused);
  }

  /**
   * Why a task of the files is not served (its runtime cannot run here, and what to do), or undefined for
   * a served or unknown task.
   */
  refusal(taskId: string): string | undefined {
    const problem = this.refused.get(taskId);
    return problem === undefined ? undefined : `its ${problem}`;
  }

  /** The runtimes the served repair tasks run in, the standard library's always among them. */
  runtimes(): RuntimeName[] {
    const names = new Set<RuntimeName>([DEFAULT_RUNTIME]);
    for (const task of this.tasks.values()) names.add(taskRuntime(task));
    return [...names];
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
