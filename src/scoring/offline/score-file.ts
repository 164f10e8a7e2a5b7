/**
 * Offline scoring of a file of model completions with the edit-minimality reward (SPEC §2), as `minedit
 * score FILE.jsonl` runs it: open the inputs (and the sandbox), stream the rows in batches through the
 * metrics pool and, unless execution is off, the task's tests in the sandbox, write one JSON result per
 * scored row to stdout in input order, report bad rows as `FILE:LINE: reason`, and print a summary. The main thread only reads JSON
 * and writes JSON; every Python parse and every Levenshtein runs in the piscina workers, every test run
 * in the sandbox, both through the service's own {@link ExecutingRolloutScorer}.
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
import { REWARD_DEFINITION_VERSION, VERDICTS, type Verdict } from "../../core/reward.js";
import { parseJsonObject } from "../../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../../errors.js";
import { type Input, jsonlLines, openInput } from "../../io/inputs.js";
import { Progress } from "../../io/progress.js";
import type { StdIo } from "../../io/std-io.js";
import { createConfiguredSandbox } from "../../sandbox/create.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { MetricsPool, type ProgramCacheStats } from "../../workers/metrics-pool.js";
import { ExecutingRolloutScorer } from "../rollout-scorer.js";
import { TaskStore } from "../task-store.js";
import { executing, type Job, type JobResult, metricsOnly, type RowScore } from "./batch-scorers.js";
import { errorMessage, parseRolloutRow, type RolloutRow } from "./rows.js";
import { loadTasks, resolveTask, type TaskTable } from "./task-table.js";

/**
 * Rows per batch: large enough to keep every worker (and, when executing, every sandbox slot) busy and
 * to let identical programs of a task share one test run, small enough to bound memory.
 */
const BATCH_ROWS = 512;

/**
 * Batches submitted and not yet written, at most: with `--no-exec` enough to keep every worker busy
 * across batch boundaries (a batch's last group leaves the other workers idle until the next batch
 * arrives); when executing, two, so that one batch's tests queue behind the previous batch's only.
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
      sandbox = await createConfiguredSandbox(config.sandbox, (message) =>
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

/** A submitted batch, for the progress estimate: its rows, how many are done, its span of input bytes. */
type BatchProgress = { size: number; done: number; startBytes: number; endBytes: number };

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
  const pool = new MetricsPool(config.pool.threads, { programCacheBytes: config.pool.programCacheBytes });
  let programCache: ProgramCacheStats | undefined;
  try {
    const scoreBatch =
      sandbox === null
        ? metricsOnly(pool, config)
        : executing(
            pool,
            ExecutingRolloutScorer.fromConfig(config, {
              pool,
              sandbox,
              // Every job is sent as an inline task, so the scorer's store stays empty.
              tasks: TaskStore.fromTasks([]),
            }),
            config,
            abort.signal,
          );

    // Progress: rows whose result is known, and the input bytes behind them, estimated from where the
    // reader was when each batch was cut (rows are read up to two batches ahead of the results).
    const inFlight = new Set<BatchProgress>();
    let emittedBytes = 0;
    let readBytes = 0;
    const showProgress = () => {
      let done = stats.scored + stats.bad;
      let bytes = emittedBytes;
      for (const batch of inFlight) {
        done += batch.done;
        bytes += batch.size > 0 ? ((batch.endBytes - batch.startBytes) * batch.done) / batch.size : 0;
      }
      progress.update(done, rollouts.size === undefined ? undefined : bytes);
    };

    let items: Item[] = [];
    let jobs: Job[] = [];
    let previous: Promise<void> = Promise.resolve();
    /** Emissions of the batches in flight, oldest first. */
    const writing: Promise<void>[] = [];
    const inFlightLimit = execute ? BATCHES_IN_FLIGHT.executing : BATCHES_IN_FLIGHT.metrics;

    const emit = async (batch: Item[], results: JobResult[], state: BatchProgress) => {
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
      inFlight.delete(state);
      emittedBytes = state.endBytes;
      if (out !== "" && !stdoutClosed && !io.stdout.write(out)) await drained(io.stdout);
      showProgress();
    };

    // Batch k is scored while the next batches are read (when executing, only batch k+1, whose tests
    // queue behind batch k's); results are written strictly in batch order.
    const submit = async () => {
      const batch = items;
      const endBytes = rollouts.bytesRead() ?? 0;
      const state: BatchProgress = {
        size: batch.length,
        done: batch.length - jobs.length,
        startBytes: readBytes,
        endBytes,
      };
      readBytes = endBytes;
      inFlight.add(state);
      const onResult = () => {
        state.done += 1;
        showProgress();
      };
      const scoring = jobs.length > 0 ? scoreBatch(jobs, onResult) : Promise.resolve([]);
      items = [];
      jobs = [];
      // Observed below, after the previous batch; this only stops a rejection meanwhile from counting
      // as unhandled.
      scoring.catch(() => {});
      const before = previous;
      previous = before.then(async () => emit(batch, await scoring, state));
      previous.catch(() => {});
      writing.push(previous);
      // Reading goes on until this many batches wait; then it waits for the oldest to be written.
      if (writing.length >= inFlightLimit) await writing.shift();
    };

    for await (const { line, text } of jsonlLines(rollouts.stream)) {
      if (stdoutClosed) break;
      let row: RolloutRow;
      try {
        row = parseRolloutRow(parseJsonObject(text), execute);
      } catch (error) {
        items.push({ line, bad: errorMessage(error) });
        if (items.length >= BATCH_ROWS) await submit();
        continue;
      }
      const task = resolveTask(row, tasks);
      if (typeof task === "string") {
        items.push({ line, bad: task });
      } else {
        const job = jobs.length;
        jobs.push({
          corrupted: task.corrupted,
          gold: task.gold,
          completion: row.completion,
          tests: task.tests,
        });
        items.push({ line, row, job, taskLabel: task.label });
      }
      if (items.length >= BATCH_ROWS) await submit();
    }
    await submit();
    await previous;
  } finally {
    io.stdout.off("error", onStdoutError);
    programCache = pool.programCache();
    await pool.close();
  }

  if (stdoutError !== undefined) throw stdoutError;
  progress.clear();
  const seconds = (performance.now() - started) / 1000;
  io.stderr.write(summary(stats, tasks, config, execute, seconds, programCache));
  return { badRows: stats.bad, badTaskRows: tasks?.bad ?? 0 };
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

/**
 * One stdout row and its newline: the JSON of `{id, task_id?, reward, verdict, d_model, d_gold, excess,
 * added_cc, tests_passed?, tests_total?, cached?, detail, reward_version}`, keys in that order, each value
 * written by JSON.stringify (numbers as computed, no rounding) — built as text because this runs once per
 * row on the thread that also reads the input.
 */
function outputLine(row: RolloutRow, score: RowScore): string {
  const json = JSON.stringify;
  const components = score.components;
  let out = `{"id":${json(row.id)}`;
  if (row.taskId !== undefined) out += `,"task_id":${json(row.taskId)}`;
  out += `,"reward":${json(score.reward)},"verdict":${json(score.verdict)}`;
  out += `,"d_model":${json(components?.dModel ?? null)},"d_gold":${json(components?.dGold ?? null)}`;
  out += `,"excess":${json(components?.excess ?? null)},"added_cc":${json(components?.addedCc ?? null)}`;
  if (score.execution !== undefined) {
    const { testsPassed, testsTotal, cached } = score.execution;
    out += `,"tests_passed":${json(testsPassed)},"tests_total":${json(testsTotal)},"cached":${json(cached)}`;
  }
  return `${out},"detail":${json(score.detail)},"reward_version":${REWARD_VERSION_JSON}}\n`;
}

const REWARD_VERSION_JSON = JSON.stringify(REWARD_DEFINITION_VERSION);

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
  if (programCache !== undefined && programCache.maxBytesPerThread > 0) {
    const { hits, misses, entries, bytes, maxBytesPerThread } = programCache;
    lines.push(
      `  program cache: ${hits} of ${hits + misses} programs analyzed before (not parsed again); ` +
        `${entries} kept, ~${(bytes / MIB).toFixed(1)} MiB (at most ${(maxBytesPerThread / MIB).toFixed(0)} MiB per worker, pool.programCacheBytes)`,
    );
  }
  if (!execute) {
    lines.push("  --no-exec: tests were not run; every program that parses counted as PASSED");
    return `${lines.join("\n")}\n`;
  }
  const { wallTimeMs, memoryBytes, executionConcurrency } = config.sandbox;
  lines.push(
    `  tests: ${stats.executed} sandbox runs, ${stats.cached} rows reused an identical program's run ` +
      `(limits: ${wallTimeMs} ms wall, ${memoryBytes / MIB} MiB memory, ${executionConcurrency} at once)`,
  );
  const infra = stats.verdicts.get("INFRA_ERROR") ?? 0;
  if (infra > 0) {
    lines.push(
      `  INFRA_ERROR: ${infra} rows have no reward (the sandbox failed, or the task's tests are unusable); ` +
        "see their detail",
    );
  }
  return `${lines.join("\n")}\n`;
}
