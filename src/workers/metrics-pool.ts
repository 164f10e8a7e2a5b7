/**
 * The piscina pool that runs normalization, tokenization, cognitive complexity and Levenshtein work
 * (docs/design.md#the-design-card).
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
import type { TaskLookup } from "../core/rollout-row.js";
import type { ScoreMemoStats } from "../core/score-memo.js";
import type { RolloutScore } from "../core/score-rollout.js";
import { ErrorCode, MineditError } from "../errors.js";
import type {
  MetricsJob,
  MetricsJobResult,
  MetricsWorkerData,
  RowsJob,
  RowsJobResult,
  RowsOutcome,
  WorkerCacheStats,
  WorkerMemoStats,
} from "./metrics-worker.js";

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

/**
 * Jobs queued in each worker at once. A worker's job is synchronous, so with one at a time it would wait
 * for the main thread between jobs (the result to be received, the next one posted); with a few queued it
 * takes the next one from its port as soon as it is done (piscina 5's worker loop, `atomicsWaitLoop` /
 * `onMessage` in dist/worker.js, reads every message waiting there).
 */
const JOBS_QUEUED_PER_WORKER = 4;

/**
 * Each worker's young generation, in MiB (Node's default for a worker: 48, i.e. 16 MiB semi-spaces). A
 * batch keeps its rows, groups and scores alive until it is written, so a scavenge of the default size
 * copies about half of what it finds, on V8's helper threads as well as the worker; twice the room halves
 * the scavenges. On every stdlib task's 20,480 rollouts (benchmarks/metrics/mixes.mjs), four interleaved
 * rounds of three: the process's CPU 1.39 → 1.20 s (median) and wall 0.93 → 0.81 s; a whole
 * `score --no-exec` peaked at the same RSS (238–272 MiB either way). Larger was not faster.
 */
const YOUNG_GENERATION_MB = 96;

/** The workers' program caches together (src/core/analyzed-program-cache.ts), as of their last jobs. */
export type ProgramCacheStats = AnalyzedProgramCacheStats & {
  /** The bound of each worker's cache (`pool.programCacheBytes`); 0: off. */
  maxBytesPerThread: number;
};

/**
 * A reward config's grouping key: its JSON, computed once per config object (a batch's requests usually
 * share one; equal configs in different objects still get equal keys).
 */
const configKeys = new WeakMap<RewardConfig, string>();
function configKeyOf(config: RewardConfig): string {
  let key = configKeys.get(config);
  if (key === undefined) {
    key = JSON.stringify(config);
    configKeys.set(config, key);
  }
  return key;
}

/** The rollouts of one (reward config, C, G): one worker job, its distinct completions once each. */
type Group = { job: MetricsJob; completionIndex: Map<string, number>; outcome: MetricsJobResult | null };

type Job = MetricsJob | RowsJob;
type JobResult = MetricsJobResult | RowsJobResult;

/** A piscina pool of a fixed number of threads, and the jobs it has in flight. */
type ThreadGroup = { piscina: Piscina<Job, JobResult>; threads: number; inFlight: number };

export class MetricsPool {
  /**
   * One group of threads, or two: with `fillAfter`, a first thread at once and the others once it
   * settles (piscina 5 cannot raise a pool's minimum after construction, so they are a pool of their own).
   */
  private readonly groups: ThreadGroup[] = [];
  private readonly workerData: MetricsWorkerData;
  private readonly programCacheBytes: number;
  private readonly scoreMemoEntries: number;
  private closed = false;
  /** Each worker thread's program cache and score memo, as its latest job reported them. */
  private readonly caches = new Map<number, WorkerCacheStats>();
  private readonly memos = new Map<number, WorkerMemoStats>();

  /**
   * `threads` workers, each keeping `options.programCacheBytes` of analyzed programs (default 32 MiB) and
   * `options.scoreMemoEntries` scores (default 131,072). `options.tasks`: the task file that
   * {@link scoreRows}' `task_id` rows name (copied into each worker). `options.fillAfter`: start one
   * thread now and the others once this settles — `minedit serve` passes its listening, so that on a small
   * machine their start (~0.2 s of CPU each, most of it Node's own worker bootstrap) does not delay it.
   */
  constructor(
    threads: number,
    options: {
      programCacheBytes?: number;
      scoreMemoEntries?: number;
      tasks?: TaskLookup<{ corrupted: string; gold: string }>;
      fillAfter?: Promise<unknown>;
    } = {},
  ) {
    this.programCacheBytes = options.programCacheBytes ?? 32 * 1024 * 1024;
    this.scoreMemoEntries = options.scoreMemoEntries ?? 131_072;
    this.workerData = {
      programCacheBytes: this.programCacheBytes,
      scoreMemoEntries: this.scoreMemoEntries,
      tasks: options.tasks ?? null,
    };
    const { fillAfter } = options;
    const now = fillAfter === undefined ? threads : Math.min(threads, 1);
    this.addThreads(now);
    if (now < threads && fillAfter !== undefined) {
      const fill = () => {
        if (!this.closed) this.addThreads(threads - now);
      };
      fillAfter.then(fill, fill);
    }
  }

  private addThreads(threads: number): void {
    if (threads <= 0) return;
    const piscina = new Piscina<Job, JobResult>({
      filename: workerFile(),
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: JOBS_QUEUED_PER_WORKER,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      workerData: this.workerData,
    });
    this.groups.push({ piscina, threads, inFlight: 0 });
  }

  /** Runs a job in the group with the fewest jobs in flight per thread (piscina balances within it). */
  private async run(job: Job, options?: { name: string; transferList: ArrayBuffer[] }): Promise<JobResult> {
    let chosen = this.groups[0] as ThreadGroup;
    for (const group of this.groups) {
      if (group.inFlight / group.threads < chosen.inFlight / chosen.threads) chosen = group;
    }
    chosen.inFlight += 1;
    try {
      return await chosen.piscina.run(job, options);
    } finally {
      chosen.inFlight -= 1;
    }
  }

  /** The threads started so far (with `fillAfter`, one until it settles). */
  get threads(): number {
    return this.groups.reduce((sum, group) => sum + group.piscina.threads.length, 0);
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

  /** The score memos of all workers: entries, hits and misses so far, and the bound of each. */
  scoreMemo(): ScoreMemoStats & { maxEntriesPerThread: number } {
    const total = { entries: 0, hits: 0, misses: 0, maxEntriesPerThread: this.scoreMemoEntries };
    for (const m of this.memos.values()) {
      total.entries += m.entries;
      total.hits += m.hits;
      total.misses += m.misses;
    }
    return total;
  }

  /** Keeps the latest cache and memo figures of the thread that ran a job. */
  private noteCaches(value: {
    programCache: WorkerCacheStats | null;
    scoreMemo: WorkerMemoStats | null;
  }): void {
    if (value.programCache !== null) this.caches.set(value.programCache.threadId, value.programCache);
    if (value.scoreMemo !== null) this.memos.set(value.scoreMemo.threadId, value.scoreMemo);
  }

  /**
   * Scores a batch; results come back in request order. Rejects only on an internal fault.
   * `normalizedPrograms: false` leaves norm(M) out of the scores (`normalizedProgram` null): a caller
   * that executes nothing has no use for it, and carrying it back from the workers is a third of the cost
   * of a batch.
   */
  async score(
    requests: readonly MetricsRequest[],
    options: { normalizedPrograms: boolean } = { normalizedPrograms: true },
  ): Promise<MetricsResult[]> {
    // Groups by (reward config, C, G), each key a map level of its own: hashing the programs themselves
    // costs far less than building a key string of several kilobytes per request.
    const groups: Group[] = [];
    const byTask = new Map<string, Map<string, Map<string, Group>>>();
    const slotOf: { group: Group; completion: number }[] = [];
    requests.forEach((request, index) => {
      const configKey = configKeyOf(request.config);
      let byCorrupted = byTask.get(configKey);
      if (byCorrupted === undefined) {
        byCorrupted = new Map();
        byTask.set(configKey, byCorrupted);
      }
      let byGold = byCorrupted.get(request.corrupted);
      if (byGold === undefined) {
        byGold = new Map();
        byCorrupted.set(request.corrupted, byGold);
      }
      let group = byGold.get(request.gold);
      if (group === undefined) {
        group = {
          job: {
            corrupted: request.corrupted,
            gold: request.gold,
            completions: [],
            config: request.config,
            normalizedPrograms: options.normalizedPrograms,
          },
          completionIndex: new Map(),
          outcome: null,
        };
        byGold.set(request.gold, group);
        groups.push(group);
      }
      let slot = group.completionIndex.get(request.completion);
      if (slot === undefined) {
        slot = group.job.completions.length;
        group.job.completions.push(request.completion);
        group.completionIndex.set(request.completion, slot);
      }
      slotOf[index] = { group, completion: slot };
    });
    await Promise.all(
      groups.map(async (group) => {
        const outcome = (await this.run(group.job)) as MetricsJobResult;
        if (outcome.ok) this.noteCaches(outcome.value);
        group.outcome = outcome;
      }),
    );
    return requests.map((_request, index) => {
      const slot = slotOf[index] as { group: Group; completion: number };
      const outcome = slot.group.outcome as MetricsJobResult;
      if (!outcome.ok) {
        if (outcome.code === "invalid_task") {
          return { ok: false, reason: "invalid_task", message: outcome.message, which: outcome.which };
        }
        throw new MineditError(ErrorCode.Internal, `metrics worker failed: ${outcome.message}`);
      }
      return { ok: true, score: outcome.value.scores[slot.completion] as RolloutScore };
    });
  }

  /**
   * `minedit score --no-exec` on a batch of whole lines of a rollout file (io/inputs.ts
   * `jsonlByteBatches`): decoded, read, scored and written in one worker (metrics-worker.ts `scoreRows`),
   * so the caller only moves bytes. The batch's buffer is transferred: the caller must not use it again,
   * and it must own the whole buffer. Rejects only on an internal fault.
   */
  async scoreRows(
    batch: { bytes: Uint8Array; firstLine: number },
    config: RewardConfig,
  ): Promise<RowsOutcome> {
    const job: RowsJob = { bytes: batch.bytes, firstLine: batch.firstLine, config };
    // Moved, not copied: the caller gives up the batch's buffer.
    const transferList = [batch.bytes.buffer as ArrayBuffer];
    const outcome = (await this.run(job, { name: "scoreRows", transferList })) as RowsJobResult;
    if (!outcome.ok) throw new MineditError(ErrorCode.Internal, `metrics worker failed: ${outcome.message}`);
    this.noteCaches(outcome.value);
    return outcome.value;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.groups.map((group) => group.piscina.close()));
  }
}
