/**
 * DeepCoder-style rows (DeepCoder, TACO/APPS, LiveCodeBench, CodeContests copies): competitive-programming
 * problems whose tests are data, not code.
 *
 * - statement: `problem`, else `question`, else `prompt`;
 * - solution: `solution`, else `solutions`, else `canonical_solution` — a program, or a list of programs
 *   (a JSON array or a string holding one); the first that parses as Python 3.11 is the gold program
 *   (TACO lists Python 2 programs too);
 * - tests: `tests`, else `input_output`, else `test_cases` — an object or a string holding JSON, either
 *   a list of `{input, output}` cases (LiveCodeBench, optionally `testtype: "stdin" | "functional"`) or
 *   `{inputs: [...], outputs: [...], fn_name?}` (TACO/APPS);
 * - id: `task_id`, `problem_id`, `question_id` or `id`; rows without one (DeepCoder has none) get
 *   `statement-<first 16 hex digits of the statement's SHA-256>`, so the same problem twice is a
 *   duplicate.
 *
 * Stdin/stdout cases become stdio tests (an input or output given as a list of lines is joined with
 * `\n`, as APPS does). Function-call cases become an assert-style `def check(candidate):` with one assert
 * per case, the arguments and expected value printed as Python literals from the JSON exactly as
 * `json.loads` reads it. The function name comes from the tests' `fn_name`, else the row's `fn_name` /
 * `func_name` / `metadata.func_name`, else a case's `metadata.func_name`. A case is a function call when
 * its `testtype` says so, or, without `testtype`, when a function name is known.
 *
 * - LiveCodeBench cases (`{input, output}` with `testtype: "functional"`): `input` holds one JSON value
 *   per line, the arguments; `output` holds the expected value as JSON text.
 * - TACO/APPS (`{inputs, outputs, fn_name}`): `inputs[i]` is the argument list (a non-list is the single
 *   argument) and `outputs[i]` the expected value, both JSON values. APPS often wraps the expected value
 *   in a one-element list and its checker accepts either, so such a case is written
 *   `assert candidate(...) in ([x], x)`.
 *
 * Calling convention: when the program defines `fn_name` at the top level the entry point is `fn_name`
 * and the asserts call `candidate(args)`; when it instead defines `class Solution` with a method
 * `fn_name` (LeetCode style) the entry point is `Solution` and the asserts call
 * `candidate().fn_name(args)`, a fresh instance per case.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Module } from "../../core/python/ast.js";
import { jsonTypeName, requiredField } from "../../core/task-file.js";
import { isMineditError, type MineditError } from "../../errors.js";
import {
  firstPresent,
  idField,
  invalid,
  isIdentifier,
  missing,
  type SourceRow,
  TextSchema,
} from "./fields.js";
import { JsonNumber, parseLosslessJson } from "./json-lossless.js";
import { pythonLiteral } from "./python-literal.js";
import { checkProgram, librariesOf, topLevelDef } from "./python-source.js";
import type { Problem, ProblemTests } from "./types.js";

export const DEEPCODER_STATEMENT_FIELDS = ["problem", "question", "prompt"] as const;
export const DEEPCODER_SOLUTION_FIELDS = ["solution", "solutions", "canonical_solution"] as const;
export const DEEPCODER_TESTS_FIELDS = ["tests", "input_output", "test_cases"] as const;
const ID_FIELDS = ["task_id", "problem_id", "question_id", "id"];

/** One function-call case: arguments and expected value as JSON (lossless or plain). */
type Call = { args: unknown[]; expected: unknown; appsWrapped: boolean };
type TestSpec =
  | { kind: "stdio"; cases: { input: string; output: string }[] }
  | { kind: "functional"; fnName: string; calls: Call[] };

export function importDeepCoder(row: SourceRow): Problem {
  const statementField = firstPresent(row, DEEPCODER_STATEMENT_FIELDS);
  if (statementField === undefined) throw missing(DEEPCODER_STATEMENT_FIELDS);
  const statement = requiredField(row, statementField, TextSchema);
  const { solution, program } = goldProgram(row);
  const testsField = firstPresent(row, DEEPCODER_TESTS_FIELDS);
  if (testsField === undefined) throw missing(DEEPCODER_TESTS_FIELDS);
  const spec = readTests(row, testsField);
  const problemId = `deepcoder/${firstPresent(row, ID_FIELDS) === undefined ? statementId(statement) : idField(row, ID_FIELDS)}`;
  const { entryPoint, tests }: { entryPoint: string; tests: ProblemTests } =
    spec.kind === "stdio"
      ? { entryPoint: "", tests: { style: "stdio", cases: spec.cases } }
      : functionTests(program, spec.fnName, spec.calls, testsField);
  return {
    problemId,
    statement,
    entryPoint,
    solution,
    tests,
    source: "deepcoder",
    libraries: librariesOf([program]),
  };
}

function statementId(statement: string): string {
  return `statement-${createHash("sha256").update(statement).digest("hex").slice(0, 16)}`;
}

// ---------------------------------------------------------------------------------------------------
// The gold program

function goldProgram(row: SourceRow): { solution: string; program: Module } {
  const field = firstPresent(row, DEEPCODER_SOLUTION_FIELDS);
  if (field === undefined) throw missing(DEEPCODER_SOLUTION_FIELDS);
  const candidates = solutionList(row[field], field);
  const errors: MineditError[] = [];
  for (const [i, solution] of candidates.entries()) {
    const what = candidates.length === 1 ? `field "${field}"` : `field "${field}"[${i}]`;
    try {
      return { solution, program: checkProgram(solution, field, what) };
    } catch (error) {
      if (!isMineditError(error)) throw error;
      errors.push(error);
    }
  }
  const [first] = errors;
  if (first === undefined || errors.length === 1) throw first;
  throw invalid(`none of the ${errors.length} programs parses; the first: ${first.rawMessage}`, field);
}

/** A program, or a list of them (a JSON array, or a string holding one). Empty programs are dropped. */
function solutionList(value: unknown, field: string): string[] {
  let list: unknown[];
  if (typeof value === "string") {
    list = [value];
    if (value.trimStart().startsWith("[")) {
      try {
        const parsed: unknown = JSON.parse(value);
        if (Array.isArray(parsed) && parsed.every((item) => typeof item === "string")) list = parsed;
      } catch {
        // Not JSON: a program that starts with a list display.
      }
    }
  } else if (Array.isArray(value)) {
    list = value;
  } else {
    throw invalid(
      `field "${field}": expected a program or a list of programs, got ${typeName(value)}`,
      field,
    );
  }
  if (list.some((item) => typeof item !== "string")) {
    throw invalid(`field "${field}": expected a list of programs (strings)`, field);
  }
  const programs = (list as string[]).filter((program) => program.trim() !== "");
  if (programs.length === 0) throw invalid(`field "${field}": no solution program`, field);
  return programs;
}

// ---------------------------------------------------------------------------------------------------
// Tests

function readTests(row: SourceRow, field: string): TestSpec {
  const raw = row[field];
  let payload: unknown = raw;
  if (typeof raw === "string") {
    try {
      payload = parseLosslessJson(raw);
    } catch (error) {
      throw invalid(`field "${field}": invalid JSON: ${(error as Error).message}`, field);
    }
  }
  const rowFnName = functionNameOfRow(row);
  if (Array.isArray(payload)) return caseList(payload, field, rowFnName);
  if (isObject(payload) && (Object.hasOwn(payload, "inputs") || Object.hasOwn(payload, "outputs"))) {
    return inputsOutputs(payload, field, rowFnName);
  }
  throw invalid(
    `field "${field}": expected a list of {input, output} cases or {inputs, outputs, fn_name?}, got ${typeName(payload)}`,
    field,
  );
}

/** LiveCodeBench / CodeContests: `[{input, output, testtype?, metadata?}, ...]`. */
function caseList(items: unknown[], field: string, rowFnName: string | undefined): TestSpec {
  if (items.length === 0) throw invalid(`field "${field}": no test cases`, field);
  const cases = items.map((item, i) => {
    if (!isObject(item))
      throw invalid(
        `field "${field}"[${i}]: expected an {input, output} object, got ${typeName(item)}`,
        field,
      );
    return item;
  });
  const fnName = rowFnName ?? cases.map((c) => functionNameIn(c.metadata)).find((name) => name !== undefined);
  const types = cases.map((c, i) => {
    const testtype = c.testtype ?? (fnName === undefined ? "stdin" : "functional");
    if (testtype !== "stdin" && testtype !== "functional") {
      throw invalid(
        `field "${field}"[${i}].testtype: expected "stdin" or "functional", got ${JSON.stringify(testtype)}`,
        field,
      );
    }
    return testtype;
  });
  if (new Set(types).size > 1) throw invalid(`field "${field}" mixes stdin and functional test cases`, field);
  if (types[0] === "stdin") {
    return {
      kind: "stdio",
      cases: cases.map((c, i) => ({
        input: ioText(c.input, `${field}[${i}].input`, field),
        output: ioText(c.output, `${field}[${i}].output`, field),
      })),
    };
  }
  if (fnName === undefined) throw noFunctionName(field);
  return {
    kind: "functional",
    fnName,
    calls: cases.map((c, i) => ({
      args:
        typeof c.input === "string"
          ? jsonLines(c.input, `${field}[${i}].input`, field)
          : argumentList(c.input),
      expected: typeof c.output === "string" ? jsonText(c.output, `${field}[${i}].output`, field) : c.output,
      appsWrapped: false,
    })),
  };
}

/** TACO / APPS: `{inputs: [...], outputs: [...], fn_name?}`. */
function inputsOutputs(
  payload: Record<string, unknown>,
  field: string,
  rowFnName: string | undefined,
): TestSpec {
  const inputs = payload.inputs;
  const outputs = payload.outputs;
  if (!Array.isArray(inputs))
    throw invalid(`field "${field}".inputs: expected an array, got ${typeName(inputs)}`, field);
  if (!Array.isArray(outputs))
    throw invalid(`field "${field}".outputs: expected an array, got ${typeName(outputs)}`, field);
  if (inputs.length !== outputs.length) {
    throw invalid(`field "${field}": ${inputs.length} inputs but ${outputs.length} outputs`, field);
  }
  if (inputs.length === 0) throw invalid(`field "${field}": no test cases`, field);
  const fnName = functionNameIn(payload, `${field}.fn_name`) ?? rowFnName;
  if (fnName === undefined) {
    return {
      kind: "stdio",
      cases: inputs.map((input, i) => ({
        input: ioText(input, `${field}.inputs[${i}]`, field),
        output: ioText(outputs[i], `${field}.outputs[${i}]`, field),
      })),
    };
  }
  return {
    kind: "functional",
    fnName,
    calls: inputs.map((input, i) => {
      const expected = outputs[i];
      return {
        args: argumentList(input),
        expected,
        appsWrapped: Array.isArray(expected) && expected.length === 1,
      };
    }),
  };
}

/** Stdin or stdout text: a string, or a list of lines joined with `\n` (APPS). */
function ioText(value: unknown, path: string, field: string): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((line) => typeof line === "string")) return value.join("\n");
  throw invalid(`field "${path}": expected a string or a list of lines, got ${typeName(value)}`, field);
}

/** A LiveCodeBench functional input: one JSON value per (non-blank) line. */
function jsonLines(text: string, path: string, field: string): unknown[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => jsonText(line, `${path} line ${i + 1}`, field));
}

function jsonText(text: string, path: string, field: string): unknown {
  try {
    return parseLosslessJson(text);
  } catch (error) {
    throw invalid(`field "${path}": invalid JSON: ${(error as Error).message}`, field);
  }
}

function argumentList(input: unknown): unknown[] {
  return Array.isArray(input) ? input : [input];
}

const FnNameSchema = z.string().refine(isIdentifier);

/** `fn_name` / `func_name` of an object (or of a JSON string holding one), when it is an identifier. */
function functionNameIn(value: unknown, path?: string): string | undefined {
  let object = value;
  if (typeof value === "string") {
    try {
      object = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!isObject(object)) return undefined;
  for (const key of ["fn_name", "func_name"]) {
    const name = object[key];
    if (name === undefined || name === null || name === "") continue;
    if (!FnNameSchema.safeParse(name).success) {
      if (path !== undefined)
        throw invalid(`field "${path}": expected a function name, got ${JSON.stringify(name)}`, path);
      continue;
    }
    return name as string;
  }
  return undefined;
}

function functionNameOfRow(row: SourceRow): string | undefined {
  return functionNameIn(row) ?? functionNameIn(row.metadata);
}

function noFunctionName(field: string) {
  return invalid(
    `field "${field}": function-call test cases need a function name (fn_name, func_name or metadata.func_name)`,
    field,
  );
}

/** The assert-style tests for function-call cases; see the calling convention in the file comment. */
function functionTests(
  program: Module,
  fnName: string,
  calls: Call[],
  field: string,
): { entryPoint: string; tests: ProblemTests } {
  let entryPoint: string;
  let callee: string;
  const def = topLevelDef(program, fnName);
  const solutionClass = topLevelDef(program, "Solution");
  if (def !== undefined) {
    entryPoint = fnName;
    callee = "candidate";
  } else if (
    solutionClass?.type === "ClassDef" &&
    solutionClass.body.some(
      (s) => (s.type === "FunctionDef" || s.type === "AsyncFunctionDef") && s.name === fnName,
    )
  ) {
    entryPoint = "Solution";
    callee = `candidate().${fnName}`;
  } else {
    throw invalid(
      `the solution defines neither a function "${fnName}" nor a class Solution with a method "${fnName}"`,
      field,
    );
  }
  const lines = calls.map((call, i) => {
    try {
      const invocation = `${callee}(${call.args.map(pythonLiteral).join(", ")})`;
      const expected = pythonLiteral(call.expected);
      if (call.appsWrapped) {
        const inner = pythonLiteral((call.expected as unknown[])[0]);
        return `    assert ${invocation} in (${expected}, ${inner})\n`;
      }
      return `    assert ${invocation} == ${expected}\n`;
    } catch (error) {
      throw invalid(`field "${field}", case ${i + 1}: ${(error as Error).message}`, field);
    }
  });
  // Valid Python by construction: the name is a def of the parsed program, the literals are printed
  // by pythonLiteral (which refuses what CPython could not compile), so no parse of the (possibly huge)
  // check function is needed.
  return { entryPoint, tests: { style: "assert", code: `def check(candidate):\n${lines.join("")}` } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (
    value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof JsonNumber)
  );
}

function typeName(value: unknown): string {
  return value instanceof JsonNumber ? "number" : jsonTypeName(value);
}
