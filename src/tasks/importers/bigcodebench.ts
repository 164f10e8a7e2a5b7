/**
 * BigCodeBench rows: `task_id`, `complete_prompt` (imports, signature and docstring), `instruct_prompt`
 * (the task in words), `code_prompt`, `canonical_solution` (the body that follows `complete_prompt`),
 * `test` (a `TestCases(unittest.TestCase)` class run in the program's namespace), `entry_point`, `libs`.
 *
 * Gold program = `complete_prompt + canonical_solution`; statement = `instruct_prompt`, or the entry
 * point's docstring when that is empty or absent; `libs` (a list, or the Python list literal the published
 * files hold, `"['pandas', 'random']"`) joins `Problem.libraries`.
 */
import { z } from "zod";
import { parsePython } from "../../core/python/parse.js";
import { optionalField } from "../../core/task-file.js";
import { readCanonicalSolution } from "./canonical-solution.js";
import { invalid, optionalString, type SourceRow, StringListSchema } from "./fields.js";
import { functionDocstring, librariesOf } from "./python-source.js";
import type { Problem } from "./types.js";

const LibsSchema = z.union([z.string(), z.array(z.string())], {
  error: "expected a list of module names (an array, or a string holding a list literal)",
});

export function importBigCodeBench(row: SourceRow): Problem {
  const gold = readCanonicalSolution(row, "complete_prompt", "unittest");
  const instruct = optionalString(row, "instruct_prompt");
  optionalString(row, "code_prompt");
  const statement =
    instruct !== undefined && instruct.trim() !== ""
      ? instruct
      : (functionDocstring(gold.program, gold.entryPoint) ?? gold.prompt);
  return {
    problemId: `bigcodebench/${gold.id}`,
    statement,
    entryPoint: gold.entryPoint,
    solution: gold.solution,
    tests: { style: "unittest", code: gold.code },
    source: "bigcodebench",
    libraries: librariesOf([gold.program, gold.testModule], declaredLibs(row)),
  };
}

/** The `libs` field as a list: an array of names, or a string holding a JSON or Python list of strings. */
function declaredLibs(row: SourceRow): string[] {
  const libs = optionalField(row, "libs", LibsSchema);
  if (libs === undefined) return [];
  if (Array.isArray(libs)) return libs;
  if (libs.trim() === "") return [];
  const error = invalid(
    `field "libs": expected a list literal of module names, got ${JSON.stringify(libs.slice(0, 60))}`,
    "libs",
  );
  let module: ReturnType<typeof parsePython>;
  try {
    module = parsePython(libs);
  } catch {
    throw error;
  }
  const [statement, extra] = module.body;
  if (extra !== undefined || statement?.type !== "Expr") throw error;
  const list = statement.value;
  if (list.type !== "List" && list.type !== "Tuple" && list.type !== "Set") throw error;
  const names = list.elts.map((e) =>
    e.type === "Constant" && e.value.kind === "str" ? e.value.value : null,
  );
  const parsed = StringListSchema.safeParse(names);
  if (!parsed.success) throw error;
  return parsed.data;
}
