/**
 * Everything `minedit serve` runs, assembled from the config: the metrics pool, the bubblewrap sandbox,
 * the task store (each task checked to be valid Python once, at start), the scorer and the gRPC server.
 * The CLI, the demo and the end-to-end tests all start the service through here.
 */
import type { Config } from "../config.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import { ErrorCode, MineditError } from "../errors.js";
import { InvalidLintOriginal, prepareLintTask } from "../lint/score-lint.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import { MetricsPool } from "../workers/metrics-pool.js";
import { type RunningHttpServer, startOpenRlhfServer } from "./openrlhf-http.js";
import { ExecutingRolloutScorer } from "./rollout-scorer.js";
import { type RunningServer, startServer } from "./server.js";
import { TaskStore } from "./task-store.js";

export type Engine = {
  server: RunningServer;
  /** OpenRLHF's HTTP reward endpoint; null unless `server.openrlhfPort` is set. */
  openrlhf: RunningHttpServer | null;
  tasks: TaskStore;
  /** null when started with `execute: false`. */
  sandbox: Sandbox | null;
  close(): Promise<void>;
};

export function executionLimits(config: Config): ExecutionLimits {
  const { wallTimeMs, memoryBytes, maxProcesses, maxFileBytes, maxOutputBytes } = config.sandbox;
  return { wallTimeMs, memoryBytes, maxProcesses, maxFileBytes, maxOutputBytes };
}

/**
 * Starts the service. `taskFiles` are the JSONL task files to serve (the caller resolves defaults);
 * `execute: false` scores without running tests (every program that parses passes).
 */
export async function startEngine(
  config: Config,
  taskFiles: readonly string[],
  execute: boolean,
): Promise<Engine> {
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
    const scorer = new ExecutingRolloutScorer({
      pool,
      sandbox,
      tasks,
      reward: config.reward,
      limits: executionLimits(config),
      executionConcurrency: config.sandbox.executionConcurrency,
    });
    const server = await startServer({ config: config.server, scorer });
    const { openrlhfPort } = config.server;
    const openrlhf =
      openrlhfPort === undefined
        ? null
        : await startOpenRlhfServer({ config: { ...config.server, openrlhfPort }, scorer }).catch(
            async (error: unknown) => {
              await server.close();
              throw error;
            },
          );
    const running = sandbox;
    return {
      server,
      openrlhf,
      tasks,
      sandbox,
      async close() {
        await Promise.all([server.close(), openrlhf?.close()]);
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
