/**
 * Everything `minedit serve` runs, assembled from the config: the metrics pool, the bubblewrap sandbox,
 * the task store (each task checked to be valid Python once, at start), the scorer and the gRPC server.
 * The CLI, the demo and the end-to-end tests all start the service through here.
 */
import type { Config } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import { createBwrapSandbox } from "../sandbox/bwrap.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import { MetricsPool } from "../workers/metrics-pool.js";
import { ExecutingRolloutScorer } from "./rollout-scorer.js";
import { type RunningServer, startServer } from "./server.js";
import { TaskStore } from "./task-store.js";

export type Engine = {
  server: RunningServer;
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
    sandbox = execute ? await createBwrapSandbox({ pythonPath: config.sandbox.pythonPath }) : null;
    const scorer = new ExecutingRolloutScorer({
      pool,
      sandbox,
      tasks,
      reward: config.reward,
      limits: executionLimits(config),
      executionConcurrency: config.sandbox.executionConcurrency,
    });
    const server = await startServer({ config: config.server, scorer });
    const running = sandbox;
    return {
      server,
      tasks,
      sandbox,
      async close() {
        await server.close();
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
}
