/**
 * MBPP rows: `task_id` (an integer), `text` (the task in words), `code` (the whole program),
 * `test_list` (assert lines), `test_setup_code`, and optionally `challenge_test_list` (more assert lines,
 * which are kept as tests too).
 *
 * The asserts call the function by its global name, e.g. `assert remove_odd([1,2,3]) == [2]`; that works
 * unchanged inside the generated `def check(candidate):` because the harness runs tests in the program's
 * namespace. The entry point is the first name called in the asserts (in order) that the program defines
 * at the top level.
 */
import { z } from "zod";
import type { Expr, Module, Stmt } from "../../core/python/ast.js";
import { walkAst } from "../../core/python/imported-modules.js";
import { unparse } from "../../core/python/unparse.js";
import { optionalField, requiredField } from "../../core/task-file.js";
import { idField, invalid, optionalString, requiredText, type SourceRow } from "./fields.js";
import { checkProgram, librariesOf, parseTestCode, topLevelNames } from "./python-source.js";
import type { Problem } from "./types.js";

const AssertListSchema = z.array(z.string(), { error: "expected an array of assert lines" });

export function importMbpp(row: SourceRow): Problem {
  const id = idField(row, ["task_id"]);
  const statement = requiredText(row, "text");
  const solution = requiredText(row, "code");
  const program = checkProgram(solution, "code");
  const tests = requiredField(row, "test_list", AssertListSchema);
  if (tests.length === 0) throw invalid('field "test_list": no asserts', "test_list");
  const challenge = challengeTests(row);
  const asserts = [
    ...tests.map((line, i) => parseAssert(line, `test_list[${i}]`)),
    ...challenge.map((line, i) => parseAssert(line, `challenge_test_list[${i}]`)),
  ];
  const setup = optionalString(row, "test_setup_code") ?? "";
  const setupModule = parseTestCode(setup, "test_setup_code");
  const entryPoint = calledEntryPoint(program, asserts.slice(0, tests.length));
  const body = asserts.map((a) => `    ${a.text}\n`).join("");
  // Valid Python by construction: the setup code and each assert parsed alone, each assert on one line.
  const code = `${setup.trim() === "" ? "" : `${setup.trimEnd()}\n\n\n`}def check(candidate):\n${body}`;
  return {
    problemId: `mbpp/${id}`,
    statement,
    entryPoint,
    solution,
    tests: { style: "assert", code },
    source: "mbpp",
    libraries: librariesOf([program, setupModule, ...asserts.map((a) => a.module)]),
  };
}

function challengeTests(row: SourceRow): string[] {
  // Some copies of MBPP store an empty challenge list as null.
  if (row.challenge_test_list === null) return [];
  return optionalField(row, "challenge_test_list", AssertListSchema) ?? [];
}

/**
 * One assert line, checked to be exactly one `assert` statement. Its text goes into `check` indented; an
 * assert written over several lines is re-printed on one (`ast.unparse`), because indenting its lines
 * would change any multi-line string literal in it.
 */
function parseAssert(line: string, field: string): { text: string; module: Module; statement: Stmt } {
  const trimmed = line.trim();
  const module = parseTestCode(trimmed, field);
  const [statement, extra] = module.body;
  if (statement?.type !== "Assert" || extra !== undefined) {
    throw invalid(`field "${field}": expected one assert statement`, field);
  }
  return { text: trimmed.includes("\n") ? unparse(module).trim() : trimmed, module, statement };
}

/** The first name called in the asserts, in order, that the program defines at the top level. */
function calledEntryPoint(program: Module, asserts: { statement: Stmt }[]): string {
  const defined = topLevelNames(program);
  for (const { statement } of asserts) {
    let found: string | undefined;
    walkAst(statement, (node) => {
      const call = node as Expr;
      if (
        found === undefined &&
        call.type === "Call" &&
        call.func.type === "Name" &&
        defined.has(call.func.id)
      ) {
        found = call.func.id;
      }
    });
    if (found !== undefined) return found;
  }
  throw invalid('no assert in field "test_list" calls a function that field "code" defines', "test_list");
}
