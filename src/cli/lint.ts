/**
 * `minedit lint …`: linter-guided refactoring (SPEC §5). `minedit lint report FILE.jsonl` analyzes the
 * original and revised file of every row with the language's pinned analyzer (Pylint, clang-tidy, PMD) in
 * the sandbox and prints the LintEval metrics and OmniCode's style score as tables (or JSON), with the
 * analyzer versions. Parse the flags → read the rows → src/lint/report.ts → print → exit code.
 *
 * Decisions, and why:
 * - Rows give `passed` (whether the revision passes its tests): this command scores refactorings, it
 *   does not run tests. A row without it is a bad row, not a failing one — guessing either way would
 *   move every @P metric.
 * - Bad rows are reported on stderr (`FILE:LINE: reason`) and left out; the report covers the others and
 *   the exit code is 1 (exit 0 means every row was used).
 * - The analyzers run in the bubblewrap sandbox; no sandbox, a tool missing or at another version than
 *   its pin is a usage error (exit 2) before anything is analyzed.
 */

import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { z } from "zod";
import { Linter } from "../analyzers/linter.js";
import { parseConfig } from "../config.js";
import { LINT_LANGUAGES } from "../core/lint/tools.js";
import { IdSchema, optionalField, ProgramSchema, parseJsonObject, requiredField } from "../core/task-file.js";
import { ErrorCode, isMineditError } from "../errors.js";
import { jsonlLines, openInput } from "../io/inputs.js";
import { Progress } from "../io/progress.js";
import type { StdIo } from "../io/std-io.js";
import { mapConcurrent, runLintTests } from "../lint/build-tasks.js";
import { buildLintReport, type RefactoringRow, renderLintReport } from "../lint/report.js";
import type { PythonTests } from "../runners/python.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import { DEFAULT_LIMITS } from "../sandbox/sandbox.js";
import { TestsRowSchema, testsFromRow } from "../scoring/tests-row.js";
import { formatJson } from "../tasks/task-set.js";
import { commandFailure, EXIT, usageError } from "./failures.js";
import { runLintTasks } from "./lint-tasks.js";

const EXIT_CODES = `Exit codes:
  ${EXIT.ok}  done
  ${EXIT.badRows}  some input rows were bad and reported on stderr; the report covers the others
  ${EXIT.usage}  usage error (bad flag, unreadable file, no sandbox, an analyzer missing or not at its pinned version)
  ${EXIT.internal}  internal error`;

export function lintHelp(): string {
  return `Usage: minedit lint <report|tasks> [options]

Linter-guided refactoring (SPEC §5): Pylint (Python), clang-tidy (C++) and PMD (Java) with fixed rule
configurations (lint/config/) and pinned versions, alerts matched on rule id and sanitized message.

  minedit lint report FILE.jsonl [--json]   metrics of a set of (original, revised) files
  minedit lint tasks --language L --out F   build lint tasks from source files with tests

\`minedit lint report --help\` and \`minedit lint tasks --help\` describe them.
`;
}

export function lintReportHelp(): string {
  return `Usage: minedit lint report FILE.jsonl [--json] [--concurrency N]

Analyzes the original and the revised file of every row with the language's analyzer (in the bubblewrap
sandbox; identical files once) and prints, overall, per language and per alert category:

  Pass@1        |P| / N, P = rows whose revision passes its tests
  Reduction@P   Σ_P (Fixed − New) / Σ_P |Orig|     (negative when revisions add more alerts than they fix)
  New@P         Σ_P New / Σ_P |Orig|
  ΔLine@P       mean over P of the added + deleted lines of the unified diff
  LinePerFix@P  Σ_P diff lines / Σ_P Fixed
  style score   OmniCode: mean over all rows of max(0, (Fixed − New) / |Orig|), 0 for a failing row

Fixed = original alerts absent from the revision, New = revision alerts absent from the original, as
multisets of (rule id, message without line numbers and paths). The analyzer versions head the report.

Rows (one JSON object per line; "-" reads stdin):
  {"id": string|integer, "language": ${LINT_LANGUAGES.map((l) => `"${l}"`).join("|")}, "original": source, "revised": source,
   "passed": true|false}                 whether the revision passes its tests, if you know it; or
   "tests": {...}, "entry_point": name}  the tests to run the revision against, in the sandbox (10 s,
                                         1 GiB per run): Python takes the unittest / assert / stdio
                                         styles of task rows, C++ and Java stdio cases; it passes on
                                         PASSED (a sandbox fault leaves the row out, as a bad row)
  Other fields are ignored.

Options:
  --json             print the report as JSON (versions, metrics, and per row: alerts before, fixed,
                     new, diff lines, style score) instead of Markdown
  --concurrency N    analyzer and test runs at once (default: available parallelism, ${availableParallelism()} here)
  -h, --help         this help

Example:
  minedit lint report refactorings.jsonl

${EXIT_CODES}
`;
}

const usage = usageError;
const failure = (io: StdIo, command: string, error: unknown) => commandFailure(io, `lint ${command}`, error);

/** The subcommands, so later ones are one entry each. */
const SUBCOMMANDS: Readonly<Record<string, (argv: readonly string[], io: StdIo) => Promise<number>>> = {
  report: runReport,
  tasks: runLintTasks,
};

/** `minedit lint ...`: dispatches to the subcommand. */
export async function runLint(argv: readonly string[], io: StdIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "-h" || sub === "--help") {
    io.stdout.write(lintHelp());
    return EXIT.ok;
  }
  if (sub !== undefined && Object.hasOwn(SUBCOMMANDS, sub))
    return (SUBCOMMANDS[sub] as typeof runReport)(rest, io);
  const names = Object.keys(SUBCOMMANDS).join(", ");
  io.stderr.write(
    `${sub === undefined ? "minedit lint: missing subcommand" : `minedit lint: unknown subcommand "${sub}"`} (${names})\n\n${lintHelp()}`,
  );
  return EXIT.usage;
}

// ---- report ------------------------------------------------------------------------------------------

const REPORT_OPTIONS = {
  json: { type: "boolean" },
  concurrency: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const LanguageSchema = z.enum(LINT_LANGUAGES, { error: `expected one of ${LINT_LANGUAGES.join(", ")}` });
const PassedSchema = z.boolean({ error: "expected true or false" });
/** LintEval's limits per run (SPEC §5): 10 s and 1 GiB, the sandbox defaults. */
const LINT_LIMITS = DEFAULT_LIMITS;

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
  io: StdIo,
  signal: AbortSignal,
): Promise<{ judged: RefactoringRow[]; infra: number }> {
  const toRun = rows.filter((row): row is Extract<ReportRow, { tests: PythonTests }> => "tests" in row);
  const verdicts = new Map<ReportRow, string>();
  if (toRun.length > 0) {
    const sandbox = await createConfiguredSandbox(parseConfig({}).sandbox, (message) =>
      io.stderr.write(`minedit: ${message}\n`),
    );
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

async function runReport(argv: readonly string[], io: StdIo): Promise<number> {
  let values: { json?: boolean; concurrency?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: REPORT_OPTIONS,
      allowPositionals: true,
    }));
  } catch (error) {
    return failure(io, "report", usage(error instanceof Error ? error.message : String(error)));
  }
  if (values.help === true) {
    io.stdout.write(lintReportHelp());
    return EXIT.ok;
  }
  const [path, ...extra] = positionals;
  if (path === undefined) return failure(io, "report", usage("missing FILE.jsonl (the rows to report on)"));
  if (extra.length > 0)
    return failure(io, "report", usage(`unexpected argument ${JSON.stringify(extra[0])}`));
  let concurrency = availableParallelism();
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!/^\d+$/.test(values.concurrency.trim()) || !Number.isSafeInteger(concurrency) || concurrency < 1) {
      const got = JSON.stringify(values.concurrency);
      return failure(io, "report", usage(`--concurrency: expected an integer ≥ 1, got ${got}`));
    }
  }

  const rows: ReportRow[] = [];
  let badRows = 0;
  let input: Awaited<ReturnType<typeof openInput>>;
  try {
    input = await openInput(path, io.stdin, "FILE");
  } catch (error) {
    return failure(io, "report", error);
  }
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
  } catch (error) {
    return failure(io, "report", error);
  } finally {
    await input.close();
  }

  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once("SIGINT", onSigint);
  let judged: RefactoringRow[];
  try {
    const result = await judgeRevisions(rows, concurrency, io, abort.signal);
    judged = result.judged;
    badRows += result.infra;
  } catch (error) {
    process.removeListener("SIGINT", onSigint);
    return failure(io, "report", error);
  }

  let linter: Linter;
  try {
    linter = await Linter.create({ concurrency });
  } catch (error) {
    process.removeListener("SIGINT", onSigint);
    if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
      return failure(
        io,
        "report",
        usage(
          `cannot start the analyzers' sandbox: ${error.rawMessage}\nThe analyzers run in a bubblewrap ` +
            "sandbox: install bubblewrap (Debian: apt-get install -y bubblewrap).",
        ),
      );
    }
    return failure(io, "report", error);
  }
  const progress = new Progress({ stream: io.stderr, label: "minedit lint report", unit: "files" });
  let output: string;
  try {
    const report = await buildLintReport(judged, linter, {
      signal: abort.signal,
      onProgress: (done) => progress.update(done),
    });
    output =
      values.json === true
        ? formatJson({ input: input.name, badRows, ...report })
        : renderLintReport(report, input.name);
  } catch (error) {
    progress.clear();
    return failure(io, "report", error);
  } finally {
    process.removeListener("SIGINT", onSigint);
    await linter.close();
  }
  progress.clear();
  io.stdout.write(output.endsWith("\n") ? output : `${output}\n`);
  io.stderr.write(`minedit lint report: ${judged.length} rows reported, ${badRows} bad rows\n`);
  return badRows > 0 ? EXIT.badRows : EXIT.ok;
}
