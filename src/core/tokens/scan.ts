/**
 * Pieces the C++ and Java lexers share (cpp.ts, java.ts): the edit-size term of the lint reward counts
 * token edits, so both lexers only need to cut source text into the tokens a programmer sees — they
 * never reject input (a revision that does not compile is the compiler's verdict, not the lexer's).
 */

/** Operators C++ and Java share (each language adds its own; the table matches longest first). */
export const C_FAMILY_OPERATORS: readonly string[] = [
  "...",
  "->",
  "::",
  "++",
  "--",
  "<<",
  ">>",
  "<=",
  ">=",
  "==",
  "!=",
  "&&",
  "||",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
];

/** Longest-match operator table: `longest[c]` lists the operators starting with `c`, longest first. */
export type OperatorTable = ReadonlyMap<string, readonly string[]>;

export function operatorTable(operators: readonly string[]): OperatorTable {
  const table = new Map<string, string[]>();
  for (const op of operators) {
    const first = op[0] as string;
    const list = table.get(first) ?? [];
    list.push(op);
    table.set(first, list);
  }
  for (const list of table.values()) list.sort((a, b) => b.length - a.length);
  return table;
}

/** The operator at `i` by longest match, or the single character there (an unknown symbol is one token). */
export function matchOperator(source: string, i: number, table: OperatorTable): string {
  const candidates = table.get(source[i] as string);
  if (candidates !== undefined) {
    for (const op of candidates) if (source.startsWith(op, i)) return op;
  }
  // One code point, so a lone astral symbol is not split into surrogates.
  return String.fromCodePoint(source.codePointAt(i) as number);
}

const IDENTIFIER_START = /[\p{L}\p{Nl}_$]/u;
const IDENTIFIER_PART = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_$]/u;

export function isIdentifierStart(ch: string | undefined): boolean {
  return ch !== undefined && IDENTIFIER_START.test(ch);
}

/** End of the identifier starting at `i` (code-point aware: identifiers may use any letters). */
export function identifierEnd(source: string, i: number): number {
  let j = i;
  while (j < source.length) {
    const ch = String.fromCodePoint(source.codePointAt(j) as number);
    if (!IDENTIFIER_PART.test(ch)) break;
    j += ch.length;
  }
  return j;
}

export function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "0" && ch <= "9";
}

/**
 * End of the identifier, number or operator at `i`: the tail both lexers fall through to once comments
 * and literals are ruled out. `quoteSeparators` is {@link numberEnd}'s (C++ only).
 */
export function wordOrOperatorEnd(
  source: string,
  i: number,
  operators: OperatorTable,
  quoteSeparators: boolean,
): number {
  const ch = source[i];
  if (isIdentifierStart(ch)) return identifierEnd(source, i);
  if (isDigit(ch) || (ch === "." && isDigit(source[i + 1]))) return numberEnd(source, i, quoteSeparators);
  return i + matchOperator(source, i, operators).length;
}

/**
 * End of the number starting at `i` (a digit, or `.` followed by a digit), by the C/C++ "pp-number" rule,
 * which also covers every Java numeric literal: digits, letters, `_`, `.`, the digit separator `'` when
 * `quoteSeparators` (C++14), and a sign right after an exponent letter (`e`/`E`, and `p`/`P` for hex
 * floats). So `0x1Fu`, `1e-9`, `3.14f`, `1'000'000LL`, `0b1010`, `1_000L` and `0x1.8p3` are each one token.
 */
export function numberEnd(source: string, i: number, quoteSeparators: boolean): number {
  let j = i + 1;
  while (j < source.length) {
    const ch = source[j] as string;
    if ((ch === "+" || ch === "-") && /[eEpP]/.test(source[j - 1] as string)) {
      j++;
      continue;
    }
    if (/[0-9A-Za-z_.]/.test(ch)) {
      j++;
      continue;
    }
    if (quoteSeparators && ch === "'" && /[0-9A-Za-z]/.test(source[j + 1] ?? "")) {
      j += 2;
      continue;
    }
    break;
  }
  return j;
}

/**
 * End of the quoted literal whose opening quote is at `i` (`"` or `'`): a backslash escapes the next
 * character, and the literal ends at the closing quote or, unterminated, at the end of the line (as the
 * compilers report it), so one stray quote cannot swallow the rest of the file.
 */
export function quotedEnd(source: string, i: number): number {
  const quote = source[i] as string;
  let j = i + 1;
  while (j < source.length) {
    const ch = source[j];
    if (ch === "\\") {
      j += 2;
      continue;
    }
    if (ch === quote) return j + 1;
    if (ch === "\n") return j;
    j++;
  }
  return source.length;
}

/**
 * End of the `//` or `/*` comment at `i`, or null when none starts there. `lineCommentEnd` ends a `//`
 * comment: C++ lets a `\`-newline continue it, Java does not.
 */
export function commentEnd(
  source: string,
  i: number,
  lineCommentEnd: (source: string, i: number) => number = lineEnd,
): number | null {
  if (source[i] !== "/") return null;
  if (source[i + 1] === "/") return lineCommentEnd(source, i);
  if (source[i + 1] === "*") return blockCommentEnd(source, i);
  return null;
}

/** End of the block comment opened at `i` (the end of the text when unterminated). */
export function blockCommentEnd(source: string, i: number): number {
  const close = source.indexOf("*/", i + 2);
  return close < 0 ? source.length : close + 2;
}

/** End of the line at `i` (the index of its `\n`, or the text length). */
export function lineEnd(source: string, i: number): number {
  const nl = source.indexOf("\n", i);
  return nl < 0 ? source.length : nl;
}
