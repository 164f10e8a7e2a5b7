/**
 * Offline scoring of a file of model completions with the edit-minimality reward (docs/reward.md), as `minedit
 * score FILE.jsonl` runs it: open the inputs (and the sandbox), stream the rows in batches through the
 * metrics pool and, unless execution is off, the task's tests in the sandbox, write one JSON result per
 * scored row to stdout in input order, report bad rows as `FILE:LINE: reason`, and print a summary. Every
 * Python parse and every Levenshtein runs in the piscina workers, every test run in the sandbox, both
 * through the service's own {@link ExecutingRolloutScorer}. With `--no-exec` the main thread only moves
 * bytes: it cuts the input into batches of whole lines, undecoded, and a worker decodes, reads, scores and
 * writes each batch (metrics-worker.ts `scoreRows`), so a million rows are not bound by one thread; when
 * executing, it reads the rows itself to feed the sandbox.
 *
 * Decisions the issue leaves open, and why:
 * - A row that gives both `task_id` and inline `corrupted`/`gold` is a bad row: silently preferring one
 *   source could score against programs the writer did not mean, and the fix (drop one) is the writer's.
 *   When executing, the same holds for a `task_id` row that also carries `tests` or `entry_point`.
 * - Bad rows produce no stdout line (there may be no id to put on it); results are keyed by `id`, and
 *   stdout keeps the input order of the rows that were scored.
 * - A task id defined twice in the task file is reported once per extra definition, and every rollout
 *   that refers to it is a bad row ("ambiguous"): keeping either definition would be a guess.
 * - Bad task rows make the exit code 1 even when no rollout refers to them: exit 0 means nothing in the
 *   input was wrong. When executing, a task row without `tests` is such a bad row (it cannot be scored);
 *   with `--no-exec` the `tests` and `entry_point` fields are ignored, as before execution existed.
 * - Whether a task's programs are valid Python is discovered by the workers when a rollout uses the task;
 *   each such rollout is a bad row naming the task and its line in the task file.
 * - A sandbox fault (verdict INFRA_ERROR, reward null) is an output row, not a bad row: the input was
 *   fine, and the row says what happened. The summary counts them.
 * - Blank lines are skipped (but counted, so line numbers are those an editor shows); a UTF-8 BOM at the
 *   start of a file is ignored.
 */
import { setMaxListeners } from "node:events";
import type { Writable } from "node:stream";
import type { Config } from "../../config.js";
import { VERDICTS, type Verdict } from "../../core/reward.js";
import { outputLine, type RowScore } from "../../core/rollout-row.js";
import { parseJsonObject } from "../../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../../errors.js";
import { type Input, type JsonlBatch, jsonlByteBatches, jsonlLines, openInput } from "../../io/inputs.js";
import { Progress } from "../../io/progress.js";
import type { StdIo } from "../../io/std-io.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { MetricsPool, type ProgramCacheStats } from "../../workers/metrics-pool.js";
import type { RowsOutcome } from "../../workers/metrics-worker.js";
import { executing, type Job, type JobResult } from "./batch-scorers.js";
import { errorMessage, parseRolloutRow, type RolloutRow } from "./rows.js";
import { loadTasks, resolveTask, type TaskTable } from "./task-table.js";

/**
 * Rows per batch: large enough to keep every worker (and, when executing, every sandbox slot) busy and
 * to let identical programs of a task share one test run, small enough to bound memory.
 */
const BATCH_ROWS = 512;

/**
 * Batches submitted and not yet written, at most: with `--no-exec` enough to keep every worker busy (a
 * batch is one worker's job, and batches finish out of order); when executing, two, so that one batch's
 * tests queue behind the previous batch's only.
 */
const BATCHES_IN_FLIGHT = { metrics: 6, executing: 2 };

const MIB = 1024 * 1024;

/** What to score: the rollout file and the task file (paths, `-` for stdin), with or without execution. */
export type ScoreFileRequest = {
  file: string;
  tasksFile: string | undefined;
  /** false: score the edit distance only (every program that parses counts as PASSED). */
  execute: boolean;
  config: Config;
};

/** The opened inputs and sandbox of a run. `sandbox` is null exactly when not executing. */
export type ScoreFileRun = {
  config: Config;
  rollouts: Input;
  tasks: Input | undefined;
  sandbox: Sandbox | null;
  /** Closes the inputs and the sandbox; call once, however the run ended. */
  close(): Promise<void>;
};

/** How a run went: rows that could not be scored (reported on stderr), and bad rows of the task file. */
export type ScoreFileOutcome = { badRows: number; badTaskRows: number };

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

/**
 * Opens everything a run needs, cheapest first, so a missing file is reported before a sandbox starts.
 *
 * @throws MineditError `InvalidArgument` with a message for the user (unreadable input, no sandbox).
 */
export async function openScoreFile(request: ScoreFileRequest, io: StdIo): Promise<ScoreFileRun> {
  const { file, tasksFile, config } = request;
  if (file === "-" && tasksFile === "-") throw usage("FILE and --tasks cannot both read stdin");
  const tasks = tasksFile === undefined ? undefined : await openInput(tasksFile, io.stdin, "--tasks");
  let rollouts: Input;
  try {
    rollouts = await openInput(file, io.stdin, "FILE");
  } catch (error) {
    await tasks?.close();
    throw error;
  }
  // Started last, once every cheap check has passed: creating the sandbox runs a probe program in it.
  let sandbox: Sandbox | null = null;
  if (request.execute) {
    try {
      // The sandbox and the executing scorer are imported only by a run that executes: they are three
      // quarters of the modules this file would load, and a `--no-exec` run uses none of them.
      const { createConfiguredSandbox } = await import("../../sandbox/create.js");
      sandbox = await createConfiguredSandbox(config.sandbox, config.limits.tests, (message) =>
        io.stderr.write(`minedit: ${message}\n`),
      );
    } catch (error) {
      await Promise.all([rollouts.close(), tasks?.close()]);
      if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
        throw usage(
          `cannot run the tests: ${error.rawMessage}\n` +
            "The tests run in a bubblewrap sandbox: install bubblewrap (Debian: apt-get install -y " +
            "bubblewrap) and fix the problem above, or pass --no-exec to score the edit distance only " +
            "(every program that parses then counts as passing).",
        );
      }
      throw error;
    }
  }
  const running = sandbox;
  return {
    config,
    rollouts,
    tasks,
    sandbox,
    async close() {
      await Promise.all([rollouts.close(), tasks?.close(), running?.close()]);
    },
  };
}

/** A row that is either bad (with its reason) or waiting for job `job` of its batch. */
type Item =
  | { line: number; bad: string }
  | { line: number; row: RolloutRow; job: number; taskLabel: string | undefined };

type Stats = {
  scored: number;
  bad: number;
  verdicts: Map<Verdict, number>;
  rewardSum: number;
  rewardCount: number;
  /** Rows whose program ran in the sandbox, and rows that reused an identical program's run. */
  executed: number;
  cached: number;
};

/** The workers' score memos together (metrics-pool.ts `scoreMemo`). */
type ScoreMemoReport = ReturnType<MetricsPool["scoreMemo"]>;

/** A submitted batch, for the progress estimate: its rows, how many are done, its span of input bytes. */
type BatchProgress = { size: number; done: number; startBytes: number; endBytes: number };

/**
 * Batches scored concurrently and written strictly in the order they were read: reading goes on while
 * up to `limit` batches wait, then waits for the oldest to be written.
 */
class InOrderWriter {
  private previous: Promise<void> = Promise.resolve();
  private readonly waiting: Promise<void>[] = [];

  constructor(private readonly limit: number) {}

  /** Queues `write(await scoring)` after the batches before it; returns once there is room for another. */
  async add<T>(scoring: Promise<T>, write: (result: T) => Promise<void>): Promise<void> {
    // Observed below, after the previous batch; this only stops a rejection meanwhile from counting as
    // unhandled.
    scoring.catch(() => {});
    this.previous = this.previous.then(async () => write(await scoring));
    this.previous.catch(() => {});
    this.waiting.push(this.previous);
    if (this.waiting.length >= this.limit) await this.waiting.shift();
  }

  /** Resolves when every batch is written; rejects with the first failure. */
  finished(): Promise<void> {
    return this.previous;
  }
}

/** What both ways of reading a run share: where rows go, and how progress and bad rows are reported. */
type RunContext = {
  config: Config;
  rollouts: Input;
  tasks: TaskTable | undefined;
  pool: MetricsPool;
  stats: Stats;
  io: StdIo;
  report: (message: string) => void;
  progress: ProgressTracker;
  /** True once stdout is gone (`| head`) or failed: stop reading. */
  stopped: () => boolean;
  /** Writes scored rows' lines, waiting while stdout is full. */
  write: (text: string | Uint8Array) => Promise<void>;
};

/**
 * Rows whose result is known and the input bytes behind them, for the progress bar: batches in flight
 * count the rows done so far and a share of their bytes (rows are read ahead of the results).
 */
class ProgressTracker {
  private readonly inFlight = new Set<BatchProgress>();
  private emittedBytes = 0;
  private readBytes = 0;

  constructor(
    private readonly progress: Progress,
    private readonly stats: Stats,
    private readonly knownSize: boolean,
  ) {}

  /** A batch read up to input byte `endBytes`, of `size` rows of which `done` are already known. */
  start(size: number, done: number, endBytes: number): BatchProgress {
    const state = { size, done, startBytes: this.readBytes, endBytes };
    this.readBytes = endBytes;
    this.inFlight.add(state);
    return state;
  }

  /** The batch is written (its rows are in `stats`). */
  finish(state: BatchProgress): void {
    this.inFlight.delete(state);
    this.emittedBytes = state.endBytes;
    this.show();
  }

  show(): void {
    let done = this.stats.scored + this.stats.bad;
    let bytes = this.emittedBytes;
    for (const batch of this.inFlight) {
      done += batch.done;
      bytes += batch.size > 0 ? ((batch.endBytes - batch.startBytes) * batch.done) / batch.size : 0;
    }
    this.progress.update(done, this.knownSize ? bytes : undefined);
  }
}

/** Scores every row of an opened run; writes results to `io.stdout` and reports to `io.stderr`. */
export async function scoreFile(setup: ScoreFileRun, io: StdIo): Promise<ScoreFileOutcome> {
  const started = performance.now();
  const { config, rollouts, sandbox } = setup;
  const execute = sandbox !== null;
  const progress = new Progress({
    stream: io.stderr,
    label: "minedit score",
    unit: "rows",
    ...(rollouts.size === undefined ? {} : { totalBytes: rollouts.size }),
  });
  const report = (message: string) => progress.log(message);
  const tasks = setup.tasks === undefined ? undefined : await loadTasks(setup.tasks, report, execute);

  // With `--no-exec` a batch is one worker's job, and each worker costs a quarter of a second of CPU to
  // start (its modules, the grammar): a file of fewer batches than threads starts one worker per batch.
  // Only a file is read ahead; rows that arrive on stdin are not waited for.
  const batches = execute ? undefined : jsonlByteBatches(rollouts.stream, BATCH_ROWS);
  const readAhead: JsonlBatch[] = [];
  let threads = config.pool.threads;
  if (batches !== undefined && rollouts.size !== undefined) {
    while (readAhead.length < threads) {
      const next = await batches.next();
      if (next.done === true) {
        threads = Math.max(1, readAhead.length);
        break;
      }
      readAhead.push(next.value);
    }
  }

  // A consumer that stops reading (`| head`) is not an error of ours: stop scoring quietly (and stop the
  // test runs in flight). Any other stdout failure also stops the run, and is reported as an internal
  // error once the pool is closed.
  const abort = new AbortController();
  // Every test run queued or running listens on this one signal (up to two batches of them): not a leak.
  setMaxListeners(0, abort.signal);
  let stdoutClosed = false;
  let stdoutError: Error | undefined;
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    stdoutClosed = true;
    abort.abort();
    if (error.code !== "EPIPE") stdoutError ??= error;
  };
  io.stdout.on("error", onStdoutError);

  const stats: Stats = {
    scored: 0,
    bad: 0,
    verdicts: new Map(),
    rewardSum: 0,
    rewardCount: 0,
    executed: 0,
    cached: 0,
  };
  const pool = new MetricsPool(threads, {
    programCacheBytes: config.pool.programCacheBytes,
    scoreMemoEntries: config.pool.scoreMemoEntries,
    // The workers resolve the rows' task ids themselves when nothing is executed.
    ...(tasks === undefined || execute ? {} : { tasks: { name: tasks.name, entries: tasks.entries } }),
  });
  const context: RunContext = {
    config,
    rollouts,
    tasks,
    pool,
    stats,
    io,
    report,
    progress: new ProgressTracker(progress, stats, rollouts.size !== undefined),
    stopped: () => stdoutClosed,
    write: async (text) => {
      if (text.length > 0 && !stdoutClosed && !io.stdout.write(text)) await drained(io.stdout);
    },
  };
  let programCache: ProgramCacheStats | undefined;
  let scoreMemo: ScoreMemoReport | undefined;
  try {
    if (sandbox !== null) await scoreExecuting(context, sandbox, abort.signal);
    else if (batches !== undefined) await scoreInWorkers(context, readAhead, batches);
  } finally {
    io.stdout.off("error", onStdoutError);
    programCache = pool.programCache();
    scoreMemo = pool.scoreMemo();
    await pool.close();
  }

  if (stdoutError !== undefined) throw stdoutError;
  progress.clear();
  const seconds = (performance.now() - started) / 1000;
  io.stderr.write(summary(stats, tasks, config, execute, seconds, programCache, scoreMemo));
  return { badRows: stats.bad, badTaskRows: tasks?.bad ?? 0 };
}

/**
 * `--no-exec`: the main thread cuts the input into batches of whole lines, undecoded, and a worker reads,
 * scores and writes each (metrics-worker.ts `scoreRows`); here only the counts and the bad rows' reasons
 * come back besides the output text.
 */
async function scoreInWorkers(
  context: RunContext,
  readAhead: readonly JsonlBatch[],
  rest: AsyncGenerator<JsonlBatch>,
): Promise<void> {
  const { config, rollouts, pool, stats, report, progress } = context;
  const writer = new InOrderWriter(BATCHES_IN_FLIGHT.metrics);
  const write = async (outcome: RowsOutcome, state: BatchProgress) => {
    for (const { line, reason } of outcome.bad) report(`${rollouts.name}:${line}: ${reason}`);
    stats.bad += outcome.bad.length;
    stats.scored += outcome.scored;
    for (const [verdict, count] of Object.entries(outcome.verdicts) as [Verdict, number][]) {
      stats.verdicts.set(verdict, (stats.verdicts.get(verdict) ?? 0) + count);
    }
    stats.rewardSum += outcome.rewardSum;
    stats.rewardCount += outcome.rewardCount;
    await context.write(outcome.output);
    progress.finish(state);
  };
  let readBytes = 0;
  async function* all(): AsyncGenerator<JsonlBatch> {
    yield* readAhead;
    yield* rest;
  }
  for await (const batch of all()) {
    if (context.stopped()) break;
    // The batch's rows are counted when it is written: they are not split here.
    readBytes += batch.bytes.length;
    const state = progress.start(0, 0, readBytes);
    await writer.add(pool.scoreRows(batch, config.reward), (outcome) => write(outcome, state));
  }
  await writer.finished();
}

/**
 * Executing: the main thread reads the rows (it needs their tests) and the service's scorer runs each
 * batch — metrics in the workers, tests in the sandbox — while the next batch is read: only one, whose
 * tests queue behind this batch's.
 */
async function scoreExecuting(context: RunContext, sandbox: Sandbox, signal: AbortSignal): Promise<void> {
  const { config, rollouts, tasks, pool, stats, report, progress } = context;
  const [{ runtimeProblem }, { ExecutingRolloutScorer }, { TaskStore }] = await Promise.all([
    import("../../sandbox/create.js"),
    import("../rollout-scorer.js"),
    import("../task-store.js"),
  ]);
  const scoreBatch = executing(
    pool,
    ExecutingRolloutScorer.fromConfig(config, {
      pool,
      sandbox,
      // Every job is sent as an inline task, so the scorer's store stays empty.
      tasks: TaskStore.fromTasks([]),
      runtimeProblem: runtimeProblem(config.sandbox),
    }),
    config,
    signal,
  );
  const writer = new InOrderWriter(BATCHES_IN_FLIGHT.executing);
  const write = async (batch: Item[], results: JobResult[], state: BatchProgress) => {
    let out = "";
    for (const item of batch) {
      if ("bad" in item) {
        report(`${rollouts.name}:${item.line}: ${item.bad}`);
        stats.bad += 1;
        continue;
      }
      const result = results[item.job] as JobResult;
      if (!result.ok) {
        report(`${rollouts.name}:${item.line}: ${item.taskLabel ?? "inline task"}: ${result.message}`);
        stats.bad += 1;
        continue;
      }
      out += outputLine(item.row, result.score);
      countScore(stats, result.score);
    }
    await context.write(out);
    progress.finish(state);
  };

  let items: Item[] = [];
  let jobs: Job[] = [];
  const submit = async () => {
    const batch = items;
    const state = progress.start(batch.length, batch.length - jobs.length, rollouts.bytesRead() ?? 0);
    const onResult = () => {
      state.done += 1;
      progress.show();
    };
    const scoring = jobs.length > 0 ? scoreBatch(jobs, onResult) : Promise.resolve([]);
    items = [];
    jobs = [];
    await writer.add(scoring, (results) => write(batch, results, state));
  };
  for await (const { line, text } of jsonlLines(rollouts.stream)) {
    if (context.stopped()) break;
    let row: RolloutRow;
    try {
      row = parseRolloutRow(parseJsonObject(text), true);
    } catch (error) {
      items.push({ line, bad: errorMessage(error) });
      if (items.length >= BATCH_ROWS) await submit();
      continue;
    }
    const task = resolveTask(row, tasks);
    if (typeof task === "string") {
      items.push({ line, bad: task });
    } else {
      jobs.push({
        corrupted: task.corrupted,
        gold: task.gold,
        completion: row.completion,
        tests: task.tests,
      });
      items.push({ line, row, job: jobs.length - 1, taskLabel: task.label });
    }
    if (items.length >= BATCH_ROWS) await submit();
  }
  await submit();
  await writer.finished();
}

/** Waits until a stream that refused a write can take more (or is gone: then there is no point waiting). */
function drained(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
    stream.on("error", done);
  });
}

/** Verdicts decided before any test runs: there is no program to run. */
const NOT_RUN: ReadonlySet<Verdict> = new Set(["UNPARSABLE", "NO_CODE"]);

function countScore(stats: Stats, score: RowScore): void {
  stats.scored += 1;
  stats.verdicts.set(score.verdict, (stats.verdicts.get(score.verdict) ?? 0) + 1);
  if (score.reward !== null) {
    stats.rewardSum += score.reward;
    stats.rewardCount += 1;
  }
  if (score.execution !== undefined && !NOT_RUN.has(score.verdict)) {
    if (score.execution.cached) stats.cached += 1;
    else stats.executed += 1;
  }
}

function summary(
  stats: Stats,
  tasks: TaskTable | undefined,
  config: Config,
  execute: boolean,
  seconds: number,
  programCache: ProgramCacheStats | undefined,
  scoreMemo: ScoreMemoReport | undefined,
): string {
  const rate = seconds > 0 ? stats.scored / seconds : 0;
  const verdicts = VERDICTS.filter((v) => stats.verdicts.has(v))
    .map((v) => `${v} ${stats.verdicts.get(v)}`)
    .join(", ");
  const mean =
    stats.rewardCount > 0 ? String(Number((stats.rewardSum / stats.rewardCount).toPrecision(6))) : "n/a";
  const lines = [
    `minedit score: ${stats.scored} rows scored, ${stats.bad} bad rows, ${seconds.toFixed(2)} s, ` +
      `${rate.toFixed(1)} rollouts/s`,
    `  verdicts: ${verdicts === "" ? "none" : verdicts}`,
    `  mean reward: ${mean} over ${stats.rewardCount} scored rows (variant ${config.reward.variant})`,
  ];
  if (tasks !== undefined) {
    lines.push(`  tasks: ${tasks.loaded} loaded from ${tasks.name}, ${tasks.bad} bad task rows`);
  }
  // With --no-exec the score memo answers every program the cache would, so the cache goes unused.
  if (
    programCache !== undefined &&
    programCache.maxBytesPerThread > 0 &&
    programCache.hits + programCache.misses > 0
  ) {
    const { hits, misses, entries, bytes, maxBytesPerThread } = programCache;
    lines.push(
      `  program cache: ${hits} of ${hits + misses} programs analyzed before (not parsed again); ` +
        `${entries} kept, ~${(bytes / MIB).toFixed(1)} MiB (at most ${(maxBytesPerThread / MIB).toFixed(0)} MiB per worker, pool.programCacheBytes)`,
    );
  }
  if (!execute && scoreMemo !== undefined && scoreMemo.maxEntriesPerThread > 0) {
    const { hits, misses, entries, maxEntriesPerThread } = scoreMemo;
    lines.push(
      `  score memo: ${hits} of ${hits + misses} programs scored before for their task (not analyzed again); ` +
        `${entries} kept (at most ${maxEntriesPerThread} per worker, pool.scoreMemoEntries)`,
    );
  }
  if (!execute) {
    lines.push("  --no-exec: tests were not run; every program that parses counted as PASSED");
    return `${lines.join("\n")}\n`;
  }
  const { wallTimeMs, memoryBytes } = config.limits.tests;
  const { executionConcurrency } = config.sandbox;
  lines.push(
    `  tests: ${stats.executed} sandbox runs, ${stats.cached} rows reused an identical program's run ` +
      `(limits: ${wallTimeMs} ms wall, ${memoryBytes / MIB} MiB memory, ${executionConcurrency} at once)`,
  );
  const infra = stats.verdicts.get("INFRA_ERROR") ?? 0;
  if (infra > 0) {
    lines.push(`  INFRA_ERROR: ${infra} rows have no reward (the sandbox failed); see their detail`);
  }
  const invalid = stats.verdicts.get("INVALID_TASK") ?? 0;
  if (invalid > 0) {
    lines.push(
      `  INVALID_TASK: ${invalid} rows have no reward (their task's gold fails its own tests, or its tests ` +
        "are unusable); see their detail",
    );
  }
  return `${lines.join("\n")}\n`;
}
