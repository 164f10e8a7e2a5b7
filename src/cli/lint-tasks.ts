/**
 * `minedit lint tasks`: builds lint tasks (docs/lint.md) from source files with tests — by default the shipped
 * Python seed problems and the C++/Java seed programs — and writes them with a report of alerts per file,
 * per category and per rule. Parse the flags → src/lint/tasks-job.ts → exit code.
 */
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { SandboxConfig } from "../config.js";
import { LINT_LANGUAGES, type LintLanguage } from "../core/lint/tools.js";
import { assignSplit, parseSplitSpec } from "../export/splits.js";
import type { StdIo } from "../io/std-io.js";
import { commandFailure, EXIT, parseCommandArgs, usageError } from "./failures.js";
import { sandboxConfigOfFlag, sandboxFlagHelp } from "./sandbox-flag.js";

/** The shipped source files of each language (resolved from src/cli and dist/cli alike). */
export const DEFAULT_LINT_SOURCES: Readonly<Record<LintLanguage, string>> = {
  python: fileURLToPath(new URL("../../datasets/seed/problems.jsonl", import.meta.url)),
  cpp: fileURLToPath(new URL("../../datasets/lint/cpp.jsonl", import.meta.url)),
  java: fileURLToPath(new URL("../../datasets/lint/java.jsonl", import.meta.url)),
};

const OPTIONS = {
  language: { type: "string" },
  out: { type: "string", short: "o" },
  source: { type: "string", multiple: true },
  split: { type: "string" },
  seed: { type: "string" },
  concurrency: { type: "string" },
  sandbox: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = {
  language?: string;
  out?: string;
  source?: string[];
  split?: string;
  seed?: string;
  concurrency?: string;
  sandbox?: string;
  help?: boolean;
};

export function lintTasksHelp(): string {
  return `Usage: minedit lint tasks --language python|cpp|java|all --out FILE.jsonl [options]

Builds lint tasks (kind "lint_refactor") from source files with tests: each solution runs its tests in
the bubblewrap sandbox (Python: unittest/assert/stdio; C++: g++ -std=c++17; Java: javac/java; 10 s and
1 GiB per run), then the language's pinned analyzer (Pylint, clang-tidy, PMD) runs on it. A file that
passes and has at least one alert becomes a task; the others are counted by reason.

Writes FILE.jsonl, one task per line:
  {"task_id", "kind": "lint_refactor", "language", "problem_id", "statement", "original", "alerts",
   "tests", "entry_point", "analyzers": {tool: version}, "split", "source"}
and the report (alerts per language, per category, per rule and per file; skipped files by reason) as
FILE.report.md (also printed on stdout) and FILE.report.json.

Sources (rows {"problem_id", "statement", "solution", "tests", "entry_point"?, "language"?, "source"?}):
  default: python ${DEFAULT_LINT_SOURCES.python}
           cpp    ${DEFAULT_LINT_SOURCES.cpp}
           java   ${DEFAULT_LINT_SOURCES.java}

Options:
  --language L        python, cpp, java, or all (every default source, or rows naming their language)
  --out FILE, -o      the task file to write (replaced atomically)
  --source FILE       read these rows instead of the defaults (repeatable; "-" reads stdin)
  --split S           a split label for every task (default: train), or weights by problem such as
                      train=0.8,test=0.2 (the export's split rule: a hash of seed and problem_id)
  --seed N            seed of the split assignment (default: 0)
  --concurrency N     test and analyzer runs at once (default: available parallelism, ${availableParallelism()} here)
${sandboxFlagHelp(22)}
  -h, --help          this help

Example:
  minedit lint tasks --language cpp --out datasets/lint/tasks/cpp.jsonl

Exit codes:
  ${EXIT.ok}  done; no row was bad
  ${EXIT.badRows}  done; some rows were bad, reported on stderr (FILE:LINE: reason) and skipped
  ${EXIT.usage}  usage error (bad flag, unreadable file, no sandbox, an analyzer missing or not at its pinned version)
  ${EXIT.internal}  internal error
`;
}

const usage = usageError;
const fail = (io: StdIo, error: unknown) => commandFailure(io, "lint tasks", error);

function integerFlag(flag: string, text: string, minimum: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < minimum) {
    throw usage(`${flag}: expected an integer ≥ ${minimum}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** `--split`: one label, or weights assigned by problem. */
function splitRule(
  spec: string,
  seed: number,
  validationMessage: (error: unknown) => string,
): (problemId: string) => string {
  if (spec.includes("=")) {
    let weights: ReturnType<typeof parseSplitSpec>;
    try {
      weights = parseSplitSpec(spec);
    } catch (error) {
      throw usage(`--split: ${validationMessage(error)}`);
    }
    return (problemId) => assignSplit(problemId, weights, seed);
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(spec)) {
    throw usage(
      `--split: use letters, digits, '_', '-' and '.', or NAME=WEIGHT,...; got ${JSON.stringify(spec)}`,
    );
  }
  return () => spec;
}

/** `minedit lint tasks ...`. Never throws. */
export async function runLintTasks(argv: readonly string[], io: StdIo): Promise<number> {
  const parsed = parseCommandArgs<Values>(io, "lint tasks", argv, OPTIONS, lintTasksHelp);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  // The task builder (runners, analyzers, the sandbox) once the flags are parsed: `--help` does not load it.
  const [{ validationMessage }, { runLintTaskBuild }] = await Promise.all([
    import("../lint/build-tasks.js"),
    import("../lint/tasks-job.js"),
  ]);
  let language: LintLanguage | null;
  let splitOf: (problemId: string) => string;
  let concurrency = availableParallelism();
  let files: { path: string; language: LintLanguage | null }[];
  let sandbox: SandboxConfig | undefined;
  try {
    sandbox = await sandboxConfigOfFlag(values.sandbox);
    if (positionals.length > 0) throw usage(`unexpected argument ${JSON.stringify(positionals[0])}`);
    if (values.language === undefined) throw usage("missing --language (python, cpp, java or all)");
    if (values.language !== "all" && !(LINT_LANGUAGES as readonly string[]).includes(values.language)) {
      throw usage(`--language: expected python, cpp, java or all; got ${JSON.stringify(values.language)}`);
    }
    language = values.language === "all" ? null : (values.language as LintLanguage);
    if (values.out === undefined) throw usage("missing --out FILE.jsonl");
    const seed = values.seed === undefined ? 0 : integerFlag("--seed", values.seed, 0);
    splitOf = splitRule(values.split ?? "train", seed, validationMessage);
    if (values.concurrency !== undefined) concurrency = integerFlag("--concurrency", values.concurrency, 1);
    const given = values.source ?? [];
    if (given.filter((f) => f === "-").length > 1) throw usage("only one --source can be stdin (-)");
    files =
      given.length > 0
        ? given.map((path) => ({ path, language }))
        : (language === null ? LINT_LANGUAGES : [language]).map((l) => ({
            path: DEFAULT_LINT_SOURCES[l],
            language: l,
          }));
  } catch (error) {
    return fail(io, error);
  }
  try {
    const { badRows } = await runLintTaskBuild(
      {
        files,
        out: values.out as string,
        concurrency,
        splitOf,
        ...(sandbox === undefined ? {} : { sandbox }),
      },
      io,
    );
    return badRows > 0 ? EXIT.badRows : EXIT.ok;
  } catch (error) {
    return fail(io, error);
  }
}
