/**
 * The piscina pool that runs normalization, tokenization, cognitive complexity and Levenshtein work
 * (SPEC §1 design card).
 *
 * Work is sent per task group: all rollouts of one (C, G, reward config) go to one worker call, so C and
 * G are normalized (and CC(G) measured) once per group (and cached per worker across batches), and
 * identical completions within a group are scored once and fanned back out.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import type { RewardConfig } from "../config.js";
import type { AnalyzedProgramCacheStats } from "../core/analyzed-program-cache.js";
import type { RolloutScore } from "../core/score-rollout.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { MetricsJob, MetricsJobResult, MetricsWorkerData, WorkerCacheStats } from "./metrics-worker.js";

/** One rollout to score offline: its task's programs, the raw completion and the reward config. */
export type MetricsRequest = { corrupted: string; gold: string; completion: string; config: RewardConfig };

/** A score, or why the rollout's task could not be scored at all (its C or G is not valid Python). */
export type MetricsResult =
  | { ok: true; score: RolloutScore }
  | { ok: false; reason: "invalid_task"; message: string; which: "corrupted" | "gold" };

/**
 * The compiled worker. Running from `src/` (vitest) there is no `.js` beside this file, so the build in
 * `dist/` is used; `npm run build` must have run (the test command does it).
 */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith(".ts")
    ? here.replace(/\/src\/workers\/metrics-pool\.ts$/, "/dist/workers/metrics-worker.js")
    : here.replace(/metrics-pool\.js$/, "metrics-worker.js");
  if (!existsSync(file)) {
    throw new MineditError(
      ErrorCode.FailedPrecondition,
      `worker ${file} is missing: run \`npm run build\` first`,
    );
  }
  return file;
}

/** The workers' program caches together (src/core/analyzed-program-cache.ts), as of their last jobs. */
export type ProgramCacheStats = AnalyzedProgramCacheStats & {
  /** The bound of each worker's cache (`pool.programCacheBytes`); 0: off. */
  maxBytesPerThread: number;
};

export class MetricsPool {
  private readonly pool: Piscina<MetricsJob, MetricsJobResult>;
  private readonly programCacheBytes: number;
  /** Each worker thread's cache, as its latest job reported it. */
  private readonly caches = new Map<number, WorkerCacheStats>();

  /** `threads` workers, each keeping `options.programCacheBytes` of analyzed programs (default 32 MiB). */
  constructor(threads: number, options: { programCacheBytes?: number } = {}) {
    this.programCacheBytes = options.programCacheBytes ?? 32 * 1024 * 1024;
    const workerData: MetricsWorkerData = { programCacheBytes: this.programCacheBytes };
    this.pool = new Piscina({ filename: workerFile(), minThreads: threads, maxThreads: threads, workerData });
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /** The program caches of all workers: entries, estimated bytes, hits and misses so far. */
  programCache(): ProgramCacheStats {
    const total = { entries: 0, bytes: 0, hits: 0, misses: 0, maxBytesPerThread: this.programCacheBytes };
    for (const c of this.caches.values()) {
      total.entries += c.entries;
      total.bytes += c.bytes;
      total.hits += c.hits;
      total.misses += c.misses;
    }
    return total;
  }

  /** Scores a batch; results come back in request order. Rejects only on an internal fault. */
  async score(requests: readonly MetricsRequest[]): Promise<MetricsResult[]> {
    const groups = new Map<
      string,
      { job: MetricsJob; completionIndex: Map<string, number>; members: number[] }
    >();
    const slotOf: { group: string; completion: number }[] = [];
    requests.forEach((request, index) => {
      const key = JSON.stringify([request.corrupted, request.gold, request.config]);
      let group = groups.get(key);
      if (group === undefined) {
        group = {
          job: { corrupted: request.corrupted, gold: request.gold, completions: [], config: request.config },
          completionIndex: new Map(),
          members: [],
        };
        groups.set(key, group);
      }
      let slot = group.completionIndex.get(request.completion);
      if (slot === undefined) {
        slot = group.job.completions.length;
        group.job.completions.push(request.completion);
        group.completionIndex.set(request.completion, slot);
      }
      group.members.push(index);
      slotOf[index] = { group: key, completion: slot };
    });
    const outcomes = new Map<string, MetricsJobResult>();
    await Promise.all(
      [...groups].map(async ([key, group]) => {
        const outcome = await this.pool.run(group.job);
        if (outcome.ok && outcome.value.programCache !== null) {
          this.caches.set(outcome.value.programCache.threadId, outcome.value.programCache);
        }
        outcomes.set(key, outcome);
      }),
    );
    return requests.map((_request, index) => {
      const slot = slotOf[index] as { group: string; completion: number };
      const outcome = outcomes.get(slot.group) as MetricsJobResult;
      if (!outcome.ok) {
        if (outcome.code === "invalid_task") {
          return { ok: false, reason: "invalid_task", message: outcome.message, which: outcome.which };
        }
        throw new MineditError(ErrorCode.Internal, `metrics worker failed: ${outcome.message}`);
      }
      return { ok: true, score: outcome.value.scores[slot.completion] as RolloutScore };
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
