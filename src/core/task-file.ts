/**
 * Rows of a repair-task file (JSONL, one task per line) and the field-level validation that every JSONL
 * input of minedit shares: a row is a JSON object, each field is checked with a schema (a zod schema, or
 * one of the two plain checks below), and every rejection is a {@link MineditError} `InvalidArgument`
 * whose message names the field (`missing field "gold"`, `field "completion": expected a string, got
 * number`), so the CLI can print `FILE:LINE: <message>`.
 *
 * A task row is `{"task_id": ..., "corrupted": "...", "gold": "..."}`. Accepted aliases, because the
 * datasets we read spell them differently: `id` for `task_id`, `corrupted_program` for `corrupted`,
 * `gold_program` for `gold`. Every other field (statement, split, ...) is ignored here; in particular
 * `tests` and `entry_point`, which the CLI reads only when it executes tests, with the task store's schema
 * (`parseStoredTask` in src/scoring/task-store.ts) — one schema for the service's task files and the CLI's,
 * and no I/O-side module imported into core.
 *
 * Pure: no I/O. Whether the programs are valid Python is NOT checked here; that needs the parser, which
 * runs in the metrics workers (the main thread never parses Python).
 *
 * No zod here: every metrics worker reads rollout rows with this module (core/rollout-row.ts), and loading
 * zod (its 64 locales with it) costs a worker about as long as Node itself takes to start. The id and
 * program checks are therefore written out, with zod's behaviour and messages
 * (tests/unit/task-file.test.ts holds them to zod's own), and callers pass zod schemas for the rest.
 */
import { ErrorCode, MineditError } from "../errors.js";

/** A task as the edit reward needs it. `taskId` is the id as written (string or integer). */
export type TaskRow = { taskId: string | number; corrupted: string; gold: string };

/**
 * What checks one field: anything with zod's `safeParse` (every zod schema is one). The value, or the
 * issues whose first message the rejection quotes.
 */
export type FieldSchema<T> = {
  safeParse(
    value: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: readonly { message: string }[] } };
};

/** A field schema from a function that returns the value's rejection message, or null to accept it. */
function checked<T>(rejection: (value: unknown) => string | null): FieldSchema<T> {
  return {
    safeParse(value) {
      const message = rejection(value);
      return message === null
        ? { success: true, data: value as T }
        : { success: false, error: { issues: [{ message }] } };
    },
  };
}

/**
 * A row or task identifier: a non-empty string, or an integer because datasets such as MBPP number their
 * tasks. Floats, booleans and objects are rejected rather than stringified into surprising keys. As zod's
 * `z.union([z.string().min(1), z.number().int()], {error})`, messages included: an integer is a safe one
 * (|n| ≤ 2^53 − 1), and a value of one branch's type is rejected in that branch's words.
 */
export const IdSchema: FieldSchema<string | number> = checked((value) => {
  if (typeof value === "string")
    return value.length > 0 ? null : "Too small: expected string to have >=1 characters";
  if (typeof value === "number" && Number.isInteger(value)) {
    if (value > Number.MAX_SAFE_INTEGER) return `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`;
    if (value < Number.MIN_SAFE_INTEGER) return `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`;
    return null;
  }
  return "expected a non-empty string or an integer";
});

/** Program text. An empty program is valid Python (an empty module), so the empty string is allowed. */
export const ProgramSchema: FieldSchema<string> = checked((value) =>
  typeof value === "string" ? null : "expected a string",
);

/**
 * The key under which a task id is looked up. Integers and their decimal strings share a key (`7` and
 * `"7"` are the same task): task files and rollout files are often written by different tools, and one
 * of them quoting the id should not make every lookup fail.
 */
export function taskKey(id: string | number): string {
  return String(id);
}

function invalid(message: string, field?: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message, field === undefined ? undefined : { field });
}

/** A JSON value's type as a user would name it (`null`, `array`, `number`, ...). */
export function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Parses one JSONL line into a JSON object.
 *
 * @throws MineditError `InvalidArgument` for invalid JSON or a value that is not an object.
 */
export function parseJsonObject(line: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw invalid(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalid(`expected a JSON object, got ${jsonTypeName(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * Reads an optional field: `undefined` when the row does not have it, otherwise its value validated by
 * `schema`. An explicit `null` is present and ill-typed, not missing: `"gold": null` is more likely a bug
 * in the writer than a deliberate omission.
 *
 * @throws MineditError `InvalidArgument` naming the field when the value does not match.
 */
export function optionalField<T>(
  row: Record<string, unknown>,
  name: string,
  schema: FieldSchema<T>,
): T | undefined {
  if (!Object.hasOwn(row, name)) return undefined;
  const value = row[name];
  const result = schema.safeParse(value);
  if (!result.success) {
    const message = result.error.issues[0]?.message ?? "invalid value";
    throw invalid(`field "${name}": ${message}, got ${describeValue(value)}`, name);
  }
  return result.data;
}

/** Like {@link optionalField}, but a missing field is an error naming it. */
export function requiredField<T>(row: Record<string, unknown>, name: string, schema: FieldSchema<T>): T {
  const value = optionalField(row, name, schema);
  if (value === undefined) throw invalid(`missing field "${name}"`, name);
  return value;
}

/** Type of a rejected value, plus the value itself when it is short enough to help (`""`, `1.5`). */
function describeValue(value: unknown): string {
  const type = jsonTypeName(value);
  if (typeof value === "number" || typeof value === "boolean") return `${type} ${String(value)}`;
  if (typeof value === "string" && value.length <= 40) return `${type} ${JSON.stringify(value)}`;
  return type;
}

/**
 * Reads a field that may be spelt `name` or `alias`. When both are present they must agree: silently
 * preferring one would score against a program the writer may not have meant.
 */
function aliasedProgram(row: Record<string, unknown>, name: string, alias: string): string {
  const primary = optionalField(row, name, ProgramSchema);
  const secondary = optionalField(row, alias, ProgramSchema);
  if (primary !== undefined && secondary !== undefined && primary !== secondary) {
    throw invalid(`fields "${name}" and "${alias}" are both given and differ; give only one`, name);
  }
  const value = primary ?? secondary;
  if (value === undefined) throw invalid(`missing field "${name}" (or its alias "${alias}")`, name);
  return value;
}

/**
 * The id of a task row without validating the rest, or `undefined` when it has no usable id. Lets the
 * caller remember the ids of rejected rows, so a rollout that refers to one is told the task row was bad
 * rather than that the id is unknown.
 */
export function taskIdOf(row: Record<string, unknown>): string | number | undefined {
  for (const name of ["task_id", "id"]) {
    const result = IdSchema.safeParse(row[name]);
    if (result.success) return result.data;
  }
  return undefined;
}

/**
 * Validates one task row (already parsed from JSON).
 *
 * `task_id` wins over `id` when both are present: a dataset row may carry its own row `id` next to the
 * task id, and then `id` is not the task's name. `id` is therefore only read (and type-checked) when
 * there is no `task_id`.
 *
 * @throws MineditError `InvalidArgument` naming the missing or ill-typed field.
 */
export function parseTaskRow(row: Record<string, unknown>): TaskRow {
  const taskId = optionalField(row, "task_id", IdSchema) ?? optionalField(row, "id", IdSchema);
  if (taskId === undefined) throw invalid('missing field "task_id" (or its alias "id")', "task_id");
  return {
    taskId,
    corrupted: aliasedProgram(row, "corrupted", "corrupted_program"),
    gold: aliasedProgram(row, "gold", "gold_program"),
  };
}

/** Parses and validates one line of a task file; see {@link parseJsonObject} and {@link parseTaskRow}. */
export function parseTaskLine(line: string): TaskRow {
  return parseTaskRow(parseJsonObject(line));
}
