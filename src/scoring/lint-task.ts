/**
 * The lint task row (docs/lint.md; issue 6): one JSONL line per task, read by the task store (ScoreBatch),
 * the lint task builder and the lint exports — this module is the one parser and writer of the format.
 *
 *   {"task_id": "lint/python/001_x", "kind": "lint_refactor", "language": "python" | "cpp" | "java",
 *    "problem_id": "...", "statement": "...",
 *    "original": "<the file A>",
 *    "alerts": [Alert, ...],            // A's alerts as the analyzers give them (src/core/lint/alert.ts)
 *    "tests": {"style": "stdio", "cases": [{"input", "output"}], "float_tolerance"?}   // cpp, java
 *           | {"style": "unittest" | "assert", "code"} | stdio                         // python
 *    "entry_point": "f",                // python assert-style tests only
 *    "analyzers": {"pylint": "2.16.2"}, // tool → version the alerts came from
 *    "split": "train", "source": "..."}
 *
 * `kind` is what tells a lint row from a repair row (which has no `kind`). Unknown extra fields are
 * ignored, as for repair rows. Alerts are kept as given (each must be a complete {@link Alert}); the lint
 * reward does not use them — it analyzes A and A′ with the server's own analyzer, so both sides of every
 * comparison come from one tool version and configuration.
 */
import { z } from "zod";
import type { Alert } from "../core/lint/alert.js";
import { ALERT_CATEGORIES, LINT_LANGUAGES, LINT_TOOLS, type LintLanguage } from "../core/lint/tools.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { PythonTests, StdioTests } from "../runners/python.js";
import { parseRow } from "./parse-row.js";
import { TestsRowSchema, testsFromRow } from "./tests-row.js";

/** The `kind` of a lint task row. */
export const LINT_TASK_KIND = "lint_refactor";

/** The tests of a lint task: any Python style for Python, stdin/stdout for C++ and Java. */
export type LintTests = PythonTests;

/** A parsed lint task row. */
export type LintTask = {
  taskId: string;
  kind: typeof LINT_TASK_KIND;
  language: LintLanguage;
  problemId: string;
  statement: string;
  /** The file A a revision must keep working while removing its alerts. */
  original: string;
  /** A's alerts, as the analyzer reported them when the task was built. */
  alerts: Alert[];
  /** Stdio for C++ and Java (checked at parse time). */
  tests: LintTests;
  /** Python assert-style tests: the function handed to `check`. Empty otherwise. */
  entryPoint: string;
  /** Analyzer → version the alerts came from. */
  analyzers: Record<string, string>;
  split: string;
  source: string;
};

const AlertRowSchema = z.object({
  tool: z.enum(LINT_TOOLS),
  ruleId: z.string().min(1),
  category: z.enum(ALERT_CATEGORIES),
  message: z.string(),
  sanitizedMessage: z.string(),
  line: z.number().int().min(0),
});

const LintTaskRowSchema = z.object({
  task_id: z.string().min(1),
  kind: z.literal(LINT_TASK_KIND),
  language: z.enum(LINT_LANGUAGES),
  problem_id: z.string().default(""),
  statement: z.string().default(""),
  original: z.string().refine((text) => text.trim() !== "", "must not be empty"),
  alerts: z.array(AlertRowSchema),
  tests: TestsRowSchema,
  entry_point: z.string().default(""),
  analyzers: z.record(z.string(), z.string()).default({}),
  split: z.string().default(""),
  source: z.string().default(""),
});

/** Whether a parsed JSON row is a lint task row (its `kind`); anything else is a repair row. */
export function isLintTaskRow(row: unknown): boolean {
  return typeof row === "object" && row !== null && (row as { kind?: unknown }).kind === LINT_TASK_KIND;
}

/** Parses one lint task row; throws MineditError InvalidArgument naming the first bad field. */
export function parseLintTask(row: unknown): LintTask {
  const data = parseRow(LintTaskRowSchema, row, "invalid lint task");
  if (data.language !== "python" && data.tests.style !== "stdio") {
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `tests.style: ${data.language} tasks need stdio tests, got "${data.tests.style}"`,
      { field: "tests.style" },
    );
  }
  return {
    taskId: data.task_id,
    kind: LINT_TASK_KIND,
    language: data.language,
    problemId: data.problem_id,
    statement: data.statement,
    original: data.original,
    alerts: data.alerts,
    tests: testsFromRow(data.tests, data.entry_point),
    entryPoint: data.entry_point,
    analyzers: data.analyzers,
    split: data.split,
    source: data.source,
  };
}

/** The JSONL row of a lint task (the inverse of {@link parseLintTask}; key order as in the module doc). */
export function lintTaskRow(task: LintTask): Record<string, unknown> {
  return {
    task_id: task.taskId,
    kind: LINT_TASK_KIND,
    language: task.language,
    problem_id: task.problemId,
    statement: task.statement,
    original: task.original,
    alerts: task.alerts.map((a) => ({
      tool: a.tool,
      ruleId: a.ruleId,
      category: a.category,
      message: a.message,
      sanitizedMessage: a.sanitizedMessage,
      line: a.line,
    })),
    tests: testsRow(task.tests),
    entry_point: task.entryPoint,
    analyzers: task.analyzers,
    split: task.split,
    source: task.source,
  };
}

/** A runner's tests in row form (`float_tolerance` spelt as in rows; the entry point is the row's own field). */
function testsRow(tests: LintTests): Record<string, unknown> {
  switch (tests.style) {
    case "unittest":
    case "assert":
      return { style: tests.style, code: tests.code };
    case "stdio":
      return stdioRow(tests);
  }
}

function stdioRow(tests: StdioTests): Record<string, unknown> {
  const cases = tests.cases.map((c) => ({ input: c.input, output: c.output }));
  return tests.floatTolerance === undefined
    ? { style: "stdio", cases }
    : { style: "stdio", cases, float_tolerance: tests.floatTolerance };
}
