/**
 * The fields HumanEval and BigCodeBench rows share: a prompt (imports, signature and docstring) that
 * `canonical_solution` completes into the gold program, which must define `entry_point`, and `test`, the
 * test code run in the program's namespace.
 */
import type { Module } from "../../core/python/ast.js";
import { idField, requiredText, type SourceRow } from "./fields.js";
import { checkProgram, parseTestCode, requireDefined, requireTestStyle } from "./python-source.js";

export type CanonicalSolution = {
  /** The `task_id` field. */
  id: string;
  /** The prompt field's text. */
  prompt: string;
  /** The gold program: prompt + canonical_solution. */
  solution: string;
  program: Module;
  entryPoint: string;
  /** The `test` field's text and its parse. */
  code: string;
  testModule: Module;
};

/**
 * Reads the `task_id`, then reads and checks the gold program `<promptField> + canonical_solution`, its
 * `entry_point` and its `test` code of the given style, in that order (the first problem found is the
 * row's error).
 */
export function readCanonicalSolution(
  row: SourceRow,
  promptField: string,
  style: "unittest" | "assert",
): CanonicalSolution {
  const id = idField(row, ["task_id"]);
  const prompt = requiredText(row, promptField);
  const body = requiredText(row, "canonical_solution");
  const solution = prompt + body;
  const what = `the program ${promptField} + canonical_solution`;
  const program = checkProgram(solution, "canonical_solution", what);
  const entryPoint = requiredText(row, "entry_point");
  requireDefined(program, entryPoint, what);
  const code = requiredText(row, "test");
  const testModule = parseTestCode(code, "test");
  requireTestStyle(testModule, style, "test");
  return { id, prompt, solution, program, entryPoint, code, testModule };
}
