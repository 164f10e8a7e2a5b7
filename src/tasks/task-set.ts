/**
 * Task-set files on disk: the task file (JSONL, one repair task per line, the shape of
 * datasets/seed/demo-tasks.jsonl), the builder's log beside it (one line per processed problem, with its
 * rejection counts), and the report files. Reading them for `minedit tasks stats`, and recovering them
 * after an interrupted `minedit tasks build`.
 *
 * Files beside `OUT.jsonl`: `OUT.build.log` (the build log, JSON lines; not `.jsonl`, so a glob over
 * task files does not pick it up), `OUT.report.md` and `OUT.report.json`.
 */
import { open, readFile, truncate } from "node:fs/promises";
import { basename } from "node:path";
import { z } from "zod";
import { CORRUPTION_MIXES, type CorruptionMix, KNOWN_FAMILIES } from "../core/corruption/registry.js";
import type { AppliedCorruption } from "../core/corruption/types.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import { parseJsonObject, parseTaskRow } from "../core/task-file.js";
import {
  computeTaskStats,
  REJECTION_REASONS,
  type RejectionCounts,
  type RejectionReason,
  renderTaskReport,
  type SplitRejections,
  type StatsTask,
  type TaskReport,
} from "../core/task-stats.js";
import { isMineditError } from "../errors.js";
import { taskSetPaths } from "../io/report-files.js";
import type { RuntimeName } from "../sandbox/runtimes.js";
import type { ImportFormat, ProblemTests } from "./importers/types.js";

/**
 * A corruption of a task row: as the engine applied it, or only its family when the source was already
 * corrupted (the source names the families, not where they were applied).
 */
export type TaskCorruption = AppliedCorruption | { family: string };

/** Which family group a task's corruptions come from. */
export type TaskDomain = "in-domain" | "ood" | "mixed" | "unknown";

/** One row of a built task file (JSON field names). The server's task store reads the first five. */
export type BuiltTaskRow = {
  task_id: string;
  problem_id: string;
  statement: string;
  entry_point: string;
  gold: string;
  corrupted: string;
  tests: ProblemTests;
  /**
   * The task runtime the tests run in (src/sandbox/runtimes.ts); absent for the default `stdlib`, so the
   * rows of a standard-library set are what they were before runtimes existed (the task store reads a
   * missing field as `stdlib`).
   */
  runtime?: RuntimeName;
  corruptions: TaskCorruption[];
  split: string;
  source: ImportFormat;
  domain: TaskDomain;
};

/**
 * The build options that decide a problem's tasks. Recorded with every problem, so a resumed build can
 * refuse to mix options within a split, and a task set says how to rebuild it.
 */
export type BuildSettings = {
  /** Family names, in the order given. */
  families: string[];
  /** How the corruptions were drawn (registry.ts); logs written before mixes existed read as `blocks`, how they were drawn. */
  mix: CorruptionMix;
  /** `MIN-MAX` corruptions per task. */
  corruptions: string;
  variants: number;
  candidates: number;
  seed: number;
};

/** One line of the build log: what happened to one problem of one split. */
export type BuildLogEntry = {
  problem_id: string;
  split: string;
  /** Tasks written to the task file for this problem. */
  tasks: number;
  rejected: RejectionCounts;
  /** Why a problem was rejected as a whole (the first failure), for humans. */
  note?: string;
  settings?: BuildSettings;
};

/** Key of a (problem, split) pair: the unit the builder processes, skips and logs. */
export function problemKey(problemId: string, split: string): string {
  return `${split}\u0000${problemId}`;
}

/** A split name as the report shows it; rows written by other tools may have none. */
const NO_SPLIT = "(none)";

// ---- reading -----------------------------------------------------------------------------------------

/**
 * The lines of a file, each with the byte offset just past it (for truncation). The last line may lack
 * its newline: files of other tools often do, and an interrupted write leaves one (see `tornAt`).
 */
type Line = { number: number; text: string; end: number; terminated: boolean };

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  let bytes = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    const stop = newline < 0 ? text.length : newline;
    const raw = text.slice(start, stop);
    bytes += Buffer.byteLength(raw, "utf8") + (newline < 0 ? 0 : 1);
    lines.push({
      number: lines.length + 1,
      text: raw.endsWith("\r") ? raw.slice(0, -1) : raw,
      end: bytes,
      terminated: newline >= 0,
    });
    start = stop + 1;
  }
  return lines;
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return null;
    throw error;
  }
}

const CorruptionsSchema = z.array(z.looseObject({ family: z.string() })).catch([]);

/** A task row read for the report: what {@link StatsTask} needs, with the row's line. */
export type ReadTask = StatsTask & { line: number; end: number };

/**
 * Reads a task row for the report. Lenient beyond what scoring needs: `problem_id` defaults to the task
 * id, `split` to "(none)", `corruptions` to none (rows of other tools, e.g. datasets/demo/tasks.jsonl).
 * Throws MineditError InvalidArgument naming the field.
 */
function statsTaskOf(text: string): StatsTask {
  const row = parseJsonObject(text);
  const { taskId, gold, corrupted } = parseTaskRow(row);
  const problemId = typeof row.problem_id === "string" && row.problem_id !== "" ? row.problem_id : taskId;
  const split = typeof row.split === "string" && row.split !== "" ? row.split : NO_SPLIT;
  const corruptions = CorruptionsSchema.parse(row.corruptions);
  return { taskId: String(taskId), problemId: String(problemId), split, gold, corrupted, corruptions };
}

export type TaskFileContents = {
  tasks: ReadTask[];
  /** `FILE:LINE: reason` of rows that are not task rows (a torn last line not included). */
  bad: string[];
  /**
   * A last line without its newline that is not a task row: the torn end of an interrupted write.
   * `at` is the byte offset where it starts.
   */
  torn: { line: number; at: number } | null;
};

/** Reads every task row of a task file (an empty result when the file does not exist). */
export async function readTaskFile(path: string): Promise<TaskFileContents> {
  const text = (await readIfExists(path)) ?? "";
  // A UTF-8 BOM (3 bytes) is skipped, and counted in the byte offsets used for truncation.
  const bom = text.charCodeAt(0) === 0xfeff ? 3 : 0;
  const lines = splitLines(bom > 0 ? text.slice(1) : text);
  const tasks: ReadTask[] = [];
  const bad: string[] = [];
  let torn: TaskFileContents["torn"] = null;
  let previousEnd = bom;
  for (const { number, text: line, end, terminated } of lines) {
    const start = previousEnd;
    previousEnd = end + bom;
    if (line.trim() === "") continue;
    try {
      tasks.push({ ...statsTaskOf(line), line: number, end: end + bom });
    } catch (error) {
      if (!isMineditError(error)) throw error;
      if (!terminated) torn = { line: number, at: start };
      else bad.push(`${path}:${number}: ${error.rawMessage}`);
    }
  }
  return { tasks, bad, torn };
}

const REASONS = Object.keys(REJECTION_REASONS) as RejectionReason[];

const LogEntrySchema = z.object({
  problem_id: z.string(),
  split: z.string(),
  tasks: z.number().int().nonnegative(),
  rejected: z.partialRecord(z.enum(REASONS as [RejectionReason, ...RejectionReason[]]), z.number()),
  note: z.string().optional(),
  settings: z
    .object({
      families: z.array(z.string()),
      mix: z.enum(CORRUPTION_MIXES as [CorruptionMix, ...CorruptionMix[]]).default("blocks"),
      corruptions: z.string(),
      variants: z.number(),
      candidates: z.number(),
      seed: z.number(),
    })
    .optional(),
});

export type BuildLog = {
  /** The last entry of each (problem, split), in file order of first appearance. */
  entries: Map<string, BuildLogEntry>;
  /** Byte offset of a last line without its newline that is not an entry (an interrupted write). */
  tornAt: number | null;
  exists: boolean;
};

/** Reads a build log; lines that are not log entries are ignored (the log is advisory). */
export async function readBuildLog(path: string): Promise<BuildLog> {
  const text = await readIfExists(path);
  const entries: BuildLog["entries"] = new Map();
  if (text === null) return { entries, tornAt: null, exists: false };
  let tornAt: number | null = null;
  let previousEnd = 0;
  for (const { text: line, end, terminated } of splitLines(text)) {
    const start = previousEnd;
    previousEnd = end;
    const entry = logEntryOf(line);
    if (entry === null) {
      if (!terminated) tornAt = start;
      continue;
    }
    entries.set(problemKey(entry.problem_id, entry.split), entry);
  }
  return { entries, tornAt, exists: true };
}

function logEntryOf(line: string): BuildLogEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = LogEntrySchema.safeParse(value);
  if (!parsed.success) return null;
  const { problem_id, split, tasks, rejected, note, settings } = parsed.data;
  return {
    problem_id,
    split,
    tasks,
    rejected,
    ...(note === undefined ? {} : { note }),
    ...(settings === undefined ? {} : { settings }),
  };
}

// ---- recovery ----------------------------------------------------------------------------------------

export type Recovery = {
  /** (problem, split) keys that are finished and must not be processed again. */
  done: Set<string>;
  /** The build log's entries (after recovery). */
  log: Map<string, BuildLogEntry>;
  /** Task rows kept in the file. */
  rows: number;
  /** Rows dropped from the end of the task file (a problem whose build was interrupted), torn line included. */
  droppedRows: number;
  tornLine: boolean;
};

/**
 * Makes a task file and its build log consistent before a build appends to them, and says which
 * problems are finished.
 *
 * A problem is written as one append of all its rows to the task file, then one line to the log. So
 * after an interruption: a torn last line (of either file) is dropped; task rows at the END of the task
 * file whose problem has no log entry belong to a problem whose log line was never written (and whose
 * rows may be incomplete) — they are dropped and the problem is built again. A problem is finished when
 * it has a log entry and, if the entry says it wrote tasks, its rows are in the file. Without any log
 * (a task file from elsewhere, or the log was deleted) every problem with rows counts as finished.
 *
 * @throws MineditError InvalidArgument (via the caller's message) when the task file has lines that are
 *   not task rows: appending to a file that is not a task set would make it worse.
 */
export async function recoverTaskSet(
  taskFile: string,
  logFile: string,
): Promise<Recovery & { bad: string[] }> {
  const file = await readTaskFile(taskFile);
  const log = await readBuildLog(logFile);
  if (file.bad.length > 0) {
    return { done: new Set(), log: log.entries, rows: 0, droppedRows: 0, tornLine: false, bad: file.bad };
  }

  let keep = file.tasks;
  let droppedRows = 0;
  if (log.exists) {
    // Trailing rows of problems without a log entry: an interrupted problem.
    let cut = keep.length;
    while (cut > 0) {
      const task = keep[cut - 1] as ReadTask;
      if (log.entries.has(problemKey(task.problemId, task.split))) break;
      cut -= 1;
    }
    droppedRows = keep.length - cut;
    keep = keep.slice(0, cut);
  }
  const tornLine = file.torn !== null;
  if (droppedRows > 0 || tornLine) {
    const last = keep[keep.length - 1];
    await truncate(taskFile, last === undefined ? 0 : last.end);
  }
  if (log.tornAt !== null) await truncate(logFile, log.tornAt);
  // A last row written by another tool may lack its newline; the next append must not glue onto it.
  await endWithNewline(taskFile);
  await endWithNewline(logFile);

  const withRows = new Set(keep.map((t) => problemKey(t.problemId, t.split)));
  const done = new Set<string>();
  if (log.exists) {
    for (const [key, entry] of log.entries) if (entry.tasks === 0 || withRows.has(key)) done.add(key);
    // Rows the log does not know of (not at the end): finished, but without rejection counts.
    for (const key of withRows) done.add(key);
  } else {
    for (const key of withRows) done.add(key);
  }
  return {
    done,
    log: log.entries,
    rows: keep.length,
    droppedRows: droppedRows + (tornLine ? 1 : 0),
    tornLine,
    bad: [],
  };
}

/** Appends `\n` to a non-empty file that does not end with one. */
async function endWithNewline(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r+");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] !== 0x0a) await handle.write("\n", size);
  } finally {
    await handle.close();
  }
}

// ---- the report --------------------------------------------------------------------------------------

/** Rejections per split from a build log, for the problems that still matter (see {@link recoverTaskSet}). */
function rejectionsOf(log: BuildLog, tasks: readonly StatsTask[]): Map<string, SplitRejections> | undefined {
  if (!log.exists) return undefined;
  const result = new Map<string, SplitRejections>();
  const get = (split: string) => {
    let entry = result.get(split);
    if (entry === undefined) {
      entry = { counts: {}, problems: 0, unrecorded: 0 };
      result.set(split, entry);
    }
    return entry;
  };
  const withRows = new Set(tasks.map((t) => problemKey(t.problemId, t.split)));
  const logged = new Set<string>();
  for (const [key, entry] of log.entries) {
    // An entry that says it wrote tasks which are no longer in the file is stale.
    if (entry.tasks > 0 && !withRows.has(key)) continue;
    logged.add(key);
    const split = get(entry.split);
    split.problems += 1;
    for (const [reason, n] of Object.entries(entry.rejected) as [RejectionReason, number][]) {
      split.counts[reason] = (split.counts[reason] ?? 0) + n;
    }
  }
  const unlogged = new Set<string>();
  for (const task of tasks) {
    const key = problemKey(task.problemId, task.split);
    if (!logged.has(key) && !unlogged.has(key)) {
      unlogged.add(key);
      const split = get(task.split);
      split.problems += 1;
      split.unrecorded = (split.unrecorded ?? 0) + 1;
    }
  }
  return result;
}

export type TaskSetReport = { report: TaskReport; markdown: string; bad: string[] };

/**
 * The report of a task file, with the rejection counts of its build log when there is one (`logFile`
 * defaults to the file beside it). Loads the Python grammar.
 */
export async function reportTaskFile(taskFile: string, logFile?: string): Promise<TaskSetReport> {
  await loadPythonGrammar();
  const file = await readTaskFile(taskFile);
  const log = await readBuildLog(logFile ?? taskSetPaths(taskFile).log);
  const rejections = rejectionsOf(log, file.tasks);
  const report = computeTaskStats(file.tasks, {
    ...(rejections === undefined ? {} : { rejections }),
    families: KNOWN_FAMILIES,
  });
  const markdown = renderTaskReport(report, `Task set report: ${basename(taskFile)}`);
  const bad = [...file.bad];
  if (file.torn !== null) {
    bad.push(`${taskFile}:${file.torn.line}: incomplete last line (no newline, not a task row); ignored`);
  }
  return { report, markdown, bad };
}
