/**
 * `minedit score FILE.jsonl`: offline scoring of model completions with the edit-minimality reward
 * (SPEC §2). Parse the flags → build the config → stream the rows through the metrics pool and, unless
 * `--no-exec`, the task's tests in the bubblewrap sandbox → exit code. The main thread only reads JSON
 * and writes JSON; every Python parse and every Levenshtein runs in the piscina workers, every test run
 * in the sandbox, both through the service's own {@link ExecutingRolloutScorer}.
 *
 * Decisions the issue leaves open, and why:
 * - A row that gives both `task_id` and inline `corrupted`/`gold` is a bad row: silently preferring one
 *   source could score against programs the writer did not mean, and the fix (drop one) is the writer's.
 *   When executing, the same holds for a `task_id` row that also carries `tests` or `entry_point`.
 * - Bad rows produce no stdout line (there may be no id to put on it); results are keyed by `id`, and
 *   stdout keeps the input order of the rows that were scored.
 * - A task id defined twice in the task file is reported once per extra definition, and every rollout
 *   that refers to it is a bad row ("ambiguous"): keeping either definition would be a guess.
 * - Bad task rows make the exit code 1 even when no rollout refers to them: exit 0 means nothing in the
 *   input was wrong. When executing, a task row without `tests` is such a bad row (it cannot be scored);
 *   with `--no-exec` the `tests` and `entry_point` fields are ignored, as before execution existed.
 * - Whether a task's programs are valid Python is discovered by the workers when a rollout uses the task;
 *   each such rollout is a bad row naming the task and its line in the task file.
 * - A sandbox fault (verdict INFRA_ERROR, reward null) is an output row, not a bad row: the input was
 *   fine, and the row says what happened. The summary counts them.
 * - Blank lines are skipped (but counted, so line numbers are those an editor shows); a UTF-8 BOM at the
 *   start of a file is ignored.
 */
import { setMaxListeners } from "node:events";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import type { Writable } from "node:stream";
import { type Config, DISTANCE_SCOPES, parseConfig, REWARD_VARIANTS } from "../config.js";
import { REWARD_DEFINITION_VERSION, VERDICTS, type Verdict } from "../core/reward.js";
import {
  IdSchema,
  ProgramSchema,
  parseJsonObject,
  parseTaskRow,
  requiredField,
  type TaskRow,
  taskIdOf,
  taskKey,
} from "../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { fsReason, type Input, jsonlLines, openInput } from "../io/inputs.js";
import { Progress } from "../io/progress.js";
import type { StdIo } from "../io/std-io.js";
import type { PythonTests } from "../runners/python.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { executionLimits } from "../scoring/limits.js";
import type { RolloutInput } from "../scoring/rollout.js";
import { ExecutingRolloutScorer } from "../scoring/rollout-scorer.js";
import { parseStoredTask, TaskStore } from "../scoring/task-store.js";
import { MetricsPool, type MetricsRequest } from "../workers/metrics-pool.js";
import { EXIT, runCommand, usageError } from "./failures.js";

/**
 * Rows per batch: large enough to keep every worker (and, when executing, every sandbox slot) busy and
 * to let identical programs of a task share one test run, small enough to bound memory.
 */
const BATCH_ROWS = 512;

const MIB = 1024 * 1024;

/** The flags that configure scoring (reward, sandbox, workers), shared by every command that scores. */
export const SCORING_OPTIONS = {
  config: { type: "string" },
  variant: { type: "string" },
  "lambda-exec": { type: "string" },
  "lambda-edit": { type: "string" },
  "lambda-cc": { type: "string" },
  "failure-reward": { type: "string" },
  scope: { type: "string" },
  "wall-time-ms": { type: "string" },
  "memory-mb": { type: "string" },
  concurrency: { type: "string" },
  threads: { type: "string" },
} as const;

const OPTIONS = {
  "no-exec": { type: "boolean" },
  tasks: { type: "string" },
  ...SCORING_OPTIONS,
  help: { type: "boolean", short: "h" },
} as const;

/** Which flag sets which config field, to point error messages at what the user typed. */
const FLAG_FIELDS = [
  ["--variant", "reward.variant"],
  ["--lambda-exec", "reward.lambdaExec"],
  ["--lambda-edit", "reward.lambdaEdit"],
  ["--lambda-cc", "reward.lambdaCc"],
  ["--failure-reward", "reward.failureReward"],
  ["--scope", "reward.scope"],
  ["--wall-time-ms", "sandbox.wallTimeMs"],
  ["--memory-mb", "sandbox.memoryBytes"],
  ["--concurrency", "sandbox.executionConcurrency"],
  ["--threads", "pool.threads"],
] as const;

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
TIMEOUT, MEMORY_LIMIT, RUNTIME_ERROR, UNPARSABLE, NO_CODE, or INFRA_ERROR (the sandbox failed or the
task's tests are unusable: reward null). Completions of one task whose normalized programs are identical
run once per batch ("cached": true). Needs \`bwrap\` (Debian: apt-get install -y bubblewrap) and
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
  --wall-time-ms N     wall-clock limit of one test run, sandbox start included; the stdio cases of a
                       rollout share it (default: ${d.sandbox.wallTimeMs}); over it: TIMEOUT
  --memory-mb N        address-space limit of each process in the sandbox, MiB
                       (default: ${d.sandbox.memoryBytes / MIB}); over it: MEMORY_LIMIT
  --concurrency N      sandboxed test runs at once (default: available parallelism, ${availableParallelism()} here)
  --threads N          worker threads (default: available parallelism, ${availableParallelism()} here)
  --config FILE.json   a configuration object, e.g. {"reward": {"lambdaEdit": 0.5}, "pool": {"threads": 2},
                       "sandbox": {"wallTimeMs": 5000, "pythonPath": "/usr/bin/python3"}}; flags override it.
                       sandbox also sets maxProcesses (${d.sandbox.maxProcesses}), maxFileBytes (${d.sandbox.maxFileBytes}), maxOutputBytes
                       (${d.sandbox.maxOutputBytes}) and the interpreter the tests run with (${d.sandbox.pythonPath})
  -h, --help           show this help

Exit codes:
  ${EXIT.ok}  every row was scored
  ${EXIT.badRows}  some rows (or task rows) were bad and reported on stderr; all the others were scored
  ${EXIT.usage}  usage error (bad flag or value, missing or unreadable file, sandbox not available); nothing scored
  ${EXIT.internal}  internal error (a bug, or minedit is not built)
`;
}

const usage = usageError;

/** Why a row or task cannot be scored when executing; the message says both ways out. */
const NO_TESTS = "no tests: give the task's tests or pass --no-exec";

/** Runs `minedit score` and returns the exit code. Never throws. */
export function runScore(argv: readonly string[], io: StdIo): Promise<number> {
  return runCommand({
    name: "score",
    argv,
    io,
    options: OPTIONS,
    help: scoreHelp,
    prepare: (values: Values, positionals, io) => prepare(values, positionals, io),
    execute: score,
    close: (setup: Setup) =>
      Promise.all([setup.rollouts.close(), setup.tasks?.close(), setup.sandbox?.close()]),
  });
}

export type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]["type"] extends "boolean" ? boolean : string;
};

/** `sandbox` is null exactly with `--no-exec`. */
type Setup = { config: Config; rollouts: Input; tasks: Input | undefined; sandbox: Sandbox | null };

/** Validates everything that can be validated before scoring starts; throws usage errors. */
async function prepare(values: Values, positionals: string[], io: StdIo): Promise<Setup> {
  if (positionals.length === 0) throw usage("missing FILE (a JSONL file of rows, or - for stdin)");
  if (positionals.length > 1) {
    throw usage(`expected one FILE, got ${positionals.length}: ${positionals.join(" ")}`);
  }
  const file = positionals[0] as string;
  if (file === "-" && values.tasks === "-") throw usage("FILE and --tasks cannot both read stdin");
  const config = await buildConfig(values);
  const tasks = values.tasks === undefined ? undefined : await openInput(values.tasks, io.stdin, "--tasks");
  let rollouts: Input;
  try {
    rollouts = await openInput(file, io.stdin, "FILE");
  } catch (error) {
    await tasks?.close();
    throw error;
  }
  // Started last, once every cheap check has passed: creating the sandbox runs a probe program in it.
  let sandbox: Sandbox | null = null;
  if (values["no-exec"] !== true) {
    try {
      sandbox = await createConfiguredSandbox(config.sandbox, (message) =>
        io.stderr.write(`minedit: ${message}\n`),
      );
    } catch (error) {
      await Promise.all([rollouts.close(), tasks?.close()]);
      if (isMineditError(error) && error.code === ErrorCode.Unavailable) {
        throw usage(
          `cannot run the tests: ${error.rawMessage}\n` +
            "The tests run in a bubblewrap sandbox: install bubblewrap (Debian: apt-get install -y " +
            "bubblewrap) and fix the problem above, or pass --no-exec to score the edit distance only " +
            "(every program that parses then counts as passing).",
        );
      }
      throw error;
    }
  }
  return { config, rollouts, tasks, sandbox };
}

/** A strict decimal number: `Number("")` is 0 and `Number("0x10")` is 16, neither of which a flag means. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function numberFlag(flag: string, text: string): number {
  if (!NUMBER.test(text.trim())) throw usage(`${flag}: expected a number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `--config` file, then the flags on top, validated by {@link parseConfig}. */
export async function buildConfig(values: Values): Promise<Config> {
  let raw: unknown = {};
  if (values.config !== undefined) {
    let text: string;
    try {
      text = await readFile(values.config, "utf8");
    } catch (error) {
      throw usage(`--config: cannot read ${values.config}: ${fsReason(error)}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw usage(
        `--config ${values.config}: invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const reward: Record<string, unknown> = {};
  if (values.variant !== undefined) reward.variant = values.variant;
  if (values["lambda-exec"] !== undefined)
    reward.lambdaExec = numberFlag("--lambda-exec", values["lambda-exec"]);
  if (values["lambda-edit"] !== undefined)
    reward.lambdaEdit = numberFlag("--lambda-edit", values["lambda-edit"]);
  if (values["lambda-cc"] !== undefined) reward.lambdaCc = numberFlag("--lambda-cc", values["lambda-cc"]);
  if (values["failure-reward"] !== undefined) {
    reward.failureReward = numberFlag("--failure-reward", values["failure-reward"]);
  }
  if (values.scope !== undefined) reward.scope = values.scope;
  const pool: Record<string, unknown> = {};
  if (values.threads !== undefined) pool.threads = numberFlag("--threads", values.threads);
  const sandbox: Record<string, unknown> = {};
  if (values["wall-time-ms"] !== undefined) {
    sandbox.wallTimeMs = numberFlag("--wall-time-ms", values["wall-time-ms"]);
  }
  if (values["memory-mb"] !== undefined) {
    // Whole bytes, so a fractional MiB count (0.5) is a valid limit rather than a type error.
    sandbox.memoryBytes = Math.round(numberFlag("--memory-mb", values["memory-mb"]) * MIB);
  }
  if (values.concurrency !== undefined) {
    sandbox.executionConcurrency = numberFlag("--concurrency", values.concurrency);
  }
  // Overlay only onto objects: if the file's `reward` is, say, a string, leave it for parseConfig to name.
  if (isPlainObject(raw)) {
    const merged: Record<string, unknown> = { ...raw };
    for (const [section, flags] of [
      ["reward", reward],
      ["pool", pool],
      ["sandbox", sandbox],
    ] as const) {
      const base = merged[section];
      if (Object.keys(flags).length > 0 && (base === undefined || isPlainObject(base))) {
        merged[section] = { ...base, ...flags };
      }
    }
    raw = merged;
  }
  try {
    return parseConfig(raw);
  } catch (error) {
    if (!isMineditError(error)) throw error;
    const flags = FLAG_FIELDS.filter(
      ([flag, field]) => flagGiven(values, flag) && error.rawMessage.includes(`${field}:`),
    );
    const source =
      flags.length > 0
        ? ` (from ${flags.map(([flag]) => flag).join(", ")})`
        : values.config !== undefined
          ? ` (in ${values.config})`
          : "";
    throw usage(`invalid configuration: ${error.rawMessage}${source}`);
  }
}

function flagGiven(values: Values, flag: string): boolean {
  return values[flag.slice(2) as keyof Values] !== undefined;
}

function errorMessage(error: unknown): string {
  if (isMineditError(error)) return error.rawMessage;
  throw error;
}

// ---- tests -------------------------------------------------------------------------------------------

/** A task's tests as the sandbox runners take them; `entryPoint` is empty when the style needs none. */
type TaskTests = { tests: PythonTests; entryPoint: string };

/**
 * Reads the `tests` and `entry_point` fields of a task or inline row, or `undefined` when there is no
 * `tests` field. The schema is the task store's ({@link parseStoredTask}), so a task file `minedit serve`
 * loads is scored the same way here; only the two fields are handed to it (ids and programs are checked
 * by the CLI's own, more lenient rules: integer ids, aliases).
 *
 * @throws MineditError `InvalidArgument` naming the field, in the CLI's `field "x": reason` form.
 */
function parseTests(row: Record<string, unknown>): TaskTests | undefined {
  if (!Object.hasOwn(row, "tests")) return undefined;
  const fields: Record<string, unknown> = { task_id: "-", corrupted: "", gold: "", tests: row.tests };
  if (Object.hasOwn(row, "entry_point")) fields.entry_point = row.entry_point;
  try {
    const { tests, entryPoint } = parseStoredTask(fields);
    return { tests, entryPoint };
  } catch (error) {
    if (!isMineditError(error)) throw error;
    const field = error.field;
    if (field === undefined || !error.rawMessage.startsWith(`${field}: `)) throw error;
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `field "${field}": ${error.rawMessage.slice(field.length + 2)}`,
      { field },
    );
  }
}

// ---- task file ---------------------------------------------------------------------------------------

/** What a task id in the task file resolved to. `tests` is present when executing. */
type TaskEntry =
  | { kind: "ok"; task: TaskRow; tests?: TaskTests; line: number }
  | { kind: "bad"; line: number; reason: string }
  | { kind: "duplicate"; lines: number[] };

type TaskTable = { name: string; entries: Map<string, TaskEntry>; loaded: number; bad: number };

/** Loads the task file; when `execute`, a task also needs valid `tests` (else it is a bad task row). */
async function loadTasks(
  input: Input,
  report: (message: string) => void,
  execute: boolean,
): Promise<TaskTable> {
  const entries = new Map<string, TaskEntry>();
  let loaded = 0;
  let bad = 0;
  for await (const { line, text } of jsonlLines(input.stream)) {
    let row: Record<string, unknown>;
    try {
      row = parseJsonObject(text);
    } catch (error) {
      report(`${input.name}:${line}: ${errorMessage(error)}`);
      bad += 1;
      continue;
    }
    let entry: TaskEntry;
    let id: string | number | undefined;
    try {
      const task = parseTaskRow(row);
      id = task.taskId;
      if (execute) {
        const tests = parseTests(row);
        if (tests === undefined)
          throw new MineditError(ErrorCode.InvalidArgument, NO_TESTS, { field: "tests" });
        entry = { kind: "ok", task, tests, line };
      } else {
        entry = { kind: "ok", task, line };
      }
    } catch (error) {
      const reason = errorMessage(error);
      report(`${input.name}:${line}: ${reason}`);
      bad += 1;
      id = taskIdOf(row);
      if (id === undefined) continue;
      entry = { kind: "bad", line, reason };
    }
    const key = taskKey(id);
    const previous = entries.get(key);
    if (previous === undefined) {
      entries.set(key, entry);
      if (entry.kind === "ok") loaded += 1;
      continue;
    }
    const lines = previous.kind === "duplicate" ? previous.lines : [previous.line];
    if (entry.kind === "ok") {
      // A bad row was already counted and reported; only a well-formed duplicate needs its own report.
      report(
        `${input.name}:${line}: duplicate task_id ${JSON.stringify(id)} (also defined at line ${lines.join(", ")})`,
      );
      bad += 1;
    }
    if (previous.kind === "ok") loaded -= 1;
    entries.set(key, { kind: "duplicate", lines: [...lines, line] });
  }
  return { name: input.name, entries, loaded, bad };
}

// ---- rollout rows ------------------------------------------------------------------------------------

/** One row of the rollout file, validated. */
type RolloutRow = {
  id: string | number;
  completion: string;
  /** Present when the row refers to a task of the task file. */
  taskId?: string | number;
  /** Present when the row carries its task inline; `tests` is present when executing. */
  inline?: { corrupted: string; gold: string; tests?: TaskTests };
};

function invalidRow(message: string, field: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message, { field });
}

/**
 * Validates one rollout row; throws `InvalidArgument` naming the field. When `execute`, an inline row
 * must carry its tests too, and a `task_id` row must not (they come from the task).
 */
function parseRolloutRow(row: Record<string, unknown>, execute: boolean): RolloutRow {
  const id = requiredField(row, "id", IdSchema);
  const completion = requiredField(row, "completion", ProgramSchema);
  const hasInline = Object.hasOwn(row, "corrupted") || Object.hasOwn(row, "gold");
  if (Object.hasOwn(row, "task_id")) {
    if (hasInline) {
      throw invalidRow('give either "task_id" or inline "corrupted" and "gold", not both', "task_id");
    }
    if (execute && (Object.hasOwn(row, "tests") || Object.hasOwn(row, "entry_point"))) {
      throw invalidRow(
        'give either "task_id" or inline "tests" and "entry_point", not both (a task_id row takes its ' +
          "tests from the task file)",
        "task_id",
      );
    }
    return { id, completion, taskId: requiredField(row, "task_id", IdSchema) };
  }
  if (!hasInline) throw invalidRow('missing field "task_id" (or inline "corrupted" and "gold")', "task_id");
  const corrupted = requiredField(row, "corrupted", ProgramSchema);
  const gold = requiredField(row, "gold", ProgramSchema);
  if (!execute) return { id, completion, inline: { corrupted, gold } };
  const tests = parseTests(row);
  if (tests === undefined) throw invalidRow(NO_TESTS, "tests");
  return { id, completion, inline: { corrupted, gold, tests } };
}

/** A row that is either bad (with its reason) or waiting for job `job` of its batch. */
type Item =
  | { line: number; bad: string }
  | { line: number; row: RolloutRow; job: number; taskLabel: string | undefined };

/** Resolves a row's task; returns the reason when it cannot. */
function resolveTask(
  row: RolloutRow,
  tasks: TaskTable | undefined,
): { corrupted: string; gold: string; tests: TaskTests | undefined; label: string | undefined } | string {
  if (row.inline !== undefined) {
    const { corrupted, gold, tests } = row.inline;
    return { corrupted, gold, tests, label: undefined };
  }
  const id = row.taskId as string | number;
  const shown = JSON.stringify(id);
  if (tasks === undefined) return `task_id ${shown} given but no --tasks file`;
  const entry = tasks.entries.get(taskKey(id));
  if (entry === undefined) return `unknown task_id ${shown} (not in ${tasks.name})`;
  switch (entry.kind) {
    case "ok":
      return {
        corrupted: entry.task.corrupted,
        gold: entry.task.gold,
        tests: entry.tests,
        label: `task ${shown} (${tasks.name}:${entry.line})`,
      };
    case "bad":
      return `task_id ${shown} refers to a bad task row (${tasks.name}:${entry.line}: ${entry.reason})`;
    case "duplicate":
      return `task_id ${shown} is ambiguous: defined more than once in ${tasks.name} (lines ${entry.lines.join(", ")})`;
  }
}

// ---- scoring a batch ---------------------------------------------------------------------------------

/** One rollout to score: its task's programs and tests (absent with `--no-exec`) and the completion. */
type Job = { corrupted: string; gold: string; completion: string; tests: TaskTests | undefined };

/** What a scored row reports; `execution` is present when the tests were (or would have been) run. */
type RowScore = {
  verdict: Verdict;
  reward: number | null;
  detail: string;
  components: { dModel: number; dGold: number; excess: number; addedCc?: number } | null;
  execution?: { testsPassed: number; testsTotal: number; cached: boolean };
};

/** A job's score, or why its task could not be scored (its C or G is not valid Python). */
type JobResult = { ok: true; score: RowScore } | { ok: false; message: string };

/**
 * Scores one batch; results in job order. `onResult` is called as each job's result is known, for the
 * progress bar (executions of a batch take long, and finish in any order).
 */
type BatchScorer = (jobs: Job[], onResult: () => void) => Promise<JobResult[]>;

/** `--no-exec`: the metrics pool alone; a program that parses counts as passing. */
function metricsOnly(pool: MetricsPool, config: Config): BatchScorer {
  return async (jobs, onResult) => {
    const results = await pool.score(
      jobs.map(({ corrupted, gold, completion }) => ({ corrupted, gold, completion, config: config.reward })),
    );
    return results.map((result) => {
      onResult();
      return result.ok ? { ok: true, score: result.score } : { ok: false, message: result.message };
    });
  };
}

/**
 * Executing: the service's {@link ExecutingRolloutScorer} (metrics in the pool, tests in the sandbox,
 * identical programs of a task run once), fed every job as an inline task.
 *
 * The scorer rejects a whole call when one task's C or G is not Python (a gRPC request is all or
 * nothing); here such a row is one bad row among good ones. So each distinct task of the batch is checked
 * first with an empty completion — cheap, and the workers keep the parsed task for the scorer's own call
 * — and only rows of valid tasks reach the scorer.
 */
function executing(
  pool: MetricsPool,
  scorer: ExecutingRolloutScorer,
  config: Config,
  signal: AbortSignal,
): BatchScorer {
  return async (jobs, onResult) => {
    const taskIndex = new Map<string, number>();
    const checks: MetricsRequest[] = [];
    const taskOf = jobs.map(({ corrupted, gold }) => {
      const key = JSON.stringify([corrupted, gold]);
      let index = taskIndex.get(key);
      if (index === undefined) {
        index = checks.length;
        taskIndex.set(key, index);
        checks.push({ corrupted, gold, completion: "", config: config.reward });
      }
      return index;
    });
    const checked = await pool.score(checks);

    const results: (JobResult | undefined)[] = new Array(jobs.length);
    const inputs: RolloutInput[] = [];
    /** inputs[k] is jobs[positions[k]]; the scorer's ids are the k, as row ids need not be unique. */
    const positions: number[] = [];
    jobs.forEach((job, index) => {
      const check = checked[taskOf[index] as number];
      if (check === undefined || !check.ok) {
        results[index] = { ok: false, message: check?.message ?? "task not checked" };
        onResult();
        return;
      }
      const tests = job.tests as TaskTests; // every job has tests when executing (checked when read)
      positions.push(index);
      inputs.push({
        id: String(inputs.length),
        completion: job.completion,
        groupId: "",
        task: {
          kind: "inline",
          corrupted: job.corrupted,
          gold: job.gold,
          tests: tests.tests,
          entryPoint: tests.entryPoint,
        },
      });
    });
    for await (const output of scorer.score(inputs, undefined, signal)) {
      const index = positions[Number(output.id)] as number;
      results[index] = {
        ok: true,
        score: {
          verdict: output.verdict,
          reward: output.reward,
          detail: output.detail,
          components: output.components,
          execution: {
            testsPassed: output.testsPassed,
            testsTotal: output.testsTotal,
            cached: output.cached,
          },
        },
      };
      onResult();
    }
    return results.map(
      (result) => result ?? { ok: false, message: "internal error: the scorer returned no result" },
    );
  };
}

// ---- scoring -----------------------------------------------------------------------------------------

type Stats = {
  scored: number;
  bad: number;
  verdicts: Map<Verdict, number>;
  rewardSum: number;
  rewardCount: number;
  /** Rows whose program ran in the sandbox, and rows that reused an identical program's run. */
  executed: number;
  cached: number;
};

/** A submitted batch, for the progress estimate: its rows, how many are done, its span of input bytes. */
type BatchProgress = { size: number; done: number; startBytes: number; endBytes: number };

async function score(setup: Setup, io: StdIo): Promise<number> {
  const started = performance.now();
  const { config, rollouts, sandbox } = setup;
  const execute = sandbox !== null;
  const progress = new Progress({
    stream: io.stderr,
    label: "minedit score",
    unit: "rows",
    ...(rollouts.size === undefined ? {} : { totalBytes: rollouts.size }),
  });
  const report = (message: string) => progress.log(message);
  const tasks = setup.tasks === undefined ? undefined : await loadTasks(setup.tasks, report, execute);

  // A consumer that stops reading (`| head`) is not an error of ours: stop scoring quietly (and stop the
  // test runs in flight). Any other stdout failure also stops the run, and is reported as an internal
  // error once the pool is closed.
  const abort = new AbortController();
  // Every test run queued or running listens on this one signal (up to two batches of them): not a leak.
  setMaxListeners(0, abort.signal);
  let stdoutClosed = false;
  let stdoutError: Error | undefined;
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    stdoutClosed = true;
    abort.abort();
    if (error.code !== "EPIPE") stdoutError ??= error;
  };
  io.stdout.on("error", onStdoutError);

  const stats: Stats = {
    scored: 0,
    bad: 0,
    verdicts: new Map(),
    rewardSum: 0,
    rewardCount: 0,
    executed: 0,
    cached: 0,
  };
  const pool = new MetricsPool(config.pool.threads);
  try {
    const scoreBatch =
      sandbox === null
        ? metricsOnly(pool, config)
        : executing(
            pool,
            new ExecutingRolloutScorer({
              pool,
              sandbox,
              // Every job is sent as an inline task, so the scorer's store stays empty.
              tasks: TaskStore.fromTasks([]),
              reward: config.reward,
              limits: executionLimits(config),
              executionConcurrency: config.sandbox.executionConcurrency,
            }),
            config,
            abort.signal,
          );

    // Progress: rows whose result is known, and the input bytes behind them, estimated from where the
    // reader was when each batch was cut (rows are read up to two batches ahead of the results).
    const inFlight = new Set<BatchProgress>();
    let emittedBytes = 0;
    let readBytes = 0;
    const showProgress = () => {
      let done = stats.scored + stats.bad;
      let bytes = emittedBytes;
      for (const batch of inFlight) {
        done += batch.done;
        bytes += batch.size > 0 ? ((batch.endBytes - batch.startBytes) * batch.done) / batch.size : 0;
      }
      progress.update(done, rollouts.size === undefined ? undefined : bytes);
    };

    let items: Item[] = [];
    let jobs: Job[] = [];
    let previous: Promise<void> = Promise.resolve();

    const emit = async (batch: Item[], results: JobResult[], state: BatchProgress) => {
      let out = "";
      for (const item of batch) {
        if ("bad" in item) {
          report(`${rollouts.name}:${item.line}: ${item.bad}`);
          stats.bad += 1;
          continue;
        }
        const result = results[item.job] as JobResult;
        if (!result.ok) {
          report(`${rollouts.name}:${item.line}: ${item.taskLabel ?? "inline task"}: ${result.message}`);
          stats.bad += 1;
          continue;
        }
        out += `${JSON.stringify(outputRow(item.row, result.score))}\n`;
        countScore(stats, result.score);
      }
      inFlight.delete(state);
      emittedBytes = state.endBytes;
      if (out !== "" && !stdoutClosed && !io.stdout.write(out)) await drained(io.stdout);
      showProgress();
    };

    // Batch k is scored while batch k+1 is read (and, when executing, its tests queue behind batch k's);
    // results are written strictly in batch order.
    const submit = async () => {
      const batch = items;
      const endBytes = rollouts.bytesRead() ?? 0;
      const state: BatchProgress = {
        size: batch.length,
        done: batch.length - jobs.length,
        startBytes: readBytes,
        endBytes,
      };
      readBytes = endBytes;
      inFlight.add(state);
      const onResult = () => {
        state.done += 1;
        showProgress();
      };
      const scoring = jobs.length > 0 ? scoreBatch(jobs, onResult) : Promise.resolve([]);
      items = [];
      jobs = [];
      // Observed below, after the previous batch; this only stops a rejection meanwhile from counting
      // as unhandled.
      scoring.catch(() => {});
      const before = previous;
      previous = before.then(async () => emit(batch, await scoring, state));
      previous.catch(() => {});
      await before;
    };

    for await (const { line, text } of jsonlLines(rollouts.stream)) {
      if (stdoutClosed) break;
      let row: RolloutRow;
      try {
        row = parseRolloutRow(parseJsonObject(text), execute);
      } catch (error) {
        items.push({ line, bad: errorMessage(error) });
        if (items.length >= BATCH_ROWS) await submit();
        continue;
      }
      const task = resolveTask(row, tasks);
      if (typeof task === "string") {
        items.push({ line, bad: task });
      } else {
        const job = jobs.length;
        jobs.push({
          corrupted: task.corrupted,
          gold: task.gold,
          completion: row.completion,
          tests: task.tests,
        });
        items.push({ line, row, job, taskLabel: task.label });
      }
      if (items.length >= BATCH_ROWS) await submit();
    }
    await submit();
    await previous;
  } finally {
    io.stdout.off("error", onStdoutError);
    await pool.close();
  }

  if (stdoutError !== undefined) throw stdoutError;
  progress.clear();
  io.stderr.write(summary(stats, tasks, config, execute, (performance.now() - started) / 1000));
  return stats.bad > 0 || (tasks !== undefined && tasks.bad > 0) ? EXIT.badRows : EXIT.ok;
}

/** Waits until a stream that refused a write can take more (or is gone: then there is no point waiting). */
function drained(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
    stream.on("error", done);
  });
}

/** One stdout row. Numbers are written as computed (plain JSON numbers, no rounding). */
function outputRow(row: RolloutRow, score: RowScore): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id };
  if (row.taskId !== undefined) out.task_id = row.taskId;
  out.reward = score.reward;
  out.verdict = score.verdict;
  out.d_model = score.components?.dModel ?? null;
  out.d_gold = score.components?.dGold ?? null;
  out.excess = score.components?.excess ?? null;
  out.added_cc = score.components?.addedCc ?? null;
  if (score.execution !== undefined) {
    out.tests_passed = score.execution.testsPassed;
    out.tests_total = score.execution.testsTotal;
    out.cached = score.execution.cached;
  }
  out.detail = score.detail;
  out.reward_version = REWARD_DEFINITION_VERSION;
  return out;
}

/** Verdicts decided before any test runs: there is no program to run. */
const NOT_RUN: ReadonlySet<Verdict> = new Set(["UNPARSABLE", "NO_CODE"]);

function countScore(stats: Stats, score: RowScore): void {
  stats.scored += 1;
  stats.verdicts.set(score.verdict, (stats.verdicts.get(score.verdict) ?? 0) + 1);
  if (score.reward !== null) {
    stats.rewardSum += score.reward;
    stats.rewardCount += 1;
  }
  if (score.execution !== undefined && !NOT_RUN.has(score.verdict)) {
    if (score.execution.cached) stats.cached += 1;
    else stats.executed += 1;
  }
}

function summary(
  stats: Stats,
  tasks: TaskTable | undefined,
  config: Config,
  execute: boolean,
  seconds: number,
): string {
  const rate = seconds > 0 ? stats.scored / seconds : 0;
  const verdicts = VERDICTS.filter((v) => stats.verdicts.has(v))
    .map((v) => `${v} ${stats.verdicts.get(v)}`)
    .join(", ");
  const mean =
    stats.rewardCount > 0 ? String(Number((stats.rewardSum / stats.rewardCount).toPrecision(6))) : "n/a";
  const lines = [
    `minedit score: ${stats.scored} rows scored, ${stats.bad} bad rows, ${seconds.toFixed(2)} s, ` +
      `${rate.toFixed(1)} rollouts/s`,
    `  verdicts: ${verdicts === "" ? "none" : verdicts}`,
    `  mean reward: ${mean} over ${stats.rewardCount} scored rows (variant ${config.reward.variant})`,
  ];
  if (tasks !== undefined) {
    lines.push(`  tasks: ${tasks.loaded} loaded from ${tasks.name}, ${tasks.bad} bad task rows`);
  }
  if (!execute) {
    lines.push("  --no-exec: tests were not run; every program that parses counted as PASSED");
    return `${lines.join("\n")}\n`;
  }
  const { wallTimeMs, memoryBytes, executionConcurrency } = config.sandbox;
  lines.push(
    `  tests: ${stats.executed} sandbox runs, ${stats.cached} rows reused an identical program's run ` +
      `(limits: ${wallTimeMs} ms wall, ${memoryBytes / MIB} MiB memory, ${executionConcurrency} at once)`,
  );
  const infra = stats.verdicts.get("INFRA_ERROR") ?? 0;
  if (infra > 0) {
    lines.push(
      `  INFRA_ERROR: ${infra} rows have no reward (the sandbox failed, or the task's tests are unusable); ` +
        "see their detail",
    );
  }
  return `${lines.join("\n")}\n`;
}
