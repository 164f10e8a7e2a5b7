/**
 * `parsePython(source)` = CPython 3.11's `ast.parse(source)`. Throws `PySyntaxError` for source that
 * CPython 3.11 rejects.
 *
 * Two parsers answer. The direct parser (direct/direct-parse.ts) reads the programs people write, about
 * ten times faster; whatever it does not handle — every syntax error among it — goes to the tree-sitter
 * path below (tree-sitter-python's tree converted to CPython's AST, with the checks that make it reject
 * what CPython rejects), which answers for every program. Both build the same tree (tests/differential).
 */
import type { Node } from "web-tree-sitter";
import type { Module } from "./ast.js";
import { convertBlock } from "./convert-statement.js";
import { parseDirect } from "./direct/direct-parse.js";
import { pythonParser } from "./grammar.js";
import { PySyntaxError } from "./syntax-error.js";
import { pythonTokens, TokenizeError } from "./tokenize.js";

export function parsePython(text: string): Module {
  const source = universalNewlines(text);
  return parseDirect(source) ?? parseCheckedWithTreeSitter(source);
}

/** {@link parsePython} by the tree-sitter path alone (the differential tests and benchmarks compare the two). */
export function parseWithTreeSitter(text: string): Module {
  return parseCheckedWithTreeSitter(universalNewlines(text));
}

/** CPython's tokenizer reads with universal newlines, even inside string literals. */
function universalNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

function parseCheckedWithTreeSitter(source: string): Module {
  if (source.includes("\u0000"))
    throw new PySyntaxError("source code cannot contain null bytes", source.indexOf("\u0000"));
  checkFirstLineNotIndented(source);
  // tree-sitter recovers from inconsistent dedents silently; CPython's tokenizer (whose indentation
  // rules tokenize.py shares) raises IndentationError, so the ported tokenizer checks them first.
  let tokens: string[];
  try {
    tokens = pythonTokens(source);
  } catch (error) {
    if (error instanceof TokenizeError) throw new PySyntaxError(`${error.pythonType}: ${error.message}`);
    throw error;
  }
  checkBracketDepth(tokens);
  const tree = pythonParser().parse(source);
  if (tree === null) throw new PySyntaxError("the parser gave up");
  try {
    const root = tree.rootNode;
    if (root.hasError) {
      const bad = firstError(root);
      const where = bad === null ? "" : ` at line ${bad.startPosition.row + 1}`;
      throw new PySyntaxError(`invalid syntax${where}`, bad?.startIndex);
    }
    return { type: "Module", body: convertBlock(root) };
  } finally {
    tree.delete();
  }
}

function firstError(node: Node): Node | null {
  if (node.isError || node.isMissing) return node;
  for (const child of node.children) {
    if (child !== null && (child.hasError || child.isMissing)) {
      const found = firstError(child);
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * CPython raises "unexpected indent" when the first statement of a program is indented; tree-sitter
 * accepts it. Blank and comment-only lines do not count.
 */
function checkFirstLineNotIndented(source: string): void {
  const firstCode = /^(?:[ \t\f]*(?:#[^\n]*)?\n)*([ \t]*)\S/.exec(source);
  if (firstCode !== null && firstCode[1] !== undefined && firstCode[1].replace(/\f/g, "").length > 0) {
    throw new PySyntaxError("unexpected indent", firstCode.index);
  }
}

/** CPython's tokenizer refuses more than 200 open brackets at once (MAXLEVEL in Parser/tokenizer.h). */
const MAX_BRACKET_DEPTH = 200;

function checkBracketDepth(tokens: readonly string[]): void {
  let depth = 0;
  for (const token of tokens) {
    if (token === "(" || token === "[" || token === "{") {
      depth += 1;
      if (depth > MAX_BRACKET_DEPTH) throw new PySyntaxError("too many nested parentheses");
    } else if (token === ")" || token === "]" || token === "}") {
      depth -= 1;
    }
  }
}
