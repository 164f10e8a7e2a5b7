/**
 * The scorer `minedit serve --queue` puts behind its gRPC and OpenRLHF endpoints: the in-process scorer
 * (metrics in the pool, rewards, dedupe within a call, lint rollouts in the front's own sandbox) with its
 * repair executions handed to the queue's workers through a {@link QueueFront}.
 *
 * Why metrics stay at the front: they are cheap next to a test run (milliseconds per rollout in the
 * pool), the normalized program they produce is the job's key, so it must be known before anything is
 * enqueued, and most rollouts that need no run (unparsable, no code) never cost a Redis round trip. The
 * worker's job is then reward-free — run these tests on this program — so one cached outcome serves every
 * reward configuration and per-request override.
 */
import type { QueueConfig, RewardOverride } from "../config.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "../scoring/rollout.js";
import type { ExecutingRolloutScorer } from "../scoring/rollout-scorer.js";
import { QueueFront } from "./queue-front.js";

export class QueueRolloutScorer implements RolloutScorer {
  private readonly inner: ExecutingRolloutScorer;

  /**
   * `local`: the engine's in-process scorer (its tasks, gate limits, reward and lint sandbox are kept);
   * its executions go to the queue at `config.url`.
   */
  constructor(
    local: ExecutingRolloutScorer,
    readonly front: QueueFront,
  ) {
    this.inner = local.withExecutor(front);
  }

  /** Connects to the queue (without waiting for Redis: calls get UNAVAILABLE until it answers). */
  static connect(
    local: ExecutingRolloutScorer,
    config: QueueConfig & { url: string },
    log: (line: string) => void,
  ): QueueRolloutScorer {
    return new QueueRolloutScorer(local, new QueueFront({ config, log }));
  }

  /**
   * As the in-process scorer, except: fails with UNAVAILABLE at once when Redis is unreachable, and later
   * when it stays unreachable longer than `queue.outageToleranceMs` while the call waits for results.
   * The call's deadline (`deadlineMs`, else now + `queue.jobDeadlineMs`) goes with its jobs: workers skip
   * or stop a job once every call that wants it is past its deadline.
   */
  async *score(
    rollouts: RolloutInput[],
    rewardOverride: RewardOverride | undefined,
    signal: AbortSignal,
    deadlineMs?: number,
  ): AsyncIterable<RolloutOutput> {
    this.front.checkAvailable();
    const call = this.front.openCall(signal, deadlineMs);
    // Rejects when the call is aborted: by the caller (its reason is then ignored upstream) or by the front.
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(call.signal.reason);
      if (call.signal.aborted) fail();
      else call.signal.addEventListener("abort", fail, { once: true });
    });
    aborted.catch(() => {});
    const results = this.inner.score(rollouts, rewardOverride, call.signal)[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await Promise.race([results.next(), aborted]);
        if (next.done === true) return;
        yield next.value;
      }
    } finally {
      call.close();
    }
  }

  /** Disconnects from the queue and closes the scorer's linter. */
  async close(): Promise<void> {
    await this.front.close();
    await this.inner.close();
  }
}
