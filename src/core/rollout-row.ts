/**
 * A row of the rollout file `minedit score` reads, as far as it can be read without running anything: its
 * fields (an id, the completion, and a `task_id` of the task file or the task inline), the task it names
 * in a table of the task file, and the JSON line written for its score. Every rejection is a reason for
 * `FILE:LINE: reason` (a MineditError `InvalidArgument` naming the field, or the text of a resolution).
 *
 * Pure: no I/O. The CLI's main thread uses it when it executes the tests (src/scoring/offline/rows.ts adds
 * the `tests` field), and the metrics workers read whole batches of rows with it otherwise.
 */
import { ErrorCode, MineditError } from "../errors.js";
import { REWARD_DEFINITION_VERSION, type Verdict } from "./reward.js";
import { IdSchema, ProgramSchema, requiredField, taskKey } from "./task-file.js";

/** The fields of one rollout row (its inline task without tests). */
export type RolloutFields = {
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

/**
 * Validates one rollout row's fields; throws `InvalidArgument` naming the field. When `execute`, a
 * `task_id` row must not carry tests (they come from the task); an inline row's tests are the caller's.
 */
export function parseRolloutFields(row: Record<string, unknown>, execute: boolean): RolloutFields {
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
  return { id, completion, inline: { corrupted, gold } };
}

/**
 * What a task id of the task file resolved to — a task (`T`: what the caller keeps of it), a bad row with
 * its reason, or a duplicate with every line defining it — so a rollout naming it can say exactly why it
 * cannot be scored.
 */
export type TaskEntry<T> =
  | { kind: "ok"; task: T; line: number }
  | { kind: "bad"; line: number; reason: string }
  | { kind: "duplicate"; lines: number[] };

/** A task file's entries by task key (core/task-file.ts `taskKey`), and the file's name for messages. */
export type TaskLookup<T> = { name: string; entries: Map<string, TaskEntry<T>> };

/**
 * The task a `task_id` row names, with a label for messages about it (`task "t1" (tasks.jsonl:3)`), or the
 * reason it cannot be scored.
 */
export function lookupTask<T>(
  taskId: string | number,
  tasks: TaskLookup<T> | undefined,
): { task: T; label: string } | string {
  const shown = JSON.stringify(taskId);
  if (tasks === undefined) return `task_id ${shown} given but no --tasks file`;
  const entry = tasks.entries.get(taskKey(taskId));
  if (entry === undefined) return `unknown task_id ${shown} (not in ${tasks.name})`;
  switch (entry.kind) {
    case "ok":
      return { task: entry.task, label: `task ${shown} (${tasks.name}:${entry.line})` };
    case "bad":
      return `task_id ${shown} refers to a bad task row (${tasks.name}:${entry.line}: ${entry.reason})`;
    case "duplicate":
      return `task_id ${shown} is ambiguous: defined more than once in ${tasks.name} (lines ${entry.lines.join(", ")})`;
  }
}

/** What a scored row reports; `execution` is present when the tests were (or would have been) run. */
export type RowScore = {
  verdict: Verdict;
  reward: number | null;
  detail: string;
  components: { dModel: number; dGold: number; excess: number; addedCc?: number } | null;
  execution?: { testsPassed: number; testsTotal: number; cached: boolean };
};

const REWARD_VERSION_JSON = JSON.stringify(REWARD_DEFINITION_VERSION);

/**
 * One stdout row and its newline: the JSON of `{id, task_id?, reward, verdict, d_model, d_gold, excess,
 * added_cc, tests_passed?, tests_total?, cached?, detail, reward_version}`, keys in that order, each value
 * written by JSON.stringify (numbers as computed, no rounding) — built as text, once per row.
 */
export function outputLine(row: RolloutFields, score: RowScore): string {
  return outputLineStart(row) + outputLineScore(score) + OUTPUT_LINE_END;
}

/** The part of {@link outputLine} that depends on the row: `{"id":…` and `,"task_id":…` when it has one. */
export function outputLineStart(row: RolloutFields): string {
  const json = JSON.stringify;
  const start = `{"id":${json(row.id)}`;
  return row.taskId === undefined ? start : `${start},"task_id":${json(row.taskId)}`;
}

/** The part of {@link outputLine} that depends on the score: from `,"reward":` to `"detail"`'s value. */
export function outputLineScore(score: RowScore): string {
  const json = JSON.stringify;
  const components = score.components;
  let out = `,"reward":${json(score.reward)},"verdict":${json(score.verdict)}`;
  out += `,"d_model":${json(components?.dModel ?? null)},"d_gold":${json(components?.dGold ?? null)}`;
  out += `,"excess":${json(components?.excess ?? null)},"added_cc":${json(components?.addedCc ?? null)}`;
  if (score.execution !== undefined) {
    const { testsPassed, testsTotal, cached } = score.execution;
    out += `,"tests_passed":${json(testsPassed)},"tests_total":${json(testsTotal)},"cached":${json(cached)}`;
  }
  return `${out},"detail":${json(score.detail)}`;
}

/**
 * The end of every {@link outputLine}, the same on all: `reward_version` (the reward definition's version,
 * ~750 bytes, most of a line) and the newline. A writer of many lines may encode it once.
 */
export const OUTPUT_LINE_END = `,"reward_version":${REWARD_VERSION_JSON}}\n`;
