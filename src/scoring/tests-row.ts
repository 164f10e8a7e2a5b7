/**
 * The `tests` field of a task row, shared by repair rows (task-store.ts) and lint rows
 * (src/scoring/lint-task.ts): its schema and the runner's form of it.
 */
import { z } from "zod";
import { ErrorCode, MineditError } from "../errors.js";
import type { PythonTests } from "../runners/python.js";

/** The `tests` field of a task row (repair and lint rows alike). */
export const TestsRowSchema = z.discriminatedUnion("style", [
  z.object({ style: z.literal("unittest"), code: z.string() }),
  z.object({ style: z.literal("assert"), code: z.string() }),
  z.object({
    style: z.literal("stdio"),
    cases: z.array(z.object({ input: z.string(), output: z.string() })).min(1),
    float_tolerance: z.number().nonnegative().optional(),
  }),
]);

/**
 * The runner's form of a row's validated `tests`; assert-style tests take the row's `entry_point`
 * (required for them: InvalidArgument naming `entry_point` otherwise).
 */
export function testsFromRow(tests: z.output<typeof TestsRowSchema>, entryPoint: string): PythonTests {
  if (tests.style === "unittest") return { style: "unittest", code: tests.code };
  if (tests.style === "assert") {
    if (entryPoint === "") {
      throw new MineditError(
        ErrorCode.InvalidArgument,
        "entry_point: assert-style tests need the entry point",
        {
          field: "entry_point",
        },
      );
    }
    return { style: "assert", code: tests.code, entryPoint };
  }
  return tests.float_tolerance === undefined
    ? { style: "stdio", cases: tests.cases }
    : { style: "stdio", cases: tests.cases, floatTolerance: tests.float_tolerance };
}
