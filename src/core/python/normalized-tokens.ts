/**
 * tokens(X) of a normalized program, fast: `tokenize.generate_tokens` of text that `ast.unparse` wrote
 * (docs/reward.md#normalization-and-tokens), without the regular expressions of the general port (tokenize.ts).
 *
 * Unparsed text is regular — ASCII names, operators with single spaces, four-space indentation, no
 * comments, no line continuations — and on it tokenize.py's tokens are those of a plain scanner. Wherever
 * the text leaves that shape (a tab, a comment, a non-ASCII name, a backslash outside a string, a
 * string continued over a line with a backslash, an odd indentation), `normalizedTokens` answers null
 * and the caller uses the general port, so its answer is always tokenize.py's
 * (tests/unit/normalized-tokens.test.ts compares the two on the whole standard library).
 */
import { NUMBER_TOKEN } from "./tokenize.js";

const C_LF = 10;
const C_SPACE = 32;
const C_DQUOTE = 34;
const C_SQUOTE = 39;
const C_DOT = 46;
const C_BACKSLASH = 92;

/** Operators and delimiters by their first character (longest first), as tokenize.py's `Special` reads them. */
const OPERATORS: readonly (readonly string[] | undefined)[] = (() => {
  const table: string[][] = [];
  const all = (
    "!= % %= & &= ( ) * ** **= *= + += , - -= -> . ... / // //= /= : := ; < << <<= <= = == > >= >> >>= " +
    "@ @= [ ] ^ ^= { | |= } ~"
  ).split(" ");
  for (const op of all.sort((a, b) => b.length - a.length)) {
    const first = op.charCodeAt(0);
    const ops = table[first] ?? [];
    ops.push(op);
    table[first] = ops;
  }
  return table;
})();

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/**
 * Whether `text[start, end)` is one of tokenize.py's string prefixes (`_all_string_prefixes`: every
 * case and order of b, r, u, f, br, fr).
 */
function isStringPrefix(text: string, start: number, end: number): boolean {
  const length = end - start;
  const a = text.charCodeAt(start) | 0x20;
  if (length === 1) return a === 98 || a === 114 || a === 117 || a === 102;
  if (length !== 2) return false;
  const b = text.charCodeAt(start + 1) | 0x20;
  return ((a === 98 || a === 102) && b === 114) || (a === 114 && (b === 98 || b === 102));
}

/**
 * The token strings of `text` and their start offsets, as `pythonTokensWithOffsets` gives them, or null
 * when `text` is not shaped like unparsed code (see the module comment).
 */
export function normalizedTokens(text: string): { tokens: string[]; starts: number[] } | null {
  const tokens: string[] = [];
  const starts: number[] = [];
  const n = text.length;
  const indents = [0];
  let depth = 0;
  let i = 0;
  while (i < n) {
    // The start of a line: its indentation (dropped, but it must be consistent, as tokenize checks).
    let column = 0;
    while (text.charCodeAt(i) === C_SPACE) {
      column++;
      i++;
    }
    if (i >= n) return null; // spaces at the end of the text
    if (text.charCodeAt(i) === C_LF) {
      if (column > 0) return null;
      i++;
      continue; // a blank line (NL, dropped)
    }
    if (depth === 0) {
      if (column > (indents[indents.length - 1] as number)) indents.push(column);
      while (column < (indents[indents.length - 1] as number)) indents.pop();
      if (column !== indents[indents.length - 1]) return null;
    }
    // The tokens of the line.
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === C_SPACE) {
        i++;
        continue;
      }
      if (i >= n) break;
      const start = i;
      if (c === C_LF) {
        i++;
        if (depth === 0) {
          tokens.push("\n");
          starts.push(start);
        }
        break;
      }
      if (isNameStart(c)) {
        i++;
        while (isNameChar(text.charCodeAt(i))) i++;
        const next = text.charCodeAt(i);
        if (next >= 128) return null;
        if ((next === C_SQUOTE || next === C_DQUOTE) && isStringPrefix(text, start, i)) {
          i = stringEnd(text, i);
          if (i < 0) return null;
        }
      } else if ((c >= 48 && c <= 57) || (c === C_DOT && isDigit(text.charCodeAt(i + 1)))) {
        NUMBER_TOKEN.lastIndex = i;
        if (!NUMBER_TOKEN.test(text)) return null;
        i = NUMBER_TOKEN.lastIndex;
      } else if (c === C_SQUOTE || c === C_DQUOTE) {
        i = stringEnd(text, i);
        if (i < 0) return null;
      } else {
        const candidates = c < 128 ? OPERATORS[c] : undefined;
        if (candidates === undefined) return null;
        let length = 0;
        for (const op of candidates) {
          if (text.startsWith(op, i)) {
            length = op.length;
            break;
          }
        }
        if (length === 0) return null;
        i += length;
        if (c === 40 || c === 91 || c === 123) depth++;
        else if ((c === 41 || c === 93 || c === 125) && --depth < 0) return null;
      }
      tokens.push(text.slice(start, i));
      starts.push(start);
    }
  }
  // tokenize adds a NEWLINE with an empty string when the last line does not end with one.
  if (n > 0 && text.charCodeAt(n - 1) !== C_LF) {
    tokens.push("");
    starts.push(n);
  }
  return { tokens, starts };
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * The offset after the string literal whose opening quote is at `quoteAt`, or -1 where tokenize.py's
 * reading could differ from this plain scan: a single-quoted string not closed on its line (tokenize
 * would read an error token or a continued string), a backslash before a newline.
 */
function stringEnd(text: string, quoteAt: number): number {
  const quote = text.charCodeAt(quoteAt);
  const n = text.length;
  let i = quoteAt + 1;
  if (text.charCodeAt(i) === quote && text.charCodeAt(i + 1) === quote) {
    for (i += 2; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === C_BACKSLASH) {
        if (text.charCodeAt(i + 1) === C_LF) return -1;
        i++;
      } else if (c === quote && text.charCodeAt(i + 1) === quote && text.charCodeAt(i + 2) === quote) {
        return i + 3;
      }
    }
    return -1;
  }
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === C_BACKSLASH) {
      if (text.charCodeAt(i + 1) === C_LF) return -1;
      i++;
    } else if (c === quote) {
      return i + 1;
    } else if (c === C_LF) {
      return -1;
    }
  }
  return -1;
}
