/**
 * String literals (plain, bytes, f-strings and their implicit concatenation) → CPython 3.11 AST.
 *
 * CPython joins adjacent literals at parse time: without f-strings the result is one Constant (kind "u"
 * when the first piece had a `u` prefix); with any f-string it is a JoinedStr whose adjacent literal
 * pieces are merged into one Constant and whose empty pieces vanish. 3.11 f-strings are lexed as plain
 * strings first, so an expression part may not contain the enclosing quote, a backslash or a `#`
 * (tree-sitter-python follows the 3.12 grammar, which allows them; we reject them here).
 */
import type { Node } from "web-tree-sitter";
import type { Expr } from "./ast.js";
import { field, hasToken, namedChildrenOf, reject, requiredField } from "./cst.js";
import { decodeStringBody, joinPythonStr, splitStringLiteral, splitStringStart } from "./literals.js";

type Piece = { kind: "text"; value: string } | { kind: "value"; expr: Expr };

/**
 * How the expressions inside f-string replacement fields are converted: convert-expression.ts passes its
 * own converters in, so the two modules do not import each other (strings contain expressions, and
 * expressions contain strings).
 */
export type ExpressionConverters = {
  /** Any expression (`{x + 1}`). */
  expression(node: Node): Expr;
  /** One element of a bare tuple (`{a, *b}`), where a starred expression is allowed. */
  element(node: Node): Expr;
};

export function convertStrings(nodes: Node[], convert: ExpressionConverters): Expr {
  let sawBytes = false;
  let sawText = false;
  let sawFString = false;
  const pieces: Piece[] = [];
  let firstKind: string | null = null;
  nodes.forEach((node, index) => {
    if (node.type !== "string") reject(node, `expected a string, found ${node.type}`);
    const start = node.children[0];
    if (start === null || start === undefined || start.type !== "string_start")
      reject(node, "malformed string");
    const { prefix, quote } = splitStringStart(start.text);
    if (!/^(|r|u|b|br|rb|f|fr|rf)$/.test(prefix)) reject(node, `invalid string prefix ${prefix}`);
    const bytes = prefix.includes("b");
    if (bytes) sawBytes = true;
    else sawText = true;
    if (sawBytes && sawText) reject(node, "cannot mix bytes and nonbytes literals");
    // CPython gives the kind "u" only for a lower-case `u` first (make_str_node_and_del reads the
    // token's first byte): `U'x'` is a plain Constant.
    if (index === 0 && start.text.startsWith("u")) firstKind = "u";
    const raw = prefix.includes("r");
    if (prefix.includes("f")) {
      sawFString = true;
      appendFStringPieces(node, start, quote, raw, pieces, convert);
    } else {
      const { body } = splitStringLiteral(node.text);
      pieces.push({ kind: "text", value: decodeStringBody(body, { bytes, raw }) });
    }
  });
  if (!sawFString) {
    const value = joinPythonStr(pieces.map((p) => (p.kind === "text" ? p.value : "")));
    return {
      type: "Constant",
      value: sawBytes ? { kind: "bytes", value } : { kind: "str", value },
      kind: firstKind,
    };
  }
  return { type: "JoinedStr", values: joinPieces(pieces, firstKind) };
}

/** Adjacent literal text merges into one Constant; empty text disappears (as in CPython's parser). */
function joinPieces(pieces: Piece[], firstKind: string | null): Expr[] {
  const values: Expr[] = [];
  let text = "";
  const flush = () => {
    if (text !== "") {
      values.push({
        type: "Constant",
        value: { kind: "str", value: text },
        kind: values.length === 0 ? firstKind : null,
      });
    }
    text = "";
  };
  for (const piece of pieces) {
    if (piece.kind === "text") text = joinPythonStr([text, piece.value]);
    else {
      flush();
      values.push(piece.expr);
    }
  }
  flush();
  return values;
}

function appendFStringPieces(
  node: Node,
  start: Node,
  quote: string,
  raw: boolean,
  pieces: Piece[],
  convert: ExpressionConverters,
): void {
  const source = node.text;
  const base = node.startIndex;
  let cursor = start.endIndex - base;
  const end = source.length - quote.length;
  if (!source.endsWith(quote) || end < cursor) reject(node, "unterminated f-string");
  for (const child of namedChildrenOf(node)) {
    if (child.type !== "interpolation") continue;
    const from = child.startIndex - base;
    pieces.push({ kind: "text", value: decodeLiteralText(node, source.slice(cursor, from), raw) });
    appendInterpolation(child, quote, raw, pieces, convert);
    cursor = child.endIndex - base;
  }
  pieces.push({ kind: "text", value: decodeLiteralText(node, source.slice(cursor, end), raw) });
}

/**
 * Literal text of an f-string: `{{`/`}}` are escaped braces and a single brace left over is an error;
 * in a non-raw f-string `\N{NAME}` is an escape, not a replacement field.
 */
function decodeLiteralText(node: Node, text: string, raw: boolean): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "{" || ch === "}") {
      if (text[i + 1] !== ch) reject(node, "f-string: single '}' is not allowed");
      out += ch;
      i += 2;
    } else if (ch === "\\" && !raw) {
      const close = text[i + 1] === "N" && text[i + 2] === "{" ? text.indexOf("}", i) : -1;
      const stop = close >= 0 ? close + 1 : i + 2;
      out += text.slice(i, stop);
      i = stop;
    } else {
      out += ch;
      i++;
    }
  }
  return decodeStringBody(out, { bytes: false, raw });
}

function appendInterpolation(
  node: Node,
  quote: string,
  raw: boolean,
  pieces: Piece[],
  convert: ExpressionConverters,
  depth = 0,
): void {
  // CPython 3.11 allows one level of replacement fields inside a format spec, no more.
  if (depth > 1) reject(node, "f-string: expressions nested too deeply");
  const expressionNode = field(node, "expression");
  if (expressionNode === null) reject(node, "f-string: empty expression not allowed");
  checkExpressionText(node, quote);
  const conversionNode = field(node, "type_conversion");
  const specNode = field(node, "format_specifier");
  if (hasToken(node, "=")) {
    // Self-documenting `{x = }`: the source text up to the conversion / spec / closing brace is kept.
    const stop = conversionNode ?? specNode;
    const stopIndex = stop === null ? node.endIndex - 1 : stop.startIndex;
    const open = node.children[0];
    const textStart = open === null || open === undefined ? node.startIndex + 1 : open.endIndex;
    const debugText = node.text.slice(textStart - node.startIndex, stopIndex - node.startIndex);
    pieces.push({ kind: "text", value: debugText });
  }
  if (expressionNode.type === "named_expression" && conversionNode === null && specNode === null) {
    // `{x:=10}` is `x` with format spec `=10`: in an f-string a top-level `:` starts the spec.
    const text = expressionNode.text;
    const colon = text.indexOf(":");
    pieces.push({
      kind: "value",
      expr: {
        type: "FormattedValue",
        value: convert.expression(requiredField(expressionNode, "name")),
        conversion: -1,
        format_spec: {
          type: "JoinedStr",
          values: [
            {
              type: "Constant",
              value: { kind: "str", value: decodeSpecText(node, text.slice(colon + 1), raw) },
              kind: null,
            },
          ],
        },
      },
    });
    return;
  }
  let conversion = -1;
  if (conversionNode !== null) {
    const letter = conversionNode.text.slice(1);
    if (letter !== "s" && letter !== "r" && letter !== "a")
      reject(conversionNode, "f-string: invalid conversion character");
    conversion = letter.charCodeAt(0);
  } else if (hasToken(node, "=") && specNode === null) {
    conversion = "r".charCodeAt(0);
  }
  pieces.push({
    kind: "value",
    expr: {
      type: "FormattedValue",
      value: convertInterpolationExpression(expressionNode, convert),
      conversion,
      format_spec: specNode === null ? null : convertFormatSpec(specNode, quote, raw, depth, convert),
    },
  });
}

function convertInterpolationExpression(node: Node, convert: ExpressionConverters): Expr {
  if (node.type === "expression_list" || node.type === "pattern_list") {
    return { type: "Tuple", elts: namedChildrenOf(node).map((element) => convert.element(element)) };
  }
  return convert.expression(node);
}

function convertFormatSpec(
  node: Node,
  quote: string,
  raw: boolean,
  depth: number,
  convert: ExpressionConverters,
): Expr {
  const pieces: Piece[] = [];
  const source = node.text;
  const base = node.startIndex;
  let cursor = 1; // skip the ':'
  for (const child of namedChildrenOf(node)) {
    if (child.type !== "format_expression") continue;
    pieces.push({
      kind: "text",
      value: decodeSpecText(node, source.slice(cursor, child.startIndex - base), raw),
    });
    appendInterpolation(child, quote, raw, pieces, convert, depth + 1);
    cursor = child.endIndex - base;
  }
  pieces.push({ kind: "text", value: decodeSpecText(node, source.slice(cursor), raw) });
  return { type: "JoinedStr", values: joinPieces(pieces, null) };
}

/** In a 3.11 format spec, doubled braces are not escapes: any brace in literal text is an error. */
function decodeSpecText(node: Node, text: string, raw: boolean): string {
  if (/[{}]/.test(text)) reject(node, "f-string: expecting '}'");
  return decodeStringBody(text, { bytes: false, raw });
}

/** The 3.11 lexer limits on an f-string expression part (see the module comment). */
function checkExpressionText(node: Node, quote: string): void {
  const expression = field(node, "expression");
  if (expression === null) return;
  const end =
    (field(node, "type_conversion") ?? field(node, "format_specifier"))?.startIndex ?? node.endIndex;
  const text = node.text.slice(0, end - node.startIndex);
  if (text.includes("\\")) reject(node, "f-string expression part cannot include a backslash");
  // '#' inside a nested string literal is fine; anywhere else it would start a comment.
  const withoutStrings = text.replace(/'[^']*'|"[^"]*"/g, "");
  if (withoutStrings.includes("#")) reject(node, "f-string expression part cannot include '#'");
  if (text.includes(quote)) reject(node, "f-string: expecting '}'");
  if (quote.length === 1 && text.includes("\n")) reject(node, "f-string: unterminated string");
}
