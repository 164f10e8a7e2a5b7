/**
 * Everything needed to score rollouts with execution, in-process, assembled from the config: the metrics
 * pool, the configured sandbox, the task store (each stored task checked once, at start) and the
 * {@link ExecutingRolloutScorer} over them. The gRPC service (src/server/service.ts) puts its handlers in
 * front of one; anything else that scores rollouts the way the reward server does starts one here.
 */
import type { Config } from "../config.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import { ErrorCode, MineditError } from "../errors.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { MetricsPool } from "../workers/metrics-pool.js";
import { ExecutingRolloutScorer } from "./rollout-scorer.js";
import { InvalidLintOriginal, prepareLintTask } from "./score-lint.js";
import { TaskStore } from "./task-store.js";

export type ScoringEngine = {
  scorer: ExecutingRolloutScorer;
  tasks: TaskStore;
  pool: MetricsPool;
  /** null when started with `execute: false`. */
  sandbox: Sandbox | null;
  /** Stops the scorer's linter, the sandbox and the pool. */
  close(): Promise<void>;
};

/**
 * Starts an engine. `taskFiles` are the JSONL task files to load (the caller resolves defaults);
 * `execute: false` scores without running tests (every program that parses passes). A task file with a
 * bad row, or a task whose programs are not valid source, stops the start with a message naming it.
 */
export async function startScoringEngine(
  config: Config,
  taskFiles: readonly string[],
  execute: boolean,
): Promise<ScoringEngine> {
  const tasks = await TaskStore.load(taskFiles);
  const pool = new MetricsPool(config.pool.threads);
  let sandbox: Sandbox | null = null;
  try {
    await checkTasks(pool, tasks, config);
    sandbox = execute
      ? await createConfiguredSandbox(config.sandbox, (message) =>
          process.stderr.write(`minedit: ${message}\n`),
        )
      : null;
    const scorer = ExecutingRolloutScorer.fromConfig(config, {
      pool,
      sandbox,
      tasks,
    });
    const running = sandbox;
    return {
      scorer,
      tasks,
      pool,
      sandbox,
      async close() {
        await scorer.close();
        await running?.close();
        await pool.close();
      },
    };
  } catch (error) {
    await sandbox?.close();
    await pool.close();
    throw error;
  }
}

/** A stored task whose C or G is not Python would fail every rollout that names it: refuse to start. */
async function checkTasks(pool: MetricsPool, tasks: TaskStore, config: Config): Promise<void> {
  const all = [...tasks.values()];
  const results = await pool.score(
    all.map((t) => ({ corrupted: t.corrupted, gold: t.gold, completion: t.gold, config: config.reward })),
  );
  results.forEach((result, index) => {
    if (!result.ok) {
      throw new MineditError(ErrorCode.InvalidArgument, `task "${all[index]?.taskId}": ${result.message}`);
    }
  });
  // A lint task's original must tokenize (Python: parse); its alerts are computed when first scored.
  if (tasks.lintSize > 0) await loadPythonGrammar();
  for (const task of tasks.lintValues()) {
    try {
      prepareLintTask(task);
    } catch (error) {
      if (!(error instanceof InvalidLintOriginal)) throw error;
      throw new MineditError(ErrorCode.InvalidArgument, `task "${task.taskId}": ${error.message}`);
    }
  }
}
