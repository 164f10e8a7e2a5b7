/**
 * Everything needed to score rollouts with execution, in-process, assembled from the config: the metrics
 * pool, the configured sandbox, the task store (each stored task checked once, at start) and the
 * {@link ExecutingRolloutScorer} over them. The gRPC service (src/server/service.ts) puts its handlers in
 * front of one; anything else that scores rollouts the way the reward server does starts one here.
 */
import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import type { Config } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import { HARNESS_DIGEST, runPythonTests } from "../runners/python.js";
import { CpuMeter } from "../sandbox/cpu-meter.js";
import { createConfiguredSandbox, runtimeProblem } from "../sandbox/create.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import { MetricsPool } from "../workers/metrics-pool.js";
import { DirectoryGateCache, defaultGateCacheDir } from "./gate-cache.js";
import { executionLimits } from "./limits.js";
import { ExecutingRolloutScorer } from "./rollout-scorer.js";
import { calibratedLimits, gateTasks, measuringLimits } from "./task-gate.js";
import { type StoredTask, TaskStore } from "./task-store.js";

export type ScoringEngine = {
  scorer: ExecutingRolloutScorer;
  tasks: TaskStore;
  /** Stored repair tasks the ground-truth gate refused, with why (empty without execution or gate). */
  refused: ReadonlyMap<string, string>;
  pool: MetricsPool;
  /** null when started with `execute: false`. */
  sandbox: Sandbox | null;
  /** Stops the scorer's linter, the sandbox and the pool. */
  close(): Promise<void>;
};

export type ScoringEngineOptions = {
  /** Where start-up lines go (default: stderr, prefixed `minedit: `). */
  log?: (line: string) => void;
  /** Wraps the sandbox once created, before anything runs in it (the service's metrics count its runs). */
  wrapSandbox?: (sandbox: Sandbox) => Sandbox;
  /** Called as the ground-truth gate finishes each task (it takes half a minute on a real task set). */
  onGateProgress?: (done: number, total: number) => void;
  /**
   * When the warm pools' other fork servers and the metrics pool's other threads start
   * (WarmPythonOptions.fillAfter, MetricsPool's `fillAfter`): the service passes its listening. Default:
   * at once.
   */
  fillPoolsAfter?: Promise<unknown>;
  /**
   * A metrics pool already started, which the engine then owns (closes): the service starts it before
   * loading the engine's modules. Default: one started here from `config.pool`.
   */
  pool?: MetricsPool;
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
  options: ScoringEngineOptions = {},
): Promise<ScoringEngine> {
  const {
    log = (line: string) => process.stderr.write(`minedit: ${line}\n`),
    wrapSandbox = (sandbox: Sandbox) => sandbox,
    onGateProgress,
    fillPoolsAfter,
  } = options;
  // The workers start first: loading their modules is the longest part of start-up, and needs no task.
  // With `fillPoolsAfter`, one of them: it checks the tasks alone, the others start after.
  const pool =
    options.pool ??
    new MetricsPool(config.pool.threads, {
      programCacheBytes: config.pool.programCacheBytes,
      scoreMemoEntries: config.pool.scoreMemoEntries,
      ...(fillPoolsAfter === undefined ? {} : { fillAfter: fillPoolsAfter }),
    });
  let sandbox: Sandbox | null = null;
  try {
    // Tasks whose runtime is not installed are refused here (not served; one line per runtime in the log).
    const tasks = await TaskStore.load(taskFiles, {
      pythonPath: execute ? config.sandbox.pythonPath : null,
      unavailable: runtimeProblem(config.sandbox),
      log,
    });
    // The tasks' check (the workers' start and a parse of every program) and the sandbox's start (a probe
    // run, the library view from dpkg, the fork servers) share nothing: side by side, start-up waits for
    // the longer of the two rather than both. A task that fails its check still fails the start first.
    const [checked, created] = await Promise.allSettled([
      checkTasks(pool, tasks, config),
      execute
        ? createConfiguredSandbox(config.sandbox, config.limits.tests, log, {
            runtimes: tasks.runtimes(),
            ...(fillPoolsAfter === undefined ? {} : { fillAfter: fillPoolsAfter }),
          })
        : Promise.resolve(null),
    ]);
    if (created.status === "fulfilled" && created.value !== null) sandbox = wrapSandbox(created.value);
    if (checked.status === "rejected") throw checked.reason;
    if (created.status === "rejected") throw created.reason;
    const gate =
      sandbox !== null && config.tasks.gate
        ? await gateStore(tasks, sandbox, config, log, onGateProgress)
        : {
            refused: new Map<string, string>(),
            limits: new Map<string, ExecutionLimits>(),
            expected: new Map<string, number>(),
          };
    const scorer = ExecutingRolloutScorer.fromConfig(config, {
      pool,
      sandbox,
      tasks,
      gate,
      runtimeProblem: runtimeProblem(config.sandbox),
    });
    const running = sandbox;
    return {
      scorer,
      tasks,
      refused: gate.refused,
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
  // The lint scorer and the grammar are loaded only for a store that has lint tasks.
  if (tasks.lintSize === 0) return;
  const [{ InvalidLintOriginal, prepareLintTask }, { loadPythonGrammar }] = await Promise.all([
    import("./score-lint.js"),
    import("../core/python/grammar.js"),
  ]);
  await loadPythonGrammar();
  for (const task of tasks.lintValues()) {
    try {
      prepareLintTask(task);
    } catch (error) {
      if (!(error instanceof InvalidLintOriginal)) throw error;
      throw new MineditError(ErrorCode.InvalidArgument, `task "${task.taskId}": ${error.message}`);
    }
  }
}

/**
 * The ground-truth gate over the store's repair tasks (task-gate.ts): which are refused and why, and the
 * calibrated limits of the others. Logs a line before (how many, where results are remembered) and after
 * (how many refused, the first reasons).
 */
async function gateStore(
  tasks: TaskStore,
  sandbox: Sandbox,
  config: Config,
  log: (line: string) => void,
  onProgress?: (done: number, total: number) => void,
): Promise<{
  refused: Map<string, string>;
  limits: Map<string, ExecutionLimits>;
  expected: Map<string, number>;
}> {
  const all = [...tasks.values()];
  const refused = new Map<string, string>();
  const limits = new Map<string, ExecutionLimits>();
  const expected = new Map<string, number>();
  if (all.length === 0) return { refused, limits, expected };
  const base = executionLimits(config);
  const dir = config.tasks.gateCacheDir === "" ? defaultGateCacheDir() : config.tasks.gateCacheDir;
  const started = performance.now();
  const share = { concurrency: config.sandbox.executionConcurrency, cores: availableParallelism() };
  const verdicts = await gateTasks(all, {
    runTests: async (task, program, limits) => {
      // The runner reports wall time; the meter adds up the CPU time of its runs (calibrates cpuTimeMs).
      const meter = new CpuMeter(sandbox);
      const outcome = await runPythonTests(meter, program, task.tests, limits);
      const cpuTimeMs = outcome.cpuTimeMs ?? meter.cpuTimeMs;
      return cpuTimeMs === null ? outcome : { ...outcome, cpuTimeMs };
    },
    cache: new DirectoryGateCache(dir),
    measuring: measuringLimits(base, config.tasks.calibration, share),
    served: (gold) => calibratedLimits(base, gold, config.tasks.calibration, share),
    keyOf: (task) => gateKey(task, config, base),
    concurrency: config.sandbox.executionConcurrency,
    ...(onProgress === undefined ? {} : { onProgress }),
  });
  let remembered = 0;
  for (const task of all) {
    const verdict = verdicts.get(task.taskId);
    if (verdict === undefined) continue;
    if (verdict.fromCache) remembered += 1;
    if (verdict.usable) {
      expected.set(task.taskId, verdict.gold.cpuMs ?? verdict.gold.wallMs);
      limits.set(task.taskId, calibratedLimits(base, verdict.gold, config.tasks.calibration, share));
    } else {
      refused.set(task.taskId, verdict.reason);
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  log(
    `task gate: ${all.length - refused.size} of ${all.length} repair tasks served, ${refused.size} refused ` +
      `(${remembered} remembered in ${dir}, the rest run now: ${seconds} s)`,
  );
  for (const [taskId, reason] of [...refused].slice(0, 20)) log(`  refused ${taskId}: ${reason}`);
  if (refused.size > 20) log(`  … and ${refused.size - 20} more`);
  return { refused, limits, expected };
}

/** A task's gate key: what decides its verdicts — programs, tests, limits, interpreter and harness. */
function gateKey(task: StoredTask, config: Config, limits: ExecutionLimits): string {
  const content = JSON.stringify([
    // 2: the gold is timed with the calibration's ceilings and the corrupted program runs with the
    // task's calibrated limits, so the calibration decides verdicts too. 3: the gold's idle time is
    // recorded (it calibrates the idle limit).
    "minedit-gate/3",
    HARNESS_DIGEST,
    config.sandbox.pythonPath,
    // Where the programs run: a verdict (a gold's time) on one backend says nothing of another.
    config.sandbox.backend === "bwrap"
      ? "bwrap"
      : ["docker", config.sandbox.docker.images, config.sandbox.docker.ociRuntime ?? "runc"],
    config.tasks.calibration,
    // With a CPU limit the wall limit is a backstop that follows the execution concurrency
    // (limits.ts): the gate's verdicts do not depend on it, so a new concurrency keeps them.
    limits.cpuTimeMs === undefined ? limits : { ...limits, wallTimeMs: "backstop" },
    task.gold,
    task.corrupted,
    task.tests,
    task.entryPoint,
  ]);
  return createHash("sha256").update(content).digest("hex");
}
