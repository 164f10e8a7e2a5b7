/**
 * `minedit tasks build` and `minedit tasks stats`: the repair-task factory (docs/tasks.md#corruption-families) and the composition
 * report of a task set (the over-editing paper's Tables 7–10). Parse the flags → build (src/tasks/build.ts)
 * or read (src/tasks/task-set.ts) → print the report → exit code.
 */

import { stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { parseConfig } from "../config.js";
import {
  type CorruptionMix,
  defaultCorruptionMix,
  mixWeights,
  parseCorruptionCount,
  parseCorruptionMix,
  parseFamilySpec,
} from "../core/corruption/registry.js";
import { isMineditError } from "../errors.js";
import { formatJson, jsonReportPath, taskSetPaths } from "../io/report-files.js";
import type { StdIo } from "../io/std-io.js";
import { executionLimits } from "../scoring/limits.js";
import type { BuildOptions } from "../tasks/build.js";
import { runTaskBuild, type TaskBuildRequest } from "../tasks/build-job.js";
import { isImportFormat } from "../tasks/importers/import-file.js";
import { IMPORT_FORMATS, type ImportFormat } from "../tasks/importers/types.js";
import { reportTaskFile } from "../tasks/task-set.js";
import { commandFailure, EXIT, type FlagValues, parseCommandArgs, usageError } from "./failures.js";

/** Exit code of a build stopped by Ctrl-C (128 + SIGINT, as shells report it). */
const EXIT_INTERRUPTED = 130;

const EXIT_CODES = `Exit codes:
  ${EXIT.ok}  done
  ${EXIT.badRows}  some input rows were bad and reported on stderr; all the others were processed
  ${EXIT.usage}  usage error (bad flag or value, unreadable file, sandbox not available)
  ${EXIT.internal}  internal error`;

export function tasksHelp(): string {
  return `Usage: minedit tasks <build|stats> [options]

Repair tasks by corruption (docs/tasks.md#corruption-families): a correct program is corrupted at known places, and the task is
kept only if the gold program passes its tests and the corrupted one fails them.

  minedit tasks build --source FILE --out FILE [options]   build a task set from a problem source
  minedit tasks stats FILE [--json]                        the composition report of a task file

\`minedit tasks build --help\` and \`minedit tasks stats --help\` describe each.
`;
}

export function tasksBuildHelp(): string {
  const d = parseConfig({});
  return `Usage: minedit tasks build --source FILE --out FILE [options]

For each problem of the source: the corruption engine draws up to --candidates distinct corrupted
programs (each with k corruptions, k uniform in --corruptions, seeded by --seed and the problem id); the
gold program and then the candidates run against the problem's tests in the bubblewrap sandbox, and a
candidate becomes a task when the gold program passes and the candidate fails, until --variants tasks.
Already-corrupted sources (format "corrupted") are not corrupted again: their task is only verified.

Tasks are appended to --out in source order, each problem's rows in one write, with one line per problem
in the build log beside it (OUT.build.log: tasks written, candidates rejected and why, the options).
Re-running with the same --out resumes: problems already in it are skipped, and an interrupted last
problem (a torn last line) is dropped and built again; the result is the file an uninterrupted run
writes. A split is built with one set of options (families, corruptions, variants, candidates, seed):
resuming it with others is refused. Delete --out and its .build.log to start over.

The report covers the whole task file (cf. the over-editing paper's Tables 7–10): corruptions per task,
gold token and line edit distance, normalized gold distance d(G,C), executable lines and tokens per
function, family counts and shares, bug categories, rejected candidates. It is printed on stdout and
written to OUT.report.md and OUT.report.json (or --report).

Options:
  --source FILE        problem source: JSONL, or a JSON array (required)
  --format NAME        ${IMPORT_FORMATS.join(" | ")}
                       (default: detected from the first row's fields)
  --out FILE           task file to write or resume (JSONL; required)
  --families SPEC      in-domain | ood | all | a comma-separated list of family names and groups
                       (default: in-domain); edge_case_guard_blocks (whole guards inserted or
                       removed) is in no group: name it, e.g. in-domain,edge_case_guard_blocks
  --mix NAME           how corruptions are drawn: paper | uniform | blocks
                       paper: the over-editing paper's mix (its Tables 8-9), for the 14 in-domain
                         families only: each family by a weight that reproduces Table 9
                         (conditional_inversion and range_step, absent there, never), guards altered
                         by a token or two, and with --corruptions 1-2 one corruption more often than
                         two (gold patches of ~1.6 token edits)
                       uniform: each corruption's family uniformly among those with a site, the count
                         uniformly in --corruptions
                       blocks: uniform, and edge_case_guards also inserts or removes whole guards
                         (7-25 tokens): how tasks were drawn before the paper mix, e.g. the shipped sets
                       (default: paper when every family is one of the 14 in-domain, else uniform)
  --corruptions N|A-B  corruptions per task, e.g. 1-2 (evaluation) or 1-10 (training) (default: 1-2)
  --variants N         tasks per problem at most, with distinct corrupted programs (default: 1)
  --candidates N       corrupted candidates tried per problem at most, ≥ --variants (default: 4 × variants)
  --seed N             integer seed; the same seed, source and options give the same file (default: 0)
  --split NAME         split written in every row and in the task ids (default: test)
  --only FILE          build only the problems listed in FILE (one id per line, # comments; the id as in
                       the task rows, e.g. minedit/seed/001-merge-bookings, or without the format prefix)
  --report FILE.md     write the report here (and FILE.json) instead of beside --out
  --concurrency N      problems built at once, i.e. sandboxed runs at once (default: available
                       parallelism, ${availableParallelism()} here)
  --cpu-time-ms N      CPU-time limit of one test run (default: ${d.limits.tests.cpuTimeMs}); a candidate that uses
                       more fails (TIMEOUT) and is kept as a task. 0: no CPU limit, the wall limit alone
  --wall-time-ms N     with a CPU limit, the least wall-clock backstop of a run (the backstop is
                       max(N, f × the CPU limit + 5 s), f = max(2, 1.5 × concurrency / cores)); with
                       --cpu-time-ms 0, the wall-clock limit of one test run (default: ${d.limits.tests.wallTimeMs})
  -h, --help           this help

Task rows (one JSON object per line; the server's task store reads them as they are):
  {"task_id": "<problem_id>/<split>/v<n>", "problem_id", "statement", "entry_point", "gold", "corrupted",
   "tests": {"style": "unittest"|"assert"|"stdio", ...}, "corruptions": [{"family", "line", "column",
   "start", "end", "original", "corrupted"}, ...], "split", "source": the format, "domain":
   "in-domain"|"ood"|"mixed"|"unknown"}
  line is 1-based, column 0-based; start/end are offsets into gold, where original was replaced by
  corrupted (the gold patch undoes them). Rows of already-corrupted sources name the families only.

Examples:
  minedit tasks build --source datasets/seed/problems.jsonl --families in-domain --corruptions 1-2 \\
    --variants 2 --split test --out datasets/tasks/in-domain.jsonl
  minedit tasks build --source datasets/seed/problems.jsonl --families ood --corruptions 1-2 \\
    --variants 2 --split ood --out datasets/tasks/ood.jsonl
  minedit tasks build --source humaneval.jsonl --format humaneval --families comparison_operators,range_bounds \\
    --corruptions 1-10 --variants 4 --seed 7 --split train --out train.jsonl --report reports/train.md

${EXIT_CODES}
  ${EXIT_INTERRUPTED}  interrupted (Ctrl-C); re-run the same command to resume
`;
}

export function tasksStatsHelp(): string {
  return `Usage: minedit tasks stats FILE [--json] [--log FILE]

Prints the composition report of a task file (any JSONL task file; rows need task_id, gold and
corrupted; problem_id, split and corruptions are read when present): tasks and problems per split,
corruptions per task, gold token edit distance, normalized gold distance d(G,C) and gold line edit
distance (mean, median, quartiles, P95, min, max), executable lines and tokens per function of the gold
programs, corruption families (applications, share, tasks containing them), bug categories, and the
rejected candidates recorded in the build log beside the file (FILE minus .jsonl, plus .build.log).

Options:
  --json         print the report as JSON instead of Markdown
  --log FILE     the build log to read rejections from (default: beside FILE)
  -h, --help     this help

Example:
  minedit tasks stats datasets/tasks/in-domain.jsonl

${EXIT_CODES}
`;
}

const usage = usageError;
const failure = (io: StdIo, command: string, error: unknown) => commandFailure(io, `tasks ${command}`, error);

/** `minedit tasks ...`: dispatches to the subcommand. */
export async function runTasks(argv: readonly string[], io: StdIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "-h" || sub === "--help") {
    io.stdout.write(tasksHelp());
    return EXIT.ok;
  }
  if (sub === "build") return runBuild(rest, io);
  if (sub === "stats") return runStats(rest, io);
  io.stderr.write(
    `${sub === undefined ? "minedit tasks: missing subcommand" : `minedit tasks: unknown subcommand "${sub}"`} (build, stats)\n\n${tasksHelp()}`,
  );
  return EXIT.usage;
}

// ---- build -------------------------------------------------------------------------------------------

const BUILD_OPTIONS = {
  source: { type: "string" },
  format: { type: "string" },
  out: { type: "string" },
  families: { type: "string" },
  mix: { type: "string" },
  corruptions: { type: "string" },
  variants: { type: "string" },
  candidates: { type: "string" },
  seed: { type: "string" },
  split: { type: "string" },
  only: { type: "string" },
  report: { type: "string" },
  concurrency: { type: "string" },
  "wall-time-ms": { type: "string" },
  "cpu-time-ms": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type BuildValues = FlagValues<typeof BUILD_OPTIONS>;

function integerFlag(flag: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  if (!/^[+-]?\d+$/.test(text.trim()))
    throw usage(`--${flag}: expected an integer, got ${JSON.stringify(text)}`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    throw usage(`--${flag}: expected an integer ≥ ${min}, got ${text}`);
  return value;
}

/** The build the flags ask for; throws usage errors. */
function planBuild(values: BuildValues, positionals: string[]): TaskBuildRequest {
  if (positionals.length > 0) throw usage(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.source === undefined) throw usage("missing --source FILE (the problem source)");
  if (values.out === undefined) throw usage("missing --out FILE (the task file to write)");
  let format: ImportFormat | undefined;
  if (values.format !== undefined) {
    if (!isImportFormat(values.format)) {
      throw usage(`--format: unknown format "${values.format}" (formats: ${IMPORT_FORMATS.join(", ")})`);
    }
    format = values.format;
  }
  let families: BuildOptions["families"];
  let corruptions: BuildOptions["corruptions"];
  try {
    families = parseFamilySpec(values.families ?? "in-domain");
  } catch (error) {
    throw usage(`--families: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    corruptions = parseCorruptionCount(values.corruptions ?? "1-2");
  } catch (error) {
    throw usage(`--corruptions: ${error instanceof Error ? error.message : String(error)}`);
  }
  let mix: CorruptionMix;
  try {
    mix = values.mix === undefined ? defaultCorruptionMix(families) : parseCorruptionMix(values.mix);
    mixWeights(mix, families, corruptions);
  } catch (error) {
    throw usage(`--mix: ${error instanceof Error ? error.message : String(error)}`);
  }
  const variants = integerFlag("variants", values.variants, 1, 1);
  const candidates = integerFlag("candidates", values.candidates, 4 * variants, 1);
  if (candidates < variants)
    throw usage(`--candidates (${candidates}) must be at least --variants (${variants})`);
  const seed = integerFlag("seed", values.seed, 0, Number.MIN_SAFE_INTEGER);
  const split = values.split ?? "test";
  if (!/^[A-Za-z0-9._-]+$/.test(split)) {
    throw usage(
      `--split: expected letters, digits, ".", "_" or "-" (it is part of the task ids), got "${split}"`,
    );
  }
  const sandboxFields: Record<string, unknown> = {};
  if (values.concurrency !== undefined) {
    sandboxFields.executionConcurrency = integerFlag("concurrency", values.concurrency, 1, 1);
  }
  if (values["wall-time-ms"] !== undefined) {
    sandboxFields.wallTimeMs = integerFlag("wall-time-ms", values["wall-time-ms"], 1, 1);
  }
  if (values["cpu-time-ms"] !== undefined) {
    sandboxFields.cpuTimeMs = integerFlag("cpu-time-ms", values["cpu-time-ms"], 0, 0);
  }
  const config = parseConfig({ sandbox: sandboxFields });
  const paths = taskSetPaths(values.out);
  const report =
    values.report === undefined
      ? { markdown: paths.reportMarkdown, json: paths.reportJson }
      : { markdown: values.report, json: jsonReportPath(values.report) };
  return {
    source: values.source,
    ...(format === undefined ? {} : { format }),
    families,
    mix,
    corruptions,
    variants,
    candidates,
    seed,
    split,
    out: values.out,
    ...(values.only === undefined ? {} : { onlyFile: values.only }),
    concurrency: config.sandbox.executionConcurrency,
    limits: executionLimits(config),
    sandboxConfig: config.sandbox,
    report,
  };
}

async function runBuild(argv: readonly string[], io: StdIo): Promise<number> {
  const parsed = parseCommandArgs<BuildValues>(io, "tasks build", argv, BUILD_OPTIONS, tasksBuildHelp);
  if (typeof parsed === "number") return parsed;
  try {
    const outcome = await runTaskBuild(planBuild(parsed.values, parsed.positionals), io);
    if (outcome.interrupted) return EXIT_INTERRUPTED;
    return outcome.badRows > 0 ? EXIT.badRows : EXIT.ok;
  } catch (error) {
    return failure(io, "build", error);
  }
}

// ---- stats -------------------------------------------------------------------------------------------

const STATS_OPTIONS = {
  json: { type: "boolean" },
  log: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type StatsValues = FlagValues<typeof STATS_OPTIONS>;

async function runStats(argv: readonly string[], io: StdIo): Promise<number> {
  const parsed = parseCommandArgs<StatsValues>(io, "tasks stats", argv, STATS_OPTIONS, tasksStatsHelp);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  try {
    if (positionals.length !== 1) {
      throw usage(positionals.length === 0 ? "missing FILE (a task file)" : "expected one FILE");
    }
    const file = positionals[0] as string;
    try {
      if (!(await stat(file)).isFile()) throw usage(`${file} is not a file`);
    } catch (error) {
      if (isMineditError(error)) throw error;
      throw usage(`cannot read ${file}: no such file`);
    }
    const { report, markdown, bad } = await reportTaskFile(file, values.log);
    for (const message of bad) io.stderr.write(`${message}\n`);
    io.stdout.write(values.json === true ? formatJson(report) : markdown);
    return bad.length > 0 ? EXIT.badRows : EXIT.ok;
  } catch (error) {
    return failure(io, "stats", error);
  }
}
