/**
 * Piscina entry: scores the rollouts of one task group off the main thread. Validates nothing beyond
 * shape (the pool builds the job), calls the pure core, and returns a plain `{ ok, value | code, message }`
 * because structured clone drops error subclasses (STYLE.md).
 */
import { threadId } from "node:worker_threads";
import { workerData } from "piscina";
import type { RewardConfig } from "../config.js";
import { AnalyzedProgramCache, type AnalyzedProgramCacheStats } from "../core/analyzed-program-cache.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import {
  InvalidTaskProgram,
  type PreparedTask,
  prepareTask,
  type RolloutScore,
  scoreCompletion,
} from "../core/score-rollout.js";

export type MetricsJob = {
  corrupted: string;
  gold: string;
  /** Distinct completions of this task; the pool maps duplicates back. */
  completions: string[];
  config: RewardConfig;
  /**
   * Whether the scores carry norm(M) (`normalizedProgram`): only a caller that executes the programs
   * needs it (to run each normalized program once), and sending it back costs more than computing it.
   */
  normalizedPrograms: boolean;
};

/** What the pool passes every worker (Piscina's `workerData`). */
export type MetricsWorkerData = { programCacheBytes: number };

/** This worker's program cache after a job: the pool keeps the latest of each thread. */
export type WorkerCacheStats = AnalyzedProgramCacheStats & { threadId: number };

export type MetricsJobResult =
  | { ok: true; value: { scores: RolloutScore[]; programCache: WorkerCacheStats | null } }
  | { ok: false; code: "invalid_task"; message: string; which: "corrupted" | "gold" }
  | { ok: false; code: "internal"; message: string };

await loadPythonGrammar();

const { programCacheBytes } = workerData as MetricsWorkerData;
/** Completions' programs across calls (pool.programCacheBytes; null when 0). */
const programs = programCacheBytes > 0 ? new AnalyzedProgramCache(programCacheBytes) : null;

/** Prepared tasks of recent batches: a GRPO run scores the same tasks again and again. */
const PREPARED_CACHE_LIMIT = 2048;
const prepared = new Map<string, PreparedTask>();

function preparedTask(job: MetricsJob): PreparedTask {
  const key = `${job.config.scope}\u0000${job.corrupted}\u0000${job.gold}`;
  const cached = prepared.get(key);
  if (cached !== undefined) {
    // Map iteration order is insertion order: re-inserting makes this the most recently used entry.
    prepared.delete(key);
    prepared.set(key, cached);
    return cached;
  }
  const task = prepareTask(job.corrupted, job.gold, job.config.scope);
  prepared.set(key, task);
  if (prepared.size > PREPARED_CACHE_LIMIT) {
    const oldest = prepared.keys().next().value;
    if (oldest !== undefined) prepared.delete(oldest);
  }
  return task;
}

export default function scoreGroup(job: MetricsJob): MetricsJobResult {
  try {
    const task = preparedTask(job);
    const scores = job.completions.map((c) => {
      const score = scoreCompletion(task, c, job.config, "PASSED", programs ?? undefined);
      return job.normalizedPrograms ? score : { ...score, normalizedProgram: null };
    });
    const programCache = programs === null ? null : { ...programs.stats(), threadId };
    return { ok: true, value: { scores, programCache } };
  } catch (error) {
    if (error instanceof InvalidTaskProgram) {
      return { ok: false, code: "invalid_task", message: error.message, which: error.which };
    }
    return {
      ok: false,
      code: "internal",
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
}
