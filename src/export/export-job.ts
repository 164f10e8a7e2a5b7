/**
 * One `minedit export` run, from a validated request to the files on disk: open the task and candidate
 * sources (JSONL, or Parquet for candidates) and, when candidates or revisions are judged, the sandbox
 * (and the analyzers); run the export (run-export.ts for sft/rsft/dpo/grpo, lint-export.ts for the lint
 * corpora) with progress on stderr; commit the files atomically; print the summary.
 */

import { setMaxListeners } from "node:events";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { createLintSandbox, Linter } from "../analyzers/linter.js";
import { CANDIDATE_COLUMNS, EVAL_SAMPLES_FILE } from "../core/candidate-row.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { openRowSource, type RowSource } from "../io/inputs.js";
import { Progress } from "../io/progress.js";
import type { StdIo } from "../io/std-io.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { MetricsPool } from "../workers/metrics-pool.js";
import type { RunSettings } from "./export-run.js";
import type { ExportManifest, ManifestFile } from "./format.js";
import { CandidateGenerator, type GenerateRequest } from "./generated-candidates.js";
import { type LintExportSettings, runLintExport } from "./lint-export.js";
import { ExportOutput } from "./output.js";
import { type ExportSettings, runExport } from "./run-export.js";
import { type ExportSummary, type LintExportSummary, lintSummaryText, summaryText } from "./summary.js";

/** What to export, validated (the CLI's flags): the settings, the inputs and the output directory. */
export type ExportJobRequest = {
  settings: ExportSettings;
  /** The lint kinds (alq, qa, qa-prime): their settings; null for the repair kinds. */
  lint: LintExportSettings | null;
  outDir: string;
  taskFiles: readonly string[];
  candidatesFile: string | undefined;
  /** rsft/dpo `--generate`: sample the candidates from an endpoint instead of reading a file. */
  generate: GenerateRequest | null;
};

/** An export with its inputs open. */
export type ExportJob = {
  request: ExportJobRequest;
  tasks: RowSource[];
  candidates: RowSource | undefined;
  /** `--generate`: samples the candidates (its endpoint answered when the job was opened). */
  generator: CandidateGenerator | null;
  sandbox: Sandbox | null;
  /** The analyzers judging lint revisions (null when nothing is judged). */
  linter: Linter | null;
  /** Closes the sources and the sandbox; call once, however the export ended. */
  close(): Promise<void>;
};

/**
 * How it went: rows skipped as bad (reported on stderr as `FILE:LINE: reason`), and candidate samples
 * without a completion (failed at the API: running again asks them again).
 */
export type ExportOutcome = { badRows: number; withoutCompletion: number };

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

/**
 * Opens a sandbox with `open` (its notes go to stderr); an unavailable one becomes a usage error whose
 * message `explain` writes from the reason: what needs the sandbox, and how to get it.
 */
async function openSandbox(
  open: (log: (message: string) => void) => Promise<Sandbox>,
  io: StdIo,
  explain: (reason: string) => string,
): Promise<Sandbox> {
  try {
    return await open((message) => io.stderr.write(`minedit: ${message}\n`));
  } catch (error) {
    if (isMineditError(error) && error.code === ErrorCode.Unavailable) throw usage(explain(error.rawMessage));
    throw error;
  }
}

/**
 * The candidates file of `--candidates PATH`: PATH itself, or an eval run directory's samples.jsonl.
 *
 * @throws MineditError `InvalidArgument` for a directory without one.
 */
async function candidatesPath(path: string): Promise<string> {
  if (path === "-") return path;
  let directory = false;
  try {
    directory = (await stat(path)).isDirectory();
  } catch {
    return path; // openRowSource says why it cannot be read
  }
  if (!directory) return path;
  const samples = join(path, EVAL_SAMPLES_FILE);
  try {
    await stat(samples);
  } catch {
    throw usage(
      `--candidates ${path}: a directory, but not an eval run (no ${EVAL_SAMPLES_FILE}); give a candidates file or \`minedit eval run\`'s output directory`,
    );
  }
  return samples;
}

/**
 * Opens the inputs, then the sandbox if anything is judged; closes what it opened on failure.
 *
 * @throws MineditError `InvalidArgument` with a message for the user (unreadable input, no sandbox).
 */
export async function openExportJob(request: ExportJobRequest, io: StdIo): Promise<ExportJob> {
  const { settings, lint, config } = { ...request, config: request.settings.config };
  const { kind } = settings;
  const needsCandidates = kind === "rsft" || kind === "dpo";
  const judgesRevisions = lint !== null && (request.candidatesFile !== undefined || lint.fixer !== null);
  const opened: RowSource[] = [];
  try {
    for (const file of request.taskFiles) opened.push(await openRowSource(file, io.stdin, "--tasks"));
    const candidates =
      request.candidatesFile === undefined
        ? undefined
        : await openRowSource(
            await candidatesPath(request.candidatesFile),
            io.stdin,
            "--candidates",
            CANDIDATE_COLUMNS,
          );
    // A dead endpoint stops the export now, before the sandbox starts.
    const generator =
      request.generate === null ? null : new CandidateGenerator(request.generate, settings.prompt, io.stderr);
    await generator?.probe();
    if (candidates !== undefined) opened.push(candidates);
    let sandbox: Sandbox | null = null;
    let linter: Linter | null = null;
    if (judgesRevisions) {
      sandbox = await openSandbox(
        (log) => createLintSandbox(config.sandbox, log),
        io,
        (reason) =>
          `cannot judge revisions: ${reason}\n${kind} runs the revisions' tests and analyzers in ` +
          (config.sandbox.backend === "docker"
            ? "the Docker sandbox (sandbox.backend: docker; docs/sandbox.md#docker)."
            : "the bubblewrap sandbox: install bubblewrap (Debian: apt-get install -y bubblewrap)."),
      );
      linter = await Linter.create({ sandbox, concurrency: config.sandbox.executionConcurrency });
    }
    if (needsCandidates) {
      sandbox = await openSandbox(
        (log) => createConfiguredSandbox(config.sandbox, config.limits.tests, log),
        io,
        (reason) =>
          `cannot run the candidates' tests: ${reason}\n` +
          "rsft and dpo score every candidate in the bubblewrap sandbox: install bubblewrap (Debian: " +
          "apt-get install -y bubblewrap).",
      );
    }
    const running = sandbox;
    return {
      request,
      tasks: opened.filter((s) => s !== candidates),
      candidates,
      generator,
      sandbox,
      linter,
      async close() {
        await Promise.all(opened.map((source) => source.close()));
        await running?.close();
      },
    };
  } catch (error) {
    await Promise.all(opened.map((source) => source.close()));
    throw error;
  }
}

/** Runs an opened export and commits its files; the summary goes to `io.stderr`. */
export async function runExportJob(job: ExportJob, io: StdIo): Promise<ExportOutcome> {
  if (job.request.lint !== null) return runLintJob(job, job.request.lint, io);
  const { settings, outDir } = job.request;
  let current: { source: RowSource; progress: Progress } | undefined;
  const report = (message: string) => {
    if (current === undefined) io.stderr.write(`${message}\n`);
    else current.progress.log(message);
  };
  return runAndCommit(
    settings,
    outDir,
    io,
    async (output, signal) => {
      const pool = new MetricsPool(settings.config.pool.threads, {
        programCacheBytes: settings.config.pool.programCacheBytes,
        scoreMemoEntries: settings.config.pool.scoreMemoEntries,
      });
      try {
        const generator = job.generator;
        return await runExport(settings, job.tasks, job.candidates, {
          pool,
          sandbox: job.sandbox,
          ...(generator === null
            ? {}
            : {
                generator: {
                  generate(tasks, signal) {
                    // The task rows' progress line gives way to generation's own.
                    current?.progress.clear();
                    current = undefined;
                    return generator.generate(tasks, signal);
                  },
                },
              }),
          output,
          report,
          signal,
          progress(done, source) {
            if (current?.source !== source) {
              current?.progress.clear();
              current = {
                source,
                progress: new Progress({
                  stream: io.stderr,
                  label: "minedit export",
                  unit: job.tasks.includes(source) ? "task rows" : "candidates",
                  ...(source.size === undefined ? {} : { totalBytes: source.size }),
                }),
              };
            }
            current.progress.update(done, source.position());
          },
        });
      } finally {
        await pool.close();
      }
    },
    () => current?.progress.clear(),
    (summary, files, seconds) => summaryText(settings, summary, files, outDir, seconds),
  );
}

/** The lint corpora: judge the revisions of lint tasks and write the corpus. */
async function runLintJob(job: ExportJob, settings: LintExportSettings, io: StdIo): Promise<ExportOutcome> {
  const { outDir } = job.request;
  const progress = new Progress({ stream: io.stderr, label: "minedit export", unit: "items" });
  return runAndCommit(
    settings,
    outDir,
    io,
    async (output, signal) => {
      try {
        return await runLintExport(settings, job.tasks, job.candidates, {
          sandbox: job.sandbox,
          linter: job.linter,
          output,
          report: (message) => progress.log(message),
          signal,
          progress: (done) => progress.update(done),
        });
      } catch (error) {
        progress.clear();
        throw error;
      }
    },
    () => progress.clear(),
    (summary, files, seconds) => lintSummaryText(settings, summary, files, outDir, seconds),
  );
}

/**
 * The frame of both kinds of run: open the output, run the export into it (aborting the output and every
 * queued sandbox run if it fails), commit the files with the manifest and summary, clear the progress
 * line, and print the summary.
 */
async function runAndCommit<Summary extends ExportSummary | LintExportSummary>(
  settings: RunSettings,
  outDir: string,
  io: StdIo,
  run: (
    output: ExportOutput,
    signal: AbortSignal,
  ) => Promise<{ summary: Summary; manifest: Omit<ExportManifest, "files"> }>,
  clearProgress: () => void,
  text: (summary: Summary, files: readonly ManifestFile[], seconds: number) => string,
): Promise<ExportOutcome> {
  const started = performance.now();
  const output = await ExportOutput.open(outDir, settings.name, settings.format, settings.kind);
  const abort = new AbortController();
  // Every queued test run listens on this one signal.
  setMaxListeners(0, abort.signal);
  let result: Awaited<ReturnType<typeof run>>;
  try {
    result = await run(output, abort.signal);
  } catch (error) {
    abort.abort();
    await output.abort();
    throw error;
  }
  const manifest = await output.commit(
    { ...result.manifest, summary: result.summary },
    settings.splits.map((s) => s.name),
  );
  clearProgress();
  io.stderr.write(text(result.summary, manifest.files, (performance.now() - started) / 1000));
  const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  const { candidates } = result.summary;
  return {
    badRows: sum(result.summary.badRows),
    withoutCompletion: "unavailable" in candidates ? sum(candidates.unavailable) : 0,
  };
}
