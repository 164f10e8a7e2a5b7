/**
 * What the importers need to know about a Python program or test file: that minedit can normalize it
 * (so the reward can be computed on it), which test style it is written in, which names it defines at
 * the top level, which modules it imports, and its docstrings. All of it from the parser of src/core
 * (`await loadPythonGrammar()` first).
 */
import { normalizeProgram } from "../../core/normalize.js";
import type { ClassDef, Expr, FunctionDef, Module, Stmt } from "../../core/python/ast.js";
import { importedModules } from "../../core/python/imported-modules.js";
import { parsePython } from "../../core/python/parse.js";
import { PySyntaxError } from "../../core/python/syntax-error.js";
import { TokenizeError } from "../../core/python/tokenize.js";
import { invalid } from "./fields.js";

/**
 * Parses a program, after checking that `normalizeProgram` accepts it (CPython 3.11 parses it and minedit
 * reproduces its normalization, so the reward can be computed on it and on its corruptions). The error
 * names `field`, or says `what` the text is when it is built from several fields (`the program
 * complete_prompt + canonical_solution`).
 *
 * @throws MineditError `InvalidArgument` saying why.
 */
export function checkProgram(source: string, field: string, what = `field "${field}"`): Module {
  return explained(field, what, () => {
    normalizeProgram(source);
    return parsePython(source);
  });
}

/**
 * Parses test code: it must be valid Python 3.11 (the harness compiles it), but the reward is never
 * computed on it, so it need not be normalizable.
 */
export function parseTestCode(source: string, field: string, what = `field "${field}"`): Module {
  return explained(field, what, () => parsePython(source));
}

function explained(field: string, what: string, parse: () => Module): Module {
  try {
    return parse();
  } catch (error) {
    if (error instanceof PySyntaxError || error instanceof TokenizeError) {
      throw invalid(`${what} does not parse as Python 3.11: ${error.message}`, field);
    }
    if (error instanceof RangeError) throw invalid(`${what} is nested too deeply to parse`, field);
    throw error;
  }
}

/** The test style a test file is written in: a top-level `TestCases` class, else a top-level `check`. */
export function testStyleOf(tests: Module): "unittest" | "assert" | null {
  if (definesTestCases(tests)) return "unittest";
  if (definesCheck(tests)) return "assert";
  return null;
}

/**
 * Checks that parsed tests have what their style needs, as the sandbox harness does before running
 * anything: a `TestCases` class (unittest) or a `check` function (assert) at the top level.
 */
export function requireTestStyle(tests: Module, style: "unittest" | "assert", field: string): void {
  if (style === "unittest" && !definesTestCases(tests)) {
    throw invalid(`field "${field}" defines no TestCases(unittest.TestCase) class`, field);
  }
  if (style === "assert" && !definesCheck(tests)) {
    throw invalid(`field "${field}" defines no check(candidate) function`, field);
  }
}

function definesTestCases(tests: Module): boolean {
  return tests.body.some((s) => s.type === "ClassDef" && s.name === "TestCases");
}

function definesCheck(tests: Module): boolean {
  return tests.body.some((s) => s.type === "FunctionDef" && s.name === "check");
}

/**
 * Names bound at the top level of a module (what `namespace.get(name)` finds after running it): defs,
 * classes, assignment, `for` and `with` targets, imports, also inside top-level `if`/`try`/`with`/loops,
 * not inside functions or classes.
 */
export function topLevelNames(module: Module): Set<string> {
  const names = new Set<string>();
  const bind = (target: Expr): void => {
    if (target.type === "Name") names.add(target.id);
    else if (target.type === "Tuple" || target.type === "List") target.elts.forEach(bind);
    else if (target.type === "Starred") bind(target.value);
  };
  const visit = (statements: Stmt[]): void => {
    for (const s of statements) {
      switch (s.type) {
        case "FunctionDef":
        case "AsyncFunctionDef":
        case "ClassDef":
          names.add(s.name);
          break;
        case "Assign":
          s.targets.forEach(bind);
          break;
        case "AnnAssign":
        case "AugAssign":
          bind(s.target);
          break;
        case "Import":
          for (const alias of s.names) names.add(alias.asname ?? alias.name.split(".")[0] ?? alias.name);
          break;
        case "ImportFrom":
          for (const alias of s.names) if (alias.name !== "*") names.add(alias.asname ?? alias.name);
          break;
        case "For":
        case "AsyncFor":
          bind(s.target);
          visit([...s.body, ...s.orelse]);
          break;
        case "While":
        case "If":
          visit([...s.body, ...s.orelse]);
          break;
        case "With":
        case "AsyncWith":
          for (const item of s.items) if (item.optional_vars !== null) bind(item.optional_vars);
          visit(s.body);
          break;
        case "Try":
        case "TryStar":
          visit([...s.body, ...s.handlers.flatMap((h) => h.body), ...s.orelse, ...s.finalbody]);
          break;
        default:
          break;
      }
    }
  };
  visit(module.body);
  return names;
}

/**
 * Checks that `program` defines `entryPoint` at the top level: the assert-style harness calls
 * `check(namespace[entry_point])`.
 */
export function requireDefined(program: Module, entryPoint: string, what: string): void {
  if (!topLevelNames(program).has(entryPoint)) {
    throw invalid(`${what} does not define the entry point "${entryPoint}" at the top level`, "entry_point");
  }
}

/** The top-level function or class `name` of a module, if it is one. */
export function topLevelDef(module: Module, name: string): FunctionDef | ClassDef | undefined {
  for (const s of module.body) {
    if (
      (s.type === "FunctionDef" || s.type === "AsyncFunctionDef" || s.type === "ClassDef") &&
      s.name === name
    ) {
      return s;
    }
  }
  return undefined;
}

/** `ast.get_docstring(node)`: the cleaned docstring of a def, class or module, or null. */
export function docstringOf(node: { body: Stmt[] }): string | null {
  const first = node.body[0];
  if (first?.type !== "Expr" || first.value.type !== "Constant" || first.value.value.kind !== "str")
    return null;
  return cleandoc(first.value.value.value);
}

/**
 * The docstring of the top-level function `name`, else of the first top-level function that has one,
 * else of the module; null when there is none.
 */
export function functionDocstring(module: Module, name: string): string | null {
  const named = topLevelDef(module, name);
  const own = named === undefined ? null : docstringOf(named);
  if (own !== null) return own;
  for (const s of module.body) {
    if (s.type === "FunctionDef" || s.type === "AsyncFunctionDef") {
      const doc = docstringOf(s);
      if (doc !== null) return doc;
    }
  }
  return docstringOf(module);
}

/**
 * `inspect.cleandoc` (Lib/inspect.py, 3.11): tabs expanded, the first line's leading whitespace and the
 * common indentation of the other lines removed, leading and trailing blank lines dropped.
 */
export function cleandoc(doc: string): string {
  const lines = expandTabs(doc).split("\n");
  let margin = Number.POSITIVE_INFINITY;
  for (const line of lines.slice(1)) {
    const content = line.trimStart().length;
    if (content > 0) margin = Math.min(margin, line.length - content);
  }
  if (lines.length > 0) lines[0] = (lines[0] ?? "").trimStart();
  if (margin < Number.POSITIVE_INFINITY) {
    for (let i = 1; i < lines.length; i++) lines[i] = (lines[i] ?? "").slice(margin);
  }
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  while (lines.length > 0 && lines[0] === "") lines.shift();
  return lines.join("\n");
}

/** `str.expandtabs(8)`: the column restarts after `\n` and `\r`. */
function expandTabs(text: string): string {
  if (!text.includes("\t")) return text;
  let out = "";
  let column = 0;
  for (const c of text) {
    if (c === "\t") {
      const spaces = 8 - (column % 8);
      out += " ".repeat(spaces);
      column += spaces;
    } else {
      out += c;
      column = c === "\n" || c === "\r" ? 0 : column + 1;
    }
  }
  return out;
}

/** `Problem.libraries`: the modules the parsed programs import plus the declared ones, sorted, unique. */
export function librariesOf(modules: readonly Module[], declared: readonly string[] = []): string[] {
  return [...new Set([...modules.flatMap(importedModules), ...declared])].sort();
}
