/**
 * Java tokens for the edit-size term of the lint reward (docs/lint.md; lint-reward.ts), the counterpart of
 * cpp.ts:
 *
 * - Whitespace and comments (line, block and Javadoc) are dropped.
 * - Identifiers and keywords: `[letter _ $][letter digit _ $]*` (JLS 3.8, any Unicode letter).
 * - Numbers: decimal, hex, octal, binary, with `_` separators, exponents, hex floats and the `l L f F d D`
 *   suffixes, each one token (scan.ts `numberEnd`).
 * - String and character literals with their escapes; text blocks `"""…"""` are one token spanning lines.
 * - Operators and separators by longest match (`>>>=`, `->`, `::`, `...`); an annotation is `@` then
 *   its name.
 * - Unicode escapes (`\u0041` outside literals) are not translated: they are rare, and leaving them
 *   alone only makes such a file's tokens slightly different, never fails.
 * - Anything else is a one-character token. The lexer never fails.
 */
import { C_FAMILY_OPERATORS, commentEnd, operatorTable, quotedEnd, wordOrOperatorEnd } from "./scan.js";

const JAVA_OPERATORS = operatorTable([">>>=", ">>>", ">>=", "<<=", ...C_FAMILY_OPERATORS]);

const TEXT_BLOCK = '"""';

/** The Java tokens of `source` (see the module doc). Pure and total. */
export function javaTokens(source: string): string[] {
  const tokens: string[] = [];
  const n = source.length;
  let i = 0;
  while (i < n) {
    const ch = source[i] as string;
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === "\f") {
      i++;
      continue;
    }
    const comment = commentEnd(source, i);
    if (comment !== null) {
      i = comment;
      continue;
    }
    let end: number;
    if (source.startsWith(TEXT_BLOCK, i)) end = textBlockEnd(source, i);
    else if (ch === '"' || ch === "'") end = quotedEnd(source, i);
    else end = wordOrOperatorEnd(source, i, JAVA_OPERATORS, false);
    tokens.push(source.slice(i, end));
    i = end;
  }
  return tokens;
}

/** End of the text block opened at `i`: the next `"""` not escaped by a backslash (JLS 3.10.6). */
function textBlockEnd(source: string, i: number): number {
  let j = i + TEXT_BLOCK.length;
  while (j < source.length) {
    if (source[j] === "\\") {
      j += 2;
      continue;
    }
    if (source.startsWith(TEXT_BLOCK, j)) return j + TEXT_BLOCK.length;
    j++;
  }
  return source.length;
}
