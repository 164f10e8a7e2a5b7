/**
 * The lines of the JSONL files an evaluation writes and reads back (journal, run records, study summaries):
 * split at `\n`, numbered from 1 with blank lines counted, each parsed on its own, so that a bad line can
 * be named as FILE:LINE.
 */
import type { z } from "zod";

/** One non-blank line: its `JSON.parse` value, or the parser's message when it is not JSON. */
export type JsonLine = { line: number; value: unknown } | { line: number; error: string };

/** Each non-blank line of `text`, parsed. */
export function jsonLines(text: string): JsonLine[] {
  const out: JsonLine[] = [];
  text.split("\n").forEach((raw, index) => {
    if (raw.trim() === "") return;
    try {
      out.push({ line: index + 1, value: JSON.parse(raw) });
    } catch (error) {
      out.push({ line: index + 1, error: (error as Error).message });
    }
  });
  return out;
}

/** One non-blank line checked by a schema: its value, or why it is bad. */
export type CheckedLine<T> = { line: number; value: T } | { line: number; reason: string };

/**
 * Each non-blank line of `text`, parsed and checked by `schema`. The reason for a bad line is
 * `invalid JSON: <message>`, or the schema's first issue as `<field.path>: <message>`.
 */
export function checkedJsonLines<T>(text: string, schema: z.ZodType<T>): CheckedLine<T>[] {
  return jsonLines(text).map((json): CheckedLine<T> => {
    if ("error" in json) return { line: json.line, reason: `invalid JSON: ${json.error}` };
    const parsed = schema.safeParse(json.value);
    if (parsed.success) return { line: json.line, value: parsed.data };
    const issue = parsed.error.issues[0];
    return { line: json.line, reason: `${issue?.path.join(".") || "line"}: ${issue?.message ?? "invalid"}` };
  });
}
