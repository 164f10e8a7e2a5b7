/**
 * SPEC §2.2–2.3: `norm(X)` and `tokens(X)` for Python programs, reproducing CPython 3.11's
 * `ast.unparse(ast.parse(X))` and `tokenize` without running Python; `analyzeProgram` adds CC(X)
 * (SPEC §2.5) from the same parse.
 *
 * Callers must `await loadPythonGrammar()` once per thread before using these (synchronous) functions.
 */
import type { DistanceScope } from "../config.js";
import { type CognitiveComplexityVariant, cognitiveComplexity } from "./cognitive-complexity.js";
import type { FunctionDef, Module, Stmt } from "./python/ast.js";
import { normalizedTokens } from "./python/normalized-tokens.js";
import { parsePython } from "./python/parse.js";
import { PySyntaxError } from "./python/syntax-error.js";
import { pythonTokensWithOffsets } from "./python/tokenize.js";
import { unparse, unparseWithMarker } from "./python/unparse.js";

/** What CPython 3.11 prints for `ast.unparse(ast.parse(source))`. Throws `PySyntaxError`. */
export function normalizePython(source: string): string {
  return unparse(parsePython(source));
}

/** norm(X) together with tokens(X) for a scope, from one parse. */
export type NormalizedProgram = { normalized: string; tokens: string[] };

/**
 * norm(X) and tokens(X) for the given scope. `program`: every token of norm(X). `function_body`: from
 * the first statement of the first `def` in breadth-first order (its docstring dropped) to the end of
 * norm(X); a program without any `def` falls back to the whole program.
 * Throws `PySyntaxError` (or `TokenizeError`) for what CPython 3.11 rejects.
 */
export function normalizeProgram(source: string, scope: DistanceScope = "program"): NormalizedProgram {
  return rejectingDeepNesting(() => normalizeParsed(source, scope));
}

/** norm(X), tokens(X) and CC(X), all from one parse. */
export type AnalyzedProgram = NormalizedProgram & { cognitiveComplexity: number };

/**
 * {@link normalizeProgram} plus the program's cognitive complexity (SPEC §2.5, `variant` as in
 * `cognitiveComplexity`), measured on the same tree, so scoring a rollout parses M once.
 * CC is always over the whole program, whatever the distance scope. Throws like `normalizeProgram`.
 *
 * `known`: programs normalized before (a task's C and G). Under the `program` scope, when norm(X) is one
 * of theirs, its tokens are that program's very array (equal text, equal tokens), not tokenized again —
 * a model's answer is often exactly the gold or the unchanged program.
 */
export function analyzeProgram(
  source: string,
  scope: DistanceScope = "program",
  variant: CognitiveComplexityVariant = "sonar",
  known: readonly NormalizedProgram[] = [],
): AnalyzedProgram {
  let complexity = 0;
  const normalized = rejectingDeepNesting(() =>
    normalizeParsed(
      source,
      scope,
      (module) => {
        complexity = cognitiveComplexity(module, variant);
      },
      known,
    ),
  );
  return { ...normalized, cognitiveComplexity: complexity };
}

function rejectingDeepNesting<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    // A JavaScript stack overflow on absurdly deep nesting (a 50,000-term sum, 20,000 unary minuses):
    // CPython 3.11 fails on such programs as well (RecursionError / MemoryError, far below our depth),
    // so they are rejected like any other program CPython cannot unparse.
    if (error instanceof RangeError) throw new PySyntaxError("the program is nested too deeply to parse");
    throw error;
  }
}

function normalizeParsed(
  source: string,
  scope: DistanceScope,
  inspect?: (module: Module) => void,
  known: readonly NormalizedProgram[] = [],
): NormalizedProgram {
  const module = parsePython(source);
  inspect?.(module);
  const target = scope === "function_body" ? firstFunctionBreadthFirst(module.body) : null;
  if (target === null) {
    const normalized = unparse(module);
    if (scope === "program") {
      for (const program of known) if (program.normalized === normalized) return program;
    }
    return { normalized, tokens: tokensOf(normalized).tokens };
  }
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
  const { tokens, starts } = tokensOf(text);
  let index = starts.findIndex((start) => start >= markerOffset);
  if (index < 0) index = tokens.length;
  return { normalized: text, tokens: tokens.slice(Math.min(tokens.length, index + skip)) };
}

/** tokenize's tokens of unparsed text, by the fast scanner where it answers, else by the general port. */
function tokensOf(normalized: string): { tokens: string[]; starts: number[] } {
  return normalizedTokens(normalized) ?? pythonTokensWithOffsets(normalized);
}

/** tokens(X) for the given scope; see {@link normalizeProgram}. */
export function programTokens(source: string, scope: DistanceScope = "program"): string[] {
  return normalizeProgram(source, scope).tokens;
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
