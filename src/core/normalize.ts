/**
 * SPEC §2.2–2.3: `norm(X)` and `tokens(X)` for Python programs, reproducing CPython 3.11's
 * `ast.unparse(ast.parse(X))` and `tokenize` without running Python.
 *
 * Callers must `await loadPythonGrammar()` once per thread before using these (synchronous) functions.
 */
import type { FunctionDef, Module, Stmt } from "./python/ast.js";
import { parsePython } from "./python/parse.js";
import { pythonTokens, pythonTokensWithOffsets } from "./python/tokenize.js";
import { unparse, unparseWithMarker } from "./python/unparse.js";

/** Which part of a program the distance compares (SPEC §2.3). */
export type DistanceScope = "program" | "function_body";

/** What CPython 3.11 prints for `ast.unparse(ast.parse(source))`. Throws `PySyntaxError`. */
export function normalizePython(source: string): string {
  return unparse(parsePython(source));
}

/**
 * tokens(X) for the given scope. `program`: every token of norm(X). `function_body`: from the first
 * statement of the first `def` in breadth-first order (its docstring dropped) to the end of norm(X);
 * a program without any `def` falls back to the whole program.
 */
export function programTokens(source: string, scope: DistanceScope = "program"): string[] {
  const module = parsePython(source);
  if (scope === "program") return pythonTokens(unparse(module));
  return functionBodyTokens(module);
}

function functionBodyTokens(module: Module): string[] {
  const target = firstFunctionBreadthFirst(module.body);
  if (target === null) return pythonTokens(unparse(module));
  const [first, second] = target.body;
  const hasDocstring =
    first !== undefined &&
    first.type === "Expr" &&
    first.value.type === "Constant" &&
    first.value.value.kind === "str";
  // With only a docstring there is no first statement: start right after the docstring's STRING NEWLINE.
  const marker = hasDocstring ? (second ?? first) : (first ?? null);
  const skip = hasDocstring && second === undefined ? 2 : 0;
  const { text, markerOffset } = unparseWithMarker(module, marker);
  const { tokens, starts } = pythonTokensWithOffsets(text);
  let index = starts.findIndex((start) => start >= markerOffset);
  if (index < 0) index = tokens.length;
  return tokens.slice(Math.min(tokens.length, index + skip));
}

function firstFunctionBreadthFirst(body: Stmt[]): FunctionDef | null {
  let level: Stmt[] = body;
  while (level.length > 0) {
    const next: Stmt[] = [];
    for (const statement of level) {
      if (statement.type === "FunctionDef" || statement.type === "AsyncFunctionDef") return statement;
      next.push(...childStatements(statement));
    }
    level = next;
  }
  return null;
}

function childStatements(statement: Stmt): Stmt[] {
  switch (statement.type) {
    case "ClassDef":
    case "With":
    case "AsyncWith":
      return statement.body;
    case "If":
    case "For":
    case "AsyncFor":
    case "While":
      return [...statement.body, ...statement.orelse];
    case "Try":
    case "TryStar":
      return [
        ...statement.body,
        ...statement.handlers.flatMap((h) => h.body),
        ...statement.orelse,
        ...statement.finalbody,
      ];
    case "Match":
      return statement.cases.flatMap((c) => c.body);
    default:
      return [];
  }
}
