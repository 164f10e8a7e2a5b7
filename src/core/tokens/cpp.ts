/**
 * C++ tokens for the edit-size term of the lint reward (docs/lint.md; lint-reward.ts): what a programmer sees
 * as one unit, so that renaming a variable is one edit per use and reformatting is none.
 *
 * - Whitespace, backslash-newline continuations and comments (line and block) are dropped.
 * - A preprocessor directive (`#` first on its line) is ONE token: the logical line (continuations
 *   joined), comments removed, whitespace runs collapsed to one space (`#include <bits/stdc++.h>`).
 *   Replacing an include is one edit, like replacing any other token.
 * - Identifiers and keywords: `[letter _ $][letter digit _ $]*` (any Unicode letter).
 * - Numbers by the pp-number rule (scan.ts `numberEnd`): `0x1Fu`, `1e-9`, `3.14f`, `1'000'000LL`.
 * - String and character literals with their encoding prefix (`u8`, `u`, `U`, `L`) and user-defined
 *   suffix (`"abc"s`, `10_km` is a number); raw strings `R"delim( … )delim"` span lines and ignore
 *   backslashes.
 * - Operators and punctuators by longest match (`>>=`, `<=>`, `->*`, `::`, `...`); `>>` closing two
 *   templates is one token, as the C++ lexer itself produces before the parser splits it.
 * - Anything else (a stray `@` or backtick) is a one-character token. The lexer never fails.
 */
import {
  blockCommentEnd,
  C_FAMILY_OPERATORS,
  commentEnd,
  identifierEnd,
  isIdentifierStart,
  lineEnd,
  operatorTable,
  quotedEnd,
  wordOrOperatorEnd,
} from "./scan.js";

const CPP_OPERATORS = operatorTable([">>=", "<<=", "<=>", "->*", ".*", "##", ...C_FAMILY_OPERATORS]);

/** Encoding prefixes of string and character literals, longest first. */
const LITERAL_PREFIXES = ["u8R", "uR", "UR", "LR", "R", "u8", "u", "U", "L"] as const;

/** The raw-string delimiter: up to 16 characters, no space, parentheses or backslash. */
const RAW_DELIMITER = /^[^\s()\\]{0,16}\(/;

/** Removes `\`-newline pairs (translation phase 2) from a directive's text. */
function joinContinuations(text: string): string {
  return text.replace(/\\\r?\n/g, "");
}

/** The C++ tokens of `source` (see the module doc). Pure and total. */
export function cppTokens(source: string): string[] {
  const tokens: string[] = [];
  const n = source.length;
  // True while only whitespace (or comments) has been seen since the last newline: where `#` opens a directive.
  let atLineStart = true;
  let i = 0;
  while (i < n) {
    const ch = source[i] as string;
    if (ch === "\n") {
      atLineStart = true;
      i++;
      continue;
    }
    if (ch === " " || ch === "\t" || ch === "\r" || ch === "\f" || ch === "\v") {
      i++;
      continue;
    }
    if (ch === "\\" && (source[i + 1] === "\n" || (source[i + 1] === "\r" && source[i + 2] === "\n"))) {
      i += source[i + 1] === "\n" ? 2 : 3;
      continue;
    }
    const comment = commentEnd(source, i, continuedLineEnd);
    if (comment !== null) {
      i = comment;
      continue;
    }
    if (ch === "#" && atLineStart) {
      const end = continuedLineEnd(source, i);
      tokens.push(directiveToken(source.slice(i, end)));
      i = end;
      continue;
    }
    atLineStart = false;
    const literal = literalAt(source, i);
    if (literal !== null) {
      tokens.push(source.slice(i, literal));
      i = literal;
      continue;
    }
    const end = wordOrOperatorEnd(source, i, CPP_OPERATORS, true);
    tokens.push(source.slice(i, end));
    i = end;
  }
  return tokens;
}

/** End of a line that `\`-newline continues (a `//` comment or a directive). */
function continuedLineEnd(source: string, i: number): number {
  let end = lineEnd(source, i);
  while (
    end < source.length &&
    (source[end - 1] === "\\" || (source[end - 1] === "\r" && source[end - 2] === "\\"))
  ) {
    end = lineEnd(source, end + 1);
  }
  return end;
}

/** A directive line as one token: continuations joined, comments dropped, whitespace collapsed. */
function directiveToken(text: string): string {
  const joined = joinContinuations(text);
  let out = "";
  let i = 0;
  while (i < joined.length) {
    const ch = joined[i] as string;
    if (ch === "/" && joined[i + 1] === "/") break;
    if (ch === "/" && joined[i + 1] === "*") {
      i = blockCommentEnd(joined, i);
      out += " ";
      continue;
    }
    if (ch === '"' || (ch === "'" && !/[0-9A-Za-z]/.test(joined[i - 1] ?? ""))) {
      const end = quotedEnd(joined, i);
      out += joined.slice(i, end);
      i = end;
      continue;
    }
    out += ch;
    i++;
  }
  // `#  include` and `#include` are the same directive.
  return out.replace(/\s+/g, " ").trim().replace(/^# /, "#");
}

/**
 * End of the string or character literal at `i` (with its prefix and any user-defined suffix), or null
 * when no literal starts there. An identifier that merely starts like a prefix (`u8x`, `Rows`) is not
 * a literal: the prefix must be followed by a quote. (`i` is never inside an identifier: identifiers
 * are consumed whole, so `xL"…"` is the identifier `xL` and then a string.)
 */
function literalAt(source: string, i: number): number | null {
  let j = i;
  let raw = false;
  for (const prefix of LITERAL_PREFIXES) {
    if (
      source.startsWith(prefix, i) &&
      (source[i + prefix.length] === '"' || (source[i + prefix.length] === "'" && !prefix.endsWith("R")))
    ) {
      j = i + prefix.length;
      raw = prefix.endsWith("R");
      break;
    }
  }
  const quote = source[j];
  if (quote !== '"' && quote !== "'") return null;
  let end: number;
  if (raw) {
    const delimiter = RAW_DELIMITER.exec(source.slice(j + 1, j + 18));
    if (delimiter === null) end = quotedEnd(source, j);
    else {
      const close = `)${delimiter[0].slice(0, -1)}"`;
      const at = source.indexOf(close, j + 1 + delimiter[0].length);
      end = at < 0 ? source.length : at + close.length;
    }
  } else {
    end = quotedEnd(source, j);
  }
  // User-defined literal suffix (`"abc"s`, `'x'_c`).
  if (end <= source.length && source[end - 1] === quote && isIdentifierStart(source[end])) {
    end = identifierEnd(source, end);
  }
  return end;
}
