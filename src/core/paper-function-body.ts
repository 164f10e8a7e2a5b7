/**
 * The rules of the `function_body` distance scope: the over-editing paper's `extract_function_body`
 * (nreHieW/fyp `partial_edits/utils/extract_utils.py`, commit 5a4023e4d1f287ac73a616b5b944a14f28422c7e)
 * and its `tokenize_code` (`partial_edits/utils/similarity_utils.py`), restated and reimplemented here,
 * quirks included, because its evaluation is the one minedit's d(M, C) must reproduce.
 *
 * - The body is cut from norm(X) (`ast.unparse(ast.parse(X))`), from the first `FunctionDef` that
 *   `ast.walk` meets — breadth-first over every AST node, so a `def` in an `except` handler or a `match`
 *   case sits one level deeper than one in an `if` — and `async def` never counts.
 * - Without a docstring the body starts at the `def` line itself (decorators excluded); with a docstring
 *   and more statements, at the second statement's line; with only a docstring it is the empty string.
 *   It runs to the end of norm(X).
 * - A program without any `FunctionDef` falls back to a regular expression over norm(X): the text after
 *   the first `def <not a colon>:<whitespace>\n` (which also matches `async def`, or `def` inside a
 *   string), minus a leading triple-quoted string; the whole of norm(X) when nothing matches.
 * - A source that is only whitespace is not normalized at all: the body is the source itself.
 * - Tokens: `tokenize.generate_tokens` minus COMMENT, NL, ENCODING, ENDMARKER, INDENT, DEDENT; when
 *   tokenize raises (a body that starts indented and later dedents to a column its first line never
 *   opened, e.g. a method's body followed by the next method), the body split on whitespace instead.
 *
 * normalize.ts applies these; the distance rule (an empty body puts every distance at 0) is in
 * `scopedNormalizedDistance` there.
 */
import type { FunctionDef, Stmt } from "./python/ast.js";
import { normalizedTokens } from "./python/normalized-tokens.js";
import { pythonTokensWithOffsets, TokenizeError } from "./python/tokenize.js";

/**
 * Python's whitespace (`str.isspace`, and `\s` in a `str` pattern of `re`): JavaScript's `\s` differs
 * (it adds U+FEFF and lacks U+001C–U+001F), so the class is spelled out.
 */
const PY_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_SPACES = new RegExp(`[${PY_SPACE}]+`, "u");
const PY_BLANK = new RegExp(`^[${PY_SPACE}]*$`, "u");

/** `_extract_function_body_regex`'s `(def\s+[^:]+:\s*)\n` (searched, not anchored). */
const DEF_HEADER = new RegExp(`def[${PY_SPACE}]+[^:]+:[${PY_SPACE}]*\\n`, "u");
/** Its docstring patterns, tried in this order; `^` is the start of the text (no MULTILINE flag). */
const LEADING_DOCSTRINGS = [
  new RegExp(`^[${PY_SPACE}]*"""[\\s\\S]*?"""[${PY_SPACE}]*\\n`, "u"),
  new RegExp(`^[${PY_SPACE}]*'''[\\s\\S]*?'''[${PY_SPACE}]*\\n`, "u"),
];

/** Whether Python's `source.strip()` is empty: `standardize_code_formatting` then returns it untouched. */
export function isPythonBlank(source: string): boolean {
  return PY_BLANK.test(source);
}

/**
 * An item of one `ast.walk` level: a statement, or the statement list of an `ExceptHandler` or a
 * `match_case` node — nodes of their own, so their statements are one level further down.
 */
type WalkItem = Stmt | readonly Stmt[];

/**
 * The first `FunctionDef` (never `AsyncFunctionDef`) in `ast.walk` order: breadth-first, each node's
 * children in `iter_child_nodes` (field) order. Expressions cannot hold statements, so only statement
 * lists are followed; their relative order is the field order (`body`, `handlers`, `orelse`,
 * `finalbody`; a match's `cases`).
 */
export function firstFunctionDefByAstWalk(body: readonly Stmt[]): FunctionDef | null {
  let level: readonly WalkItem[] = body;
  while (level.length > 0) {
    const next: WalkItem[] = [];
    for (const item of level) {
      if (isStatementList(item)) {
        next.push(...item);
        continue;
      }
      if (item.type === "FunctionDef") return item;
      pushChildStatements(item, next);
    }
    level = next;
  }
  return null;
}

function isStatementList(item: WalkItem): item is readonly Stmt[] {
  return Array.isArray(item);
}

function pushChildStatements(statement: Stmt, next: WalkItem[]): void {
  switch (statement.type) {
    case "AsyncFunctionDef":
    case "ClassDef":
    case "With":
    case "AsyncWith":
      next.push(...statement.body);
      return;
    case "If":
    case "For":
    case "AsyncFor":
    case "While":
      next.push(...statement.body, ...statement.orelse);
      return;
    case "Try":
    case "TryStar":
      next.push(...statement.body);
      for (const handler of statement.handlers) next.push(handler.body);
      next.push(...statement.orelse, ...statement.finalbody);
      return;
    case "Match":
      for (const matchCase of statement.cases) next.push(matchCase.body);
      return;
    default:
      return;
  }
}

/** Whether a function's first statement is a docstring (an `Expr` holding a `str` constant). */
export function hasDocstring(fn: FunctionDef): boolean {
  const first = fn.body[0];
  return (
    first !== undefined &&
    first.type === "Expr" &&
    first.value.type === "Constant" &&
    first.value.value.kind === "str"
  );
}

/** `_extract_function_body_regex` on norm(X), for a program without a `FunctionDef`. */
export function regexFallbackBody(normalized: string): string {
  const header = DEF_HEADER.exec(normalized);
  if (header === null) return normalized;
  const afterDef = normalized.slice(header.index + header[0].length);
  for (const docstring of LEADING_DOCSTRINGS) {
    const match = docstring.exec(afterDef);
    if (match !== null) return afterDef.slice(match[0].length);
  }
  return afterDef;
}

/** `tokenize_code(body)`: tokenize's kept tokens, or `body.split()` where tokenize raises. */
export function paperBodyTokens(body: string): string[] {
  try {
    return (normalizedTokens(body) ?? pythonTokensWithOffsets(body)).tokens;
  } catch (error) {
    if (error instanceof TokenizeError) return body.split(PY_SPACES).filter((word) => word !== "");
    throw error;
  }
}
