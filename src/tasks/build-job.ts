/**
 * One `minedit tasks build` run: check the source, start the sandbox, build the tasks (build.ts) with a
 * progress bar, resumably (Ctrl-C stops cleanly; the same command resumes), then write the task set's
 * report (Markdown on stdout and beside the task file, JSON next to it) and print a summary on stderr.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { SandboxConfig } from "../config.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { Progress } from "../io/progress.js";
import { formatJson } from "../io/report-files.js";
import type { StdIo } from "../io/std-io.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { type BuildOptions, type BuildSummary, buildTasks } from "./build.js";
import { openSourceText } from "./importers/import-file.js";
import { reportTaskFile } from "./task-set.js";

/** What to build, validated (the CLI's flags). `onlyFile` lists the problem ids to build (`--only`). */
export type TaskBuildRequest = Omit<
  BuildOptions,
  "sandbox" | "only" | "signal" | "onBadRow" | "onProgress"
> & {
  onlyFile?: string;
  report: { markdown: string; json: string };
  sandboxConfig: SandboxConfig;
};

/** How it went: source rows that could not be imported, and whether Ctrl-C stopped it. */
export type TaskBuildOutcome = { badRows: number; interrupted: boolean };

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

/** Problem ids of an `--only` file: one per line, blank lines and `#` comments ignored. */
export async function readIdList(path: string): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw usage(`--only: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const ids = text
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter((line) => line !== "");
  if (ids.length === 0) throw usage(`--only ${path}: no problem ids in the file`);
  return new Set(ids);
}

/**
 * Builds the tasks the request asks for. Usage problems (no source, an empty `--only` file, no sandbox)
 * throw MineditError `InvalidArgument` before anything is written.
 */
export async function runTaskBuild(request: TaskBuildRequest, io: StdIo): Promise<TaskBuildOutcome> {
  try {
    const info = await stat(request.source);
    if (!info.isFile()) throw usage(`--source: ${request.source} is not a file`);
  } catch (error) {
    if (isMineditError(error)) throw error;
    throw usage(`--source: cannot read ${request.source}: no such file`);
  }
  const only = request.onlyFile === undefined ? undefined : await readIdList(request.onlyFile);
  let sandbox: Sandbox;
  try {
    sandbox = await createConfiguredSandbox(request.sandboxConfig, request.limits, (message) =>
      io.stderr.write(`minedit tasks build: ${message}\n`),
    );
  } catch (error) {
    if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
      throw usage(
        `cannot run the tests: ${error.rawMessage}\nThe tests run in a bubblewrap sandbox: install ` +
          "bubblewrap (Debian: apt-get install -y bubblewrap).",
      );
    }
    throw error;
  }
  const { onlyFile: _onlyFile, report: reportPaths, sandboxConfig: _sandboxConfig, ...options } = request;
  const started = performance.now();
  const progress = new Progress({
    stream: io.stderr,
    label: "minedit tasks build",
    unit: "problems",
    totalBytes: await countLines(request.source).catch(() => 0),
  });
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once("SIGINT", onSigint);
  let summary: BuildSummary;
  try {
    summary = await buildTasks({
      ...options,
      ...(only === undefined ? {} : { only }),
      sandbox,
      signal: abort.signal,
      onBadRow: (line, reason) => progress.log(`${request.source}:${line}: ${reason}`),
      onProgress: (done, line) => progress.update(done, line),
    });
  } finally {
    progress.clear();
    process.removeListener("SIGINT", onSigint);
    await sandbox.close();
  }
  if (summary.droppedRows > 0) {
    io.stderr.write(
      `minedit tasks build: dropped ${summary.droppedRows} row(s) of an interrupted problem at the end of ${request.out}; it was built again\n`,
    );
  }
  const { report, markdown } = await reportTaskFile(request.out);
  await mkdir(dirname(reportPaths.markdown), { recursive: true });
  await writeFile(reportPaths.markdown, markdown);
  await writeFile(reportPaths.json, formatJson(report));
  io.stdout.write(markdown);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  io.stderr.write(
    `minedit tasks build: ${summary.processed} problems built, ${summary.tasksWritten} tasks written ` +
      `(${rejectedText(summary)}); ${summary.skipped} skipped (already in ${request.out})` +
      (summary.filteredOut > 0 ? `, ${summary.filteredOut} not in --only` : "") +
      `, ${summary.badRows} bad source rows, in ${seconds} s; report: ${reportPaths.markdown}\n`,
  );
  if (summary.interrupted) {
    io.stderr.write("minedit tasks build: interrupted; re-run the same command to resume\n");
  }
  return { badRows: summary.badRows, interrupted: summary.interrupted };
}

/** Physical lines of the source, decompressed (for the progress bar: problems are reported by the line reached). */
async function countLines(path: string): Promise<number> {
  let lines = 0;
  let last = "\n";
  for await (const chunk of (await openSourceText(path)) as AsyncIterable<string>) {
    for (let i = chunk.indexOf("\n"); i >= 0; i = chunk.indexOf("\n", i + 1)) lines += 1;
    if (chunk.length > 0) last = chunk[chunk.length - 1] as string;
  }
  return last === "\n" ? lines : lines + 1;
}

function rejectedText(summary: BuildSummary): string {
  const parts = Object.entries(summary.rejected)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n} ${reason}`);
  return parts.length === 0 ? "none rejected" : `rejected: ${parts.join(", ")}`;
}
