/**
 * docs/reward.md#normalization-and-tokens: `norm(X)` and `tokens(X)` for Python programs, reproducing CPython 3.11's
 * `ast.unparse(ast.parse(X))` and `tokenize` without running Python; `analyzeProgram` adds CC(X)
 * (docs/reward.md#added-cognitive-complexity) from the same parse.
 *
 * Callers must `await loadPythonGrammar()` once per thread before using these (synchronous) functions.
 */
import type { DistanceScope } from "../config.js";
import { type CognitiveComplexityVariant, cognitiveComplexity } from "./cognitive-complexity.js";
import { normalizedTokenDistance } from "./distance.js";
import {
  firstFunctionDefByAstWalk,
  hasDocstring,
  isPythonBlank,
  paperBodyTokens,
  regexFallbackBody,
} from "./paper-function-body.js";
import type { Module, Stmt } from "./python/ast.js";
import { normalizedTokens } from "./python/normalized-tokens.js";
import { parsePython } from "./python/parse.js";
import { PySyntaxError } from "./python/syntax-error.js";
import { pythonTokensWithOffsets } from "./python/tokenize.js";
import { unparse, unparseWithMarker } from "./python/unparse.js";

/** What CPython 3.11 prints for `ast.unparse(ast.parse(source))`. Throws `PySyntaxError`. */
export function normalizePython(source: string): string {
  return unparse(parsePython(source));
}

/**
 * norm(X) together with tokens(X) for a scope, from one parse. `emptyScope`: the scope's text is the
 * empty string (only under `function_body`: see {@link normalizeProgram}); the paper's evaluation then
 * puts every distance from or to X at 0, which {@link scopedNormalizedDistance} applies.
 */
export type NormalizedProgram = { normalized: string; tokens: string[]; emptyScope?: boolean };

/**
 * norm(X) and tokens(X) for the given scope. `program`: every token of norm(X). `function_body`: the
 * over-editing paper's `extract_function_body` and `tokenize_code` (nreHieW/fyp
 * `partial_edits/utils/extract_utils.py` and `similarity_utils.py`, commit 5a4023e), rules restated in
 * paper-function-body.ts: from the first `FunctionDef` in `ast.walk` order — its `def` line when it has
 * no docstring, its second statement when it has one, nothing when it has only a docstring — to the end
 * of norm(X); without any `FunctionDef`, the text after the first `def ...:` line that a regular
 * expression finds. docs/reward.md "Distance and scope" states the rule in full.
 * Throws `PySyntaxError` (or `TokenizeError`) for what CPython 3.11 rejects.
 */
export function normalizeProgram(source: string, scope: DistanceScope = "program"): NormalizedProgram {
  return rejectingDeepNesting(() => normalizeParsed(source, scope));
}

/** norm(X), tokens(X) and CC(X), all from one parse. */
export type AnalyzedProgram = NormalizedProgram & { cognitiveComplexity: number };

/**
 * {@link normalizeProgram} plus the program's cognitive complexity (docs/reward.md#added-cognitive-complexity, `variant` as in
 * `cognitiveComplexity`), measured on the same tree, so scoring a rollout parses M once.
 * CC is always over the whole program, whatever the distance scope. Throws like `normalizeProgram`.
 *
 * `known`: programs normalized before under the same scope (a task's C and G). When norm(X) is one of
 * theirs, X's result is that program's very object (equal text, equal scope text, equal tokens), not
 * tokenized again — a model's answer is often exactly the gold or the unchanged program.
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

/**
 * d(A, B) of two programs normalized under one scope: Levenshtein over their tokens divided by the longer
 * token count (0 when both are empty), and 0 when either scope text is empty — the paper's
 * `calculate_metrics(body_only=True)` returns zero metrics when either body is the empty string.
 */
export function scopedNormalizedDistance(a: NormalizedProgram, b: NormalizedProgram): number {
  return a.emptyScope === true || b.emptyScope === true ? 0 : normalizedTokenDistance(a.tokens, b.tokens);
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
  if (scope === "function_body") return functionBody(source, module, known);
  const normalized = unparse(module);
  return knownProgram(normalized, known) ?? { normalized, tokens: tokensOf(normalized).tokens };
}

function knownProgram(normalized: string, known: readonly NormalizedProgram[]): NormalizedProgram | null {
  // An empty norm(X) comes from a blank source too, whose function body is its own text, not norm(X).
  if (normalized === "") return null;
  for (const program of known) if (program.normalized === normalized) return program;
  return null;
}

/** The `function_body` scope (paper-function-body.ts has the rules and their source). */
function functionBody(
  source: string,
  module: Module,
  known: readonly NormalizedProgram[],
): NormalizedProgram {
  if (isPythonBlank(source)) {
    // `standardize_code_formatting` leaves a blank source as it is and no `def` is found in it: the body
    // is the source itself, not norm(X) (which is ""). Not looked up in `known`: the text decides.
    const normalized = unparse(module);
    return source === ""
      ? { normalized, tokens: [], emptyScope: true }
      : { normalized, tokens: paperBodyTokens(source) };
  }
  const target = firstFunctionDefByAstWalk(module.body);
  if (target === null || (hasDocstring(target) && target.body.length === 1)) {
    const normalized = unparse(module);
    const program = knownProgram(normalized, known);
    if (program !== null) return program;
    if (target !== null) return { normalized, tokens: [], emptyScope: true };
    // norm(X) never ends in a newline, so the text after a matched `def ...:\n` line is never empty.
    const body = regexFallbackBody(normalized);
    return body === ""
      ? { normalized, tokens: [], emptyScope: true }
      : { normalized, tokens: paperBodyTokens(body) };
  }
  const first = (hasDocstring(target) ? target.body[1] : target) as Stmt;
  const { text, markerOffset } = unparseWithMarker(module, first);
  const program = knownProgram(text, known);
  if (program !== null) return program;
  // Lines are cut as `str.splitlines` cuts them; in norm(X) every other line break (\r, \v, \f, \x1c–\x1e,
  // \x85, U+2028, U+2029) is escaped inside a string literal, so only "\n" ends a line here.
  const line = statementLineOffset(text, markerOffset, first);
  const lineStart = text.lastIndexOf("\n", line - 1) + 1;
  return { normalized: text, tokens: paperBodyTokens(text.slice(lineStart)) };
}

/**
 * Where the line of `statement.lineno` starts being written: `markerOffset` itself, except for a decorated
 * `def` or `class`, whose `lineno` is the line of the keyword, after one logical line per decorator.
 */
function statementLineOffset(text: string, markerOffset: number, statement: Stmt): number {
  const decorators =
    statement.type === "FunctionDef" || statement.type === "AsyncFunctionDef" || statement.type === "ClassDef"
      ? statement.decorator_list.length
      : 0;
  if (decorators === 0) return markerOffset;
  // A decorator's text may span lines (a triple-quoted f-string), so logical lines are counted by the
  // NEWLINE tokens ("\n"; NL is not among the kept tokens) of the whole text.
  const { tokens, starts } = tokensOf(text);
  let index = starts.findIndex((start) => start >= markerOffset);
  for (let seen = 0; index >= 0 && index < tokens.length && seen < decorators; index++) {
    if (tokens[index] === "\n") seen++;
  }
  return starts[index] ?? markerOffset;
}

/** tokenize's tokens of unparsed text, by the fast scanner where it answers, else by the general port. */
function tokensOf(normalized: string): { tokens: string[]; starts: number[] } {
  return normalizedTokens(normalized) ?? pythonTokensWithOffsets(normalized);
}

/** tokens(X) for the given scope; see {@link normalizeProgram}. */
export function programTokens(source: string, scope: DistanceScope = "program"): string[] {
  return normalizeProgram(source, scope).tokens;
}
