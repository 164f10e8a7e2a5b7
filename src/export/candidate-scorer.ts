/**
 * Scores sampled candidates for rSFT/DPO with the reward server's own engine: the service's
 * {@link ExecutingRolloutScorer} (metrics in the piscina pool, the task's tests in the sandbox, identical
 * programs of a task executed once per batch) over a task store of the exported tasks, so a candidate
 * gets exactly the verdict and reward the server would give it.
 *
 * The selection also needs d(M, G), the distance to the reference repair, which the reward does not
 * use. It comes from the same metrics workers, asked to score the candidate against the task (G, G):
 * the worker's d(M, C) with C := G is d(M, G), normalized and tokenized the same way as every other
 * distance minedit reports.
 */
import type { Config } from "../config.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { RolloutInput, RolloutOutput } from "../scoring/rollout.js";
import { ExecutingRolloutScorer } from "../scoring/rollout-scorer.js";
import type { StoredTask, TaskStore } from "../scoring/task-store.js";
import type { MetricsPool } from "../workers/metrics-pool.js";
import type { ScoredCandidate } from "./selection.js";

/** One candidate to score: its task (which must be in the scorer's task store) and the completion. */
export type CandidateJob = { task: StoredTask; completion: string; order: number };

export class CandidateScorer {
  private readonly scorer: ExecutingRolloutScorer;

  constructor(
    private readonly pool: MetricsPool,
    sandbox: Sandbox,
    tasks: TaskStore,
    private readonly config: Config,
    private readonly signal: AbortSignal,
  ) {
    this.scorer = ExecutingRolloutScorer.fromConfig(config, {
      pool,
      sandbox,
      tasks,
    });
  }

  /**
   * Scores a batch; results in job order. `onResult` is called as each candidate's verdict is known (test
   * runs finish in any order), for the progress bar.
   */
  async score(jobs: readonly CandidateJob[], onResult: () => void): Promise<ScoredCandidate[]> {
    const toGold = this.pool.score(
      jobs.map(({ task, completion }) => ({
        corrupted: task.gold,
        gold: task.gold,
        completion,
        config: this.config.reward,
      })),
    );
    // Rejections are observed below; this only keeps one meanwhile from counting as unhandled.
    toGold.catch(() => {});
    const inputs: RolloutInput[] = jobs.map(({ task, completion }, index) => ({
      id: String(index),
      completion,
      groupId: task.taskId,
      task: { kind: "stored", taskId: task.taskId },
    }));
    const outputs: (RolloutOutput | undefined)[] = new Array(jobs.length);
    for await (const output of this.scorer.score(inputs, undefined, this.signal)) {
      outputs[Number(output.id)] = output;
      onResult();
    }
    const distances = await toGold;
    return jobs.map((job, index) => {
      const output = outputs[index];
      if (output === undefined) throw new Error(`internal error: no score for candidate ${index}`);
      const distance = distances[index];
      return {
        completion: job.completion,
        order: job.order,
        verdict: output.verdict,
        reward: output.reward,
        distance: distance?.ok === true ? (distance.score.components?.dModel ?? null) : null,
        excess: output.components?.excess ?? null,
        testsPassed: output.testsPassed,
        testsTotal: output.testsTotal,
      };
    });
  }
}
