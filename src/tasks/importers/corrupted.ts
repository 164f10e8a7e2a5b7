/**
 * Already-corrupted rows (repair datasets built by someone else's mutation tool): `corrupted_solution`,
 * `canonical_solution` (both whole programs), `test_code`, `mutation_type` (one family) or
 * `mutation_types` (a list), and optionally `task_id` (or `id` / `problem_id`), `statement` (or
 * `problem` / `prompt`) and `entry_point`.
 *
 * The test style is read from `test_code`: a `TestCases` class is unittest, a `check` function is assert.
 * Assert-style tests need an entry point: `entry_point`, or else the one top-level function of the
 * canonical solution. A row whose corrupted program normalizes to the canonical one corrupts nothing and
 * is rejected.
 *
 * Family names the over-editing paper's rows use (`mutate_comparison_operators`, …) become minedit's
 * (`comparison_operators`, …; src/core/corruption/paper-names.ts), so the paper's tasks get their domain
 * and category; other names are kept as written.
 */
import { z } from "zod";
import { familyFromSourceName } from "../../core/corruption/paper-names.js";
import { normalizePython } from "../../core/normalize.js";
import type { FunctionDef } from "../../core/python/ast.js";
import { optionalField, requiredField } from "../../core/task-file.js";
import {
  firstPresent,
  idField,
  invalid,
  missing,
  optionalString,
  requiredText,
  type SourceRow,
} from "./fields.js";
import { checkProgram, librariesOf, parseTestCode, requireDefined, testStyleOf } from "./python-source.js";
import type { Problem } from "./types.js";

const FamilySchema = z
  .string({ error: "expected a string" })
  .min(1, { error: "expected a non-empty string" });
const FamiliesSchema = z
  .array(FamilySchema, { error: "expected an array of family names" })
  .min(1, { error: "expected at least one family" });

export function importCorrupted(row: SourceRow): Problem {
  const id = idField(row, ["task_id", "id", "problem_id"]);
  const solution = requiredText(row, "canonical_solution");
  const program = checkProgram(solution, "canonical_solution");
  const corruptedProgram = requiredText(row, "corrupted_solution");
  checkProgram(corruptedProgram, "corrupted_solution");
  if (normalizePython(corruptedProgram) === normalizePython(solution)) {
    throw invalid(
      'field "corrupted_solution" is the canonical solution once normalized: nothing to repair',
      "corrupted_solution",
    );
  }
  const families = mutationFamilies(row).map(familyFromSourceName);
  const code = requiredText(row, "test_code");
  const testModule = parseTestCode(code, "test_code");
  const style = testStyleOf(testModule);
  if (style === null) {
    throw invalid(
      'field "test_code" defines neither a TestCases(unittest.TestCase) class nor a check(candidate) function',
      "test_code",
    );
  }
  let entryPoint = optionalString(row, "entry_point") ?? "";
  if (style === "assert") {
    if (entryPoint === "") entryPoint = soleFunction(program.body.filter(isFunction));
    requireDefined(program, entryPoint, 'field "canonical_solution"');
  }
  const statementField = firstPresent(row, ["statement", "problem", "prompt"]);
  return {
    problemId: `corrupted/${id}`,
    statement: statementField === undefined ? "" : (optionalString(row, statementField) ?? ""),
    entryPoint,
    solution,
    tests: { style, code },
    source: "corrupted",
    libraries: librariesOf([program, testModule]),
    corrupted: { program: corruptedProgram, families },
  };
}

function isFunction(statement: { type: string }): statement is FunctionDef {
  return statement.type === "FunctionDef" || statement.type === "AsyncFunctionDef";
}

function soleFunction(functions: FunctionDef[]): string {
  const [only, other] = functions;
  if (only === undefined || other !== undefined) {
    throw invalid(
      'assert-style tests need field "entry_point" (the canonical solution does not define exactly one function)',
      "entry_point",
    );
  }
  return only.name;
}

/**
 * `mutation_types` (a list, a string holding a JSON list, or one name) wins over `mutation_type` (one
 * name).
 */
function mutationFamilies(row: SourceRow): string[] {
  if (!Object.hasOwn(row, "mutation_types")) {
    const single = optionalField(row, "mutation_type", FamilySchema);
    if (single === undefined) throw missing(["mutation_type", "mutation_types"]);
    return [single];
  }
  let value = row.mutation_types;
  if (typeof value === "string" && value.trimStart().startsWith("[")) {
    try {
      value = JSON.parse(value);
    } catch {
      // Not a JSON list: reported below as an ill-typed family name.
    }
  }
  if (typeof value === "string") value = [value];
  return requiredField({ mutation_types: value }, "mutation_types", FamiliesSchema);
}
