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
import { IdSchema, optionalField, ProgramSchema, parseJsonObject, requiredField } from "../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { LINT_LANGUAGES } from "../lint/alert.js";
import { Linter } from "../lint/linter.js";
import { buildLintReport, type RefactoringRow, renderLintReport } from "../lint/report.js";
import { formatJson } from "../tasks/task-set.js";
import { runLintTasks } from "./lint-tasks.js";
import type { CliIo } from "./main.js";
import { Progress } from "./progress.js";
import { EXIT, jsonlLines, openInput } from "./score.js";

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
   "passed": true|false}
  Other fields are ignored. Tests are not run by this command: "passed" is required.

Options:
  --json             print the report as JSON (versions, metrics, and per row: alerts before, fixed,
                     new, diff lines, style score) instead of Markdown
  --concurrency N    analyzer runs at once (default: available parallelism, ${availableParallelism()} here)
  -h, --help         this help

Example:
  minedit lint report refactorings.jsonl

${EXIT_CODES}
`;
}

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

function failure(io: CliIo, command: string, error: unknown): number {
  if (isMineditError(error) && error.code !== ErrorCode.Internal) {
    io.stderr.write(
      `minedit lint ${command}: ${error.rawMessage}\nRun \`minedit lint ${command} --help\` for usage.\n`,
    );
    return EXIT.usage;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(`minedit lint ${command}: internal error: ${message}\n`);
  return EXIT.internal;
}

/** The subcommands, so later ones are one entry each. */
const SUBCOMMANDS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => Promise<number>>> = {
  report: runReport,
  tasks: runLintTasks,
};

/** `minedit lint ...`: dispatches to the subcommand. */
export async function runLint(argv: readonly string[], io: CliIo): Promise<number> {
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

/** One input row, validated. */
export function parseRefactoringRow(text: string): RefactoringRow {
  const row = parseJsonObject(text);
  const id = requiredField(row, "id", IdSchema);
  const language = requiredField(row, "language", LanguageSchema);
  const original = requiredField(row, "original", ProgramSchema);
  const revised = requiredField(row, "revised", ProgramSchema);
  const passed = optionalField(row, "passed", PassedSchema);
  if (passed === undefined) {
    throw usage(
      'missing field "passed" (whether the revision passes its tests: this command does not run tests)',
    );
  }
  return { id, language, original, revised, passed };
}

async function runReport(argv: readonly string[], io: CliIo): Promise<number> {
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

  const rows: RefactoringRow[] = [];
  let badRows = 0;
  let input: Awaited<ReturnType<typeof openInput>>;
  try {
    input = await openInput(path, io, "FILE");
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

  let linter: Linter;
  try {
    linter = await Linter.create({ concurrency });
  } catch (error) {
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
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once("SIGINT", onSigint);
  let output: string;
  try {
    const report = await buildLintReport(rows, linter, {
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
  io.stderr.write(`minedit lint report: ${rows.length} rows reported, ${badRows} bad rows\n`);
  return badRows > 0 ? EXIT.badRows : EXIT.ok;
}
