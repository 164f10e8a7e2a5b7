/**
 * `minedit eval run`: load the tasks (and the retention suites), start the scoring engine (whose
 * ground-truth gate refuses tasks whose gold fails or whose corrupted program passes here), generate the
 * missing samples of the served tasks from the endpoint into the journal — or take them from the journal
 * (`--score-only`) or a candidates file — score every sample in the sandbox, and write the run directory
 * (run-files.ts) and its report.
 *
 * Ctrl-C during generation stops it (exit 130) with every finished sample in the journal; the same
 * command resumes. A fatal refusal of the endpoint (401/403/404) stops the run with a usage error.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../config.js";
import { CANDIDATE_COLUMNS, parseCandidateRow, UNAVAILABLE } from "../core/candidate-row.js";
import type { PromptStyle } from "../core/prompt/repair-prompt.js";
import { REWARD_DEFINITION_VERSION } from "../core/reward.js";
import { ErrorCode, EXIT_INTERRUPTED, isMineditError, MineditError } from "../errors.js";
import { type GenerationSummary, journalSamples } from "../generation/generate.js";
import { type GenerationSource, GenerationStage } from "../generation/generate-stage.js";
import { Journal } from "../generation/journal.js";
import type { GenerationTarget } from "../generation/sampling.js";
import { formatRetries, StageProgress } from "../generation/stage-progress.js";
import { writeFileAtomically } from "../io/atomic-write.js";
import { openRowSource } from "../io/inputs.js";
import type { StdIo } from "../io/std-io.js";
import { missingModules, runtimeNamed } from "../sandbox/runtimes.js";
import { type ScoringEngine, startScoringEngine } from "../scoring/scoring-engine.js";
import { version } from "../version.js";
import { buildReport } from "./build-report.js";
import { type EvalTask, parseEvalTask } from "./eval-task.js";
import { renderSummaryMarkdown } from "./markdown.js";
import {
  RUN_FILE_VERSION,
  type RunManifest,
  type SampleRecord,
  TASK_RECORD_VERSION,
  type TaskRecord,
} from "./records.js";
import type { Statistics } from "./report-schema.js";
import { loadBigCodeBench, loadLiveCodeBench, type RetentionSet } from "./retention.js";
import { RUN_FILES, writeReportFiles, writeRun } from "./run-files.js";
import { type SampleInput, type SampleInputs, scoreSamples } from "./score-samples.js";

export type EvalRunRequest = {
  outDir: string;
  name: string;
  taskFiles: readonly string[];
  prompt: PromptStyle;
  samples: number;
  /** Where the samples come from. */
  source:
    | ({ kind: "generate" } & GenerationSource)
    | { kind: "journal"; target: GenerationTarget }
    | { kind: "candidates"; file: string };
  journalPath: string;
  retention: {
    bigcodebench?: { path: string; limit?: number };
    livecodebench?: { path: string; limit?: number };
  };
  config: Config;
  statistics: Statistics;
  ks: readonly number[];
};

/** An opened run: tasks read and checked, nothing started. */
export type EvalRunJob = {
  request: EvalRunRequest;
  tasks: EvalTask[];
  retention: RetentionSet[];
  journal: Journal | null;
};

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

async function sha256File(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

/** Reads the task files into evaluation tasks; a bad row or a duplicate id is a usage error (FILE:LINE). */
async function readTasks(
  files: readonly string[],
  style: PromptStyle,
  stdin: StdIo["stdin"],
): Promise<EvalTask[]> {
  const tasks: EvalTask[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const source = await openRowSource(file, stdin, "--tasks");
    try {
      for await (const item of source.rows()) {
        if ("error" in item) throw usage(`${item.where}: ${item.error}`);
        let task: EvalTask;
        try {
          task = parseEvalTask(item.row, style);
        } catch (error) {
          if (isMineditError(error)) throw usage(`${item.where}: ${error.rawMessage}`);
          throw error;
        }
        if (seen.has(task.taskId)) throw usage(`${item.where}: duplicate task_id "${task.taskId}"`);
        seen.add(task.taskId);
        tasks.push(task);
      }
    } finally {
      await source.close();
    }
  }
  return tasks;
}

/** Prepares `eval run`: reads the tasks and the suites, opens the journal. Throws usage errors. */
export async function openEvalRun(request: EvalRunRequest, io: StdIo): Promise<EvalRunJob> {
  const tasks = await readTasks(request.taskFiles, request.prompt, io.stdin);
  const retention: RetentionSet[] = [];
  if (request.retention.bigcodebench !== undefined) {
    let runtimeInstalled = false;
    try {
      runtimeInstalled =
        (await missingModules(runtimeNamed("bigcodebench"), request.config.sandbox.pythonPath)).length === 0;
    } catch {
      runtimeInstalled = false;
    }
    const { path, limit } = request.retention.bigcodebench;
    retention.push(
      await loadBigCodeBench(path, { runtimeInstalled, ...(limit === undefined ? {} : { limit }) }),
    );
  }
  if (request.retention.livecodebench !== undefined) {
    const { path, limit } = request.retention.livecodebench;
    retention.push(await loadLiveCodeBench(path, limit === undefined ? {} : { limit }));
  }
  const ids = new Set(tasks.map((t) => t.taskId));
  for (const set of retention) {
    for (const task of [...set.tasks, ...set.excluded.map((e) => e.task)]) {
      if (ids.has(task.taskId))
        throw usage(`task id "${task.taskId}" of the ${set.suite} suite is also in --tasks`);
      ids.add(task.taskId);
    }
  }
  if (tasks.length === 0 && retention.every((s) => s.tasks.length === 0)) {
    throw usage("no tasks to evaluate (give --tasks FILE and/or a retention suite)");
  }
  const journal = request.source.kind === "candidates" ? null : await Journal.open(request.journalPath);
  if (request.source.kind === "journal" && journal !== null && journal.state.entries.size === 0) {
    throw usage(
      `--score-only: the journal ${request.journalPath} has no samples (run without --score-only first)`,
    );
  }
  return { request, tasks, retention, journal };
}

/** What the engine says when it cannot run tests, as a usage error with what to install. */
function sandboxProblem(error: unknown): never {
  if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
    throw usage(
      `cannot run the tests: ${error.rawMessage}\nThe tests run in a bubblewrap sandbox: install bubblewrap ` +
        "(Debian: apt-get install -y bubblewrap).",
    );
  }
  throw error;
}

/**
 * Samples of the candidates file by task id, in file order (sample index = position). Rows of excluded
 * tasks are skipped: the task is known, just not evaluated.
 */
async function candidateInputs(
  file: string,
  io: StdIo,
  known: ReadonlySet<string>,
  excluded: ReadonlySet<string>,
): Promise<{ inputs: Map<string, Map<number, SampleInput>>; bad: number }> {
  const source = await openRowSource(file, io.stdin, "--candidates", CANDIDATE_COLUMNS);
  const inputs = new Map<string, Map<number, SampleInput>>();
  let bad = 0;
  try {
    for await (const item of source.rows()) {
      if ("error" in item) {
        bad += 1;
        io.stderr.write(`${item.where}: ${item.error}\n`);
        continue;
      }
      let row: ReturnType<typeof parseCandidateRow>;
      try {
        row = parseCandidateRow(item.row);
      } catch (error) {
        if (!isMineditError(error)) throw error;
        bad += 1;
        io.stderr.write(`${item.where}: ${error.rawMessage}\n`);
        continue;
      }
      if (excluded.has(row.taskId)) continue;
      if (!known.has(row.taskId)) {
        bad += 1;
        io.stderr.write(`${item.where}: unknown task "${row.taskId}" (not in --tasks)\n`);
        continue;
      }
      const byIndex = inputs.get(row.taskId) ?? new Map<number, SampleInput>();
      for (const completion of row.completions) {
        byIndex.set(byIndex.size, {
          status: "ok",
          completion,
          truncated: false,
          finishReason: null,
          usage: null,
          requestSamples: 1,
          latencyMs: null,
        });
      }
      // A sample the file marks as failed at the API counts as one; a missing one stays MISSING.
      for (const reason of row.unavailable) {
        if (reason === UNAVAILABLE.apiError)
          byIndex.set(byIndex.size, { status: "api_error", message: "failed at the API", latencyMs: null });
      }
      inputs.set(row.taskId, byIndex);
    }
  } finally {
    await source.close();
  }
  return { inputs, bad };
}

/** Samples of the journal by task id and index, for the target. */
function journalInputs(
  journal: Journal,
  tasks: readonly EvalTask[],
  target: GenerationTarget,
  samples: number,
): SampleInputs {
  const inputs = new Map<string, Map<number, SampleInput>>();
  for (const task of tasks) {
    const byIndex = new Map<number, SampleInput>();
    journalSamples(journal, task, target, samples).forEach((entry, index) => {
      if (entry === undefined) return;
      if (entry.status === "error") {
        byIndex.set(index, {
          status: "api_error",
          message: `${entry.error.status ?? "no response"}: ${entry.error.message}`,
          latencyMs: entry.latency_ms,
        });
        return;
      }
      byIndex.set(index, {
        status: "ok",
        completion: entry.text,
        truncated: entry.truncated,
        finishReason: entry.finish_reason,
        usage: entry.usage,
        requestSamples: entry.request_samples,
        latencyMs: entry.latency_ms,
      });
    });
    inputs.set(task.taskId, byIndex);
  }
  return inputs;
}

function taskRecord(task: EvalTask, excluded: string | null): TaskRecord {
  return {
    v: TASK_RECORD_VERSION,
    task_id: task.taskId,
    problem_id: task.problemId,
    kind: task.kind,
    domain: task.domain,
    families: task.families,
    language: task.language,
    corrupted: task.corrupted,
    gold: task.gold,
    excluded,
  };
}

/** Starts an engine over task files; sandbox problems become usage errors. */
async function engineFor(
  config: Config,
  files: readonly string[],
  gate: boolean,
  log: (line: string) => void,
  progress?: StageProgress,
): Promise<ScoringEngine> {
  try {
    return await startScoringEngine({ ...config, tasks: { ...config.tasks, gate } }, files, true, {
      log,
      ...(progress === undefined
        ? {}
        : { onGateProgress: (done: number, total: number) => progress.update({ done, total }) }),
    });
  } catch (error) {
    return sandboxProblem(error);
  }
}

/** Runs an opened `eval run`; returns the exit code. */
/**
 * Where a run keeps its ground-truth gate verdicts: inside `--out` (`gate-cache/`), so a run directory holds
 * everything it depends on and deleting it forgets them; a configured `tasks.gateCacheDir` wins.
 */
export function runGateCacheDir(outDir: string, config: Config): string {
  return config.tasks.gateCacheDir === "" ? join(outDir, "gate-cache") : config.tasks.gateCacheDir;
}

export async function runEvalRun(job: EvalRunJob, io: StdIo): Promise<number> {
  const started = performance.now();
  const opened = job.request;
  const request: EvalRunRequest = {
    ...opened,
    config: {
      ...opened.config,
      tasks: {
        ...opened.config.tasks,
        gateCacheDir: runGateCacheDir(opened.outDir, opened.config),
      },
    },
  };
  const label = "minedit eval run";
  const log = (line: string) => io.stderr.write(`${label}: ${line}\n`);
  // The engine for the task files and the gated suites; ungated suites (no gold) get their own.
  const gatedSuites = job.retention.filter((s) => s.gated && s.tasks.length > 0);
  const ungatedSuites = job.retention.filter((s) => !s.gated && s.tasks.length > 0);
  const suiteFile = (set: RetentionSet) => join(request.outDir, `retention-${set.suite}.jsonl`);
  await mkdir(request.outDir, { recursive: true });
  for (const set of job.retention) {
    if (set.tasks.length > 0)
      await writeFileAtomically(suiteFile(set), set.rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  }
  const mainFiles = [...request.taskFiles, ...gatedSuites.map(suiteFile)];
  const mainTasks = [...job.tasks, ...gatedSuites.flatMap((s) => s.tasks)];
  const ungatedTasks = ungatedSuites.flatMap((s) => s.tasks);
  const abort = new AbortController();
  const onSigint = () => abort.abort(new MineditError(ErrorCode.Cancelled, "interrupted"));
  process.once("SIGINT", onSigint);
  let mainEngine: ScoringEngine | null = null;
  const stage =
    request.source.kind === "generate" ? new GenerationStage(request.source, label, io.stderr) : null;
  try {
    // A dead endpoint stops the run now, not after the gate.
    await stage?.probe();
    if (mainTasks.length > 0) {
      // The gate reports once, when done; say up front why the first run of a task set waits here.
      if (request.config.tasks.gate)
        log(
          `ground-truth gate: checking the gold and corrupted programs of ${mainTasks.length} task(s) ` +
            `(verdicts remembered in ${request.config.tasks.gateCacheDir} are reused; the others run now)`,
        );
      const gateProgress = new StageProgress(io.stderr, `${label}: ground-truth gate`, "tasks");
      try {
        mainEngine = await engineFor(request.config, mainFiles, request.config.tasks.gate, log, gateProgress);
      } finally {
        gateProgress.clear();
      }
    }
    const refused = mainEngine?.refused ?? new Map<string, string>();
    const served = [...mainTasks, ...ungatedTasks].filter((t) => !refused.has(t.taskId));

    // Samples.
    let generation: GenerationSummary | null = null;
    const retries = stage?.retries ?? new Map<string, number>();
    let inputs: SampleInputs;
    let badCandidates = 0;
    const generateStart = performance.now();
    if (request.source.kind === "candidates") {
      const result = await candidateInputs(
        request.source.file,
        io,
        new Set(served.map((t) => t.taskId)),
        new Set([...refused.keys(), ...job.retention.flatMap((s) => s.excluded.map((e) => e.task.taskId))]),
      );
      inputs = result.inputs;
      badCandidates = result.bad;
    } else {
      const journal = job.journal as Journal;
      if (journal.state.repaired)
        log(`the journal's last line was torn (an interrupted write) and was dropped`);
      if (stage !== null) {
        generation = await stage.run(served, request.samples, journal, abort.signal);
        if (abort.signal.aborted) {
          log(stage.interruptedLine(generation, request.journalPath));
          return EXIT_INTERRUPTED;
        }
        log(stage.summaryLine(generation));
      }
      inputs = journalInputs(journal, served, request.source.target, request.samples);
    }
    const generateSeconds = (performance.now() - generateStart) / 1000;

    // Scoring.
    const scoreStart = performance.now();
    const records: SampleRecord[] = [];
    const scoreWith = async (engine: ScoringEngine, tasks: readonly EvalTask[], what: string) => {
      const progress = new StageProgress(io.stderr, `${label}: scoring ${what}`, "samples");
      try {
        records.push(
          ...(await scoreSamples({
            scorer: engine.scorer,
            tasks,
            refused: engine.refused,
            inputs,
            samples: request.samples,
            reward: request.config.reward,
            signal: abort.signal,
            onProgress: (done, total) => progress.update({ done, total }),
          })),
        );
      } finally {
        progress.clear();
      }
    };
    if (mainEngine !== null) {
      await scoreWith(mainEngine, mainTasks, "tasks");
      await mainEngine.close();
      mainEngine = null;
    }
    if (ungatedTasks.length > 0) {
      const engine = await engineFor(request.config, ungatedSuites.map(suiteFile), false, log);
      try {
        await scoreWith(engine, ungatedTasks, "retention suites");
      } finally {
        await engine.close();
      }
    }
    const scoreSeconds = (performance.now() - scoreStart) / 1000;

    // Files.
    const taskRecords: TaskRecord[] = [
      ...job.tasks.map((t) => taskRecord(t, refused.get(t.taskId) ?? null)),
      ...job.retention.flatMap((set) => [
        ...set.tasks.map((t) => taskRecord(t, refused.get(t.taskId) ?? null)),
        ...set.excluded.map((e) => taskRecord(e.task, e.reason)),
      ]),
    ];
    const target = request.source.kind === "candidates" ? null : request.source.target;
    const manifest: RunManifest = {
      v: RUN_FILE_VERSION,
      name: request.name,
      source: request.source.kind,
      model: target?.model ?? null,
      endpoint: target?.endpoint ?? null,
      api: target?.api ?? null,
      params: target === null ? {} : { ...target.params },
      prompt: request.prompt,
      samples: request.samples,
      task_files: await Promise.all(
        request.taskFiles.map(async (path) => ({ path, sha256: await sha256File(path).catch(() => "") })),
      ),
      retention: job.retention.map((s) => s.suite),
      scope: request.config.reward.scope,
      reward_version: REWARD_DEFINITION_VERSION,
      minedit_version: version(),
      created: new Date().toISOString(),
      seconds: {
        generate: generateSeconds,
        score: scoreSeconds,
        total: (performance.now() - started) / 1000,
      },
      generation:
        generation === null
          ? null
          : {
              reused: generation.reused,
              asked: generation.asked,
              generated: generation.generated,
              failed: generation.failed,
              requests: generation.requests,
              prompt_tokens: generation.promptTokens,
              completion_tokens: generation.completionTokens,
              retries: Object.fromEntries(retries),
            },
    };
    await writeRun(request.outDir, { manifest, tasks: taskRecords, samples: records });
    const rendered = await buildReport(
      [{ manifest, tasks: taskRecords, samples: records }],
      request.statistics,
      request.ks,
    );
    const paths = await writeReportFiles(request.outDir, "report", rendered);
    manifest.seconds.total = (performance.now() - started) / 1000;
    await writeFileAtomically(
      join(request.outDir, RUN_FILES.manifest),
      `${JSON.stringify(manifest, null, 2)}\n`,
    );
    io.stdout.write(renderSummaryMarkdown(rendered.report));
    if (retries.size > 0) io.stdout.write(`\nGeneration ${formatRetries(retries)}.\n`);
    const incomplete = records.filter((r) => r.outcome === "API_ERROR" || r.outcome === "MISSING").length;
    const excluded = taskRecords.filter((t) => t.excluded !== null).length;
    log(
      `${records.length} sample(s) of ${taskRecords.length - excluded} task(s) scored` +
        (excluded > 0 ? `, ${excluded} task(s) excluded (listed in the report)` : "") +
        (incomplete > 0 ? `, ${incomplete} sample(s) API_ERROR or MISSING (counted as failures)` : "") +
        `; ${manifest.seconds.total.toFixed(1)} s. Report: ${paths.markdown}, ${paths.html}`,
    );
    return incomplete > 0 || badCandidates > 0 ? 1 : 0;
  } catch (error) {
    if (abort.signal.aborted) {
      io.stderr.write(`${label}: interrupted; run the same command again to resume.\n`);
      return EXIT_INTERRUPTED;
    }
    throw error;
  } finally {
    process.removeListener("SIGINT", onSigint);
    await mainEngine?.close();
  }
}
