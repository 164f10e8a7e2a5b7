/**
 * Reading the fields of a source row: every rejection is a `MineditError` `InvalidArgument` whose message
 * names the field (`missing field "test"`, `field "code": expected a string, got number 3`), built on the
 * task-file helpers so that every JSONL input of minedit words its errors alike.
 */
import { z } from "zod";
import { IdSchema, optionalField, requiredField } from "../../core/task-file.js";
import { ErrorCode, MineditError } from "../../errors.js";

/** A row of a source file: one JSON object. */
export type SourceRow = Record<string, unknown>;

export function invalid(message: string, field?: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message, field === undefined ? undefined : { field });
}

export const StringSchema = z.string({ error: "expected a string" });
export const TextSchema = z
  .string({ error: "expected a string" })
  .min(1, { error: "expected a non-empty string" });

/** A required, non-empty string (a program, a statement, an entry point). */
export function requiredText(row: SourceRow, name: string): string {
  return requiredField(row, name, TextSchema);
}

/** An optional string field; present but ill-typed is an error. Empty strings are returned as they are. */
export function optionalString(row: SourceRow, name: string): string | undefined {
  return optionalField(row, name, StringSchema);
}

/** The name of the first of `names` the row has (present, whatever its value), or undefined. */
export function firstPresent(row: SourceRow, names: readonly string[]): string | undefined {
  return names.find((name) => Object.hasOwn(row, name));
}

/**
 * The row's id from the first of `names` present: a non-empty string or an integer (MBPP numbers its
 * tasks), as a string.
 */
export function idField(row: SourceRow, names: readonly string[]): string {
  const name = firstPresent(row, names);
  if (name === undefined) throw missing(names);
  return String(requiredField(row, name, IdSchema));
}

/** `missing field "a"` or `missing field "a" (or "b", "c")`. */
export function missing(names: readonly string[]): MineditError {
  const [first, ...rest] = names;
  const others = rest.length === 0 ? "" : ` (or ${rest.map((n) => `"${n}"`).join(", ")})`;
  return invalid(`missing field "${first}"${others}`, first);
}

/** Whether `name` is usable as a Python identifier in generated code (ASCII or Unicode letters). */
export function isIdentifier(name: string): boolean {
  return /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u.test(name);
}

/**
 * A field of an object nested in the row, named by its path in errors (`missing field "tests.code"`,
 * `field "tests.cases": expected an array, got string`).
 */
export function nestedField<T>(
  parent: Record<string, unknown>,
  path: string,
  name: string,
  schema: z.ZodType<T>,
): T | undefined {
  const key = `${path}.${name}`;
  return optionalField(Object.hasOwn(parent, name) ? { [key]: parent[name] } : {}, key, schema);
}

/** Like {@link nestedField}, but a missing field is an error naming its path. */
export function requiredNestedField<T>(
  parent: Record<string, unknown>,
  path: string,
  name: string,
  schema: z.ZodType<T>,
): T {
  const value = nestedField(parent, path, name, schema);
  if (value === undefined) throw invalid(`missing field "${path}.${name}"`, `${path}.${name}`);
  return value;
}

export const ObjectSchema = z.record(z.string(), z.unknown(), { error: "expected an object" });
export const StringListSchema = z.array(z.string(), { error: "expected an array of strings" });
