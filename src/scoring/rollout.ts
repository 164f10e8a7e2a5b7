/**
 * The seam between the gRPC layer and the scoring engine. The handlers in `reward-service.ts` validate
 * and convert wire messages into {@link RolloutInput}s, hand them to a {@link RolloutScorer}, and convert
 * each {@link RolloutOutput} back into a wire result. Nothing here knows about protobuf or grpc-js, and
 * the scorer knows nothing about them either.
 */
import type { RewardOverride } from "../config.js";
import type { LintComponents } from "../core/lint/reward.js";
import type { LintLanguage } from "../core/lint/tools.js";
import type { Verdict } from "../core/reward.js";
import type { PythonTests } from "../runners/python.js";
import type { RuntimeName } from "../sandbox/runtimes.js";

/**
 * The task a rollout answers: a reference into the server's task store (a repair or a lint task), or
 * the task itself. `entryPoint` is the function under repair (empty when the tests do not need one); for
 * assert-style tests it is also `tests.entryPoint`. An inline repair task's `runtime` is the one it names
 * (absent: the scorer picks it from the modules the task imports, src/scoring/inline-runtime.ts). An
 * inline lint task's tests are stdio for C++ and Java.
 */
export type RolloutTask =
  | { kind: "stored"; taskId: string }
  | {
      kind: "inline";
      corrupted: string;
      gold: string;
      tests: PythonTests;
      entryPoint: string;
      runtime?: RuntimeName;
    }
  | { kind: "inline_lint"; language: LintLanguage; original: string; tests: PythonTests; entryPoint: string };

/** One validated rollout. `id` is non-empty and unique within one `score` call; `groupId` may be empty. */
export type RolloutInput = { id: string; completion: string; task: RolloutTask; groupId: string };

/**
 * The result of one rollout, as the wire reports it. `reward` is `null` exactly when `verdict` is
 * `INFRA_ERROR` or `INVALID_TASK`; `components` is `null` when the distances were not computed. Timings are wall-clock
 * milliseconds. `cached`: reused from an identical (task, normalized program) scored earlier.
 */
export type RolloutOutput = {
  id: string;
  groupId: string;
  verdict: Verdict;
  reward: number | null;
  components: { dModel: number; dGold: number; excess: number; addedCc?: number } | null;
  /** Lint tasks: the alert counts and edit distance behind the reward, when the revision was analyzed. */
  lintComponents?: LintComponents;
  testsPassed: number;
  testsTotal: number;
  timings: { queueMs: number; metricsMs: number; executionMs: number; totalMs: number };
  cached: boolean;
  detail: string;
  rewardVersion: string;
};

/** Scores rollouts. Implemented by the engine; the server only calls it. */
export interface RolloutScorer {
  /**
   * Validates task references first (unknown task id → throws MineditError NotFound naming the id) then
   * scores; yields each result as soon as it is done. Stops work when signal aborts. `deadlineMs`: the
   * call's deadline (epoch ms), when it has one; `signal` aborts at it too, so only a scorer that hands
   * work to other processes (src/queue/: the deadline travels with the jobs) needs it.
   */
  score(
    rollouts: RolloutInput[],
    rewardOverride: RewardOverride | undefined,
    signal: AbortSignal,
    deadlineMs?: number,
  ): AsyncIterable<RolloutOutput>;
}
