/**
 * `minedit lint …`: linter-guided refactoring (docs/lint.md). `minedit lint report FILE.jsonl` analyzes the
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
 * - The analyzers and the sandbox are imported once the flags are parsed, so `--help` does not load them.
 */

import { availableParallelism } from "node:os";
import { LINT_LANGUAGES } from "../core/lint/tools.js";
import type { StdIo } from "../io/std-io.js";
import { commandFailure, EXIT, type FlagValues, parseCommandArgs, usageError } from "./failures.js";
import { runLintTasks } from "./lint-tasks.js";
import { sandboxConfigOfFlag, sandboxFlagHelp } from "./sandbox-flag.js";

const EXIT_CODES = `Exit codes:
  ${EXIT.ok}  done
  ${EXIT.badRows}  some input rows were bad and reported on stderr; the report covers the others
  ${EXIT.usage}  usage error (bad flag, unreadable file, no sandbox, an analyzer missing or not at its pinned version)
  ${EXIT.internal}  internal error`;

export function lintHelp(): string {
  return `Usage: minedit lint <report|tasks> [options]

Linter-guided refactoring (docs/lint.md): Pylint (Python), clang-tidy (C++) and PMD (Java) with fixed rule
configurations (lint/config/) and pinned versions, alerts matched on rule id and sanitized message.

  minedit lint report FILE.jsonl [--json]   metrics of a set of (original, revised) files
  minedit lint tasks --language L --out F   build lint tasks from source files with tests

\`minedit lint report --help\` and \`minedit lint tasks --help\` describe them.
`;
}

export function lintReportHelp(): string {
  return `Usage: minedit lint report FILE.jsonl [--json] [--concurrency N] [--sandbox bwrap|docker]

Analyzes the original and the revised file of every row with the language's analyzer (in the sandbox;
identical files once) and prints, overall, per language and per alert category:

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
${sandboxFlagHelp(21)}
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
  sandbox: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type ReportValues = FlagValues<typeof REPORT_OPTIONS>;

async function runReport(argv: readonly string[], io: StdIo): Promise<number> {
  const parsed = parseCommandArgs<ReportValues>(io, "lint report", argv, REPORT_OPTIONS, lintReportHelp);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
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

  try {
    const sandbox = await sandboxConfigOfFlag(values.sandbox);
    const request = {
      path,
      concurrency,
      json: values.json === true,
      ...(sandbox === undefined ? {} : { sandbox }),
    };
    const { runLintReport } = await import("../lint/report-job.js");
    const { badRows } = await runLintReport(request, io);
    return badRows > 0 ? EXIT.badRows : EXIT.ok;
  } catch (error) {
    return failure(io, "report", error);
  }
}
