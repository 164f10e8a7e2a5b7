/**
 * One `minedit lint report FILE.jsonl` run (docs/lint.md): read the refactoring rows, run the tests of the rows
 * that carry tests instead of `passed`, analyze every original and revised file with the language's pinned
 * analyzer in the sandbox, and render the LintEval metrics and OmniCode's style score (report.ts).
 *
 * Decisions, and why:
 * - Rows give `passed` (whether the revision passes its tests) or the `tests` to run it against. A row
 *   with neither is a bad row, not a failing one — guessing either way would move every @P metric.
 * - Bad rows are reported on stderr (`FILE:LINE: reason`) and left out; the report covers the others.
 * - The analyzers run in the bubblewrap sandbox; no sandbox, a tool missing or at another version than
 *   its pin is a usage error before anything is analyzed.
 */
import { z } from "zod";
import { Linter } from "../analyzers/linter.js";
import { DEFAULT_LIMITS_CONFIG, parseConfig, type SandboxConfig } from "../config.js";
import { LINT_LANGUAGES } from "../core/lint/tools.js";
import { mapConcurrent } from "../core/map-concurrent.js";
import { IdSchema, optionalField, ProgramSchema, parseJsonObject, requiredField } from "../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { jsonlLines, openInput } from "../io/inputs.js";
import { Progress } from "../io/progress.js";
import { formatJson } from "../io/report-files.js";
import type { StdIo } from "../io/std-io.js";
import type { PythonTests } from "../runners/python.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import { TestsRowSchema, testsFromRow } from "../scoring/tests-row.js";
import { runLintTests } from "./build-tasks.js";
import { buildLintReport, type RefactoringRow, renderLintReport } from "./report.js";

/** What to report on: the rows file (`-` for stdin), runs at once, and JSON or tables. */
export type LintReportRequest = {
  path: string;
  concurrency: number;
  json: boolean;
  /** Where the tests and the analyzers run (`--sandbox`); default: the bwrap backend's defaults. */
  sandbox?: SandboxConfig;
};

/** How it went: rows left out (invalid, or their tests could not be run). */
export type LintReportOutcome = { badRows: number };

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

const LanguageSchema = z.enum(LINT_LANGUAGES, { error: `expected one of ${LINT_LANGUAGES.join(", ")}` });
const PassedSchema = z.boolean({ error: "expected true or false" });
/** LintEval's limits per run (docs/lint.md): the `limits.lintTests` profile. */
const LINT_LIMITS = DEFAULT_LIMITS_CONFIG.lintTests;

/** One input row, validated. */
export function parseRefactoringRow(text: string): ReportRow {
  const row = parseJsonObject(text);
  const id = requiredField(row, "id", IdSchema);
  const language = requiredField(row, "language", LanguageSchema);
  const original = requiredField(row, "original", ProgramSchema);
  const revised = requiredField(row, "revised", ProgramSchema);
  const passed = optionalField(row, "passed", PassedSchema);
  if (passed !== undefined) return { id, language, original, revised, passed };
  const tests = optionalField(row, "tests", TestsRowSchema);
  if (tests === undefined) {
    throw usage('give "passed" (whether the revision passes its tests) or the "tests" to run it against');
  }
  const entryPoint = optionalField(row, "entry_point", z.string()) ?? "";
  const runnable = testsFromRow(tests, entryPoint);
  if (language !== "python" && runnable.style !== "stdio") {
    throw usage(`tests: ${language} programs take stdio tests only`);
  }
  return { id, language, original, revised, tests: runnable };
}

/** A row as read: whether the revision passed is given, or its tests are to be run here. */
type ReportRow = Omit<RefactoringRow, "passed"> & ({ passed: boolean } | { tests: PythonTests });

/**
 * Runs the tests of the rows that carry tests instead of `passed` (in the sandbox, `concurrency` at
 * once): a revision passes on the PASSED verdict. A sandbox fault (INFRA_ERROR) is no verdict on the
 * revision: that row is reported on stderr and left out, as a bad row.
 */
async function judgeRevisions(
  rows: readonly ReportRow[],
  concurrency: number,
  sandboxConfig: SandboxConfig,
  io: StdIo,
  signal: AbortSignal,
): Promise<{ judged: RefactoringRow[]; infra: number }> {
  const toRun = rows.filter((row): row is Extract<ReportRow, { tests: PythonTests }> => "tests" in row);
  const verdicts = new Map<ReportRow, string>();
  if (toRun.length > 0) {
    const sandbox = await createConfiguredSandbox(sandboxConfig, LINT_LIMITS, warnTo(io));
    const progress = new Progress({
      stream: io.stderr,
      label: "minedit lint report: tests",
      unit: "revisions",
    });
    let done = 0;
    try {
      await mapConcurrent(toRun, concurrency, async (row) => {
        const outcome = await runLintTests(
          sandbox,
          row.language,
          row.revised,
          row.tests,
          LINT_LIMITS,
          signal,
        );
        verdicts.set(row, outcome.verdict);
        if (outcome.verdict === "INFRA_ERROR")
          io.stderr.write(`row ${row.id}: not judged: ${outcome.detail}\n`);
        progress.update(++done, toRun.length);
      });
    } finally {
      progress.clear();
      await sandbox.close();
    }
  }
  const judged: RefactoringRow[] = [];
  for (const row of rows) {
    if ("passed" in row) judged.push(row);
    else if (verdicts.get(row) !== "INFRA_ERROR") {
      const { tests: _tests, ...rest } = row;
      judged.push({ ...rest, passed: verdicts.get(row) === "PASSED" });
    }
  }
  return { judged, infra: rows.length - judged.length };
}

/** Reports on the rows of `request.path`: the report on stdout, bad rows and a summary on stderr. */
export async function runLintReport(request: LintReportRequest, io: StdIo): Promise<LintReportOutcome> {
  const { path, concurrency } = request;
  const rows: ReportRow[] = [];
  let badRows = 0;
  const input = await openInput(path, io.stdin, "FILE");
  try {
    for await (const { line, text } of jsonlLines(input.stream)) {
      try {
        rows.push(parseRefactoringRow(text));
      } catch (error) {
        if (!isMineditError(error)) throw error;
        badRows += 1;
        io.stderr.write(`${input.name}:${line}: ${error.rawMessage}\n`);
      }
    }
  } finally {
    await input.close();
  }

  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once("SIGINT", onSigint);
  try {
    const sandboxConfig = request.sandbox ?? parseConfig({}).sandbox;
    const { judged, infra } = await judgeRevisions(rows, concurrency, sandboxConfig, io, abort.signal);
    badRows += infra;
    const linter = await startLinter(concurrency, sandboxConfig, io);
    const progress = new Progress({ stream: io.stderr, label: "minedit lint report", unit: "files" });
    let output: string;
    try {
      const report = await buildLintReport(judged, linter, {
        signal: abort.signal,
        onProgress: (done) => progress.update(done),
      });
      output = request.json
        ? formatJson({ input: input.name, badRows, ...report })
        : renderLintReport(report, input.name);
    } finally {
      progress.clear();
      await linter.close();
    }
    io.stdout.write(output.endsWith("\n") ? output : `${output}\n`);
    io.stderr.write(`minedit lint report: ${judged.length} rows reported, ${badRows} bad rows\n`);
    return { badRows };
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
}

const warnTo = (io: StdIo) => (message: string) => io.stderr.write(`minedit: ${message}\n`);

/** The analyzers' sandbox; not being able to start it is the user's to fix (install bubblewrap). */
async function startLinter(concurrency: number, sandboxConfig: SandboxConfig, io: StdIo): Promise<Linter> {
  try {
    return await Linter.create({ concurrency, sandboxConfig, warn: warnTo(io) });
  } catch (error) {
    if (isMineditError(error) && error.code === ErrorCode.Unavailable && sandboxConfig.backend === "docker") {
      throw usage(`cannot start the analyzers' Docker sandbox: ${error.rawMessage}`);
    }
    if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
      throw usage(
        `cannot start the analyzers' sandbox: ${error.rawMessage}\nThe analyzers run in a bubblewrap ` +
          "sandbox: install bubblewrap (Debian: apt-get install -y bubblewrap).",
      );
    }
    throw error;
  }
}
