/**
 * The id and program checks of core/task-file.ts are written out rather than built with zod (a metrics
 * worker reads rows with them and must not load zod): they must accept, return and reject exactly as the
 * zod schemas they replace — the oracle here, built from the zod the rest of minedit validates with.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { IdSchema, optionalField, ProgramSchema, requiredField } from "../../src/core/task-file.js";
import { isMineditError } from "../../src/errors.js";

const ZOD_ID = z.union([z.string().min(1), z.number().int()], {
  error: "expected a non-empty string or an integer",
});
const ZOD_PROGRAM = z.string({ error: "expected a string" });

/** Values a JSONL row (or a gRPC request's JSON) can carry, and the edges of each check. */
const VALUES: unknown[] = [
  "",
  "a",
  " ",
  "0",
  "tâche-7",
  0,
  -0,
  7,
  -7,
  1.5,
  -2.25,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  Number.MIN_SAFE_INTEGER - 1,
  2 ** 60,
  1e300,
  -1e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  true,
  false,
  null,
  undefined,
  [],
  ["a"],
  {},
  { id: 1 },
  12n,
];

/** What a schema makes of a value: the value it returns, or its first issue's message. */
function outcome(
  schema: {
    safeParse(value: unknown): {
      success: boolean;
      data?: unknown;
      error?: { issues: readonly { message: string }[] };
    };
  },
  value: unknown,
): { data: unknown } | { message: string | undefined } {
  const result = schema.safeParse(value);
  return result.success ? { data: result.data } : { message: result.error?.issues[0]?.message };
}

describe("the id and program checks, against the zod schemas they stand for", () => {
  it.each(VALUES.map((value) => [String(value), value]))("id %s", (_, value) => {
    expect(outcome(IdSchema, value)).toEqual(outcome(ZOD_ID, value));
  });

  it.each(VALUES.map((value) => [String(value), value]))("program %s", (_, value) => {
    expect(outcome(ProgramSchema, value)).toEqual(outcome(ZOD_PROGRAM, value));
  });

  it("give the same rejection text through the field readers", () => {
    const message = (read: () => unknown): string => {
      try {
        read();
      } catch (error) {
        if (isMineditError(error)) return error.rawMessage;
        throw error;
      }
      throw new Error("expected a rejection");
    };
    for (const value of ["", 1.5, 2 ** 60, -1e300, null, [1]]) {
      const row = { id: value };
      expect(message(() => requiredField(row, "id", IdSchema))).toBe(
        message(() => requiredField(row, "id", ZOD_ID)),
      );
    }
    expect(message(() => requiredField({}, "id", IdSchema))).toBe('missing field "id"');
    expect(optionalField({ gold: "x" }, "gold", ProgramSchema)).toBe("x");
    expect(message(() => optionalField({ gold: null }, "gold", ProgramSchema))).toBe(
      'field "gold": expected a string, got null',
    );
  });
});
