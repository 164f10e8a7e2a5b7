/**
 * The rows `minedit score` reads when it executes the tests (docs/reward.md): a rollout row (core/rollout-row.ts)
 * whose inline task also carries its `tests` / `entry_point`, and those fields of a task or inline row.
 * Every rejection is a MineditError `InvalidArgument` whose message names the field, for `FILE:LINE: reason`.
 *
 * Pure: no I/O.
 */
import { parseRolloutFields, type RolloutFields } from "../../core/rollout-row.js";
import { ErrorCode, isMineditError, MineditError } from "../../errors.js";
import type { PythonTests } from "../../runners/python.js";
import type { RuntimeName } from "../../sandbox/runtimes.js";
import { parseStoredTask, taskRuntime } from "../task-store.js";

/** Why a row or task cannot be scored when executing; the message says both ways out. */
export const NO_TESTS = "no tests: give the task's tests or pass --no-exec";

/** The message of a MineditError (a bad row's reason); anything else is a bug and is rethrown. */
export function errorMessage(error: unknown): string {
  if (isMineditError(error)) return error.rawMessage;
  throw error;
}

/**
 * A task's tests as the sandbox runners take them; `entryPoint` is empty when the style needs none.
 * `runtime`: the one the row names; absent, an inline row's is picked from its imports by the scorer
 * (src/scoring/inline-runtime.ts), while a task file's row runs in the default one (as `serve` runs it).
 */
export type TaskTests = { tests: PythonTests; entryPoint: string; runtime?: RuntimeName };

/**
 * Reads the `tests`, `entry_point` and `runtime` fields of a task or inline row, or `undefined` when there
 * is no `tests` field. The schema is the task store's ({@link parseStoredTask}), so a task file `minedit
 * serve` loads is scored the same way here; only those fields are handed to it (ids and programs are
 * checked by the CLI's own, more lenient rules: integer ids, aliases).
 *
 * @throws MineditError `InvalidArgument` naming the field, in the CLI's `field "x": reason` form.
 */
export function parseTests(row: Record<string, unknown>): TaskTests | undefined {
  if (!Object.hasOwn(row, "tests")) return undefined;
  const fields: Record<string, unknown> = { task_id: "-", corrupted: "", gold: "", tests: row.tests };
  if (Object.hasOwn(row, "entry_point")) fields.entry_point = row.entry_point;
  if (Object.hasOwn(row, "runtime")) fields.runtime = row.runtime;
  try {
    const task = parseStoredTask(fields);
    const { tests, entryPoint } = task;
    return Object.hasOwn(row, "runtime")
      ? { tests, entryPoint, runtime: taskRuntime(task) }
      : { tests, entryPoint };
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

/** One row of the rollout file, validated; an inline task carries its `tests` when executing. */
export type RolloutRow = Omit<RolloutFields, "inline"> & {
  inline?: { corrupted: string; gold: string; tests?: TaskTests };
};

/**
 * Validates one rollout row; throws `InvalidArgument` naming the field. When `execute`, an inline row
 * must carry its tests too, and a `task_id` row must not (they come from the task).
 */
export function parseRolloutRow(row: Record<string, unknown>, execute: boolean): RolloutRow {
  const fields = parseRolloutFields(row, execute);
  if (!execute || fields.inline === undefined) return fields;
  const tests = parseTests(row);
  if (tests === undefined) throw new MineditError(ErrorCode.InvalidArgument, NO_TESTS, { field: "tests" });
  return { ...fields, inline: { ...fields.inline, tests } };
}
