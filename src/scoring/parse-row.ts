/**
 * Parsing one task row (repair or lint) against its zod schema, with the error every task reader reports:
 * MineditError InvalidArgument naming the first bad field, so FILE:LINE messages can say which.
 */
import type { z } from "zod";
import { ErrorCode, MineditError } from "../errors.js";

/** `row` parsed by `schema`; `what` names the row in the message when the problem is not in one field. */
export function parseRow<T>(schema: z.ZodType<T>, row: unknown, what: string): T {
  const parsed = schema.safeParse(row);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") ?? "";
  throw new MineditError(ErrorCode.InvalidArgument, `${field || "row"}: ${issue?.message ?? what}`, {
    field,
  });
}
