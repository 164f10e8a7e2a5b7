/**
 * The in-process rollout scorer ({@link ExecutingRolloutScorer}): metrics in the piscina pool, tests in the
 * sandbox, reward from both (docs/reward.md). src/scoring/scoring-engine.ts assembles it with its pool,
 * sandbox and task store; the gRPC handlers, `minedit score`, `eval` and `export` all score through it. Results are yielded as soon as each rollout is done.
 *
 * - The whole batch goes to the pool at once, so each task's C and G are normalized once.
 * - Rollouts of one task whose norm(M) is identical execute once; the others reuse the outcome
 *   (`cached: true`), as GRPO groups often repeat a completion. With the result cache on, that holds
 *   across calls too: a later call reuses a finished run (result-cache.ts) or joins one under way
 *   (shared-runs.ts), as per-sample trainers send a group's completions in separate calls.
 * - Executions run with bounded concurrency; an aborted signal (deadline, cancelled call) stops the
 *   ones running and skips the rest.
 * - Lint tasks (docs/lint.md) may be mixed into the same batch: their rollouts are scored by
 *   src/scoring/score-lint.ts (tests, then the analyzer on passing revisions) under the same concurrency
 *   bound; rollouts of one lint task with the identical revision text run once.
 * - With an {@link ExecutionBackend} (src/queue/'s front) the repair executions run there instead of in
 *   this process's sandbox; everything else stays here. Both run {@link runTestsWithRetries}.
 * - An inline repair task runs in the runtime it names, else in the one its imports call for
 *   (inline-runtime.ts); a runtime this server cannot run fails the call (FAILED_PRECONDITION). Its gold
 *   runs once per task content beside its first rollouts, and a gold that fails its own tests makes every
 *   rollout of the task INVALID_TASK (inline-gold-check.ts).
 */
import { createHash } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Linter } from "../analyzers/linter.js";
import { type Config, mergeRewardOverride, type RewardConfig, type RewardOverride } from "../config.js";
import { extractProgram } from "../core/extract-program.js";
import { computeReward, REWARD_DEFINITION_VERSION, type Verdict } from "../core/reward.js";
import type { RolloutScore } from "../core/score-rollout.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { HARNESS_DIGEST, type PythonTests, runPythonTests, type TestOutcome } from "../runners/python.js";
import { DEFAULT_RUNTIME, type RuntimeName } from "../sandbox/runtimes.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import type { MetricsPool } from "../workers/metrics-pool.js";
import { AsyncQueue } from "./async-queue.js";
import { Semaphore } from "./execution-slots.js";
import { type GoldCheck, InlineGoldChecks } from "./inline-gold-check.js";
import type { InferredRuntime, InlineRuntimes } from "./inline-runtime.js";
import { executionLimits } from "./limits.js";
import { ResultCache } from "./result-cache.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "./rollout.js";
import type { LintScore, PreparedLintTask } from "./score-lint.js";
import { SharedRuns } from "./shared-runs.js";
import type { StoredTask, TaskStore } from "./task-store.js";

/** One repair execution as the scorer hands it to an {@link ExecutionBackend}: all that its outcome depends on. */
export type ExecutionJob = {
  /** The content key (tests, runtime, limits, normalized program, harness, reward definition): identical
   *  jobs have identical outcomes, so it names the job. */
  key: string;
  /** The program as extracted from the first rollout that needed it (its normalized form is in `key`). */
  program: string;
  tests: PythonTests;
  limits: ExecutionLimits;
  /** The gold's measured time, 0 when unknown; jobs are handed over slowest first. */
  expectedMs: number;
};

/** Runs repair executions somewhere other than this process's sandbox: src/queue/'s front. */
export interface ExecutionBackend {
  /**
   * The job's outcome, and whether it was reused rather than run for this call (a shared cache, or an
   * identical run another call had started). A rejection makes the rollouts INFRA_ERROR with its message.
   */
  execute(job: ExecutionJob, signal: AbortSignal): Promise<{ outcome: TestOutcome; reused: boolean }>;
}

export type RolloutScorerOptions = {
  pool: MetricsPool;
  /** null: do not execute; a program that parses counts as passing (`--no-exec`). */
  sandbox: Sandbox | null;
  tasks: TaskStore;
  reward: RewardConfig;
  limits: ExecutionLimits;
  /** Sandboxed test runs at once across all calls (analyzer runs of lint rollouts included). */
  executionConcurrency: number;
  /** Retries of a run the sandbox broke, each on a fresh sandbox (`sandbox.infraRetries`; absent: none). */
  infraRetries?: number;
  /**
   * The ground-truth gate's verdicts on the stored tasks (task-gate.ts): tasks it refused, with why, are
   * not served (FAILED_PRECONDITION); the others run with their calibrated limits instead of `limits`.
   */
  gate?: {
    refused: ReadonlyMap<string, string>;
    limits: ReadonlyMap<string, ExecutionLimits>;
    /** The gold's measured time per task, which orders a batch's executions (slowest first). */
    expected: ReadonlyMap<string, number>;
  };
  /** Outcomes kept across calls (result-cache.ts); absent: each call dedupes only within itself. */
  resultCache?: ResultCache;
  /**
   * The analyzers for lint tasks. Default: a {@link Linter} running in `sandbox` (so on the configured
   * backend: bwrap, or Docker's `lint` image; its own bwrap sandbox when `sandbox` is null), created on
   * the first lint rollout and closed by
   * {@link ExecutingRolloutScorer.close}.
   */
  linter?: () => Promise<Linter>;
  /** Where repair executions run; absent: in `sandbox`, under the execution slots. */
  executor?: ExecutionBackend;
  /**
   * Why a task runtime cannot run on this server's backend, a sentence beginning `runtime "NAME"` and
   * naming what to do, or null when it can (src/sandbox/create.ts `runtimeProblem`); asked of every
   * runtime an inline task needs. Absent: every runtime is taken to run.
   */
  runtimeProblem?: (runtime: RuntimeName) => Promise<string | null>;
  /** Check inline tasks' golds (`tasks.inlineGoldCheck`; absent: on). */
  inlineGoldCheck?: boolean;
};

/**
 * A repair rollout's task. `inline`: given in the call rather than stored, with the runtime picked for
 * it when it named none (`inferred`).
 */
type ResolvedTask = {
  kind: "repair";
  key: string;
  task: StoredTask;
  inline?: { inferred: InferredRuntime | null };
};
type ResolvedLintTask = { kind: "lint"; key: string; task: PreparedLintTask };

/**
 * What a call needs on this thread beyond repair tasks, imported by the first call that needs it: the lint
 * scorer (score-lint.ts: the Python normalizer and tokenizer, the analyzers' settings) and the runtime
 * inference of inline tasks (the Python parser). A server of repair tasks never loads them, and no
 * server loads them during its start (~0.15 s of its main thread on 2 cores).
 */
type ScoreLint = typeof import("./score-lint.js");
let scoreLint: Promise<ScoreLint> | null = null;
const loadScoreLint = (): Promise<ScoreLint> => {
  scoreLint ??= import("./score-lint.js");
  return scoreLint;
};
const loadPythonGrammar = async (): Promise<void> => {
  await (await import("../core/python/grammar.js")).loadPythonGrammar();
};

/** The thread's lint scorer and runtime inference, when the call has rollouts that need them. */
type CallAnalysis = { lint: ScoreLint | null; runtimes: InlineRuntimes | null };

export class ExecutingRolloutScorer implements RolloutScorer {
  private readonly slots: Semaphore;
  /** Stored lint tasks, prepared (A tokenized) on first use. */
  private readonly preparedLint = new Map<string, PreparedLintTask>();
  private ownLinter: Promise<Linter> | null = null;
  private inlineRuntimes: Promise<InlineRuntimes> | null = null;
  private readonly goldChecks = new InlineGoldChecks();
  /** Repair executions under way, which an identical rollout of another call joins. */
  private readonly sharedRuns = new SharedRuns<{ outcome: TestOutcome; reused: boolean }>();
  /** Runtimes `runtimeProblem` found runnable (a runtime installed while serving is found at its next use). */
  private readonly runnableRuntimes = new Set<RuntimeName>([DEFAULT_RUNTIME]);

  /** A scorer with the reward, limits and concurrency the configuration sets. */
  static fromConfig(
    config: Config,
    parts: Pick<RolloutScorerOptions, "pool" | "sandbox" | "tasks" | "gate" | "runtimeProblem">,
  ): ExecutingRolloutScorer {
    return new ExecutingRolloutScorer({
      ...parts,
      reward: config.reward,
      limits: executionLimits(config),
      executionConcurrency: config.sandbox.executionConcurrency,
      infraRetries: config.sandbox.infraRetries,
      inlineGoldCheck: config.tasks.inlineGoldCheck,
      ...(config.sandbox.resultCacheBytes > 0
        ? { resultCache: new ResultCache(config.sandbox.resultCacheBytes) }
        : {}),
    });
  }

  constructor(private readonly options: RolloutScorerOptions) {
    this.slots = new Semaphore(options.executionConcurrency);
  }

  /** A scorer like this one (tasks, gate, limits, reward, cache) whose repair executions run on `executor`. */
  withExecutor(executor: ExecutionBackend): ExecutingRolloutScorer {
    return new ExecutingRolloutScorer({ ...this.options, executor });
  }

  private linter(): Promise<Linter> {
    if (this.options.linter !== undefined) return this.options.linter();
    if (this.ownLinter === null) {
      // No sandbox here (the executions run elsewhere): the linter's own bwrap one.
      const sandbox = this.options.sandbox;
      this.ownLinter = import("../analyzers/linter.js").then(({ Linter }) =>
        Linter.create(sandbox === null ? {} : { sandbox }),
      );
      // A linter that could not be created is retried by the next lint rollout.
      this.ownLinter.catch(() => {
        this.ownLinter = null;
      });
    }
    return this.ownLinter;
  }

  /** Closes the linter this scorer created, if any. */
  async close(): Promise<void> {
    const own = this.ownLinter;
    this.ownLinter = null;
    if (own !== null) await (await own.catch(() => null))?.close();
  }

  async *score(
    rollouts: RolloutInput[],
    rewardOverride: RewardOverride | undefined,
    signal: AbortSignal,
  ): AsyncIterable<RolloutOutput> {
    const received = performance.now();
    // Every queued execution and every running sandbox listens to the call's signal: far more than
    // Node's default warning threshold of 10 in a normal batch.
    setMaxListeners(0, signal);
    const config = mergeRewardOverride(this.options.reward, rewardOverride, "reward_override");
    const analysis = await this.analysisFor(rollouts);
    const resolved = rollouts.map((rollout, index) => this.resolve(rollout, index, analysis));
    await this.checkRuntimes(resolved);
    const repairIndices = resolved.flatMap((r, index) => (r.kind === "repair" ? [index] : []));

    const metricsStart = performance.now();
    const repairMetrics =
      repairIndices.length === 0
        ? []
        : await this.options.pool.score(
            repairIndices.map((index) => {
              const { task } = resolved[index] as ResolvedTask;
              const completion = (rollouts[index] as RolloutInput).completion;
              return { corrupted: task.corrupted, gold: task.gold, completion, config };
            }),
            // norm(M) keys the executions; without a sandbox there are none.
            { normalizedPrograms: this.options.sandbox !== null },
          );
    const metricsMs = performance.now() - metricsStart;
    const metrics: (typeof repairMetrics)[number][] = [];
    repairIndices.forEach((index, i) => {
      metrics[index] = repairMetrics[i] as (typeof repairMetrics)[number];
    });

    const queue = new AsyncQueue<RolloutOutput>();
    const executions = new Map<string, Promise<TestOutcome>>();
    /** Executions the backend reused rather than ran for this call: their first rollout is cached too. */
    const reusedElsewhere = new Set<string>();
    /** Executions to start once the whole batch is known, so they can start slowest first. */
    const scheduled: { expectedMs: number; start: () => void }[] = [];
    let pending = rollouts.length;
    const finishRollout = (output: RolloutOutput) => {
      queue.push(output);
      pending -= 1;
      if (pending === 0) queue.close();
    };
    /**
     * The gold check of each of this call's inline tasks, by the task's resolved key: its content key is
     * hashed once per task, not once per rollout (a group repeats the task).
     */
    const goldChecks = new Map<string, { known: GoldCheck | undefined; check: Promise<GoldCheck> }>();
    if (pending === 0) queue.close();

    // An inline task whose C or G is not Python is the caller's mistake: reject the call before any work.
    metrics.forEach((metric, index) => {
      if (metric !== undefined && !metric.ok) {
        throw new MineditError(
          ErrorCode.InvalidArgument,
          `rollouts[${index}].task.${metric.which}: ${metric.message}`,
          {
            field: `rollouts[${index}].task.${metric.which}`,
          },
        );
      }
    });

    const lintScorer = analysis.lint;
    const lint =
      lintScorer === null
        ? null
        : new lintScorer.LintBatch(
            {
              sandbox: this.options.sandbox,
              linter: () => this.linter(),
              limits: this.options.limits,
              slots: (slotSignal, work) => this.slots.run(slotSignal, work),
            },
            signal,
          );
    const lintRuns = new Map<string, Promise<LintScore>>();

    rollouts.forEach((rollout, index) => {
      const entry = resolved[index] as ResolvedTask | ResolvedLintTask;
      if (entry.kind === "lint") {
        // A lint entry was resolved with the lint scorer loaded (analysisFor).
        const { lintRevision, lintRewardVersion, unrunLintScore } = lintScorer as ScoreLint;
        const base = {
          id: rollout.id,
          groupId: rollout.groupId,
          rewardVersion: lintRewardVersion(entry.task.language),
        };
        const revisionStart = performance.now();
        const revision = lintRevision(entry.task, rollout.completion, config.endOfTurnMarkers);
        const revisionMs = performance.now() - revisionStart;
        const lintTiming = (executionMs: number) => ({
          queueMs: revisionStart - received,
          metricsMs: revisionMs,
          executionMs,
          totalMs: performance.now() - received,
        });
        if (revision.kind === "failed") {
          finishRollout({
            ...base,
            ...fromLintScore(unrunLintScore(revision, config)),
            cached: false,
            timings: lintTiming(0),
          });
          return;
        }
        const runKey = `${entry.key}\u0000${revision.program}`;
        let run = lintRuns.get(runKey);
        const cached = run !== undefined;
        if (run === undefined) {
          run = (lint as NonNullable<typeof lint>).score(entry.task, revision, config);
          lintRuns.set(runKey, run);
        }
        run.then(
          (score) =>
            finishRollout({
              ...base,
              ...fromLintScore(score),
              cached,
              timings: lintTiming(score.executionMs),
            }),
          (error: unknown) => {
            // score() reports sandbox and analyzer faults as INFRA_ERROR; what reaches here is a bug.
            queue.fail(error);
          },
        );
        return;
      }
      const { key, task } = entry;
      const metric = metrics[index];
      const base = { id: rollout.id, groupId: rollout.groupId, rewardVersion: REWARD_DEFINITION_VERSION };
      const timing = (executionMs: number) => ({
        queueMs: metricsStart - received,
        metricsMs,
        executionMs,
        totalMs: performance.now() - received,
      });
      if (metric === undefined || !metric.ok) return; // checked above
      const score = metric.score;
      // An inline task's rollouts wait for its gold check; a gold known to fail runs nothing more.
      const checked =
        entry.inline === undefined || this.options.sandbox === null || this.options.inlineGoldCheck === false
          ? undefined
          : (goldChecks.get(key) ?? this.startGoldCheck(task, signal, goldChecks, key));
      if (checked?.known?.kind === "invalid") {
        finishRollout(
          invalidTask(
            { ...base, ...fromScore(score, score.verdict, null, config), cached: true, timings: timing(0) },
            checked.known.detail,
          ),
        );
        return;
      }
      const goldCheck = checked?.check;
      const finish = (output: RolloutOutput) => {
        if (goldCheck === undefined) return finishRollout(output);
        goldCheck.then((check) =>
          finishRollout(
            check.kind === "invalid"
              ? invalidTask(
                  { ...output, timings: { ...output.timings, totalMs: performance.now() - received } },
                  check.detail,
                )
              : output,
          ),
        );
      };
      if (score.verdict !== "PASSED" || score.normalizedProgram === null || this.options.sandbox === null) {
        finish({
          ...base,
          ...fromScore(score, score.verdict, null, config),
          cached: false,
          timings: timing(0),
        });
        return;
      }
      const executionKey = `${key}\u0000${score.normalizedProgram}`;
      let execution = executions.get(executionKey);
      let cached = execution !== undefined;
      if (execution === undefined) {
        const contentKey = this.contentKey(task, score.normalizedProgram);
        const remembered = this.options.resultCache?.get(contentKey);
        if (remembered !== undefined) {
          cached = true;
          execution = Promise.resolve(remembered);
        } else {
          const extracted = extractProgram(rollout.completion, config.endOfTurnMarkers);
          const program = extracted.kind === "code" ? extracted.program : "";
          const pending = deferred<TestOutcome>();
          execution = pending.promise;
          const job: ExecutionJob = {
            key: contentKey,
            program,
            tests: task.tests,
            limits: this.limitsOf(task),
            expectedMs: this.expectedMs(task),
          };
          scheduled.push({
            expectedMs: job.expectedMs,
            start: () =>
              this.runOrJoin(job, signal)
                .then(({ outcome, reused }) => {
                  if (reused) reusedElsewhere.add(executionKey);
                  return outcome;
                })
                .then(pending.resolve, pending.reject),
          });
        }
        executions.set(executionKey, execution);
      }
      execution.then(
        (outcome) => {
          finish({
            ...base,
            ...fromScore(score, outcome.verdict, outcome, config),
            cached: cached || reusedElsewhere.has(executionKey),
            timings: timing(outcome.wallTimeMs),
          });
        },
        (error: unknown) => {
          const detail = isMineditError(error) ? error.message : "the sandbox failed";
          finish({
            ...base,
            ...fromScore(score, "INFRA_ERROR", null, config),
            detail,
            cached,
            timings: timing(0),
          });
        },
      );
    });
    // Slowest first: the step then ends near max(slowest execution, total time / slots) rather than with
    // a slow test started last. The slots' line (execution-slots.ts) keeps that order among the queued
    // executions of every call; this sort decides who takes the slots free right now. Ties keep the
    // rollouts' order.
    scheduled.sort((a, b) => b.expectedMs - a.expectedMs);
    for (const execution of scheduled) execution.start();
    yield* queue;
  }

  /**
   * What decides an execution's outcome, as a cache key: the task's tests and everything else it runs
   * with (runtime, entry point, limits), the normalized program, the harness and the reward definition.
   */
  private contentKey(task: StoredTask, normalizedProgram: string): string {
    const { taskId: _id, gold: _gold, corrupted: _corrupted, ...runs } = task;
    const limits = this.limitsOf(task);
    return createHash("sha256")
      .update(JSON.stringify([HARNESS_DIGEST, REWARD_DEFINITION_VERSION, runs, limits, normalizedProgram]))
      .digest("hex");
  }

  /** Stored tasks the gate calibrated run with their own limits; inline tasks with the configured ones. */
  private limitsOf(task: StoredTask): ExecutionLimits {
    return this.options.gate?.limits.get(task.taskId) ?? this.options.limits;
  }

  /** How long a task's tests are expected to take: its gold's measured time, else 0 (unknown). */
  private expectedMs(task: StoredTask): number {
    return this.options.gate?.expected.get(task.taskId) ?? 0;
  }

  /**
   * Loads what `rollouts` need on this thread (CallAnalysis): the lint scorer for lint rollouts, the
   * runtime inference for inline tasks that name no runtime, and the Python grammar both use.
   */
  private async analysisFor(rollouts: readonly RolloutInput[]): Promise<CallAnalysis> {
    const needsLint = rollouts.some(
      ({ task }) =>
        task.kind === "inline_lint" ||
        (task.kind === "stored" && this.options.tasks.getLint(task.taskId) !== undefined),
    );
    const needsRuntime = rollouts.some(
      ({ task }) => task.kind === "inline" && task.runtime === undefined && task.tests.runtime === undefined,
    );
    if (!needsLint && !needsRuntime) return { lint: null, runtimes: null };
    if (needsRuntime) {
      this.inlineRuntimes ??= import("./inline-runtime.js").then(
        ({ InlineRuntimes }) => new InlineRuntimes(),
      );
    }
    const [lint, runtimes] = await Promise.all([
      needsLint ? loadScoreLint() : null,
      needsRuntime ? this.inlineRuntimes : null,
      loadPythonGrammar(),
    ]);
    return { lint, runtimes };
  }

  private resolve(
    rollout: RolloutInput,
    index: number,
    analysis: CallAnalysis,
  ): ResolvedTask | ResolvedLintTask {
    if (rollout.task.kind === "stored") {
      const { taskId } = rollout.task;
      const lintTask = this.options.tasks.getLint(taskId);
      if (lintTask !== undefined) {
        let prepared = this.preparedLint.get(taskId);
        if (prepared === undefined) {
          prepared = this.prepareLint(analysis, lintTask, `rollouts[${index}].task_id`);
          this.preparedLint.set(taskId, prepared);
        }
        return { kind: "lint", key: `stored\u0000${taskId}`, task: prepared };
      }
      // Refused by the gate, or at load because the task's runtime is not installed.
      const refusal = this.options.gate?.refused.get(taskId) ?? this.options.tasks.refusal(taskId);
      if (refusal !== undefined) {
        throw new MineditError(
          ErrorCode.FailedPrecondition,
          `rollouts[${index}].task_id: task "${taskId}" is not served: ${refusal}`,
          { field: `rollouts[${index}].task_id` },
        );
      }
      const task = this.options.tasks.get(taskId);
      if (task === undefined) {
        throw new MineditError(
          ErrorCode.NotFound,
          `rollouts[${index}].task_id: unknown task "${rollout.task.taskId}"`,
          {
            field: `rollouts[${index}].task_id`,
          },
        );
      }
      return { kind: "repair", key: `stored\u0000${taskId}`, task };
    }
    if (rollout.task.kind === "inline_lint") {
      const { language, original, tests } = rollout.task;
      return {
        kind: "lint",
        key: `inline_lint\u0000${JSON.stringify([language, original, tests])}`,
        task: this.prepareLint(
          analysis,
          { language, original, tests },
          `rollouts[${index}].lint_task.original`,
        ),
      };
    }
    const { corrupted, gold, tests: given, entryPoint } = rollout.task;
    const named = rollout.task.runtime ?? given.runtime;
    const inferred =
      named === undefined ? (analysis.runtimes as InlineRuntimes).infer(corrupted, gold, given) : null;
    const runtime = named ?? (inferred as InferredRuntime).runtime;
    // The default runtime stays implicit, as in a stored task, so both share content keys.
    const { runtime: _given, ...rest } = given;
    const tests: PythonTests = runtime === DEFAULT_RUNTIME ? rest : { ...rest, runtime };
    return {
      kind: "repair",
      key: `inline\u0000${JSON.stringify([corrupted, gold, tests, entryPoint])}`,
      task: { taskId: "", corrupted, gold, tests, entryPoint },
      inline: { inferred },
    };
  }

  /**
   * Fails the call (FAILED_PRECONDITION, naming the rollout and what to run) when an inline task needs a
   * runtime this server cannot run: never a silent run in another runtime, nor a batch of INFRA_ERRORs.
   */
  private async checkRuntimes(resolved: readonly (ResolvedTask | ResolvedLintTask)[]): Promise<void> {
    const problem = this.options.runtimeProblem;
    if (problem === undefined || this.options.sandbox === null) return;
    const first = new Map<RuntimeName, number>();
    resolved.forEach((entry, index) => {
      if (entry.kind !== "repair" || entry.inline === undefined) return;
      const runtime = entry.task.tests.runtime ?? DEFAULT_RUNTIME;
      if (!this.runnableRuntimes.has(runtime) && !first.has(runtime)) first.set(runtime, index);
    });
    for (const [runtime, index] of first) {
      const why = await problem(runtime);
      if (why === null) {
        this.runnableRuntimes.add(runtime);
        continue;
      }
      const { inline } = resolved[index] as ResolvedTask;
      const picked =
        inline?.inferred == null
          ? ""
          : ` (picked from the modules the task imports: ${inline.inferred.libraries.join(", ")}; ` +
            "name another in task.runtime to override)";
      const field = `rollouts[${index}].task.runtime`;
      throw new MineditError(ErrorCode.FailedPrecondition, `${field}: ${why}${picked}`, { field });
    }
  }

  /**
   * The gold check of an inline task (remembered, under way or started now), recorded in this call's
   * `checks` under `key`. Its content key — gold, tests and what runs them — names the gold's run.
   */
  private startGoldCheck(
    task: StoredTask,
    signal: AbortSignal,
    checks: Map<string, { known: GoldCheck | undefined; check: Promise<GoldCheck> }>,
    key: string,
  ): { known: GoldCheck | undefined; check: Promise<GoldCheck> } {
    const { taskId: _id, corrupted: _corrupted, ...runs } = task;
    const limits = this.limitsOf(task);
    const goldKey = createHash("sha256")
      .update(JSON.stringify(["minedit-inline-gold/1", HARNESS_DIGEST, runs, limits]))
      .digest("hex");
    const job: ExecutionJob = { key: goldKey, program: task.gold, tests: task.tests, limits, expectedMs: 0 };
    const entry = {
      known: this.goldChecks.known(goldKey),
      check: this.goldChecks.check(goldKey, () =>
        this.runShared(job, signal, (runSignal) => this.runJob(job, runSignal)).then(
          ({ outcome }) => outcome,
        ),
      ),
    };
    checks.set(key, entry);
    return entry;
  }

  /** A lint task whose original is not valid source is the caller's (or the task file's) mistake. */
  private prepareLint(
    analysis: CallAnalysis,
    spec: Parameters<ScoreLint["prepareLintTask"]>[0],
    field: string,
  ): PreparedLintTask {
    const { prepareLintTask, InvalidLintOriginal } = analysis.lint as ScoreLint;
    try {
      return prepareLintTask(spec);
    } catch (error) {
      if (error instanceof InvalidLintOriginal) {
        throw new MineditError(ErrorCode.InvalidArgument, `${field}: ${error.message}`, { field });
      }
      throw error;
    }
  }

  /**
   * Runs `job` and remembers its outcome in the result cache (once per run, however many calls wait for
   * it), or joins the identical run another call has under way: only when outcomes are shared across
   * calls at all (a result cache is configured; without one every call runs its own).
   */
  private runOrJoin(
    job: ExecutionJob,
    signal: AbortSignal,
  ): Promise<{ outcome: TestOutcome; reused: boolean }> {
    const cache = this.options.resultCache;
    if (cache === undefined) return this.runJob(job, signal);
    return this.runShared(job, signal, (runSignal) =>
      this.runJob(job, runSignal).then((result) => {
        cache.set(job.key, result.outcome);
        return result;
      }),
    );
  }

  /**
   * `start(signal)`, or the run of `job` another call has under way, joined (`reused`): it goes on while
   * any call waits for it (shared-runs.ts). With the queue backend, its front joins identical jobs itself,
   * and must see each call's own signal: it knows the call's deadline by it (queue-front.ts `openCall`).
   */
  private runShared(
    job: ExecutionJob,
    signal: AbortSignal,
    start: (signal: AbortSignal) => Promise<{ outcome: TestOutcome; reused: boolean }>,
  ): Promise<{ outcome: TestOutcome; reused: boolean }> {
    if (this.options.executor !== undefined) return start(signal);
    return this.sharedRuns
      .run(job.key, signal, start)
      .then(({ value, joined }) => ({ outcome: value.outcome, reused: value.reused || joined }));
  }

  /** Runs a job on the backend, or here: in the sandbox, holding an execution slot. */
  private async runJob(
    job: ExecutionJob,
    signal: AbortSignal,
  ): Promise<{ outcome: TestOutcome; reused: boolean }> {
    if (this.options.executor !== undefined) return this.options.executor.execute(job, signal);
    const release = await this.slots.acquire(signal, job.expectedMs);
    try {
      const { program, tests, limits } = job;
      const retries = this.options.infraRetries ?? 0;
      const sandbox = this.options.sandbox as Sandbox;
      return {
        outcome: await runTestsWithRetries(sandbox, program, tests, limits, retries, signal),
        reused: false,
      };
    } finally {
      release();
    }
  }
}

/**
 * The execution step of a repair rollout, shared by this scorer and the queue's workers (src/queue/):
 * runs `program` against `tests` in `sandbox`; a run the sandbox broke is retried `retries` times, each
 * on a fresh sandbox, before its INFRA_ERROR is reported. Throws MineditError Cancelled once `signal`
 * aborts.
 */
export async function runTestsWithRetries(
  sandbox: Sandbox,
  program: string,
  tests: PythonTests,
  limits: ExecutionLimits,
  retries: number,
  signal: AbortSignal,
): Promise<TestOutcome> {
  let outcome: TestOutcome | undefined;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (signal.aborted)
      throw new MineditError(ErrorCode.Cancelled, "the call was cancelled before the tests ran");
    const runIn = attempt === 0 ? sandbox : (sandbox.fresh?.() ?? sandbox);
    outcome = await runPythonTests(runIn, program, tests, limits, signal);
    if (outcome.verdict !== "INFRA_ERROR" || outcome.infraCause !== "sandbox") break;
  }
  const done = outcome as TestOutcome;
  return done.verdict === "INFRA_ERROR" && done.infraCause === "sandbox" && retries > 0
    ? { ...done, detail: `${done.detail} (also after ${retries} retries on a fresh sandbox)` }
    : done;
}

function fromScore(
  score: RolloutScore,
  verdict: Verdict,
  outcome: TestOutcome | null,
  config: RewardConfig,
): Pick<RolloutOutput, "verdict" | "reward" | "components" | "testsPassed" | "testsTotal" | "detail"> {
  const { reward } = computeReward(verdict, score.components, config);
  return {
    verdict,
    reward,
    components: score.components,
    testsPassed: outcome?.testsPassed ?? 0,
    testsTotal: outcome?.testsTotal ?? 0,
    detail: outcome?.detail ?? score.detail,
  };
}

/** A rollout of a task whose gold fails its own tests: no reward, whatever the candidate did. */
function invalidTask(output: RolloutOutput, detail: string): RolloutOutput {
  return { ...output, verdict: "INVALID_TASK", reward: null, testsPassed: 0, testsTotal: 0, detail };
}

function fromLintScore(
  score: LintScore,
): Pick<
  RolloutOutput,
  "verdict" | "reward" | "components" | "lintComponents" | "testsPassed" | "testsTotal" | "detail"
> {
  return {
    verdict: score.verdict,
    reward: score.reward,
    components: null,
    ...(score.lintComponents === null ? {} : { lintComponents: score.lintComponents }),
    testsPassed: score.testsPassed,
    testsTotal: score.testsTotal,
    detail: score.detail,
  };
}

/** A promise with its resolve and reject, for work scheduled after the promise is handed out. */
function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
