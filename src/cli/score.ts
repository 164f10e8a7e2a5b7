/**
 * `minedit score FILE.jsonl --no-exec`: offline scoring of model completions with the edit-minimality
 * reward (SPEC §2). Parse the flags → build the config → stream the rows through the metrics pool →
 * exit code. The main thread only reads JSON and writes JSON; every Python parse and every Levenshtein
 * runs in the piscina workers.
 *
 * Decisions the issue leaves open, and why:
 * - A row that gives both `task_id` and inline `corrupted`/`gold` is a bad row: silently preferring one
 *   source could score against programs the writer did not mean, and the fix (drop one) is the writer's.
 * - Bad rows produce no stdout line (there may be no id to put on it); results are keyed by `id`, and
 *   stdout keeps the input order of the rows that were scored.
 * - A task id defined twice in the task file is reported once per extra definition, and every rollout
 *   that refers to it is a bad row ("ambiguous"): keeping either definition would be a guess.
 * - Bad task rows make the exit code 1 even when no rollout refers to them: exit 0 means nothing in the
 *   input was wrong.
 * - Whether a task's programs are valid Python is discovered by the workers when a rollout uses the task;
 *   each such rollout is a bad row naming the task and its line in the task file.
 * - Blank lines are skipped (but counted, so line numbers are those an editor shows); a UTF-8 BOM at the
 *   start of a file is ignored.
 */
import { open, readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
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
import { MetricsPool, type MetricsRequest, type MetricsResult } from "../workers/metrics-pool.js";
import type { CliIo } from "./main.js";
import { Progress } from "./progress.js";

/** Exit codes of minedit commands (documented in every `--help`). */
export const EXIT = {
  /** Every row was scored. */
  ok: 0,
  /** Some rows were bad and reported on stderr; all the others were scored. */
  badRows: 1,
  /** Bad flags or flag values, unreadable input: nothing was scored. */
  usage: 2,
  /** A bug or a broken installation; the message says which. */
  internal: 3,
} as const;

/** Rows per pool call: large enough to keep every worker busy, small enough to bound memory. */
const BATCH_ROWS = 512;

const OPTIONS = {
  "no-exec": { type: "boolean" },
  tasks: { type: "string" },
  variant: { type: "string" },
  "lambda-exec": { type: "string" },
  "lambda-edit": { type: "string" },
  "lambda-cc": { type: "string" },
  "failure-reward": { type: "string" },
  scope: { type: "string" },
  threads: { type: "string" },
  config: { type: "string" },
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
  ["--threads", "pool.threads"],
] as const;

/** `minedit score --help`. */
export function scoreHelp(): string {
  const d = parseConfig({});
  const variants = REWARD_VARIANTS.filter((v) => v !== "edit_plus_cc").join(" | ");
  return `Usage: minedit score FILE.jsonl --no-exec [options]

Scores model repairs of Python programs with the edit-minimality reward. Reads one JSON row per line
from FILE (\`-\` reads stdin), writes one JSON result per scored row to stdout in input order, and
reports bad rows (FILE:LINE: reason) and a summary on stderr.

  reward = λexec − λedit·(d(M,C) − d(G,C)) if the repair passes, else the failure reward
  (d = token Levenshtein distance of the normalized programs / the longer token count;
   M = program in the completion, C = corrupted program, G = gold repair)

This version cannot execute tests (that needs the sandbox, which is not available yet), so --no-exec is
required: every completion whose program parses as Python 3.11 counts as PASSED, and only UNPARSABLE
and NO_CODE completions get the failure reward.

Input rows (one JSON object per line; other fields ignored; blank lines skipped):
  inline:  {"id": "r1", "completion": "\`\`\`python\\ndef f(x):\\n    return x + 1\\n\`\`\`", "corrupted": "def f(x):\\n    return x - 1\\n", "gold": "def f(x):\\n    return x + 1\\n"}
  by task: {"id": "r2", "task_id": "t1", "completion": "def f(x):\\n    return x + 1\\n"}   (needs --tasks)
  id and task_id are non-empty strings or integers. A row with both task_id and corrupted/gold is bad.
  The program is taken from the completion after the last </think>, from its last \`\`\` fenced block
  (or the whole text when there is no fence).
Task file rows (--tasks FILE, JSONL):
  {"task_id": "t1", "corrupted": "def f(x):\\n    return x - 1\\n", "gold": "def f(x):\\n    return x + 1\\n"}
  aliases: id for task_id, corrupted_program for corrupted, gold_program for gold; other fields ignored.
  A task id defined twice is reported and cannot be used.

Output rows (stdout):
  {"id", "task_id" (when given), "reward", "verdict", "d_model", "d_gold", "excess", "detail",
   "reward_version"}  with d_model = d(M,C), d_gold = d(G,C), excess = d_model − d_gold
  (null when there is no program: NO_CODE, UNPARSABLE). Bad rows have no output row.

Options:
  --no-exec            required in this version: score edit distance only, do not run tests
  --tasks FILE         task file (JSONL) for rows that give task_id
  --variant NAME       ${variants} (default: ${d.reward.variant})
                       correctness_only: pass → λexec; edit_only: pass → −λedit·excess.
                       edit_plus_cc is not available yet (it needs cognitive complexity).
  --lambda-exec N      λexec, the reward for passing (default: ${d.reward.lambdaExec})
  --lambda-edit N      λedit, the weight of the excess edit distance, ≥ 0 (default: ${d.reward.lambdaEdit})
  --lambda-cc N        λcc, the weight of added cognitive complexity, ≥ 0 (default: ${d.reward.lambdaCc};
                       used by edit_plus_cc only)
  --failure-reward N   reward of every failure (default: ${d.reward.failureReward}); write negative values as
                       --failure-reward=-0.5
  --scope NAME         ${DISTANCE_SCOPES.join(" | ")}: compare whole programs, or the first function's body
                       (default: ${d.reward.scope})
  --threads N          worker threads (default: available parallelism, ${availableParallelism()} here)
  --config FILE.json   a configuration object, e.g. {"reward": {"lambdaEdit": 0.5}, "pool": {"threads": 2}};
                       flags override it
  -h, --help           show this help

Exit codes:
  ${EXIT.ok}  every row was scored
  ${EXIT.badRows}  some rows (or task rows) were bad and reported on stderr; all the others were scored
  ${EXIT.usage}  usage error (bad flag or value, missing or unreadable file, no --no-exec); nothing scored
  ${EXIT.internal}  internal error (a bug, or minedit is not built)
`;
}

/** A usage problem: reported with a pointer to `--help`, exit code 2. */
function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

const NO_EXEC_REQUIRED =
  "executing the tests needs the sandbox, which is not available yet in this version of minedit.\n" +
  "Pass --no-exec to score the edit distance only: every completion whose program parses as Python 3.11 " +
  "is then treated as passing.";

/** Runs `minedit score` and returns the exit code. Never throws. */
export async function runScore(argv: readonly string[], io: CliIo): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    return usageFailure(io, error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) {
    io.stdout.write(scoreHelp());
    return EXIT.ok;
  }
  let setup: Setup;
  try {
    setup = await prepare(values, positionals, io);
  } catch (error) {
    if (isMineditError(error)) return usageFailure(io, error.rawMessage);
    return internalFailure(io, error);
  }
  try {
    return await score(setup, io);
  } catch (error) {
    return internalFailure(io, error);
  } finally {
    await Promise.all([setup.rollouts.close(), setup.tasks?.close()]);
  }
}

function usageFailure(io: CliIo, message: string): number {
  io.stderr.write(`minedit score: ${message}\nRun \`minedit score --help\` for usage.\n`);
  return EXIT.usage;
}

function internalFailure(io: CliIo, error: unknown): number {
  const message = isMineditError(error)
    ? error.rawMessage
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
  io.stderr.write(`minedit score: internal error: ${message}\n`);
  return EXIT.internal;
}

type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]["type"] extends "boolean" ? boolean : string;
};

type Setup = { config: Config; rollouts: Input; tasks: Input | undefined };

/** Validates everything that can be validated before scoring starts; throws usage errors. */
async function prepare(values: Values, positionals: string[], io: CliIo): Promise<Setup> {
  if (positionals.length === 0) throw usage("missing FILE (a JSONL file of rows, or - for stdin)");
  if (positionals.length > 1) {
    throw usage(`expected one FILE, got ${positionals.length}: ${positionals.join(" ")}`);
  }
  if (values["no-exec"] !== true) throw usage(NO_EXEC_REQUIRED);
  const file = positionals[0] as string;
  if (file === "-" && values.tasks === "-") throw usage("FILE and --tasks cannot both read stdin");
  const config = await buildConfig(values);
  if (config.reward.variant === "edit_plus_cc") {
    throw usage(
      "reward variant edit_plus_cc needs the added cognitive complexity of each repair, which is not " +
        "available yet in this version; use full, correctness_only or edit_only",
    );
  }
  const tasks = values.tasks === undefined ? undefined : await openInput(values.tasks, io, "--tasks");
  try {
    return { config, rollouts: await openInput(file, io, "FILE"), tasks };
  } catch (error) {
    await tasks?.close();
    throw error;
  }
}

/** A strict decimal number: `Number("")` is 0 and `Number("0x10")` is 16, neither of which a flag means. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function numberFlag(flag: string, text: string): number {
  if (!NUMBER.test(text.trim())) throw usage(`${flag}: expected a number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `--config` file, then the flags on top, validated by {@link parseConfig}. */
async function buildConfig(values: Values): Promise<Config> {
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
  // Overlay only onto objects: if the file's `reward` is, say, a string, leave it for parseConfig to name.
  if (isPlainObject(raw)) {
    const merged: Record<string, unknown> = { ...raw };
    for (const [section, flags] of [
      ["reward", reward],
      ["pool", pool],
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

function fsReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory";
  if (code === "EACCES") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}

/** An opened JSONL input: a file, or stdin for `-`. */
type Input = {
  /** Name used in messages (`rows.jsonl:12: ...`). */
  name: string;
  stream: Readable;
  /** Size in bytes when it is a regular file, for the progress bar. */
  size: number | undefined;
  bytesRead(): number | undefined;
  close(): Promise<void>;
};

/** Opens an input now, so a missing file is a usage error before any work starts. */
async function openInput(path: string, io: CliIo, what: string): Promise<Input> {
  if (path === "-") {
    return {
      name: "<stdin>",
      stream: io.stdin,
      size: undefined,
      bytesRead: () => undefined,
      close: async () => {},
    };
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw usage(`${what}: cannot read ${path}: ${fsReason(error)}`);
  }
  const stat = await handle.stat();
  if (stat.isDirectory()) {
    await handle.close();
    throw usage(`${what}: cannot read ${path}: is a directory`);
  }
  const stream = handle.createReadStream();
  return {
    name: path,
    stream,
    size: stat.isFile() ? stat.size : undefined,
    bytesRead: () => stream.bytesRead,
    close: async () => {
      stream.destroy();
    },
  };
}

/** Non-blank lines of a JSONL stream with their 1-based physical line numbers; read lazily. */
async function* jsonlLines(stream: Readable): AsyncGenerator<{ line: number; text: string }> {
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const raw of reader) {
      line += 1;
      const text = line === 1 && raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
      if (text.trim() === "") continue;
      yield { line, text };
    }
  } finally {
    reader.close();
  }
}

function errorMessage(error: unknown): string {
  if (isMineditError(error)) return error.rawMessage;
  throw error;
}

// ---- task file ---------------------------------------------------------------------------------------

/** What a task id in the task file resolved to. */
type TaskEntry =
  | { kind: "ok"; task: TaskRow; line: number }
  | { kind: "bad"; line: number; reason: string }
  | { kind: "duplicate"; lines: number[] };

type TaskTable = { name: string; entries: Map<string, TaskEntry>; loaded: number; bad: number };

async function loadTasks(input: Input, report: (message: string) => void): Promise<TaskTable> {
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
      entry = { kind: "ok", task, line };
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
  /** Present when the row carries its task inline. */
  inline?: { corrupted: string; gold: string };
};

function invalidRow(message: string, field: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message, { field });
}

/** Validates one rollout row; throws `InvalidArgument` naming the field. */
function parseRolloutRow(row: Record<string, unknown>): RolloutRow {
  const id = requiredField(row, "id", IdSchema);
  const completion = requiredField(row, "completion", ProgramSchema);
  const hasInline = Object.hasOwn(row, "corrupted") || Object.hasOwn(row, "gold");
  if (Object.hasOwn(row, "task_id")) {
    if (hasInline) {
      throw invalidRow('give either "task_id" or inline "corrupted" and "gold", not both', "task_id");
    }
    return { id, completion, taskId: requiredField(row, "task_id", IdSchema) };
  }
  if (!hasInline) throw invalidRow('missing field "task_id" (or inline "corrupted" and "gold")', "task_id");
  const corrupted = requiredField(row, "corrupted", ProgramSchema);
  const gold = requiredField(row, "gold", ProgramSchema);
  return { id, completion, inline: { corrupted, gold } };
}

/** A row that is either bad (with its reason) or waiting for request `request` of its batch. */
type Item =
  | { line: number; bad: string }
  | { line: number; row: RolloutRow; request: number; taskLabel: string | undefined };

/** Resolves a row's task; returns the reason when it cannot. */
function resolveTask(
  row: RolloutRow,
  tasks: TaskTable | undefined,
): { corrupted: string; gold: string; label: string | undefined } | string {
  if (row.inline !== undefined) return { ...row.inline, label: undefined };
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
        label: `task ${shown} (${tasks.name}:${entry.line})`,
      };
    case "bad":
      return `task_id ${shown} refers to a bad task row (${tasks.name}:${entry.line}: ${entry.reason})`;
    case "duplicate":
      return `task_id ${shown} is ambiguous: defined more than once in ${tasks.name} (lines ${entry.lines.join(", ")})`;
  }
}

// ---- scoring -----------------------------------------------------------------------------------------

type Stats = {
  scored: number;
  bad: number;
  verdicts: Map<Verdict, number>;
  rewardSum: number;
  rewardCount: number;
};

async function score(setup: Setup, io: CliIo): Promise<number> {
  const started = performance.now();
  const { config, rollouts } = setup;
  const progress = new Progress({
    stream: io.stderr,
    label: "minedit score",
    unit: "rows",
    ...(rollouts.size === undefined ? {} : { totalBytes: rollouts.size }),
  });
  const report = (message: string) => progress.log(message);
  const tasks = setup.tasks === undefined ? undefined : await loadTasks(setup.tasks, report);

  // A consumer that stops reading (`| head`) is not an error of ours: stop scoring quietly. Any other
  // stdout failure also stops the run, and is reported as an internal error once the pool is closed.
  let stdoutClosed = false;
  let stdoutError: Error | undefined;
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    stdoutClosed = true;
    if (error.code !== "EPIPE") stdoutError ??= error;
  };
  io.stdout.on("error", onStdoutError);

  const stats: Stats = { scored: 0, bad: 0, verdicts: new Map(), rewardSum: 0, rewardCount: 0 };
  const pool = new MetricsPool(config.pool.threads);
  try {
    let items: Item[] = [];
    let requests: MetricsRequest[] = [];
    let previous: Promise<void> = Promise.resolve();

    const emit = async (batch: Item[], results: MetricsResult[]) => {
      let out = "";
      for (const item of batch) {
        if ("bad" in item) {
          report(`${rollouts.name}:${item.line}: ${item.bad}`);
          stats.bad += 1;
          continue;
        }
        const result = results[item.request] as MetricsResult;
        if (!result.ok) {
          report(`${rollouts.name}:${item.line}: ${item.taskLabel ?? "inline task"}: ${result.message}`);
          stats.bad += 1;
          continue;
        }
        out += `${JSON.stringify(outputRow(item.row, result.score))}\n`;
        countScore(stats, result.score.verdict, result.score.reward);
      }
      if (out !== "" && !stdoutClosed && !io.stdout.write(out)) await drained(io.stdout);
      progress.update(stats.scored + stats.bad, rollouts.bytesRead());
    };

    // Batch k is scored while batch k+1 is read; results are written strictly in batch order.
    const submit = async () => {
      const batch = items;
      const scoring = requests.length > 0 ? pool.score(requests) : Promise.resolve([]);
      items = [];
      requests = [];
      // Observed below, after the previous batch; this only stops a rejection meanwhile from counting
      // as unhandled.
      scoring.catch(() => {});
      const before = previous;
      previous = before.then(async () => emit(batch, await scoring));
      previous.catch(() => {});
      await before;
    };

    for await (const { line, text } of jsonlLines(rollouts.stream)) {
      if (stdoutClosed) break;
      let row: RolloutRow;
      try {
        row = parseRolloutRow(parseJsonObject(text));
      } catch (error) {
        items.push({ line, bad: errorMessage(error) });
        if (items.length >= BATCH_ROWS) await submit();
        continue;
      }
      const task = resolveTask(row, tasks);
      if (typeof task === "string") {
        items.push({ line, bad: task });
      } else {
        const request = requests.length;
        requests.push({
          corrupted: task.corrupted,
          gold: task.gold,
          completion: row.completion,
          config: config.reward,
        });
        items.push({ line, row, request, taskLabel: task.label });
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
  io.stderr.write(summary(stats, tasks, config, (performance.now() - started) / 1000));
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
function outputRow(
  row: RolloutRow,
  score: {
    verdict: Verdict;
    reward: number | null;
    detail: string;
    components: { dModel: number; dGold: number; excess: number } | null;
  },
): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id };
  if (row.taskId !== undefined) out.task_id = row.taskId;
  out.reward = score.reward;
  out.verdict = score.verdict;
  out.d_model = score.components?.dModel ?? null;
  out.d_gold = score.components?.dGold ?? null;
  out.excess = score.components?.excess ?? null;
  out.detail = score.detail;
  out.reward_version = REWARD_DEFINITION_VERSION;
  return out;
}

function countScore(stats: Stats, verdict: Verdict, reward: number | null): void {
  stats.scored += 1;
  stats.verdicts.set(verdict, (stats.verdicts.get(verdict) ?? 0) + 1);
  if (reward !== null) {
    stats.rewardSum += reward;
    stats.rewardCount += 1;
  }
}

function summary(stats: Stats, tasks: TaskTable | undefined, config: Config, seconds: number): string {
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
  lines.push("  --no-exec: tests were not run; every program that parses counted as PASSED");
  return `${lines.join("\n")}\n`;
}
