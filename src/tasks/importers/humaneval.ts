/**
 * HumanEval rows: `task_id`, `prompt` (imports, signature and docstring), `canonical_solution` (the body
 * that follows the prompt), `test` (defines `check(candidate)`, called as `check(<entry_point>)` in the
 * program's namespace), `entry_point`.
 *
 * Gold program = `prompt + canonical_solution`; tests = `test` (assert style); statement = the entry
 * point's docstring (cleaned as `inspect.cleandoc` does), or the whole prompt when it has none.
 */
import { idField, requiredText, type SourceRow } from "./fields.js";
import {
  checkProgram,
  functionDocstring,
  librariesOf,
  parseTestCode,
  requireDefined,
  requireTestStyle,
} from "./python-source.js";
import type { Problem } from "./types.js";

export function importHumanEval(row: SourceRow): Problem {
  const id = idField(row, ["task_id"]);
  const prompt = requiredText(row, "prompt");
  const body = requiredText(row, "canonical_solution");
  const solution = prompt + body;
  const program = checkProgram(solution, "canonical_solution", "the program prompt + canonical_solution");
  const entryPoint = requiredText(row, "entry_point");
  requireDefined(program, entryPoint, "the program prompt + canonical_solution");
  const code = requiredText(row, "test");
  const testModule = parseTestCode(code, "test");
  requireTestStyle(testModule, "assert", "test");
  return {
    problemId: `humaneval/${id}`,
    statement: functionDocstring(program, entryPoint) ?? prompt,
    entryPoint,
    solution,
    tests: { style: "assert", code },
    source: "humaneval",
    libraries: librariesOf([program, testModule]),
  };
}
