/**
 * The scoring engine behind the gRPC handlers: metrics in the piscina pool, tests in the sandbox,
 * reward from both (SPEC §2). Results are yielded as soon as each rollout is done.
 *
 * - The whole batch goes to the pool at once, so each task's C and G are normalized once.
 * - Rollouts of one task whose norm(M) is identical execute once; the others reuse the outcome
 *   (`cached: true`), as GRPO groups often repeat a completion.
 * - Executions run with bounded concurrency; an aborted signal (deadline, cancelled call) stops the
 *   ones running and skips the rest.
 */
import { setMaxListeners } from "node:events";
import { mergeRewardOverride, type RewardConfig, type RewardOverride } from "../config.js";
import { extractProgram } from "../core/extract-program.js";
import { computeReward, REWARD_DEFINITION_VERSION, type Verdict } from "../core/reward.js";
import type { RolloutScore } from "../core/score-rollout.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { runPythonTests, type TestOutcome } from "../runners/python.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import type { MetricsPool } from "../workers/metrics-pool.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "./scorer.js";
import type { StoredTask, TaskStore } from "./task-store.js";

export type RolloutScorerOptions = {
  pool: MetricsPool;
  /** null: do not execute; a program that parses counts as passing (`--no-exec`). */
  sandbox: Sandbox | null;
  tasks: TaskStore;
  reward: RewardConfig;
  limits: ExecutionLimits;
  /** Sandboxed test runs at once across all calls. */
  executionConcurrency: number;
};

type ResolvedTask = { key: string; task: StoredTask };

export class ExecutingRolloutScorer implements RolloutScorer {
  private readonly slots: Semaphore;

  constructor(private readonly options: RolloutScorerOptions) {
    this.slots = new Semaphore(options.executionConcurrency);
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
    const resolved = rollouts.map((rollout, index) => this.resolve(rollout, index));

    const metricsStart = performance.now();
    const metrics = await this.options.pool.score(
      rollouts.map((rollout, index) => {
        const { task } = resolved[index] as ResolvedTask;
        return { corrupted: task.corrupted, gold: task.gold, completion: rollout.completion, config };
      }),
    );
    const metricsMs = performance.now() - metricsStart;

    const queue = new AsyncQueue<RolloutOutput>();
    const executions = new Map<string, Promise<TestOutcome>>();
    let pending = rollouts.length;
    const finish = (output: RolloutOutput) => {
      queue.push(output);
      pending -= 1;
      if (pending === 0) queue.close();
    };
    if (pending === 0) queue.close();

    // An inline task whose C or G is not Python is the caller's mistake: reject the call before any work.
    metrics.forEach((metric, index) => {
      if (!metric.ok) {
        throw new MineditError(
          ErrorCode.InvalidArgument,
          `rollouts[${index}].task.${metric.which}: ${metric.message}`,
          {
            field: `rollouts[${index}].task.${metric.which}`,
          },
        );
      }
    });

    rollouts.forEach((rollout, index) => {
      const { key, task } = resolved[index] as ResolvedTask;
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
      const cached = execution !== undefined;
      if (execution === undefined) {
        const extracted = extractProgram(rollout.completion);
        const program = extracted.kind === "code" ? extracted.program : "";
        execution = this.execute(program, task, signal);
        executions.set(executionKey, execution);
      }
      execution.then(
        (outcome) => {
          finish({
            ...base,
            ...fromScore(score, outcome.verdict, outcome, config),
            cached,
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
    yield* queue;
  }

  private resolve(rollout: RolloutInput, index: number): ResolvedTask {
    if (rollout.task.kind === "stored") {
      const task = this.options.tasks.get(rollout.task.taskId);
      if (task === undefined) {
        throw new MineditError(
          ErrorCode.NotFound,
          `rollouts[${index}].task_id: unknown task "${rollout.task.taskId}"`,
          {
            field: `rollouts[${index}].task_id`,
          },
        );
      }
      return { key: `stored\u0000${rollout.task.taskId}`, task };
    }
    const { corrupted, gold, tests, entryPoint } = rollout.task;
    return {
      key: `inline\u0000${JSON.stringify([corrupted, gold, tests, entryPoint])}`,
      task: { taskId: "", corrupted, gold, tests, entryPoint },
    };
  }

  private async execute(program: string, task: StoredTask, signal: AbortSignal): Promise<TestOutcome> {
    const sandbox = this.options.sandbox as Sandbox;
    const release = await this.slots.acquire(signal);
    try {
      if (signal.aborted)
        throw new MineditError(ErrorCode.Cancelled, "the call was cancelled before the tests ran");
      return await runPythonTests(sandbox, program, task.tests, this.options.limits, signal);
    } finally {
      release();
    }
  }
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

/** Counts free execution slots; waiters are served in order and drop out when their call is aborted. */
class Semaphore {
  private readonly waiters: (() => void)[] = [];
  constructor(private free: number) {}

  acquire(signal: AbortSignal): Promise<() => void> {
    const release = () => {
      const next = this.waiters.shift();
      if (next !== undefined) next();
      else this.free += 1;
    };
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(release);
      };
      // An aborted waiter leaves the line without taking a slot; its release is a no-op.
      const onAbort = () => {
        const at = this.waiters.indexOf(grant);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(() => {});
      };
      this.waiters.push(grant);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** A push-based async iterable: results are pushed as they complete and consumed with `for await`. */
class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private wake: (() => void) | null = null;

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }
}
