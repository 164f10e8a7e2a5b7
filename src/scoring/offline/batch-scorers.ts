/**
 * Scoring one batch of `minedit score` rows when executing: the reward server's own
 * {@link ExecutingRolloutScorer} (metrics in the pool, tests in the sandbox, identical programs of a task
 * run once). Without execution the workers read and score the rows themselves (score-file.ts).
 */
import type { Config } from "../../config.js";
import type { RowScore } from "../../core/rollout-row.js";
import type { MetricsPool, MetricsRequest } from "../../workers/metrics-pool.js";
import type { RolloutInput } from "../rollout.js";
import type { ExecutingRolloutScorer } from "../rollout-scorer.js";
import type { TaskTests } from "./rows.js";

/** One rollout to score: its task's programs and tests (absent with `--no-exec`) and the completion. */
export type Job = { corrupted: string; gold: string; completion: string; tests: TaskTests | undefined };

/** A job's score, or why its task could not be scored (its C or G is not valid Python). */
export type JobResult = { ok: true; score: RowScore } | { ok: false; message: string };

/**
 * Scores one batch; results in job order. `onResult` is called as each job's result is known, for the
 * progress bar (executions of a batch take long, and finish in any order).
 */
export type BatchScorer = (jobs: Job[], onResult: () => void) => Promise<JobResult[]>;

/**
 * Executing: the service's {@link ExecutingRolloutScorer} (metrics in the pool, tests in the sandbox,
 * identical programs of a task run once), fed every job as an inline task.
 *
 * The scorer rejects a whole call when one task's C or G is not Python (a gRPC request is all or
 * nothing); here such a row is one bad row among good ones. So each distinct task of the batch is checked
 * first with an empty completion — cheap, and the workers keep the parsed task for the scorer's own call
 * — and only rows of valid tasks reach the scorer.
 */
export function executing(
  pool: MetricsPool,
  scorer: ExecutingRolloutScorer,
  config: Config,
  signal: AbortSignal,
): BatchScorer {
  return async (jobs, onResult) => {
    const taskIndex = new Map<string, number>();
    const checks: MetricsRequest[] = [];
    const taskOf = jobs.map(({ corrupted, gold }) => {
      const key = JSON.stringify([corrupted, gold]);
      let index = taskIndex.get(key);
      if (index === undefined) {
        index = checks.length;
        taskIndex.set(key, index);
        checks.push({ corrupted, gold, completion: "", config: config.reward });
      }
      return index;
    });
    const checked = await pool.score(checks);

    const results: (JobResult | undefined)[] = new Array(jobs.length);
    const inputs: RolloutInput[] = [];
    /** inputs[k] is jobs[positions[k]]; the scorer's ids are the k, as row ids need not be unique. */
    const positions: number[] = [];
    jobs.forEach((job, index) => {
      const check = checked[taskOf[index] as number];
      if (check === undefined || !check.ok) {
        results[index] = { ok: false, message: check?.message ?? "task not checked" };
        onResult();
        return;
      }
      const tests = job.tests as TaskTests; // every job has tests when executing (checked when read)
      positions.push(index);
      inputs.push({
        id: String(inputs.length),
        completion: job.completion,
        groupId: "",
        task: {
          kind: "inline",
          corrupted: job.corrupted,
          gold: job.gold,
          tests: tests.tests,
          entryPoint: tests.entryPoint,
          ...(tests.runtime === undefined ? {} : { runtime: tests.runtime }),
        },
      });
    });
    for await (const output of scorer.score(inputs, undefined, signal)) {
      const index = positions[Number(output.id)] as number;
      results[index] = {
        ok: true,
        score: {
          verdict: output.verdict,
          reward: output.reward,
          detail: output.detail,
          components: output.components,
          execution: {
            testsPassed: output.testsPassed,
            testsTotal: output.testsTotal,
            cached: output.cached,
          },
        },
      };
      onResult();
    }
    return results.map(
      (result) => result ?? { ok: false, message: "internal error: the scorer returned no result" },
    );
  };
}
