/**
 * The task builder (docs/tasks.md#corruption-families; the over-editing paper §3.1 and §4.1): turns a problem source into repair
 * tasks whose minimal fix is known by construction. For each problem: corrupt the gold program with the
 * engine, run gold and corrupted programs against the problem's tests in the sandbox, and keep a task
 * only when the gold program passes and the corrupted one fails.
 *
 * Decisions, and why:
 * - Candidates. The engine draws up to `candidates` distinct corrupted programs of a problem (distinct
 *   once normalized) from one stream seeded by `seed` and the problem id, each with k corruptions, k
 *   uniform in the range and each corruption's family uniformly among those with a site, or both drawn
 *   by the paper mix's weights (registry.ts). They are tested in that order until `variants` of them fail the tests. So a
 *   problem's tasks depend only on the seed, its own program and its tests — not on the order of the
 *   source, on parallelism or on which problems were built before (resuming gives the same tasks).
 * - The gold program runs once per problem, after the engine found something to corrupt (no sandbox run
 *   is spent on a problem no requested family applies to).
 * - An already-corrupted source row (`Problem.corrupted`) is not corrupted again: its one task is kept when
 *   gold passes and the given corrupted program fails. Its `corruptions` name the source's families only.
 * - Any verdict but PASSED counts as failing (wrong answer, exception, timeout, memory), except
 *   INFRA_ERROR: a sandbox fault says nothing about the program, and the candidate is rejected.
 * - Output order is source order, whatever the parallelism: finished problems wait until every earlier
 *   one is written. So the task file is always a prefix of what a full run writes, an interrupted run
 *   resumed gives the same file as an uninterrupted one, and the same seed gives the same file.
 * - Each problem's rows are appended in one write, then its line in the build log (see task-set.ts for
 *   how an interrupted pair of writes is recovered).
 *
 * I/O: reads the source, runs the sandbox, appends to the task file and its build log.
 */
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { corruptionVariants, findSites } from "../core/corruption/engine.js";
import {
  type CorruptionMix,
  familyByName,
  type MixWeights,
  mixFamilies,
  mixWeights,
} from "../core/corruption/registry.js";
import type { AppliedCorruption, CorruptionFamily } from "../core/corruption/types.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import { PySyntaxError } from "../core/python/syntax-error.js";
import { TokenizeError } from "../core/python/tokenize.js";
import type { RejectionCounts, RejectionReason } from "../core/task-stats.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { taskSetPaths } from "../io/report-files.js";
import { runPythonTests, type TestOutcome } from "../runners/python.js";
import { DEFAULT_RUNTIME } from "../sandbox/runtimes.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import { importFile } from "./importers/import-file.js";
import { runnerTests } from "./importers/runner-tests.js";
import type { ImportFormat, Problem } from "./importers/types.js";
import {
  type BuildLogEntry,
  type BuildSettings,
  type BuiltTaskRow,
  problemKey,
  recoverTaskSet,
  type TaskCorruption,
  type TaskDomain,
} from "./task-set.js";

export type BuildOptions = {
  /** Problem source file (JSONL, or a JSON array). */
  source: string;
  /** Source format; detected from the first row when absent. */
  format?: ImportFormat;
  families: readonly CorruptionFamily[];
  /**
   * How the corruptions are drawn (registry.ts): `paper` (family and count weights that reproduce the
   * over-editing paper's benchmark; in-domain families only), `uniform`, or `blocks` (uniform, with whole
   * guards inserted and removed by `edge_case_guards`, as before the paper mix).
   */
  mix: CorruptionMix;
  /** Corruptions per task: k uniform in [min, max]. */
  corruptions: { min: number; max: number };
  /** Tasks wanted per problem (distinct corrupted programs). */
  variants: number;
  /** Corrupted candidates tried per problem at most, ≥ variants. */
  candidates: number;
  seed: number;
  split: string;
  /** Task file to append to; its build log is beside it ({@link taskSetPaths}). */
  out: string;
  /** Only these problems: ids as the task rows show them (`minedit/seed/001-…`) or without the format prefix. */
  only?: ReadonlySet<string>;
  sandbox: Sandbox;
  limits: ExecutionLimits;
  /** Problems built at once = sandboxed runs at once. */
  concurrency: number;
  /** Aborting stops the build: running problems are abandoned (not written); the files stay consistent. */
  signal?: AbortSignal;
  /** Called for each source row that cannot be imported (1-based line). */
  onBadRow?: (line: number, reason: string) => void;
  /** Called when a problem is finished or skipped; `line` is the source line reached. */
  onProgress?: (done: number, line: number) => void;
};

export type BuildSummary = {
  /** Source rows that could not be imported. */
  badRows: number;
  /** Problems skipped because the task file already has them (resume). */
  skipped: number;
  /** Problems left out by `only`. */
  filteredOut: number;
  /** Problems built and written in this run. */
  processed: number;
  /** Task rows appended in this run. */
  tasksWritten: number;
  /** Rejections of this run. */
  rejected: RejectionCounts;
  /** Rows dropped from the end of the task file on recovery (an interrupted problem; a torn line counts). */
  droppedRows: number;
  /** True when the build was aborted before the source was exhausted. */
  interrupted: boolean;
};

/** The family group of a task, from the families that made it. */
export function domainOf(families: readonly (CorruptionFamily | undefined)[]): TaskDomain {
  if (families.length === 0 || families.some((f) => f === undefined)) return "unknown";
  const domains = new Set(families.map((f) => f?.domain));
  if (domains.size === 1) return domains.has("ood") ? "ood" : "in-domain";
  return "mixed";
}

type Outcome = { rows: BuiltTaskRow[]; entry: BuildLogEntry };

/** What one problem's build needs besides the problem. */
type Context = Pick<
  BuildOptions,
  "families" | "corruptions" | "variants" | "candidates" | "seed" | "split" | "sandbox" | "limits" | "signal"
> & { domain: TaskDomain; settings: BuildSettings; weights: MixWeights };

function taskRow(
  problem: Problem,
  split: string,
  variant: number,
  corrupted: string,
  corruptions: TaskCorruption[],
  domain: TaskDomain,
): BuiltTaskRow {
  return {
    task_id: `${problem.problemId}/${split}/v${variant}`,
    problem_id: problem.problemId,
    statement: problem.statement,
    entry_point: problem.entryPoint,
    gold: problem.solution,
    corrupted,
    tests: problem.tests,
    ...(problem.runtime !== undefined && problem.runtime !== DEFAULT_RUNTIME
      ? { runtime: problem.runtime }
      : {}),
    corruptions,
    split,
    source: problem.source,
    domain,
  };
}

/**
 * Runs `program` against the problem's tests in its runtime. A runtime that is not installed stops the
 * build (MineditError FailedPrecondition naming the problem, the runtime and what installs it).
 */
async function run(problem: Problem, program: string, context: Context): Promise<TestOutcome> {
  try {
    return await runPythonTests(
      context.sandbox,
      program,
      runnerTests(problem),
      context.limits,
      context.signal,
    );
  } catch (error) {
    if (!isMineditError(error) || error.code !== ErrorCode.FailedPrecondition) throw error;
    throw new MineditError(ErrorCode.FailedPrecondition, `${problem.problemId}: ${error.rawMessage}`);
  }
}

/** Why a gold run did not pass, in one line. */
function goldNote(outcome: TestOutcome): string {
  const detail = outcome.detail === "" ? "" : `: ${outcome.detail}`;
  return `gold ${outcome.verdict} (${outcome.testsPassed}/${outcome.testsTotal} tests)${detail}`;
}

/** Builds the tasks of one problem (see the module comment). Throws only on cancellation or a bug. */
export async function buildProblem(problem: Problem, context: Context): Promise<Outcome> {
  const rejected: RejectionCounts = {};
  const reject = (reason: RejectionReason) => {
    rejected[reason] = (rejected[reason] ?? 0) + 1;
  };
  const entry = (tasks: number, note?: string): BuildLogEntry => ({
    problem_id: problem.problemId,
    split: context.split,
    tasks,
    rejected,
    ...(note === undefined ? {} : { note }),
    settings: context.settings,
  });
  const problemRejected = (reason: RejectionReason, note: string): Outcome => {
    reject(reason);
    return { rows: [], entry: entry(0, note) };
  };

  let candidates: { program: string; corruptions: TaskCorruption[]; domain: TaskDomain }[];
  if (problem.corrupted !== undefined) {
    const families = problem.corrupted.families;
    candidates = [
      {
        program: problem.corrupted.program,
        corruptions: families.map((family) => ({ family })),
        domain: domainOf(families.map(familyByName)),
      },
    ];
  } else {
    let drawn: ReturnType<typeof corruptionVariants>;
    try {
      const sites = findSites(problem.solution, context.families);
      // A family the mix gives weight 0 is never drawn: its sites do not count.
      const weights = context.weights.families;
      if ([...sites].every(([family, list]) => list.length === 0 || weights?.[family] === 0)) {
        return problemRejected(
          "no_site",
          weights === undefined ? "no site for any requested family" : "no site for any family the mix draws",
        );
      }
      drawn = corruptionVariants(problem.solution, {
        families: context.families,
        count: {
          ...context.corruptions,
          ...(context.weights.counts === undefined ? {} : { weights: context.weights.counts }),
        },
        variants: context.candidates,
        seed: `${context.seed}/${problem.problemId}`,
        sites,
        ...(context.weights.families === undefined ? {} : { weights: context.weights.families }),
      });
    } catch (error) {
      if (error instanceof PySyntaxError || error instanceof TokenizeError) {
        return problemRejected("gold_unparsable", error.message);
      }
      throw error;
    }
    if (drawn.variants.length === 0) return problemRejected("no_candidate", drawn.reason ?? "no candidate");
    candidates = drawn.variants.map((v) => ({
      program: v.program,
      corruptions: v.applied satisfies AppliedCorruption[],
      domain: context.domain,
    }));
  }

  const gold = await run(problem, problem.solution, context);
  if (gold.verdict !== "PASSED") return problemRejected("gold_failed", goldNote(gold));

  const wanted = problem.corrupted !== undefined ? 1 : context.variants;
  const rows: BuiltTaskRow[] = [];
  for (const candidate of candidates) {
    if (rows.length === wanted) break;
    const outcome = await run(problem, candidate.program, context);
    if (outcome.verdict === "PASSED") reject("still_passed");
    else if (outcome.verdict === "INFRA_ERROR") reject("infra_error");
    else {
      rows.push(
        taskRow(
          problem,
          context.split,
          rows.length + 1,
          candidate.program,
          candidate.corruptions,
          candidate.domain,
        ),
      );
    }
  }
  return { rows, entry: entry(rows.length) };
}

function describeSettings(s: BuildSettings): string {
  return (
    `families ${s.families.join(",")}, mix ${s.mix}, corruptions ${s.corruptions}, ` +
    `variants ${s.variants}, candidates ${s.candidates}, seed ${s.seed}`
  );
}

/**
 * A split of a task file is built with one set of options: resuming with others would mix tasks made
 * differently under one name. (Another split of the same file may use other options.)
 */
function checkSameSettings(
  log: ReadonlyMap<string, BuildLogEntry>,
  split: string,
  settings: BuildSettings,
  out: string,
): void {
  const wanted = JSON.stringify(settings);
  for (const entry of log.values()) {
    if (entry.split !== split || entry.settings === undefined) continue;
    if (JSON.stringify(entry.settings) !== wanted) {
      throw new MineditError(
        ErrorCode.InvalidArgument,
        `split "${split}" of ${out} was built with other options (${describeSettings(entry.settings)}); ` +
          `resume it with those, or write to another --out or --split (asked: ${describeSettings(settings)})`,
      );
    }
  }
}

/** Whether `problem` is one of `only` (its full id, or the id without the `<format>/` prefix). */
function selected(problem: Problem, only: ReadonlySet<string> | undefined): boolean {
  if (only === undefined) return true;
  const prefix = `${problem.source}/`;
  const bare = problem.problemId.startsWith(prefix) ? problem.problemId.slice(prefix.length) : null;
  return only.has(problem.problemId) || (bare !== null && only.has(bare));
}

/**
 * Runs the build (see the module comment). Throws MineditError InvalidArgument when the task file holds
 * lines that are not task rows, or when the source cannot be read or its format detected.
 */
export async function buildTasks(options: BuildOptions): Promise<BuildSummary> {
  await loadPythonGrammar();
  const paths = taskSetPaths(options.out);
  await mkdir(dirname(options.out), { recursive: true });
  const recovery = await recoverTaskSet(options.out, paths.log);
  if (recovery.bad.length > 0) {
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `${recovery.bad[0]}\n--out must be a task file written by \`minedit tasks build\` (or a new file)`,
    );
  }

  let weights: MixWeights;
  try {
    weights = mixWeights(options.mix, options.families, options.corruptions);
  } catch (error) {
    throw new MineditError(ErrorCode.InvalidArgument, error instanceof Error ? error.message : String(error));
  }
  const settings: BuildSettings = {
    families: options.families.map((f) => f.name),
    mix: options.mix,
    corruptions: `${options.corruptions.min}-${options.corruptions.max}`,
    variants: options.variants,
    candidates: options.candidates,
    seed: options.seed,
  };
  checkSameSettings(recovery.log, options.split, settings, options.out);

  const summary: BuildSummary = {
    badRows: 0,
    skipped: 0,
    filteredOut: 0,
    processed: 0,
    tasksWritten: 0,
    rejected: {},
    droppedRows: recovery.droppedRows,
    interrupted: false,
  };
  const context: Context = {
    families: mixFamilies(options.mix, options.families),
    corruptions: options.corruptions,
    variants: options.variants,
    candidates: options.candidates,
    seed: options.seed,
    split: options.split,
    sandbox: options.sandbox,
    limits: options.limits,
    domain: domainOf(options.families),
    settings,
    weights,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };

  const source = importFile(options.source, options.format);
  let finished = 0;
  let lastLine = 0;
  let nextIndex = 0;
  const progress = () => options.onProgress?.(finished, lastLine);

  /** The next problem to build, or null at the end; calls are serialized so indices follow the source. */
  const pullOne = async (): Promise<{ index: number; problem: Problem } | null> => {
    for (;;) {
      if (options.signal?.aborted) return null;
      const next = await source.next();
      if (next.done === true) return null;
      const item = next.value;
      lastLine = item.line;
      if ("error" in item) {
        summary.badRows += 1;
        options.onBadRow?.(item.line, item.error);
        continue;
      }
      if (!selected(item.problem, options.only)) {
        summary.filteredOut += 1;
        continue;
      }
      if (recovery.done.has(problemKey(item.problem.problemId, options.split))) {
        summary.skipped += 1;
        finished += 1;
        progress();
        continue;
      }
      return { index: nextIndex++, problem: item.problem };
    }
  };
  let pullQueue: Promise<unknown> = Promise.resolve();
  const pull = () => {
    const pulled = pullQueue.then(pullOne);
    pullQueue = pulled.catch(() => {});
    return pulled;
  };

  const taskHandle = await open(options.out, "a");
  const logHandle = await open(paths.log, "a");
  // Finished problems wait here until every earlier one is written (source order; see the module comment).
  const waiting = new Map<number, Outcome>();
  let written = 0;
  let writes: Promise<void> = Promise.resolve();
  const complete = (index: number, outcome: Outcome) => {
    waiting.set(index, outcome);
    for (let ready = waiting.get(written); ready !== undefined; ready = waiting.get(written)) {
      waiting.delete(written);
      written += 1;
      const { rows, entry } = ready;
      writes = writes.then(async () => {
        if (rows.length > 0) await taskHandle.appendFile(rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
        await logHandle.appendFile(`${JSON.stringify(entry)}\n`);
        summary.processed += 1;
        summary.tasksWritten += rows.length;
        for (const [reason, n] of Object.entries(entry.rejected) as [RejectionReason, number][]) {
          summary.rejected[reason] = (summary.rejected[reason] ?? 0) + n;
        }
      });
    }
  };

  let failure: unknown = null;
  const worker = async () => {
    for (;;) {
      if (failure !== null) return;
      const next = await pull();
      if (next === null) return;
      let outcome: Outcome;
      try {
        outcome = await buildProblem(next.problem, context);
      } catch (error) {
        if (isMineditError(error) && error.code === ErrorCode.Cancelled) return;
        throw error;
      }
      complete(next.index, outcome);
      finished += 1;
      progress();
    }
  };

  try {
    const workers = Array.from({ length: Math.max(1, options.concurrency) }, () =>
      worker().catch((error: unknown) => {
        failure ??= error;
      }),
    );
    await Promise.all(workers);
    await writes;
  } finally {
    await source.return(undefined);
    await Promise.all([taskHandle.close(), logHandle.close()]);
  }
  if (failure !== null) throw failure;
  summary.interrupted = options.signal?.aborted === true;
  return summary;
}
