/**
 * A {@link RolloutScorer} that records what the scorer it wraps produced, per endpoint: every rollout in
 * the metrics (verdict, task style, cache hit, latency histograms), every INFRA_ERROR as a `warn` log
 * line with its rollout id (a sandbox fault is what an operator must see; the program that met it is
 * not), and at `debug` each rollout's completion.
 *
 * `callLines`: also log one `info` line per scorer call. The OpenRLHF endpoint wants it (its HTTP requests
 * are coalesced into scorer calls, and the call is the unit it scores); gRPC calls get theirs from
 * src/server/call-observer.ts, which sees a ScoreStream as one call rather than one per message.
 */
import type { RewardOverride } from "../config.js";
import { isMineditError } from "../errors.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "../scoring/rollout.js";
import type { TaskStore } from "../scoring/task-store.js";
import type { Logger } from "./logger.js";
import { type Endpoint, type ServiceMetrics, taskStyle } from "./metrics.js";

export type ObservedScorerOptions = {
  endpoint: Endpoint;
  metrics: ServiceMetrics;
  logger: Logger;
  /** Where stored task ids are looked up for their test style; null: every stored task is "unknown". */
  tasks: TaskStore | null;
  callLines?: boolean;
};

const DETAIL_CHARS = 300;

export function observedScorer(inner: RolloutScorer, options: ObservedScorerOptions): RolloutScorer {
  const { endpoint, metrics, logger, tasks } = options;
  return {
    async *score(
      rollouts: RolloutInput[],
      override: RewardOverride | undefined,
      signal: AbortSignal,
      deadlineMs?: number,
    ): AsyncIterable<RolloutOutput> {
      const started = performance.now();
      const byId = new Map(rollouts.map((input) => [input.id, input]));
      if (logger.isLevelEnabled("debug")) {
        for (const input of rollouts) {
          logger.debug({ endpoint, rollout: input.id, completion: input.completion }, "rollout");
        }
      }
      const verdicts: Record<string, number> = {};
      let outcome = "ok";
      try {
        for await (const out of inner.score(rollouts, override, signal, deadlineMs)) {
          const input = byId.get(out.id);
          metrics.recordRollout(endpoint, input === undefined ? "unknown" : taskStyle(input, tasks), out);
          verdicts[out.verdict] = (verdicts[out.verdict] ?? 0) + 1;
          if (out.verdict === "INFRA_ERROR") {
            logger.warn(
              { endpoint, rollout: out.id, group: out.groupId, detail: out.detail.slice(0, DETAIL_CHARS) },
              "sandbox fault: rollout is INFRA_ERROR",
            );
          }
          yield out;
        }
      } catch (error) {
        outcome = isMineditError(error) ? error.code : "internal";
        throw error;
      } finally {
        if (options.callLines === true) {
          logger.info(
            {
              endpoint,
              rollouts: rollouts.length,
              verdicts,
              outcome,
              latencyMs: Math.round((performance.now() - started) * 10) / 10,
            },
            "scored",
          );
        }
      }
    },
  };
}
