/**
 * `strings: STRING+` of the direct parser: one or more adjacent string tokens joined into a Constant or,
 * with an f-string among them, a JoinedStr — CPython 3.11's `_PyPegen_concatenate_strings` and its
 * f-string parser (Parser/string_parser.c: `fstring_find_literal`, `fstring_find_expr`,
 * `fstring_compile_expr`), followed step by step so that the same literal and replacement-field
 * boundaries come out.
 *
 * The rare corners of 3.11 f-strings — `\N{...}` and a backslash before a brace in literal text, a
 * backslash in a format spec — are left to the fallback parser (they throw {@link Unsupported}), as is
 * every f-string error.
 */
import type { Constant, Expr } from "../ast.js";
import { decodeStringBody, joinPythonStr } from "../literals.js";
import { STRING, Unsupported } from "./lexer.js";
import type { ParserState } from "./parser-state.js";

/** Parses the text of a replacement field's expression (`fstring_compile_expr`: `(text)` as star_expressions). */
export type FieldParser = (text: string) => Expr;

type Piece = { text: string; expr: null } | { text: null; expr: Expr };

const C_LF = 10;
const C_SPACE = 32;
const C_DQUOTE = 34;
const C_HASH = 35;
const C_SQUOTE = 39;
const C_LPAR = 40;
const C_RPAR = 41;
const C_COLON = 58;
const C_LESS = 60;
const C_EQUAL = 61;
const C_GREATER = 62;
const C_BANG = 33;
const C_LSQB = 91;
const C_BACKSLASH = 92;
const C_RSQB = 93;
const C_LBRACE = 123;
const C_RBRACE = 125;

/** Parses the STRING tokens at the cursor (there is at least one). */
export function parseStrings(p: ParserState, parseField: FieldParser): Expr {
  const { source, kinds, starts, ends } = p;
  const first = p.pos;
  let last = first;
  while (kinds[last + 1] === STRING) last++;
  p.pos = last + 1;
  // CPython gives a str Constant the kind "u" when the first token starts with a lower-case `u`
  // (make_str_node_and_del looks at the token's first byte).
  const kind = source.charCodeAt(starts[first] as number) === 117 ? "u" : null;
  let bytes: boolean | null = null;
  let pieces: Piece[] | null = null;
  let text = "";
  for (let i = first; i <= last; i++) {
    const start = starts[i] as number;
    const end = ends[i] as number;
    let raw = false;
    let isBytes = false;
    let isFString = false;
    let at = start;
    for (;;) {
      const c = source.charCodeAt(at) | 0x20;
      if (c === 98) isBytes = true;
      else if (c === 114) raw = true;
      else if (c === 102) isFString = true;
      else if (c !== 117) break;
      at++;
    }
    const quote = source.charCodeAt(at);
    const triple =
      end - at >= 6 && source.charCodeAt(at + 1) === quote && source.charCodeAt(at + 2) === quote;
    const q = triple ? 3 : 1;
    const body = source.slice(at + q, end - q);
    if (bytes !== null && bytes !== isBytes) p.fail("bytes and str literals mixed");
    bytes = isBytes;
    if (isFString) {
      if (pieces === null) pieces = text === "" ? [] : [{ text, expr: null }];
      new FStringParser(body, raw, parseField).parse(0, 0, pieces);
    } else {
      const value = decodeBody(body, isBytes, raw);
      if (pieces !== null) pieces.push({ text: value, expr: null });
      else text = isBytes ? text + value : joinPythonStr([text, value]);
    }
  }
  if (bytes === true) return { type: "Constant", value: { kind: "bytes", value: text }, kind: null };
  if (pieces === null) return { type: "Constant", value: { kind: "str", value: text }, kind };
  return { type: "JoinedStr", values: joinPieces(pieces, kind) };
}

/** The value of a literal's body (`_PyPegen_parsestr`: no escape decoding when there is no backslash). */
function decodeBody(body: string, bytes: boolean, raw: boolean): string {
  if (body.indexOf("\\") < 0) {
    if (bytes) {
      for (let i = 0; i < body.length; i++) {
        if (body.charCodeAt(i) >= 0x80) throw new Unsupported("bytes with non-ASCII characters");
      }
    }
    return body;
  }
  return decodeStringBody(body, { bytes, raw });
}

/**
 * The values of a JoinedStr: adjacent literal text joined into one Constant, empty text dropped
 * (`_PyPegen_FstringParser_ConcatAndDel`), the first Constant carrying `kind` as the tree-sitter path
 * builds it (unparse writes no prefix inside an f-string, so no reward depends on the others').
 */
function joinPieces(pieces: readonly Piece[], kind: string | null): Expr[] {
  const values: Expr[] = [];
  let text = "";
  for (const piece of pieces) {
    if (piece.expr === null) {
      text = text === "" ? piece.text : joinPythonStr([text, piece.text]);
    } else {
      if (text !== "") values.push(strConstant(text, values.length === 0 ? kind : null));
      text = "";
      values.push(piece.expr);
    }
  }
  if (text !== "") values.push(strConstant(text, values.length === 0 ? kind : null));
  return values;
}

function strConstant(value: string, kind: string | null): Constant {
  return { type: "Constant", value: { kind: "str", value }, kind };
}

/** CPython's f-string parser over one f-string's body (the text between its quotes). */
class FStringParser {
  constructor(
    private readonly body: string,
    private readonly raw: boolean,
    private readonly parseField: FieldParser,
  ) {}

  /**
   * `_PyPegen_FstringParser_ConcatFstring` from `from`: literals and replacement fields into `pieces`,
   * up to the end of the body (`level` 0) or to the `}` that closes a format spec (`level` 1). Returns
   * where it stopped.
   */
  parse(from: number, level: number, pieces: Piece[]): number {
    const { body } = this;
    const end = body.length;
    let i = from;
    for (;;) {
      // fstring_find_literal
      const literalStart = i;
      let doubled = false;
      while (i < end) {
        let c = body.charCodeAt(i++);
        if (!this.raw && c === C_BACKSLASH && i < end) {
          c = body.charCodeAt(i++);
          // `\N{...}` (whose braces are not a field) and a backslash before a brace: not reproduced.
          if (c === 78 || c === C_LBRACE || c === C_RBRACE) throw new Unsupported("an f-string escape");
          continue;
        }
        if (c === C_LBRACE || c === C_RBRACE) {
          // Doubled braces are an escape at the top level only (a spec's `}}` closes two fields).
          if (level === 0) {
            if (i < end && body.charCodeAt(i) === c) {
              doubled = true;
              break;
            }
            if (c === C_RBRACE) throw new Unsupported("f-string: single '}' is not allowed");
          }
          i--;
          break;
        }
      }
      if (i > literalStart)
        pieces.push({ text: this.literal(body.slice(literalStart, i), level), expr: null });
      if (doubled) {
        i++; // the second brace
        continue;
      }
      if (i >= end || body.charCodeAt(i) === C_RBRACE) return i;
      i = this.field(i, level, pieces);
    }
  }

  private literal(text: string, level: number): string {
    if (text.indexOf("\\") < 0) return text;
    if (level > 0) throw new Unsupported("a backslash in a format spec");
    return this.raw ? text : decodeStringBody(text, { bytes: false, raw: false });
  }

  /** `fstring_find_expr` at the `{` at `open`: one replacement field into `pieces`; returns the offset after its `}`. */
  private field(open: number, level: number, pieces: Piece[]): number {
    if (level >= 2) throw new Unsupported("f-string: expressions nested too deeply");
    const { body } = this;
    const end = body.length;
    const exprStart = open + 1;
    let quote = 0;
    let tripleQuoted = false;
    const brackets: number[] = [];
    let i = exprStart;
    for (; i < end; i++) {
      const c = body.charCodeAt(i);
      if (c === C_BACKSLASH) throw new Unsupported("f-string expression part cannot include a backslash");
      if (quote !== 0) {
        if (c === quote) {
          if (!tripleQuoted) quote = 0;
          else if (i + 2 < end && body.charCodeAt(i + 1) === c && body.charCodeAt(i + 2) === c) {
            i += 2;
            quote = 0;
          }
        }
      } else if (c === C_SQUOTE || c === C_DQUOTE) {
        tripleQuoted = i + 2 < end && body.charCodeAt(i + 1) === c && body.charCodeAt(i + 2) === c;
        if (tripleQuoted) i += 2;
        quote = c;
      } else if (c === C_LSQB || c === C_LBRACE || c === C_LPAR) {
        brackets.push(c);
      } else if (c === C_HASH) {
        throw new Unsupported("f-string expression part cannot include '#'");
      } else if (
        brackets.length === 0 &&
        (c === C_BANG || c === C_COLON || c === C_RBRACE || c === C_EQUAL || c === C_GREATER || c === C_LESS)
      ) {
        // `!=`, `==`, `<=`, `>=` are operators of the expression; a lone `<` or `>` too.
        if (i + 1 < end && body.charCodeAt(i + 1) === C_EQUAL && c !== C_COLON && c !== C_RBRACE) {
          i++;
          continue;
        }
        if (c === C_GREATER || c === C_LESS) continue;
        break;
      } else if (c === C_RSQB || c === C_RBRACE || c === C_RPAR) {
        const opening = brackets.pop();
        const expected = c === C_RPAR ? C_LPAR : c === C_RSQB ? C_LSQB : C_LBRACE;
        if (opening !== expected) throw new Unsupported("f-string: unmatched bracket");
      }
    }
    if (quote !== 0 || brackets.length > 0 || i >= end) throw new Unsupported("f-string: expecting '}'");
    const exprEnd = i;
    let blank = true;
    for (let k = exprStart; k < exprEnd && blank; k++) {
      const c = body.charCodeAt(k);
      blank = c === C_SPACE || c === 9 || c === C_LF || c === 12;
    }
    if (blank) throw new Unsupported("f-string: empty expression not allowed");
    const value = this.parseField(body.slice(exprStart, exprEnd));
    let debugText: string | null = null;
    if (body.charCodeAt(i) === C_EQUAL) {
      // Self-documenting `{x = }`: the text up to here, with the ASCII whitespace after `=`.
      i++;
      while (i < end && isAsciiSpace(body.charCodeAt(i))) i++;
      if (i >= end) throw new Unsupported("f-string: expecting '}'");
      debugText = body.slice(exprStart, i);
    }
    let conversion = -1;
    if (body.charCodeAt(i) === C_BANG) {
      i++;
      if (i >= end) throw new Unsupported("f-string: expecting '}'");
      conversion = body.charCodeAt(i++);
      if (conversion !== 115 && conversion !== 114 && conversion !== 97) {
        throw new Unsupported("f-string: invalid conversion character");
      }
    }
    let formatSpec: Expr | null = null;
    if (i < end && body.charCodeAt(i) === C_COLON) {
      i++;
      if (i >= end) throw new Unsupported("f-string: expecting '}'");
      const specPieces: Piece[] = [];
      i = this.parse(i, level + 1, specPieces);
      formatSpec = { type: "JoinedStr", values: joinPieces(specPieces, null) };
    }
    if (i >= end || body.charCodeAt(i) !== C_RBRACE) throw new Unsupported("f-string: expecting '}'");
    i++;
    if (debugText !== null) {
      pieces.push({ text: debugText, expr: null });
      if (formatSpec === null && conversion === -1) conversion = 114; // 'r'
    }
    pieces.push({ text: null, expr: { type: "FormattedValue", value, conversion, format_spec: formatSpec } });
    return i;
  }
}

/** `Py_ISSPACE` for the ASCII range: space, \t, \n, \v, \f, \r. */
function isAsciiSpace(c: number): boolean {
  return c === C_SPACE || (c >= 9 && c <= 13);
}
