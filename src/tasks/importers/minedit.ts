/**
 * The project's own problem rows (datasets/seed/problems.jsonl): `problem_id`, `statement`, `entry_point`,
 * `solution` (the whole program) and `tests` in the task-row shape (`{"style": "unittest"|"assert",
 * "code"}` or `{"style": "stdio", "cases": [{"input", "output"}], "float_tolerance"?}`). `source` (where
 * the problem comes from, e.g. `minedit-seed`) is not needed: `Problem.source` is the format.
 */
import { z } from "zod";
import type { Module } from "../../core/python/ast.js";
import { requiredField } from "../../core/task-file.js";
import {
  idField,
  invalid,
  nestedField,
  ObjectSchema,
  optionalString,
  requiredNestedField,
  requiredText,
  type SourceRow,
  StringSchema,
  TextSchema,
} from "./fields.js";
import {
  checkProgram,
  librariesOf,
  parseTestCode,
  requireDefined,
  requireTestStyle,
} from "./python-source.js";
import type { Problem, ProblemTests } from "./types.js";

const StyleSchema = z.enum(["unittest", "assert", "stdio"], {
  error: 'expected "unittest", "assert" or "stdio"',
});
const CasesSchema = z
  .array(z.unknown(), { error: "expected an array" })
  .min(1, { error: "expected test cases" });
const ToleranceSchema = z
  .number({ error: "expected a number" })
  .nonnegative({ error: "expected a number ≥ 0" });

export function importMinedit(row: SourceRow): Problem {
  const id = idField(row, ["problem_id"]);
  const statement = requiredText(row, "statement");
  const solution = requiredText(row, "solution");
  const program = checkProgram(solution, "solution");
  const testsRow = requiredField(row, "tests", ObjectSchema);
  const style = requiredNestedField(testsRow, "tests", "style", StyleSchema);
  const entryPoint = optionalString(row, "entry_point") ?? "";
  const modules: Module[] = [program];
  let tests: ProblemTests;
  if (style === "stdio") {
    tests = stdioTests(testsRow);
  } else {
    const code = requiredNestedField(testsRow, "tests", "code", TextSchema);
    const testModule = parseTestCode(code, "tests.code");
    requireTestStyle(testModule, style, "tests.code");
    modules.push(testModule);
    if (style === "assert") {
      if (entryPoint === "") throw invalid('assert-style tests need field "entry_point"', "entry_point");
      requireDefined(program, entryPoint, 'field "solution"');
    }
    tests = { style, code };
  }
  return {
    problemId: `minedit/${id}`,
    statement,
    entryPoint,
    solution,
    tests,
    source: "minedit",
    libraries: librariesOf(modules),
  };
}

function stdioTests(testsRow: Record<string, unknown>): ProblemTests {
  const rawCases = requiredNestedField(testsRow, "tests", "cases", CasesSchema);
  const cases = rawCases.map((value, i) => {
    const path = `tests.cases[${i}]`;
    const item = ObjectSchema.safeParse(value);
    if (!item.success) throw invalid(`field "${path}": expected an object`, path);
    return {
      input: requiredNestedField(item.data, path, "input", StringSchema),
      output: requiredNestedField(item.data, path, "output", StringSchema),
    };
  });
  const tolerance = nestedField(testsRow, "tests", "float_tolerance", ToleranceSchema);
  return tolerance === undefined
    ? { style: "stdio", cases }
    : { style: "stdio", cases, float_tolerance: tolerance };
}
