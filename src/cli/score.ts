/**
 * `minedit score FILE.jsonl`: offline scoring of model completions with the edit-minimality reward
 * (docs/reward.md). Parse the flags → src/scoring/offline/score-file.ts → exit code. The scoring
 * machinery is imported once the flags are parsed, so `--help` and usage errors do not load it.
 */
import { availableParallelism } from "node:os";
import { DISTANCE_SCOPES, parseConfig, REWARD_VARIANTS } from "../config.js";
import type { StdIo } from "../io/std-io.js";
import type { ScoreFileRequest, ScoreFileRun } from "../scoring/offline/score-file.js";
import { EXIT, type FlagValues, runCommand, usageError } from "./failures.js";
import { buildConfig, SCORING_OPTIONS } from "./scoring-flags.js";

const MIB = 1024 * 1024;

const OPTIONS = {
  "no-exec": { type: "boolean" },
  tasks: { type: "string" },
  ...SCORING_OPTIONS,
  help: { type: "boolean", short: "h" },
} as const;

/** `minedit score --help`. */
export function scoreHelp(): string {
  const d = parseConfig({});
  const variants = REWARD_VARIANTS.join(" | ");
  return `Usage: minedit score FILE.jsonl [options]

Scores model repairs of Python programs with the edit-minimality reward. Reads one JSON row per line
from FILE (\`-\` reads stdin), writes one JSON result per scored row to stdout in input order, and
reports bad rows (FILE:LINE: reason), progress on long runs and a summary on stderr.

  reward = λexec − λedit·(d(M,C) − d(G,C)) if the repair passes, else the failure reward
  (d = token Levenshtein distance of the normalized programs / the longer token count;
   M = program in the completion, C = corrupted program, G = gold repair)

Execution: the program M of each completion is run against its task's tests in a bubblewrap sandbox
(no network, read-only system, private /tmp, limits below); the verdict is PASSED, FAILED_TESTS,
TIMEOUT, MEMORY_LIMIT, RUNTIME_ERROR, UNPARSABLE, NO_CODE, INFRA_ERROR (the sandbox failed: reward
null) or INVALID_TASK (the task's gold fails its own tests, or its tests are unusable: reward null; the
gold runs once per task). A row's tests run in the runtime it names ("runtime"), else, for an inline row,
in the one its imports call for. Completions of one task whose normalized programs are identical run
once per batch ("cached": true). Needs \`bwrap\` (Debian: apt-get install -y bubblewrap) and
\`prlimit\`. With --no-exec nothing is run: every program that parses as Python 3.11 counts as PASSED,
and only UNPARSABLE and NO_CODE completions get the failure reward; tests are then not needed.

Input rows (one JSON object per line; other fields ignored; blank lines skipped):
  inline:  {"id": "r1", "completion": "\`\`\`python\\ndef f(x):\\n    return x + 1\\n\`\`\`", "corrupted": "def f(x):\\n    return x - 1\\n", "gold": "def f(x):\\n    return x + 1\\n", "entry_point": "f", "tests": {...}}
  by task: {"id": "r2", "task_id": "t1", "completion": "def f(x):\\n    return x + 1\\n"}   (needs --tasks)
  id and task_id are non-empty strings or integers. A row with both task_id and corrupted/gold (or, when
  executing, tests/entry_point) is bad: a task_id row takes everything from its task.
  The program is taken from the completion after the last </think>, from its last \`\`\` fenced block
  (or the whole text when there is no fence).
Task file rows (--tasks FILE, JSONL; the format of the service's task files, e.g. datasets/seed/):
  {"task_id": "t1", "corrupted": "def f(x):\\n    return x - 1\\n", "gold": "def f(x):\\n    return x + 1\\n", "entry_point": "f", "tests": {...}}
  aliases: id for task_id, corrupted_program for corrupted, gold_program for gold; other fields ignored.
  A task id defined twice is reported and cannot be used.
Tests ("tests" of a task row or inline row; needed unless --no-exec; one of three styles):
  unittest: {"style": "unittest", "code": "import unittest\\nclass TestCases(unittest.TestCase):\\n    def test_f(self):\\n        self.assertEqual(f(1), 2)\\n"}
  assert:   {"style": "assert", "code": "def check(candidate):\\n    assert candidate(1) == 2\\n"}   (calls check(<entry_point>): needs "entry_point")
  stdio:    {"style": "stdio", "cases": [{"input": "1\\n", "output": "2\\n"}], "float_tolerance": 1e-6}   (float_tolerance optional)
  unittest and assert tests run in the program's namespace; stdio runs the program once per case, its
  stdout compared after trimming trailing whitespace; tests_passed counts passing tests or cases.

Output rows (stdout):
  {"id", "task_id" (when given), "reward", "verdict", "d_model", "d_gold", "excess", "added_cc",
   "tests_passed", "tests_total", "cached", "detail", "reward_version"}  with d_model = d(M,C),
  d_gold = d(G,C), excess = d_model − d_gold, added_cc = CC(M) − CC(G), the cognitive complexity
  (SonarSource's rules for Python) the repair added (these four are null when there is no program:
  NO_CODE, UNPARSABLE); tests_passed, tests_total and cached only when executing. Bad rows have no
  output row.

Options:
  --no-exec            do not run tests: score the edit distance only (programs that parse count as passing)
  --tasks FILE         task file (JSONL) for rows that give task_id
  --variant NAME       ${variants} (default: ${d.reward.variant})
                       correctness_only: pass → λexec; edit_only: pass → −λedit·excess;
                       edit_plus_cc: pass → full − λcc·max(0, added_cc).
  --lambda-exec N      λexec, the reward for passing (default: ${d.reward.lambdaExec})
  --lambda-edit N      λedit, the weight of the excess edit distance, ≥ 0 (default: ${d.reward.lambdaEdit})
  --lambda-cc N        λcc, the weight of added cognitive complexity, ≥ 0 (default: ${d.reward.lambdaCc};
                       used by edit_plus_cc only)
  --failure-reward N   reward of every failure (default: ${d.reward.failureReward}); write negative values as
                       --failure-reward=-0.5
  --scope NAME         ${DISTANCE_SCOPES.join(" | ")}: compare whole programs, or the first function's body
                       (default: ${d.reward.scope})
  --cpu-time-ms N      CPU-time limit (user + system, every process) of one test run: the time limit,
                       which a busy machine does not shorten; the stdio cases of a rollout share it
                       (default: ${d.limits.tests.cpuTimeMs}); over it: TIMEOUT. 0: no CPU limit, the wall limit alone
  --wall-time-ms N     with a CPU limit, the least wall-clock backstop of a run: the backstop is
                       max(N, f × the CPU limit + 5 s), f = max(2, 1.5 × concurrency / cores), so it stops
                       only programs that sleep or wait; with --cpu-time-ms 0, the wall-clock limit of one
                       test run, sandbox start included, shared by a rollout's stdio cases
                       (default: ${d.limits.tests.wallTimeMs}); over it: TIMEOUT
  --memory-mb N        address-space limit of each process in the sandbox, MiB
                       (default: ${d.limits.tests.memoryBytes / MIB}); over it: MEMORY_LIMIT
  --concurrency N      sandboxed test runs at once (default: available parallelism, ${availableParallelism()} here)
  --threads N          worker threads (default: available parallelism, ${availableParallelism()} here)
  --config FILE.json   a configuration object, e.g. {"reward": {"lambdaEdit": 0.5}, "pool": {"threads": 2},
                       "sandbox": {"wallTimeMs": 5000, "pythonPath": "/usr/bin/python3"}}; flags override it.
                       sandbox also sets maxProcesses (${d.limits.tests.maxProcesses}), maxFileBytes (${d.limits.tests.maxFileBytes}), maxOutputBytes
                       (${d.limits.tests.maxOutputBytes}) and the interpreter the tests run with (${d.sandbox.pythonPath})
  -h, --help           show this help

Exit codes:
  ${EXIT.ok}  every row was scored
  ${EXIT.badRows}  some rows (or task rows) were bad and reported on stderr; all the others were scored
  ${EXIT.usage}  usage error (bad flag or value, missing or unreadable file, sandbox not available); nothing scored
  ${EXIT.internal}  internal error (a bug, or minedit is not built)
`;
}

/** Runs `minedit score` and returns the exit code. Never throws. */
export function runScore(argv: readonly string[], io: StdIo): Promise<number> {
  return runCommand({
    name: "score",
    argv,
    io,
    options: OPTIONS,
    help: scoreHelp,
    prepare: async (values: Values, positionals) => {
      const scoreRequest = await request(values, positionals);
      const scoring = await import("../scoring/offline/score-file.js");
      return { scoring, run: await scoring.openScoreFile(scoreRequest, io) };
    },
    execute: async ({ scoring, run }: { scoring: ScoringModule; run: ScoreFileRun }) => {
      const { badRows, badTaskRows } = await scoring.scoreFile(run, io);
      return badRows > 0 || badTaskRows > 0 ? EXIT.badRows : EXIT.ok;
    },
    close: ({ run }) => run.close(),
  });
}

type Values = FlagValues<typeof OPTIONS>;

/** The scoring machinery (the metrics pool, the sandbox), imported only when rows are to be scored. */
type ScoringModule = typeof import("../scoring/offline/score-file.js");

/** The run the flags ask for; throws usage errors. */
async function request(values: Values, positionals: string[]): Promise<ScoreFileRequest> {
  if (positionals.length === 0) throw usageError("missing FILE (a JSONL file of rows, or - for stdin)");
  if (positionals.length > 1) {
    throw usageError(`expected one FILE, got ${positionals.length}: ${positionals.join(" ")}`);
  }
  return {
    file: positionals[0] as string,
    tasksFile: values.tasks,
    execute: values["no-exec"] !== true,
    config: await buildConfig(values),
  };
}
