/**
 * The token stream CPython 3.11's C tokenizer (Parser/tokenizer.c) gives its parser, for the part of
 * Python that real programs are written in — the first stage of the direct parser (see direct-parse.ts).
 *
 * It is deliberately narrow: wherever the C tokenizer would do something this lexer does not reproduce
 * exactly — read a tab or form feed in an indentation, NFKC-normalize a non-ASCII name, accept a number
 * glued to a keyword (`1if`, with a warning) — it throws {@link Unsupported} and the caller falls back to
 * the tree-sitter parser, which answers for every program. A stream it does return is the C tokenizer's,
 * token for token (types, and the text of each NAME, NUMBER, STRING and operator); and where the C
 * tokenizer raises on what this lexer has read the same way (an unterminated string, an unclosed bracket,
 * a stray character), it raises `PySyntaxError` as CPython does.
 *
 * The source is a `str` as `ast.parse` gets it: line endings already `\n` (parse.ts translates `\r\n` and
 * `\r` first, as CPython's `translate_newlines` does), and a final newline implied when it is missing.
 */

import { PySyntaxError } from "../syntax-error.js";

/** Thrown wherever the direct parser does not handle the input: the fallback parser decides it. */
export class Unsupported {
  /** Why, for tests and debugging; never shown to users (the fallback parser gives the real error). */
  constructor(readonly reason: string) {}
}

// Token kinds. NAME is an identifier that is not a hard keyword; each keyword and operator has its own
// kind so that the parser compares small integers.
export const ENDMARKER = 0;
export const NAME = 1;
export const NUMBER = 2;
export const STRING = 3;
export const NEWLINE = 4;
export const INDENT = 5;
export const DEDENT = 6;

export const LPAR = 10; // (
export const RPAR = 11; // )
export const LSQB = 12; // [
export const RSQB = 13; // ]
export const LBRACE = 14; // {
export const RBRACE = 15; // }
export const COLON = 16; // :
export const COMMA = 17; // ,
export const SEMI = 18; // ;
export const DOT = 19; // .
export const ELLIPSIS = 20; // ...
export const EQUAL = 21; // =
export const RARROW = 22; // ->
export const COLONEQUAL = 23; // :=
export const AT = 24; // @
export const TILDE = 25; // ~
export const STAR = 26; // *
export const DOUBLESTAR = 27; // **
// Binary operators (each also has an augmented-assignment form, AUG_OFFSET kinds above it).
export const PLUS = 30; // +
export const MINUS = 31; // -
export const SLASH = 32; // /
export const DOUBLESLASH = 33; // //
export const PERCENT = 34; // %
export const VBAR = 35; // |
export const AMPER = 36; // &
export const CIRCUMFLEX = 37; // ^
export const LEFTSHIFT = 38; // <<
export const RIGHTSHIFT = 39; // >>
// Augmented assignments: PLUSEQUAL = PLUS + AUG_OFFSET, …; `*=`, `**=` and `@=` are listed apart.
export const AUG_OFFSET = 20;
export const PLUSEQUAL = 50;
export const MINEQUAL = 51;
export const SLASHEQUAL = 52;
export const DOUBLESLASHEQUAL = 53;
export const PERCENTEQUAL = 54;
export const VBAREQUAL = 55;
export const AMPEREQUAL = 56;
export const CIRCUMFLEXEQUAL = 57;
export const LEFTSHIFTEQUAL = 58;
export const RIGHTSHIFTEQUAL = 59;
export const STAREQUAL = 60;
export const DOUBLESTAREQUAL = 61;
export const ATEQUAL = 62;
// Comparisons.
export const LESS = 65; // <
export const GREATER = 66; // >
export const EQEQUAL = 67; // ==
export const NOTEQUAL = 68; // !=
export const LESSEQUAL = 69; // <=
export const GREATEREQUAL = 70; // >=

// Hard keywords of Python 3.11 (`keyword.kwlist`).
export const KW_FALSE = 80;
export const KW_NONE = 81;
export const KW_TRUE = 82;
export const KW_AND = 83;
export const KW_AS = 84;
export const KW_ASSERT = 85;
export const KW_ASYNC = 86;
export const KW_AWAIT = 87;
export const KW_BREAK = 88;
export const KW_CLASS = 89;
export const KW_CONTINUE = 90;
export const KW_DEF = 91;
export const KW_DEL = 92;
export const KW_ELIF = 93;
export const KW_ELSE = 94;
export const KW_EXCEPT = 95;
export const KW_FINALLY = 96;
export const KW_FOR = 97;
export const KW_FROM = 98;
export const KW_GLOBAL = 99;
export const KW_IF = 100;
export const KW_IMPORT = 101;
export const KW_IN = 102;
export const KW_IS = 103;
export const KW_LAMBDA = 104;
export const KW_NONLOCAL = 105;
export const KW_NOT = 106;
export const KW_OR = 107;
export const KW_PASS = 108;
export const KW_RAISE = 109;
export const KW_RETURN = 110;
export const KW_TRY = 111;
export const KW_WHILE = 112;
export const KW_WITH = 113;
export const KW_YIELD = 114;

const KEYWORDS: ReadonlyMap<string, number> = new Map([
  ["False", KW_FALSE],
  ["None", KW_NONE],
  ["True", KW_TRUE],
  ["and", KW_AND],
  ["as", KW_AS],
  ["assert", KW_ASSERT],
  ["async", KW_ASYNC],
  ["await", KW_AWAIT],
  ["break", KW_BREAK],
  ["class", KW_CLASS],
  ["continue", KW_CONTINUE],
  ["def", KW_DEF],
  ["del", KW_DEL],
  ["elif", KW_ELIF],
  ["else", KW_ELSE],
  ["except", KW_EXCEPT],
  ["finally", KW_FINALLY],
  ["for", KW_FOR],
  ["from", KW_FROM],
  ["global", KW_GLOBAL],
  ["if", KW_IF],
  ["import", KW_IMPORT],
  ["in", KW_IN],
  ["is", KW_IS],
  ["lambda", KW_LAMBDA],
  ["nonlocal", KW_NONLOCAL],
  ["not", KW_NOT],
  ["or", KW_OR],
  ["pass", KW_PASS],
  ["raise", KW_RAISE],
  ["return", KW_RETURN],
  ["try", KW_TRY],
  ["while", KW_WHILE],
  ["with", KW_WITH],
  ["yield", KW_YIELD],
]);

/** The keywords by their first character, so that a name is looked up without slicing it out. */
const KEYWORDS_BY_FIRST: [string, number][][] = [];
for (const [word, kind] of KEYWORDS) {
  const first = word.charCodeAt(0);
  const list = KEYWORDS_BY_FIRST[first] ?? [];
  list.push([word, kind]);
  KEYWORDS_BY_FIRST[first] = list;
}

/** The kind of the name `source[start, end)`: its keyword's, or NAME. */
function nameKind(source: string, start: number, end: number): number {
  const candidates = KEYWORDS_BY_FIRST[source.charCodeAt(start)];
  if (candidates === undefined) return NAME;
  const length = end - start;
  for (const [word, kind] of candidates) {
    if (word.length === length && source.startsWith(word, start)) return kind;
  }
  return NAME;
}

/** Length of each operator token kind. */
const OPERATOR_LENGTH = new Uint8Array(128).fill(1);
for (const kind of [
  COLONEQUAL,
  EQEQUAL,
  NOTEQUAL,
  LESSEQUAL,
  GREATEREQUAL,
  LEFTSHIFT,
  RIGHTSHIFT,
  DOUBLESTAR,
  DOUBLESLASH,
  RARROW,
  PLUSEQUAL,
  MINEQUAL,
  STAREQUAL,
  SLASHEQUAL,
  PERCENTEQUAL,
  VBAREQUAL,
  AMPEREQUAL,
  CIRCUMFLEXEQUAL,
  ATEQUAL,
]) {
  OPERATOR_LENGTH[kind] = 2;
}
for (const kind of [ELLIPSIS, LEFTSHIFTEQUAL, RIGHTSHIFTEQUAL, DOUBLESTAREQUAL, DOUBLESLASHEQUAL]) {
  OPERATOR_LENGTH[kind] = 3;
}

/** CPython's MAXINDENT (Parser/tokenizer.h): deeper indentation is an error there. */
const MAX_INDENT = 100;
/** CPython's MAXLEVEL: more open brackets at once is "too many nested parentheses". */
const MAX_BRACKETS = 200;

/**
 * The tokens of one source: token `i` has kind `kinds[i]` and text `source.slice(starts[i], ends[i])`
 * (empty for NEWLINE, INDENT, DEDENT and ENDMARKER). The stream ends with ENDMARKER, repeated so that a
 * look two tokens past the end still reads ENDMARKER. (Lines are not kept per token: few are ever
 * asked for, and parser-state.ts counts them when they are.)
 */
export type TokenStream = {
  source: string;
  kinds: number[];
  starts: number[];
  ends: number[];
};

const C_TAB = 9;
const C_LF = 10;
const C_FF = 12;
const C_CR = 13;
const C_SPACE = 32;
const C_DQUOTE = 34;
const C_HASH = 35;
const C_SQUOTE = 39;
const C_DOT = 46;
const C_EQUAL = 61;
const C_0 = 48;
const C_9 = 57;
const C_BACKSLASH = 92;
const C_UNDERSCORE = 95;

function isIdentifierStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === C_UNDERSCORE;
}

function isIdentifierChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= C_0 && c <= C_9) || c === C_UNDERSCORE;
}

/** What the C tokenizer would read as part of a name or a number's tail (`is_potential_identifier_char`). */
function continuesWord(c: number): boolean {
  return isIdentifierChar(c) || c >= 128;
}

function isDigit(c: number): boolean {
  return c >= C_0 && c <= C_9;
}

function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/**
 * Tokenizes `source` (see the module comment). Throws `PySyntaxError` where CPython's tokenizer raises,
 * {@link Unsupported} for what this lexer does not reproduce.
 */
export function lexPython(source: string): TokenStream {
  return new Lexer(source).run();
}

class Lexer {
  private readonly source: string;
  private readonly n: number;
  // Plain arrays of small integers: cheaper to create for one program than typed arrays.
  private readonly kinds: number[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** The current line, for error messages. */
  private line = 1;
  /** Open brackets, innermost last, as the char codes of their closers. */
  private readonly brackets: number[] = [];
  private readonly indents: number[] = [0];

  constructor(source: string) {
    this.source = source;
    this.n = source.length;
  }

  private emit(kind: number, start: number, end: number): void {
    this.kinds.push(kind);
    this.starts.push(start);
    this.ends.push(end);
  }

  run(): TokenStream {
    const { source, n } = this;
    let i = 0;
    let atLineStart = true;
    /** Whether the current logical line has produced a token (so that it ends with NEWLINE). */
    let lineHasTokens = false;
    for (;;) {
      if (atLineStart) {
        atLineStart = false;
        // Indentation (tok_get's `atbol` block). Inside brackets it is only whitespace.
        let column = 0;
        let mixed = false;
        while (i < n) {
          const c = source.charCodeAt(i);
          if (c === C_SPACE) column++;
          else if (c === C_TAB || c === C_FF) mixed = true;
          else if (c === C_BACKSLASH) throw new Unsupported("a backslash in an indentation");
          else break;
          i++;
        }
        const c = i < n ? source.charCodeAt(i) : C_LF;
        const blank = c === C_HASH || c === C_LF;
        if (!blank && this.brackets.length === 0) {
          // Tabs and form feeds make CPython compare two column counts (TabError); not reproduced.
          if (mixed) throw new Unsupported("a tab or form feed in an indentation");
          this.indent(column, i);
        }
      }
      // Whitespace between tokens.
      let c = 0;
      while (i < n) {
        c = source.charCodeAt(i);
        if (c !== C_SPACE && c !== C_TAB && c !== C_FF) break;
        i++;
      }
      if (i >= n) break;
      const start = i;
      if (c === C_HASH) {
        const end = source.indexOf("\n", i);
        i = end < 0 ? n : end;
        continue;
      }
      if (c === C_LF) {
        i++;
        if (this.brackets.length === 0 && lineHasTokens) {
          this.emit(NEWLINE, start, start);
          lineHasTokens = false;
        }
        this.line++;
        atLineStart = true;
        continue;
      }
      if (c === C_BACKSLASH) {
        // Line continuation: the backslash must end the line, and a line must follow.
        if (source.charCodeAt(i + 1) !== C_LF)
          throw this.error("unexpected character after line continuation character", i);
        i += 2;
        this.line++;
        if (i >= n) throw this.error("unexpected EOF while parsing", i);
        continue;
      }
      lineHasTokens = true;
      if (isIdentifierStart(c)) {
        i++;
        while (i < n && isIdentifierChar(source.charCodeAt(i))) i++;
        const next = i < n ? source.charCodeAt(i) : 0;
        if (next >= 128) throw new Unsupported("a non-ASCII name");
        if ((next === C_SQUOTE || next === C_DQUOTE) && isStringPrefix(source, start, i)) {
          i = this.string(start, i);
          continue;
        }
        this.emit(nameKind(source, start, i), start, i);
        continue;
      }
      if (isDigit(c) || (c === C_DOT && isDigit(source.charCodeAt(i + 1)))) {
        i = this.number(start);
        continue;
      }
      if (c === C_SQUOTE || c === C_DQUOTE) {
        i = this.string(start, start);
        continue;
      }
      if (c >= 128) throw new Unsupported("a non-ASCII character outside strings and comments");
      i = this.operator(start, c);
    }
    // End of input: the implied final newline, the pending dedents, the end marker.
    if (this.brackets.length > 0) throw this.error("a bracket was never closed", n);
    if (lineHasTokens) this.emit(NEWLINE, n, n);
    while (this.indents.length > 1) {
      this.indents.pop();
      this.emit(DEDENT, n, n);
    }
    for (let i = 0; i < 3; i++) this.emit(ENDMARKER, n, n);
    return { source, kinds: this.kinds, starts: this.starts, ends: this.ends };
  }

  private indent(column: number, at: number): void {
    const { indents } = this;
    const top = indents[indents.length - 1] as number;
    if (column > top) {
      if (indents.length >= MAX_INDENT) throw new Unsupported("too deep indentation");
      indents.push(column);
      this.emit(INDENT, at, at);
    } else if (column < top) {
      while (column < (indents[indents.length - 1] as number)) {
        indents.pop();
        this.emit(DEDENT, at, at);
      }
      if (column !== indents[indents.length - 1]) {
        throw this.error("unindent does not match any outer indentation level", at);
      }
    }
  }

  /**
   * A string literal whose prefix is `source[start, quoteAt)`; returns the offset after it. The body is
   * read as the C tokenizer reads it: a backslash escapes the next character (even in raw strings), a
   * single-quoted string cannot span lines.
   */
  private string(start: number, quoteAt: number): number {
    const { source, n } = this;
    const quote = source.charCodeAt(quoteAt);
    let i = quoteAt + 1;
    const triple = source.charCodeAt(i) === quote && source.charCodeAt(i + 1) === quote;
    if (triple) {
      i += 2;
      for (;;) {
        if (i >= n) throw this.error("unterminated triple-quoted string literal", start);
        const c = source.charCodeAt(i);
        if (c === C_BACKSLASH) {
          if (source.charCodeAt(i + 1) === C_LF) this.line++;
          i += 2;
        } else if (c === quote && source.charCodeAt(i + 1) === quote && source.charCodeAt(i + 2) === quote) {
          i += 3;
          break;
        } else {
          if (c === C_LF) this.line++;
          i++;
        }
      }
    } else {
      for (;;) {
        if (i >= n) throw this.error("unterminated string literal", start);
        const c = source.charCodeAt(i);
        if (c === C_BACKSLASH) {
          if (source.charCodeAt(i + 1) === C_LF) this.line++;
          i += 2;
        } else if (c === quote) {
          i++;
          break;
        } else if (c === C_LF || c === C_CR) {
          throw this.error("unterminated string literal", start);
        } else {
          i++;
        }
      }
    }
    this.emit(STRING, start, i);
    return i;
  }

  /**
   * A NUMBER token starting at `start`; returns the offset after it. Only the forms CPython accepts
   * without a word are read: anything glued to the number, a misplaced underscore, a leading zero or an
   * incomplete exponent is left to the fallback (CPython raises or warns there).
   */
  private number(start: number): number {
    const { source } = this;
    let i = start;
    const c0 = source.charCodeAt(i);
    const c1 = source.charCodeAt(i + 1) | 0x20; // lower-cased
    if (c0 === C_0 && (c1 === 120 || c1 === 111 || c1 === 98)) {
      // 0x / 0o / 0b with digits, each optionally after one underscore.
      const ok = c1 === 120 ? isHexDigit : c1 === 111 ? isOctalDigit : isBinaryDigit;
      i += 2;
      let digits = 0;
      for (;;) {
        let c = source.charCodeAt(i);
        if (c === C_UNDERSCORE) c = source.charCodeAt(++i);
        if (!ok(c)) break;
        digits++;
        i++;
      }
      if (digits === 0) throw this.error("invalid number literal", start);
      return this.endNumber(start, i);
    }
    let integerDigits = 0;
    let nonZero = false;
    if (c0 !== C_DOT) {
      i = this.digits(i);
      integerDigits = i - start;
      for (let k = start; k < i; k++) {
        const c = source.charCodeAt(k);
        if (c !== C_0 && c !== C_UNDERSCORE) nonZero = true;
      }
    }
    let isInteger = true;
    if (source.charCodeAt(i) === C_DOT) {
      isInteger = false;
      i++;
      if (isDigit(source.charCodeAt(i))) i = this.digits(i);
      else if (integerDigits === 0) throw new Unsupported("a lone dot");
    }
    const e = source.charCodeAt(i) | 0x20;
    if (e === 101) {
      isInteger = false;
      let k = i + 1;
      const sign = source.charCodeAt(k);
      if (sign === 43 || sign === 45) k++;
      if (!isDigit(source.charCodeAt(k))) throw new Unsupported("an incomplete exponent");
      i = this.digits(k);
    }
    if ((source.charCodeAt(i) | 0x20) === 106) {
      i++;
    } else if (isInteger && nonZero && c0 === C_0) {
      throw this.error("leading zeros in decimal integer literals are not permitted", start);
    }
    return this.endNumber(start, i);
  }

  /** `[0-9](_?[0-9])*` from `i` (a digit); an underscore not followed by a digit is unsupported. */
  private digits(from: number): number {
    const { source } = this;
    let i = from;
    for (;;) {
      if (!isDigit(source.charCodeAt(i))) throw this.error("invalid decimal literal", i);
      i++;
      while (isDigit(source.charCodeAt(i))) i++;
      if (source.charCodeAt(i) !== C_UNDERSCORE) return i;
      i++;
    }
  }

  private endNumber(start: number, end: number): number {
    // CPython's verify_end_of_number: a number glued to a word is an error, or (before `and`, `else`,
    // `for`, `if`, `in`, `is`, `not`, `or`) a deprecation warning; neither is reproduced here.
    if (continuesWord(this.source.charCodeAt(end))) throw new Unsupported("a number glued to a word");
    this.emit(NUMBER, start, end);
    return end;
  }

  /** An operator or delimiter starting at `start` (first character `c`); returns the offset after it. */
  private operator(start: number, c: number): number {
    const { source } = this;
    const c1 = source.charCodeAt(start + 1);
    const c2 = source.charCodeAt(start + 2);
    // The longest operator wins: `**=` before `**` before `*`.
    let kind: number;
    switch (c) {
      case 40: // (
        kind = LPAR;
        this.open(41);
        break;
      case 91: // [
        kind = LSQB;
        this.open(93);
        break;
      case 123: // {
        kind = LBRACE;
        this.open(125);
        break;
      case 41: // )
        kind = RPAR;
        this.close(c, start);
        break;
      case 93: // ]
        kind = RSQB;
        this.close(c, start);
        break;
      case 125: // }
        kind = RBRACE;
        this.close(c, start);
        break;
      case 58: // :
        kind = c1 === C_EQUAL ? COLONEQUAL : COLON;
        break;
      case 44: // ,
        kind = COMMA;
        break;
      case 59: // ;
        kind = SEMI;
        break;
      case C_DOT:
        kind = c1 === C_DOT && c2 === C_DOT ? ELLIPSIS : DOT;
        break;
      case C_EQUAL:
        kind = c1 === C_EQUAL ? EQEQUAL : EQUAL;
        break;
      case 33: // !
        if (c1 !== C_EQUAL) throw this.error("invalid syntax", start);
        kind = NOTEQUAL;
        break;
      case 60: // <
        if (c1 === 62) throw this.error("invalid syntax", start);
        kind = c1 === 60 ? (c2 === C_EQUAL ? LEFTSHIFTEQUAL : LEFTSHIFT) : c1 === C_EQUAL ? LESSEQUAL : LESS;
        break;
      case 62: // >
        kind =
          c1 === 62
            ? c2 === C_EQUAL
              ? RIGHTSHIFTEQUAL
              : RIGHTSHIFT
            : c1 === C_EQUAL
              ? GREATEREQUAL
              : GREATER;
        break;
      case 42: // *
        kind =
          c1 === 42 ? (c2 === C_EQUAL ? DOUBLESTAREQUAL : DOUBLESTAR) : c1 === C_EQUAL ? STAREQUAL : STAR;
        break;
      case 47: // /
        kind =
          c1 === 47 ? (c2 === C_EQUAL ? DOUBLESLASHEQUAL : DOUBLESLASH) : c1 === C_EQUAL ? SLASHEQUAL : SLASH;
        break;
      case 45: // -
        kind = c1 === 62 ? RARROW : c1 === C_EQUAL ? MINEQUAL : MINUS;
        break;
      case 43: // +
        kind = c1 === C_EQUAL ? PLUSEQUAL : PLUS;
        break;
      case 37: // %
        kind = c1 === C_EQUAL ? PERCENTEQUAL : PERCENT;
        break;
      case 124: // |
        kind = c1 === C_EQUAL ? VBAREQUAL : VBAR;
        break;
      case 38: // &
        kind = c1 === C_EQUAL ? AMPEREQUAL : AMPER;
        break;
      case 94: // ^
        kind = c1 === C_EQUAL ? CIRCUMFLEXEQUAL : CIRCUMFLEX;
        break;
      case 64: // @
        kind = c1 === C_EQUAL ? ATEQUAL : AT;
        break;
      case 126: // ~
        kind = TILDE;
        break;
      default:
        throw this.error(`invalid character ${JSON.stringify(String.fromCharCode(c))}`, start);
    }
    const length = OPERATOR_LENGTH[kind] as number;
    this.emit(kind, start, start + length);
    return start + length;
  }

  private open(closer: number): void {
    if (this.brackets.length >= MAX_BRACKETS) throw new Unsupported("too many nested brackets");
    this.brackets.push(closer);
  }

  private close(closer: number, at: number): void {
    if (this.brackets.pop() !== closer) throw this.error("unmatched closing bracket", at);
  }

  /**
   * A syntax error CPython's tokenizer raises too: the lexer reads exactly what the C tokenizer reads up
   * to here (anything it reads differently throws Unsupported first), so the program is rejected.
   */
  private error(message: string, offset: number): PySyntaxError {
    return PySyntaxError.withoutStack(`${message} (line ${this.line})`, offset);
  }
}

function isOctalDigit(c: number): boolean {
  return c >= C_0 && c <= 55;
}

function isBinaryDigit(c: number): boolean {
  return c === C_0 || c === 49;
}

/**
 * Whether `source[start, end)` is a string prefix the C tokenizer reads before a quote: `b`, `r`, `u`,
 * `f`, `br`, `rb`, `fr`, `rf` in any case (`ur`, `bu`, `fb`, … are names followed by a string).
 */
function isStringPrefix(source: string, start: number, end: number): boolean {
  const length = end - start;
  if (length === 1) {
    const c = source.charCodeAt(start) | 0x20;
    return c === 98 || c === 114 || c === 117 || c === 102;
  }
  if (length === 2) {
    const a = source.charCodeAt(start) | 0x20;
    const b = source.charCodeAt(start + 1) | 0x20;
    return (
      ((a === 98 || a === 102) && b === 114) || (a === 114 && (b === 98 || b === 102)) // br fr rb rf
    );
  }
  return false;
}
