/**
 * HumanEval rows: `task_id`, `prompt` (imports, signature and docstring), `canonical_solution` (the body
 * that follows the prompt), `test` (defines `check(candidate)`, called as `check(<entry_point>)` in the
 * program's namespace), `entry_point`.
 *
 * Gold program = `prompt + canonical_solution`; tests = `test` (assert style); statement = the entry
 * point's docstring (cleaned as `inspect.cleandoc` does), or the whole prompt when it has none.
 */
import { readCanonicalSolution } from "./canonical-solution.js";
import type { SourceRow } from "./fields.js";
import { functionDocstring, librariesOf } from "./python-source.js";
import type { Problem } from "./types.js";

export function importHumanEval(row: SourceRow): Problem {
  const gold = readCanonicalSolution(row, "prompt", "assert");
  return {
    problemId: `humaneval/${gold.id}`,
    statement: functionDocstring(gold.program, gold.entryPoint) ?? gold.prompt,
    entryPoint: gold.entryPoint,
    solution: gold.solution,
    tests: { style: "assert", code: gold.code },
    source: "humaneval",
    libraries: librariesOf([gold.program, gold.testModule]),
  };
}
