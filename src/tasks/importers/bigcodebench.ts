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
import {
  idField,
  invalid,
  optionalString,
  requiredText,
  type SourceRow,
  StringListSchema,
} from "./fields.js";
import {
  checkProgram,
  functionDocstring,
  librariesOf,
  parseTestCode,
  requireDefined,
  requireTestStyle,
} from "./python-source.js";
import type { Problem } from "./types.js";

const LibsSchema = z.union([z.string(), z.array(z.string())], {
  error: "expected a list of module names (an array, or a string holding a list literal)",
});

export function importBigCodeBench(row: SourceRow): Problem {
  const id = idField(row, ["task_id"]);
  const prompt = requiredText(row, "complete_prompt");
  const body = requiredText(row, "canonical_solution");
  const solution = prompt + body;
  const program = checkProgram(
    solution,
    "canonical_solution",
    "the program complete_prompt + canonical_solution",
  );
  const entryPoint = requiredText(row, "entry_point");
  requireDefined(program, entryPoint, "the program complete_prompt + canonical_solution");
  const code = requiredText(row, "test");
  const testModule = parseTestCode(code, "test");
  requireTestStyle(testModule, "unittest", "test");
  const instruct = optionalString(row, "instruct_prompt");
  optionalString(row, "code_prompt");
  const statement =
    instruct !== undefined && instruct.trim() !== ""
      ? instruct
      : (functionDocstring(program, entryPoint) ?? prompt);
  return {
    problemId: `bigcodebench/${id}`,
    statement,
    entryPoint,
    solution,
    tests: { style: "unittest", code },
    source: "bigcodebench",
    libraries: librariesOf([program, testModule], declaredLibs(row)),
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
