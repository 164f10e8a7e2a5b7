/**
 * Piscina entry: scores the rollouts of one task group off the main thread (the default export), or a
 * whole batch of lines of a rollout file for `minedit score --no-exec` (`scoreRows`: reading, validating
 * and writing the rows here too, so that the main thread only moves text). Validates nothing beyond shape
 * (the pool builds the job), calls the pure core, and returns a plain `{ ok, value | code, message }`
 * because structured clone drops error subclasses (CONTRIBUTING.md#house-rules).
 */
import { createHash } from "node:crypto";
import { threadId } from "node:worker_threads";
import { move, transferableSymbol, valueSymbol, workerData } from "piscina";
import type { RewardConfig } from "../config.js";
import { AnalyzedProgramCache, type AnalyzedProgramCacheStats } from "../core/analyzed-program-cache.js";
import { extractProgram } from "../core/extract-program.js";
import { jsonlLinesOfBytes, type NumberedLine } from "../core/jsonl-text.js";
import { OutputBytes } from "../core/output-bytes.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import type { Verdict } from "../core/reward.js";
import {
  lookupTask,
  OUTPUT_LINE_END,
  outputLineScore,
  outputLineStart,
  parseRolloutFields,
  type TaskLookup,
} from "../core/rollout-row.js";
import { ScoreMemo, type ScoreMemoStats } from "../core/score-memo.js";
import {
  InvalidTaskProgram,
  isKnownProgram,
  noCodeScore,
  type PreparedTask,
  prepareTask,
  type RolloutScore,
  scoreCompletion,
  scoreProgram,
} from "../core/score-rollout.js";
import { parseJsonObject } from "../core/task-file.js";
import { isMineditError } from "../errors.js";

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
export type MetricsWorkerData = {
  programCacheBytes: number;
  /** The bound of the worker's score memo (core/score-memo.ts); 0: off. */
  scoreMemoEntries: number;
  /** The task file `task_id` rows of {@link RowsJob} refer to (`minedit score --tasks`), if any. */
  tasks: TaskLookup<{ corrupted: string; gold: string }> | null;
};

/**
 * Whole lines of a rollout file (`minedit score --no-exec`), as undecoded UTF-8 (transferred, not copied),
 * the first of them line `firstLine` of the file.
 */
export type RowsJob = { bytes: Uint8Array; firstLine: number; config: RewardConfig };

/** What a {@link RowsJob} gave: the output lines, the rows that could not be scored, and counts. */
export type RowsOutcome = {
  /**
   * One JSON line per scored row, in row order (core/rollout-row.ts `outputLine`), as UTF-8: moved to the
   * main thread, not copied, and written as it is.
   */
  output: Uint8Array;
  /** Rows that could not be scored, in row order, with the reason for `FILE:LINE: reason`. */
  bad: { line: number; reason: string }[];
  scored: number;
  verdicts: Partial<Record<Verdict, number>>;
  rewardSum: number;
  rewardCount: number;
  programCache: WorkerCacheStats | null;
  scoreMemo: WorkerMemoStats | null;
};

export type RowsJobResult =
  | { ok: true; value: RowsOutcome }
  | { ok: false; code: "internal"; message: string };

/** This worker's program cache after a job: the pool keeps the latest of each thread. */
export type WorkerCacheStats = AnalyzedProgramCacheStats & { threadId: number };

/** This worker's score memo after a job, likewise. */
export type WorkerMemoStats = ScoreMemoStats & { threadId: number };

export type MetricsJobResult =
  | {
      ok: true;
      value: {
        scores: RolloutScore[];
        programCache: WorkerCacheStats | null;
        scoreMemo: WorkerMemoStats | null;
      };
    }
  | { ok: false; code: "invalid_task"; message: string; which: "corrupted" | "gold" }
  | { ok: false; code: "internal"; message: string };

await loadPythonGrammar();

const { programCacheBytes, scoreMemoEntries, tasks } = workerData as MetricsWorkerData;
/** Completions' programs across calls (pool.programCacheBytes; null when 0). */
const programs = programCacheBytes > 0 ? new AnalyzedProgramCache(programCacheBytes) : null;
/** Completions' scores across calls that want no norm(M) (pool.scoreMemoEntries; null when 0). */
const memo = scoreMemoEntries > 0 ? new ScoreMemo<RolloutScore>(scoreMemoEntries) : null;
/**
 * A score's output text (core/rollout-row.ts `outputLineScore`), encoded, kept as long as the score is: a
 * score the memo answers is the same object batch after batch, so its text is written and encoded once,
 * not once per batch it appears in.
 */
const scoreBytes = new WeakMap<RolloutScore, Uint8Array>();
const UTF8 = new TextEncoder();

function scoreBytesOf(score: RolloutScore): Uint8Array {
  let bytes = scoreBytes.get(score);
  if (bytes === undefined) {
    bytes = UTF8.encode(outputLineScore(score));
    scoreBytes.set(score, bytes);
  }
  return bytes;
}

/** Prepared tasks of recent batches: a GRPO run scores the same tasks again and again. */
const PREPARED_CACHE_LIMIT = 2048;
/**
 * Prepared tasks by scope, C and G, one map level each: a task-file row's C and G are the same strings
 * every time (the worker's task table), whose hashes V8 keeps, where a key joining them was a new string
 * of several kilobytes to build and hash for every task of every batch.
 */
const prepared = new Map<string, Map<string, Map<string, PreparedTask>>>();
/** The prepared tasks in least recently used order (Map order is insertion order), with where each is kept. */
const preparedOrder = new Map<PreparedTask, { scope: string; corrupted: string; gold: string }>();
/**
 * A serial number for each prepared task and each reward config, the parts of a memo key that stand for
 * them: a task prepared again (after leaving the cache) gets a new one, so no key outlives what it named.
 */
const taskSerials = new WeakMap<PreparedTask, number>();
const configSerials = new Map<string, number>();
let serials = 0;

/** The score of a completion without code, by config serial (the same for every such completion). */
const noCodeScores = new Map<number, RolloutScore>();

function configSerial(config: RewardConfig): number {
  const key = JSON.stringify(config);
  let serial = configSerials.get(key);
  if (serial === undefined) {
    serial = serials++;
    configSerials.set(key, serial);
  }
  return serial;
}

/**
 * A completion's score without norm(M), from the memo when this worker scored the same program (the
 * completion's extracted code) before for the same task and config (`config` is `configSerial(job.config)`).
 * Keyed by the program, not the completion: the same code under different prose costs one analysis. With
 * the memo on, the program cache is not consulted: the memo answers every program it would.
 */
function scoreWithoutNormalized(
  task: PreparedTask,
  completion: string,
  job: { config: RewardConfig },
  config: number,
): RolloutScore {
  if (memo === null) {
    return {
      ...scoreCompletion(task, completion, job.config, "PASSED", programs ?? undefined),
      normalizedProgram: null,
    };
  }
  const extracted = extractProgram(completion, job.config.endOfTurnMarkers);
  if (extracted.kind === "no_code") {
    // One object per config, so that its output text is kept too (scoreBytesOf).
    let score = noCodeScores.get(config);
    if (score === undefined) {
      score = noCodeScore(job.config);
      noCodeScores.set(config, score);
    }
    return score;
  }
  // C and G themselves are scored without analysis: keeping them in the memo would only take its room.
  if (isKnownProgram(task, extracted.program)) {
    return { ...scoreProgram(task, extracted.program, job.config), normalizedProgram: null };
  }
  const digest = createHash("sha256").update(extracted.program).digest("base64");
  const key = `${taskSerials.get(task)}.${config}.${digest}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const score = { ...scoreProgram(task, extracted.program, job.config), normalizedProgram: null };
  memo.set(key, score);
  return score;
}

function cacheStats(): { programCache: WorkerCacheStats | null; scoreMemo: WorkerMemoStats | null } {
  return {
    programCache: programs === null ? null : { ...programs.stats(), threadId },
    scoreMemo: memo === null ? null : { ...memo.stats(), threadId },
  };
}

function preparedTask(job: Pick<MetricsJob, "corrupted" | "gold" | "config">): PreparedTask {
  const scope = job.config.scope;
  let byCorrupted = prepared.get(scope);
  if (byCorrupted === undefined) {
    byCorrupted = new Map();
    prepared.set(scope, byCorrupted);
  }
  let byGold = byCorrupted.get(job.corrupted);
  const cached = byGold?.get(job.gold);
  if (cached !== undefined) {
    // Re-inserting makes this the most recently used entry.
    const where = preparedOrder.get(cached) as { scope: string; corrupted: string; gold: string };
    preparedOrder.delete(cached);
    preparedOrder.set(cached, where);
    return cached;
  }
  const task = prepareTask(job.corrupted, job.gold, scope);
  taskSerials.set(task, serials++);
  if (byGold === undefined) {
    byGold = new Map();
    byCorrupted.set(job.corrupted, byGold);
  }
  byGold.set(job.gold, task);
  preparedOrder.set(task, { scope, corrupted: job.corrupted, gold: job.gold });
  if (preparedOrder.size > PREPARED_CACHE_LIMIT) {
    const [oldest, where] = preparedOrder.entries().next().value as [
      PreparedTask,
      { scope: string; corrupted: string; gold: string },
    ];
    preparedOrder.delete(oldest);
    const golds = prepared.get(where.scope)?.get(where.corrupted);
    golds?.delete(where.gold);
    if (golds?.size === 0) prepared.get(where.scope)?.delete(where.corrupted);
  }
  return task;
}

export default function scoreGroup(job: MetricsJob): MetricsJobResult {
  try {
    const task = preparedTask(job);
    const config = configSerial(job.config);
    const scores = job.completions.map((c) =>
      job.normalizedPrograms
        ? scoreCompletion(task, c, job.config, "PASSED", programs ?? undefined)
        : scoreWithoutNormalized(task, c, job, config),
    );
    return { ok: true, value: { scores, ...cacheStats() } };
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

/** One row of a {@link RowsJob}: why it cannot be scored, or its fields and where its score will be. */
type RowItem =
  | { line: number; bad: string }
  | { line: number; fields: ReturnType<typeof parseRolloutFields>; group: RowGroup; slot: number };

/** The rows of one task in a {@link RowsJob}: its distinct completions, their scores once computed. */
type RowGroup = {
  corrupted: string;
  gold: string;
  /** How messages name the task: its task-file label, or null for an inline task. */
  label: string | null;
  completions: Map<string, number>;
  scores: RolloutScore[];
  /** Why the task cannot be scored (its C or G is not Python), once known. */
  invalid: string | null;
};

/**
 * `minedit score --no-exec` on a batch of lines: decoded and split as the main thread would
 * (core/jsonl-text.ts), each line read as a rollout row (core/rollout-row.ts),
 * its task found, identical completions of a task scored once, and the output lines written, all in
 * row order — what the CLI's main thread did row by row before, so that it now only moves text.
 */
export function scoreRows(job: RowsJob): RowsJobResult {
  try {
    const items: RowItem[] = [];
    const groups = new Map<string, Map<string, RowGroup>>();
    const config = configSerial(job.config);
    const rows: NumberedLine[] = [];
    jsonlLinesOfBytes(job.bytes, job.firstLine, rows);
    for (const { line, text } of rows) {
      let fields: ReturnType<typeof parseRolloutFields>;
      try {
        fields = parseRolloutFields(parseJsonObject(text), false);
      } catch (error) {
        if (!isMineditError(error)) throw error;
        items.push({ line, bad: error.rawMessage });
        continue;
      }
      let task: { corrupted: string; gold: string };
      let label: string | null = null;
      if (fields.inline !== undefined) {
        task = fields.inline;
      } else {
        const found = lookupTask(fields.taskId as string | number, tasks ?? undefined);
        if (typeof found === "string") {
          items.push({ line, bad: found });
          continue;
        }
        task = found.task;
        label = found.label;
      }
      let byGold = groups.get(task.corrupted);
      if (byGold === undefined) {
        byGold = new Map();
        groups.set(task.corrupted, byGold);
      }
      let group = byGold.get(task.gold);
      if (group === undefined) {
        group = { ...task, label, completions: new Map(), scores: [], invalid: null };
        byGold.set(task.gold, group);
      }
      let slot = group.completions.get(fields.completion);
      if (slot === undefined) {
        slot = group.completions.size;
        group.completions.set(fields.completion, slot);
      }
      items.push({ line, fields, group, slot });
    }
    for (const byGold of groups.values()) {
      for (const group of byGold.values()) {
        let task: PreparedTask;
        try {
          task = preparedTask({ corrupted: group.corrupted, gold: group.gold, config: job.config });
        } catch (error) {
          if (!(error instanceof InvalidTaskProgram)) throw error;
          group.invalid = `${group.label ?? "inline task"}: ${error.message}`;
          continue;
        }
        for (const completion of group.completions.keys()) {
          group.scores.push(scoreWithoutNormalized(task, completion, job, config));
        }
      }
    }
    const output = new OutputBytes(job.bytes.length);
    const outcome: RowsOutcome = {
      output: EMPTY,
      bad: [],
      scored: 0,
      verdicts: {},
      rewardSum: 0,
      rewardCount: 0,
      ...cacheStats(),
    };
    for (const item of items) {
      if ("bad" in item) {
        outcome.bad.push({ line: item.line, reason: item.bad });
        continue;
      }
      if (item.group.invalid !== null) {
        outcome.bad.push({ line: item.line, reason: item.group.invalid });
        continue;
      }
      const score = item.group.scores[item.slot] as RolloutScore;
      output.text(outputLineStart(item.fields));
      // Rows of one slot (identical completions of a task) share their score, and so its text.
      output.bytes(scoreBytesOf(score));
      output.bytes(LINE_END);
      outcome.scored += 1;
      outcome.verdicts[score.verdict] = (outcome.verdicts[score.verdict] ?? 0) + 1;
      if (score.reward !== null) {
        outcome.rewardSum += score.reward;
        outcome.rewardCount += 1;
      }
    }
    outcome.output = output.done();
    return moving({ ok: true, value: outcome }, outcome.output.buffer as ArrayBuffer);
  } catch (error) {
    return {
      ok: false,
      code: "internal",
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
}

const EMPTY = new Uint8Array(0);

/**
 * The end every output line shares (core/rollout-row.ts `OUTPUT_LINE_END`), encoded once: it is most of a
 * line, and building the lines as text, sending them and encoding them on the main thread took as long as
 * scoring their programs (benchmarks/README.md, "Metrics": the stage table).
 */
const LINE_END = UTF8.encode(OUTPUT_LINE_END);

/** `value` sent back with `buffer` moved to the receiving thread, not copied (piscina's transferable protocol). */
function moving<T extends object>(value: T, buffer: ArrayBuffer): T {
  return move({ [transferableSymbol]: [buffer], [valueSymbol]: value } as never) as unknown as T;
}
