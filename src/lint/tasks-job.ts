/**
 * One `minedit lint tasks` run (docs/lint.md): read the source files with tests, build lint tasks from them
 * (build-tasks.ts: tests and analyzer in the sandbox), and write the tasks and their reports atomically.
 *
 * Decisions, and why:
 * - A file becomes a task only when its solution passes its tests and the analyzer reports at least one
 *   alert (LintEval §2.1–2.3: correct files with something to fix); the others are counted by reason in
 *   the report, not errors.
 * - Bad rows (unreadable, invalid, a duplicate problem_id) are reported as `FILE:LINE: reason` and make
 *   the exit code 1; the tasks of the other rows are still written.
 * - Tests run with LintEval's limits (10 s, 1 GiB per run, docs/lint.md), the sandbox's defaults.
 */
import { relative } from "node:path";
import { createLintSandbox, Linter } from "../analyzers/linter.js";
import { DEFAULT_LIMITS_CONFIG, type SandboxConfig } from "../config.js";
import { type LintLanguage, TOOL_OF_LANGUAGE } from "../core/lint/tools.js";
import { parseJsonObject } from "../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { writeFileAtomically } from "../io/atomic-write.js";
import { jsonlLines, openInput } from "../io/inputs.js";
import { Progress } from "../io/progress.js";
import { formatJson, taskSetPaths } from "../io/report-files.js";
import type { StdIo } from "../io/std-io.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { lintTaskRow } from "../scoring/lint-task.js";
import {
  buildLintTasks,
  type LintSource,
  lintTaskReport,
  parseLintSource,
  renderLintTaskReport,
  validationMessage,
} from "./build-tasks.js";

/** What to build: the source files (`-` for stdin; `language` null: each row names its own). */
export type LintTaskBuildRequest = {
  files: readonly { path: string; language: LintLanguage | null }[];
  out: string;
  concurrency: number;
  /** The split of each problem (by problem id). */
  splitOf: (problemId: string) => string;
  /** Where the tests and the analyzers run (`--sandbox`); default: the bwrap backend's defaults. */
  sandbox?: SandboxConfig;
};

/** How it went: bad source rows (reported on stderr), by reason. */
export type LintTaskBuildOutcome = { badRows: number };

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

/** Builds and writes the lint tasks; prints the report on stdout and a summary on stderr. */
export async function runLintTaskBuild(
  request: LintTaskBuildRequest,
  io: StdIo,
): Promise<LintTaskBuildOutcome> {
  const { files, out, concurrency, splitOf } = request;
  const sources: LintSource[] = [];
  const badReasons: Record<string, number> = {};
  const seen = new Map<string, string>();
  let read = 0;
  const bad = (where: string, reason: string, category: string) => {
    io.stderr.write(`${where}: ${reason}\n`);
    badReasons[category] = (badReasons[category] ?? 0) + 1;
  };
  for (const file of files) {
    const input = await openInput(file.path, io.stdin, "--source");
    try {
      for await (const { line, text } of jsonlLines(input.stream)) {
        read += 1;
        const where = `${input.name}:${line}`;
        let source: LintSource;
        try {
          source = parseLintSource(parseJsonObject(text), file.language, input.name);
        } catch (error) {
          bad(where, validationMessage(error), "invalid row");
          continue;
        }
        const first = seen.get(source.problemId);
        if (first !== undefined) {
          bad(
            where,
            `duplicate problem_id "${source.problemId}" (first at ${first})`,
            "duplicate problem_id",
          );
          continue;
        }
        seen.set(source.problemId, where);
        sources.push(source);
      }
    } finally {
      await input.close();
    }
  }

  let sandbox: Sandbox;
  try {
    sandbox = await createLintSandbox(request.sandbox, (message) => io.stderr.write(`minedit: ${message}\n`));
  } catch (error) {
    if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
      throw usage(
        request.sandbox?.backend === "docker"
          ? `cannot start the Docker sandbox: ${error.rawMessage}`
          : `cannot start the sandbox: ${error.rawMessage}\nThe tests and analyzers run in a bubblewrap ` +
              "sandbox: install bubblewrap (Debian: apt-get install -y bubblewrap).",
      );
    }
    throw error;
  }
  const linter = await Linter.create({ sandbox, concurrency });
  const progress = new Progress({ stream: io.stderr, label: "minedit lint tasks", unit: "files" });
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once("SIGINT", onSigint);
  let markdown: string;
  let summary: string;
  try {
    const languages = [...new Set(sources.map((s) => s.language))];
    // Versions first: a missing analyzer or one off its pin is a usage error before any test runs.
    const versions = await linter.versions(
      languages.map((l) => TOOL_OF_LANGUAGE[l]),
      abort.signal,
    );
    const built = await buildLintTasks(sources, {
      sandbox,
      linter,
      // LintEval's limits per run (docs/lint.md).
      limits: DEFAULT_LIMITS_CONFIG.lintTests,
      concurrency,
      splitOf,
      signal: abort.signal,
      onProgress: (done) => progress.update(done),
      onSkip: (source, reason, detail) =>
        progress.log(`${source.problemId}: skipped, ${reason}${detail === "" ? "" : `: ${detail}`}`),
    });
    const report = lintTaskReport(built.tasks, {
      analyzers: Object.fromEntries(versions.map((v) => [v.tool, v.version])),
      // Relative to the working directory: reports are shipped beside the task files.
      sources: files.map((f) => relative(process.cwd(), f.path) || f.path),
      read,
      badReasons,
      skipped: built.skipped,
    });
    const paths = taskSetPaths(out);
    markdown = renderLintTaskReport(report, out);
    await writeFileAtomically(
      out,
      built.tasks.map((task) => `${JSON.stringify(lintTaskRow(task))}\n`).join(""),
    );
    await writeFileAtomically(paths.reportMarkdown, markdown);
    await writeFileAtomically(paths.reportJson, formatJson(report));
    const skipped = Object.values(built.skipped).reduce((a, b) => a + b, 0);
    const badCount = Object.values(badReasons).reduce((a, b) => a + b, 0);
    summary =
      `minedit lint tasks: ${read} files read, ${built.tasks.length} tasks written to ${out}, ` +
      `${skipped} skipped, ${badCount} bad rows; reports ${paths.reportMarkdown}, ${paths.reportJson}\n`;
  } finally {
    progress.clear();
    process.removeListener("SIGINT", onSigint);
    await linter.close();
    await sandbox.close();
  }
  io.stdout.write(markdown);
  io.stderr.write(summary);
  return { badRows: Object.values(badReasons).reduce((a, b) => a + b, 0) };
}
