/**
 * One `minedit export` run, from a validated request to the files on disk: open the task and candidate
 * sources (JSONL, or Parquet for candidates) and, when candidates or revisions are judged, the sandbox
 * (and the analyzers); run the export (run-export.ts for sft/rsft/dpo/grpo, lint-export.ts for the lint
 * corpora) with progress on stderr; commit the files atomically; print the summary.
 */
import { setMaxListeners } from "node:events";
import { createLintSandbox, Linter } from "../analyzers/linter.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { openRowSource, type RowSource } from "../io/inputs.js";
import { Progress } from "../io/progress.js";
import type { StdIo } from "../io/std-io.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { MetricsPool } from "../workers/metrics-pool.js";
import { CANDIDATE_COLUMNS } from "./candidates.js";
import { type LintExportSettings, runLintExport } from "./lint-export.js";
import { ExportOutput } from "./output.js";
import { type ExportSettings, runExport } from "./run-export.js";
import { lintSummaryText, summaryText } from "./summary.js";

/** What to export, validated (the CLI's flags): the settings, the inputs and the output directory. */
export type ExportJobRequest = {
  settings: ExportSettings;
  /** The lint kinds (alq, qa, qa-prime): their settings; null for the repair kinds. */
  lint: LintExportSettings | null;
  outDir: string;
  taskFiles: readonly string[];
  candidatesFile: string | undefined;
};

/** An export with its inputs open. */
export type ExportJob = {
  request: ExportJobRequest;
  tasks: RowSource[];
  candidates: RowSource | undefined;
  sandbox: Sandbox | null;
  /** The analyzers judging lint revisions (null when nothing is judged). */
  linter: Linter | null;
  /** Closes the sources and the sandbox; call once, however the export ended. */
  close(): Promise<void>;
};

/** How it went: rows skipped as bad (reported on stderr as `FILE:LINE: reason`). */
export type ExportOutcome = { badRows: number };

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
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
        : await openRowSource(request.candidatesFile, io.stdin, "--candidates", CANDIDATE_COLUMNS);
    if (candidates !== undefined) opened.push(candidates);
    let sandbox: Sandbox | null = null;
    let linter: Linter | null = null;
    if (judgesRevisions) {
      try {
        sandbox = await createLintSandbox(config.sandbox, (message) =>
          io.stderr.write(`minedit: ${message}\n`),
        );
      } catch (error) {
        if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
          throw usage(
            `cannot judge revisions: ${error.rawMessage}\n${kind} runs the revisions' tests and analyzers in ` +
              (config.sandbox.backend === "docker"
                ? "the Docker sandbox (sandbox.backend: docker; docs/sandbox.md#docker)."
                : "the bubblewrap sandbox: install bubblewrap (Debian: apt-get install -y bubblewrap)."),
          );
        }
        throw error;
      }
      linter = await Linter.create({ sandbox, concurrency: config.sandbox.executionConcurrency });
    }
    if (needsCandidates) {
      try {
        sandbox = await createConfiguredSandbox(config.sandbox, (message) =>
          io.stderr.write(`minedit: ${message}\n`),
        );
      } catch (error) {
        if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
          throw usage(
            `cannot run the candidates' tests: ${error.rawMessage}\n` +
              "rsft and dpo score every candidate in the bubblewrap sandbox: install bubblewrap (Debian: " +
              "apt-get install -y bubblewrap).",
          );
        }
        throw error;
      }
    }
    const running = sandbox;
    return {
      request,
      tasks: opened.filter((s) => s !== candidates),
      candidates,
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
  const started = performance.now();
  const { settings, outDir } = job.request;
  const output = await ExportOutput.open(outDir, settings.name, settings.format, settings.kind);
  const abort = new AbortController();
  // Every queued test run listens on this one signal.
  setMaxListeners(0, abort.signal);
  let current: { source: RowSource; progress: Progress } | undefined;
  const report = (message: string) => {
    if (current === undefined) io.stderr.write(`${message}\n`);
    else current.progress.log(message);
  };
  const pool = new MetricsPool(settings.config.pool.threads, {
    programCacheBytes: settings.config.pool.programCacheBytes,
    scoreMemoEntries: settings.config.pool.scoreMemoEntries,
  });
  let result: Awaited<ReturnType<typeof runExport>>;
  try {
    result = await runExport(settings, job.tasks, job.candidates, {
      pool,
      sandbox: job.sandbox,
      output,
      report,
      signal: abort.signal,
      progress(done, source) {
        if (current?.source !== source) {
          current?.progress.clear();
          current = {
            source,
            progress: new Progress({
              stream: io.stderr,
              label: "minedit export",
              unit: source === job.candidates ? "candidates" : "task rows",
              ...(source.size === undefined ? {} : { totalBytes: source.size }),
            }),
          };
        }
        current.progress.update(done, source.position());
      },
    });
  } catch (error) {
    abort.abort();
    await output.abort();
    throw error;
  } finally {
    await pool.close();
  }
  const manifest = await output.commit(
    { ...result.manifest, summary: result.summary },
    settings.splits.map((s) => s.name),
  );
  current?.progress.clear();
  io.stderr.write(
    summaryText(settings, result.summary, manifest.files, outDir, (performance.now() - started) / 1000),
  );
  return { badRows: Object.values(result.summary.badRows).reduce((a, b) => a + b, 0) };
}

/** The lint corpora: judge the revisions of lint tasks and write the corpus. */
async function runLintJob(job: ExportJob, settings: LintExportSettings, io: StdIo): Promise<ExportOutcome> {
  const started = performance.now();
  const { outDir } = job.request;
  const output = await ExportOutput.open(outDir, settings.name, settings.format, settings.kind);
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const progress = new Progress({ stream: io.stderr, label: "minedit export", unit: "items" });
  let result: Awaited<ReturnType<typeof runLintExport>>;
  try {
    result = await runLintExport(settings, job.tasks, job.candidates, {
      sandbox: job.sandbox,
      linter: job.linter,
      output,
      report: (message) => progress.log(message),
      signal: abort.signal,
      progress: (done) => progress.update(done),
    });
  } catch (error) {
    abort.abort();
    await output.abort();
    progress.clear();
    throw error;
  }
  const manifest = await output.commit(
    { ...result.manifest, summary: result.summary },
    settings.splits.map((s) => s.name),
  );
  progress.clear();
  io.stderr.write(
    lintSummaryText(settings, result.summary, manifest.files, outDir, (performance.now() - started) / 1000),
  );
  return { badRows: Object.values(result.summary.badRows).reduce((a, b) => a + b, 0) };
}
