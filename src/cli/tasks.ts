/**
 * `minedit tasks build` and `minedit tasks stats`: the repair-task factory (docs/tasks.md#corruption-families) and the composition
 * report of a task set (the over-editing paper's Tables 7–10). Parse the flags (here, with the help) → build
 * (src/tasks/build.ts) or read (src/tasks/task-set.ts) in tasks-run.ts, imported once the flags are valid →
 * print the report → exit code.
 */

import { availableParallelism } from "node:os";
import { parseConfig } from "../config.js";
import type { StdIo } from "../io/std-io.js";
import { IMPORT_FORMATS } from "../tasks/importers/types.js";
import { EXIT, parseCommandArgs } from "./failures.js";
import {
  BUILD_OPTIONS,
  type BuildValues,
  EXIT_INTERRUPTED,
  STATS_OPTIONS,
  type StatsValues,
} from "./tasks-flags.js";

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

async function runBuild(argv: readonly string[], io: StdIo): Promise<number> {
  const parsed = parseCommandArgs<BuildValues>(io, "tasks build", argv, BUILD_OPTIONS, tasksBuildHelp);
  if (typeof parsed === "number") return parsed;
  return (await import("./tasks-run.js")).buildTasks(parsed.values, parsed.positionals, io);
}

async function runStats(argv: readonly string[], io: StdIo): Promise<number> {
  const parsed = parseCommandArgs<StatsValues>(io, "tasks stats", argv, STATS_OPTIONS, tasksStatsHelp);
  if (typeof parsed === "number") return parsed;
  return (await import("./tasks-run.js")).reportTasks(parsed.values, parsed.positionals, io);
}
