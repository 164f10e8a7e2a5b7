/**
 * A port of CPython 3.11's pure-Python tokenizer (`Lib/tokenize.py`, `generate_tokens` on a `str`
 * source read through `io.StringIO(source).readline`), reduced to what the reward needs: the token
 * strings, minus COMMENT, NL, ENCODING, ENDMARKER, INDENT and DEDENT, with NEWLINE kept (docs/reward.md#normalization-and-tokens).
 *
 * The port is deliberately literal. `tokenize.py` is a regex tokenizer with quirks that the C
 * tokenizer does not share (an f-string is one STRING token; an unmatched character becomes an
 * ERRORTOKEN, including a space in front of it; a stale `needcont` flag survives an unterminated
 * string), and the reward must reproduce them token for token. The regular expressions below are
 * those of `tokenize.py`, translated from Python `re` to JavaScript with three adjustments, each
 * explained where it is made: Python's `.` becomes `[^\n]`, Python's Unicode `\w` becomes an explicit
 * code-point table, and the string-tail patterns are bounded at the end of the physical line.
 *
 * Lines are what `io.StringIO.readline` returns: split after each `"\n"` only (a lone `"\r"` does not
 * end a line), the last one possibly without a terminator. Rather than slicing every line, the
 * tokenizer runs sticky (`y`) regexes over the whole source with `lastIndex`; every pattern used that
 * way cannot cross a `"\n"`, so matching at an offset inside a line sees exactly what Python's
 * `pattern.match(line, pos)` sees (see `PSEUDO_TOKEN` and `SINGLE` for the argument).
 */

/**
 * Raised where `tokenize.generate_tokens` raises: `TokenError` (EOF inside a string or inside a
 * bracketed or backslash-continued statement) or `IndentationError` (a dedent to a column that no
 * enclosing block was indented to).
 */
export class TokenizeError extends Error {
  override readonly name = "TokenizeError";
  /** The Python exception class that `tokenize` raises here. */
  readonly pythonType: "TokenError" | "IndentationError";
  /** 1-based line that Python reports: where the unterminated string starts, one past the last line
   * for an unterminated statement, or the badly dedented line. */
  readonly lineno: number;

  constructor(pythonType: "TokenError" | "IndentationError", message: string, lineno: number) {
    super(message);
    this.pythonType = pythonType;
    this.lineno = lineno;
  }
}

/**
 * Python 3.11's `re` `\w` for `str` patterns: `str.isalnum()` or `"_"`, under Unicode 14.0 (the
 * `unicodedata` of CPython 3.11). JavaScript's `[\p{L}\p{N}_]` is the same set in Unicode 14 but grows
 * with the ICU that Node ships (Node 20 already has Unicode 15+), so the set is pinned here instead:
 * inclusive code-point ranges, each written as `gap.length` in base 36, where `gap` counts the code
 * points since the previous range's end and `length` (omitted when 0) is `end - start`.
 * Generated from CPython 3.11.7; tests/differential/tokenize.test.ts checks it against `python3`.
 */
const WORD_RANGES_ENCODED = [
  "1c.9,7.p,4,1.p,1b,7.1,1,3.1,1.2,1.m,1.u,1.cp,4.b,e.4,7,1,3l.4,1.1,2.3,1,6,1.2,1,1.j,1.2a,1.3u,",
  "8.4l,1.11,2,6.14,1z.q,4.3,19.16,l.9,4.1,1.2q,1,f.1,7.e,2,g,1.t,t.2g,b,e.16,9.1,4,5.l,4,9,3,n.o,",
  "7.a,5.n,1.5,h.15,1m.1h,3,i,7.9,4.9,1.f,4.7,2.1,2.l,1.6,1,3.3,3,g,d.1,1.2,4.b,2.5,2,8.5,4.1,2.l,",
  "1.6,1.1,1.1,1.1,v.3,1,7.9,2.2,g.8,1.2,1.l,1.6,1.1,1.4,3,i,f.1,4.9,9,b.7,2.1,2.l,1.6,1.1,1.4,3,",
  "u.1,1.2,4.9,1.6,b,1.5,3.2,1.3,3.1,1,1.1,3.1,3.2,3.b,m,l.c,i.7,1.2,1.m,1.f,3,q.2,2,2.1,4.9,8.6,1,",
  "4.7,1.2,1.m,1.9,1.4,3,v.1,1.1,4.9,1.1,h.8,1.2,1.14,2,g,5.2,1.9,4.i,1.5,5.h,3.n,1.8,1,2.6,v.9,",
  "h.1b,1.1,c.6,9.9,13.1,1,1.4,1.n,1,1.9,1.1,9,2.4,1,9.9,2.3,w,v.j,c.7,1.z,r.4,37.16,k.a,6.5,4.3,3,",
  "3.1,7.2,4.c,c,1.9,6.11,1,5,2.16,1.98,1.3,2.6,1,1.3,2.14,1.3,2.w,1.3,2.6,1,1.3,2.e,1.1k,1.3,2.1u,",
  "e.j,3.f,g.2d,2.5,3.h7,2.g,1.p,5.22,3.a,7.h,d.i,e.h,e.c,1.2,f.1f,z,4,3.9,6.9,m.9,6.2g,7.4,2.x,1,",
  "5.1x,a.u,13.13,2.4,b.17,4.p,6.a,11.m,9.1g,17.9,6.9,d,2l.1a,h.7,3.9,15.t,d.1j,q.z,s.9,3.1c,2.8,",
  "7.16,2.2,15.3,1.5,1.1,3,5.5b,1s.7p,2.5,2.11,2.5,2.7,1,1,1,1.u,2.1g,1.6,1,3.2,1.6,3.3,2.5,4.c,",
  "5.2,1.6,37.1,2.5,5.a,6.c,2t,4,2.9,1,3.4,6,1,1,1.3,1.a,2.3,5.4,4,1.1l,k6.1n,26.l,hi.t,vg.6c,6.3,",
  "3.1,9,2.11,1,5,2.1j,7,g.m,9.6,1.6,1.6,1.6,1.6,1.6,1.6,1.6,28,d1.2,p.8,7.4,2.4,4.2d,6.2,1.2h,1.3,",
  "5.16,1.2l,3.3,a.v,1c.f,w.9,u.7,1.e,w.9,13.e,8w.533,1s.h3g,1v.19,2.7g,3.r,k.1a,g.u,2.27,13.8,",
  "2.2u,2.1r,5.1,1,1.4,o.f,1.2,1.3,1.m,d.5,a.1f,e.1d,s.9,o.5,3,1.1,1.11,a.m,p.s,7.1a,s.a,6.4,1.o,",
  "1.14,n.2,1.7,4.9,6.m,3,3.1d,1,3.1,2.4,2,1,o.2,2.a,7.2,c.5,2.5,2.5,9.6,1.6,1.16,1.d,6.36,d.9,",
  "6.8mb,c.m,4.1c,6is.a5,2.2x,12.6,c.4,5,1.9,1.c,1.4,1,1.1,1.1,1.2z,x.a2,i.1r,2.1h,14.b,38.4,1.3q,",
  "j.9,7.p,6.p,b.2g,3.5,2.5,2.5,2.2,z.b,1.p,1.i,1.1,1.e,2.d,y.3e,c.18,c.1k,h.1,6s.s,3.1c,g.q,4.z,",
  "9.t,5.11,a.t,2.z,4.7,1.4,16.4d,2.9,6.z,4.z,4.13,8.1f,c.a,1.e,1.6,1.1,1.a,1.e,1.6,1.1,1v.8m,9.l,",
  "a.7,o.5,1.15,1.8,1x.5,2,1.17,1.1,3,2.m,2.u,2.11,8.8,1c.i,1.1,5.w,4.p,1y.1j,4.j,2.1a,f.3,1.2,1.s,",
  "a.8,n.u,1.v,w.7,1.r,6.4,g.1h,a.l,2.q,5.p,n.6,28.20,1j.1e,d.1e,7.15,c.9,86.u,1.15,6.1,26.13,8.l,",
  "b.3,r.h,1a.r,k.m,c.1g,q.t,1.1,2,d.18,w.o,7.9,9.z,f.9,4,2,8.y,3,c.1b,e.3,b.a,1,4.j,b.h,1.o,2c.6,",
  "1,1.3,1.e,1.9,7.1a,h.9,b.7,2.1,2.l,1.6,1.1,1.4,3,i,c.4,4e.1g,i.3,5.9,5.2,u.1b,k.1,1,8.9,4m.1a,",
  "15.3,10.1b,k,b.9,12.16,d,7.9,1i.q,l.b,4.6,55.17,38.2a,c.7,2,2.7,1.1,1.n,f,1,e.9,1y.7,2.12,g,1,s,",
  "a.13,7,l,b.19,j,i.20,7b.8,1.10,h,f.s,5.t,34.6,1.1,1.11,l,9.9,6.5,1.1,1.v,e,7.9,8m.i,59,f.k,",
  "17.pl,2u.32,h.5f,218.2o,f.tq,34h.g6,6nt.fs,7.u,1.9,6.26,1.9,6.t,i.1b,g.3,c.9,1.6,1.k,5.i,j4.2e,",
  "2x.22,5,1u.c,1s.1,1,s.4qf,8.yd,16.8,6w7.3,1.6,1.1,1.82,19.2,h.3,8.az,1s4.2y,5.c,3.8,7.9,4ee.j,",
  "30.o,3r.2c,1.1y,1.1,2,2.1,2.3,1.b,1,1.6,1.1s,1.3,2.7,1.6,1.r,1.3,1.4,1,3.6,1.9f,2.o,1.o,1.u,1.o,",
  "1.u,1.o,1.u,1.o,1.u,1.o,1.7,2.1d,1ds.u,dd.18,a.6,2.9,4,8x.t,i.17,4.9,yu.6,1.3,1.1,1.e,1.5g,2.8,",
  "1c.1v,7,4.9,lz.1m,1.2,1.3,24.18,1.e,5e.3,1.q,1.1,1,2,1.9,1.3,1,1,6,4,1,1,1.2,1.1,1,2,1,1,1,1,",
  "1.1,1,2.3,1.6,1.3,1.3,1,1.9,1.g,5.2,1.4,1.g,g4.c,25f.9,sm.wyn,w.37c,7.65,2.4g1,e.5rk,2e7.f1,",
  "15u.3t6",
].join("");

/** Decoded {@link WORD_RANGES_ENCODED}: inclusive `[start, end]` code-point ranges, ascending. */
export function pythonWordRanges(): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let prevEnd = -1;
  for (const item of WORD_RANGES_ENCODED.split(",")) {
    const dot = item.indexOf(".");
    const gap = Number.parseInt(dot === -1 ? item : item.slice(0, dot), 36);
    const length = dot === -1 ? 0 : Number.parseInt(item.slice(dot + 1), 36);
    const start = prevEnd + 1 + gap;
    ranges.push([start, start + length]);
    prevEnd = start + length;
  }
  return ranges;
}

function codePointEscape(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/** Python's `\w` as a JavaScript character class (for a regex with the `u` flag). */
const WORD_CLASS = `[${pythonWordRanges()
  .map(([a, b]) => (a === b ? codePointEscape(a) : `${codePointEscape(a)}-${codePointEscape(b)}`))
  .join("")}]`;

// --- The patterns of tokenize.py, in its order and with its names. ---------------------------------
// Python's `group()` makes capturing groups; here they are non-capturing except the two that the
// classifier reads (see PSEUDO_TOKEN).

const group = (...choices: string[]): string => `(?:${choices.join("|")})`;
const maybe = (...choices: string[]): string => `${group(...choices)}?`;

const Comment = String.raw`#[^\r\n]*`;
const Name = `${WORD_CLASS}+`;

const Hexnumber = "0[xX](?:_?[0-9a-fA-F])+";
const Binnumber = "0[bB](?:_?[01])+";
const Octnumber = "0[oO](?:_?[0-7])+";
const Decnumber = "(?:0(?:_?0)*|[1-9](?:_?[0-9])*)";
const Intnumber = group(Hexnumber, Binnumber, Octnumber, Decnumber);
const Exponent = "[eE][-+]?[0-9](?:_?[0-9])*";
const Pointfloat =
  group(String.raw`[0-9](?:_?[0-9])*\.(?:[0-9](?:_?[0-9])*)?`, String.raw`\.[0-9](?:_?[0-9])*`) +
  maybe(Exponent);
const Expfloat = `[0-9](?:_?[0-9])*${Exponent}`;
const Floatnumber = group(Pointfloat, Expfloat);
const Imagnumber = group("[0-9](?:_?[0-9])*[jJ]", `${Floatnumber}[jJ]`);
const NumberPattern = group(Imagnumber, Floatnumber, Intnumber);

/**
 * tokenize.py's `Number` as a sticky regex: set `lastIndex` to where a digit (or a dot before a digit)
 * starts a token; the match is the NUMBER token there (normalized-tokens.ts reads numbers with it).
 */
export const NUMBER_TOKEN = new RegExp(NumberPattern, "y");

/** `tokenize._all_string_prefixes()`: "", and every permutation and case variant of b, r, u, f, br, fr. */
function allStringPrefixes(): Set<string> {
  const result = new Set<string>([""]);
  const permutations = (s: string): string[] =>
    s.length <= 1
      ? [s]
      : [...s].flatMap((c, i) => permutations(s.slice(0, i) + s.slice(i + 1)).map((p) => c + p));
  const caseVariants = (s: string): string[] =>
    s === ""
      ? [""]
      : caseVariants(s.slice(1)).flatMap((rest) => [s[0]?.toLowerCase() + rest, s[0]?.toUpperCase() + rest]);
  for (const prefix of ["b", "r", "u", "f", "br", "fr"]) {
    for (const p of permutations(prefix)) for (const v of caseVariants(p)) result.add(v);
  }
  return result;
}

// Python builds this group from a set, in arbitrary order; the order cannot matter, because every
// use of StringPrefix is followed by a quote and no prefix contains a quote, so only the one prefix
// that spans exactly the letters before the quote can lead to a match.
const StringPrefix = group(...[...allStringPrefixes()].sort((a, b) => b.length - a.length));

// Python's `.` (without DOTALL) is "anything but \n"; JavaScript's `.` also refuses \r, \u2028 and
// \u2029, so every `.` of tokenize.py is written `[^\n]`.
const AnyButNewline = String.raw`[^\n]`;

const Triple = group(`${StringPrefix}'''`, `${StringPrefix}"""`);

/** The keys of `token.EXACT_TOKEN_TYPES`: every operator and delimiter string. */
const EXACT_TOKEN_STRINGS = [
  "!= % %= & &= ( ) * ** **= *= + += , - -= -> . ... / // //= /= : := ; < << <<= <= = ==",
  "> >= >> >>= @ @= [ ] ^ ^= { | |= } ~",
]
  .join(" ")
  .split(" ");
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// Sorting in reverse order puts the long operators before their prefixes (tokenize.py's comment), and
// the ordered alternation then takes the longest operator: "**=" before "**" before "*".
const Special = group(
  ...[...EXACT_TOKEN_STRINGS].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).map(escapeRegExp),
);
const Funny = group(String.raw`\r?\n`, Special);

const ContStr = group(
  `${StringPrefix}'[^\\n'\\\\]*(?:\\\\${AnyButNewline}[^\\n'\\\\]*)*${group("'", String.raw`\\\r?\n`)}`,
  `${StringPrefix}"[^\\n"\\\\]*(?:\\\\${AnyButNewline}[^\\n"\\\\]*)*${group('"', String.raw`\\\r?\n`)}`,
);

/**
 * `PseudoToken` minus its leading `Whitespace` (skipped by hand in {@link tokenizeSource}):
 * `group(PseudoExtras, Number, Funny, ContStr, Name)` with `PseudoExtras = \\\r?\n | \Z | Comment |
 * Triple`. Group 1 is Triple and group 2 is ContStr, which is how the classifier tells string
 * openers from names without Python's set look-ups (`token in triple_quoted`, `token[:3] in
 * single_quoted`): Triple is tried before ContStr and ContStr before Name, and a name never holds a
 * quote, so the group that matched decides the same branch those look-ups do.
 *
 * Python's `\Z` (end of the line string) is `$` without the `m` flag (end of the source): a match is
 * only ever attempted at an offset inside the current line, and the only way to reach the line's end
 * without crossing its `"\n"` is on a last line that has none, whose end is the source's end. No
 * alternative can consume a `"\n"` except as its final character, so a match never runs into the next
 * line.
 */
const PSEUDO_TOKEN = new RegExp(
  group(String.raw`\\\r?\n|$`, Comment, `(${Triple})`, NumberPattern, Funny, `(${ContStr})`, Name),
  "uy",
);

// Tails of strings (`endpats`), matched from just after the opening quotes or from the start of a
// continuation line. In Python they run on one line, and `[^'\\]` may eat the line's final "\n" only to
// fail for want of a closing quote: a successful match never contains "\n". Adding "\n" to the negated
// classes keeps them from running into the next line of the whole source while accepting exactly the
// same matches.
const tail = (q: string): string => `[^${q}\\\\\\n]*(?:\\\\${AnyButNewline}[^${q}\\\\\\n]*)*${q}`;
const tail3 = (q: string): string =>
  `[^${q}\\\\\\n]*(?:(?:\\\\${AnyButNewline}|${q}(?!${q}${q}))[^${q}\\\\\\n]*)*${q}${q}${q}`;
const SINGLE = new RegExp(tail("'"), "uy");
const DOUBLE = new RegExp(tail('"'), "uy");
const SINGLE3 = new RegExp(tail3("'"), "uy");
const DOUBLE3 = new RegExp(tail3('"'), "uy");

const TABSIZE = 8;

const CH_TAB = 0x09;
const CH_LF = 0x0a;
const CH_FF = 0x0c;
const CH_CR = 0x0d;
const CH_SPACE = 0x20;
const CH_HASH = 0x23;
const CH_SQUOTE = 0x27;
const CH_DOT = 0x2e;
const CH_0 = 0x30;
const CH_9 = 0x39;
const CH_BACKSLASH = 0x5c;

/** `str.isspace()` for the characters `str.strip()` removes (differs from JavaScript's `trim`). */
function isPythonSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    (c >= 0x1c && c <= 0x20) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/**
 * The body of `tokenize._tokenize`, one physical line per outer iteration, with the same variables.
 * Kept tokens go to `tokens`, their start offsets (UTF-16 indices into `source`) to `starts`.
 */
function tokenizeSource(source: string, tokens: string[], starts: number[]): void {
  const n = source.length;
  const emit = (start: number, end: number): void => {
    tokens.push(source.slice(start, end));
    starts.push(start);
  };

  let lnum = 0;
  let parenlev = 0;
  let continued = false;
  // `contstr` is always the source from the string's start to the end of the lines read so far, so it
  // is kept as that start offset (-1 when Python's contstr is '').
  let contStart = -1;
  let contLnum = 0;
  // Like Python's `needcont`, set for single-quoted strings continued by a backslash and cleared only
  // when a continued string ends normally: a later multi-line triple-quoted string inherits a stale 1.
  let needcont = false;
  let endprog = SINGLE;
  const indents = [0];

  // The current line is source[lineStart, lineEnd); the previous one (`last_line`) is kept for the
  // implicit NEWLINE at the end. Both start empty, like Python's `line = last_line = ''`.
  let lineStart = 0;
  let lineEnd = 0;
  let lastLineStart = 0;
  let lastLineEnd = 0;

  for (;;) {
    lastLineStart = lineStart;
    lastLineEnd = lineEnd;
    lineStart = lineEnd;
    if (lineStart < n) {
      const newline = source.indexOf("\n", lineStart);
      lineEnd = newline === -1 ? n : newline + 1;
    }
    lnum += 1;
    const max = lineEnd;
    const eof = lineStart === lineEnd;
    let pos = lineStart;

    if (contStart >= 0) {
      // Continued string.
      if (eof) throw new TokenizeError("TokenError", "EOF in multi-line string", contLnum);
      endprog.lastIndex = lineStart;
      if (endprog.test(source)) {
        pos = endprog.lastIndex;
        emit(contStart, pos);
        contStart = -1;
        needcont = false;
      } else if (needcont && !endsWithBackslashNewline(source, lineStart, lineEnd)) {
        // ERRORTOKEN contstr + line; the rest of this line is not tokenized.
        emit(contStart, lineEnd);
        contStart = -1;
        continue;
      } else {
        continue;
      }
    } else if (parenlev === 0 && !continued) {
      // New statement.
      if (eof) break;
      let column = 0;
      while (pos < max) {
        const c = source.charCodeAt(pos);
        if (c === CH_SPACE) column += 1;
        else if (c === CH_TAB) column = (Math.floor(column / TABSIZE) + 1) * TABSIZE;
        else if (c === CH_FF) column = 0;
        else break;
        pos += 1;
      }
      if (pos === max) break;

      const c = source.charCodeAt(pos);
      if (c === CH_HASH || c === CH_CR || c === CH_LF) continue; // COMMENT and NL, both dropped

      // INDENT and DEDENT are dropped, but the stack decides IndentationError.
      if (column > (indents[indents.length - 1] as number)) indents.push(column);
      while (column < (indents[indents.length - 1] as number)) {
        if (!indents.includes(column)) {
          throw new TokenizeError(
            "IndentationError",
            "unindent does not match any outer indentation level",
            lnum,
          );
        }
        indents.pop();
      }
    } else {
      // Continued statement.
      if (eof) throw new TokenizeError("TokenError", "EOF in multi-line statement", lnum);
      continued = false;
    }

    while (pos < max) {
      // PseudoToken's leading Whitespace. No alternative after it starts with a space, tab or form
      // feed, so backtracking into it never helps and skipping it by hand is equivalent.
      let start = pos;
      for (;;) {
        const c = source.charCodeAt(start);
        if (c !== CH_SPACE && c !== CH_TAB && c !== CH_FF) break;
        start += 1;
      }
      PSEUDO_TOKEN.lastIndex = start;
      const match = PSEUDO_TOKEN.exec(source);
      if (match === null) {
        // Python yields ERRORTOKEN line[pos] (one code point) and retries at pos + 1. When pos is
        // whitespace, the retry skips to the same `start` and fails the same way, so each whitespace
        // character before the unmatchable one is an ERRORTOKEN of its own; emitting them all at once
        // gives the same tokens without Python's quadratic rescans of a long run of blanks.
        for (; pos < start; pos++) emit(pos, pos + 1);
        const cp = source.codePointAt(pos) as number;
        const next = pos + (cp > 0xffff ? 2 : 1);
        emit(pos, next);
        pos = next;
        continue;
      }
      const token = match[0];
      const end = start + token.length;
      pos = end;
      if (start === end) continue; // \Z

      const initial = token.charCodeAt(0);
      if ((initial >= CH_0 && initial <= CH_9) || (initial === CH_DOT && token !== "." && token !== "...")) {
        emit(start, end); // NUMBER
      } else if (initial === CH_CR || initial === CH_LF) {
        if (parenlev <= 0) emit(start, end); // NEWLINE (NL inside brackets is dropped)
      } else if (initial === CH_HASH) {
        // COMMENT, dropped
      } else if (match[1] !== undefined) {
        // Opening triple quotes.
        endprog = token.charCodeAt(token.length - 1) === CH_SQUOTE ? SINGLE3 : DOUBLE3;
        endprog.lastIndex = pos;
        if (endprog.test(source)) {
          pos = endprog.lastIndex;
          emit(start, pos); // STRING, all on one line
        } else {
          contStart = start; // multiple lines: the rest of this line starts contstr
          contLnum = lnum;
          break;
        }
      } else if (match[2] !== undefined) {
        if (token.charCodeAt(token.length - 1) === CH_LF) {
          // A single-quoted string continued with a backslash-newline.
          contStart = start;
          contLnum = lnum;
          endprog = firstQuote(token) === CH_SQUOTE ? SINGLE : DOUBLE;
          needcont = true;
          break;
        }
        emit(start, end); // STRING
      } else if (initial === CH_BACKSLASH) {
        continued = true; // backslash-newline, not a token
      } else {
        // NAME, OP, or a `\w+` run that is not an identifier (e.g. "²"), which tokenize calls OP.
        if (initial === 0x28 || initial === 0x5b || initial === 0x7b) parenlev += 1;
        else if (initial === 0x29 || initial === 0x5d || initial === 0x7d) parenlev -= 1;
        emit(start, end);
      }
    }
  }

  // Add an implicit NEWLINE (with an empty string) if the input doesn't end in one.
  if (lastLineEnd > lastLineStart) {
    const last = source.charCodeAt(lastLineEnd - 1);
    if (last !== CH_CR && last !== CH_LF && !strippedStartsWithHash(source, lastLineStart, lastLineEnd)) {
      tokens.push("");
      starts.push(lastLineEnd);
    }
  }
}

/** `line[-2:] == '\\\n' or line[-3:] == '\\\r\n'`. */
function endsWithBackslashNewline(source: string, lineStart: number, lineEnd: number): boolean {
  if (lineEnd - lineStart >= 2 && source.charCodeAt(lineEnd - 1) === CH_LF) {
    const before = source.charCodeAt(lineEnd - 2);
    if (before === CH_BACKSLASH) return true;
    return before === CH_CR && lineEnd - lineStart >= 3 && source.charCodeAt(lineEnd - 3) === CH_BACKSLASH;
  }
  return false;
}

/** `line.strip().startswith("#")`. */
function strippedStartsWithHash(source: string, lineStart: number, lineEnd: number): boolean {
  let i = lineStart;
  while (i < lineEnd && isPythonSpace(source.charCodeAt(i))) i += 1;
  return i < lineEnd && source.charCodeAt(i) === CH_HASH;
}

/** The quote character that ends a string prefix (`endpats.get(initial) or endpats.get(token[1]) ...`). */
function firstQuote(token: string): number {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c === CH_SQUOTE || c === 0x22) return c;
  }
  return 0x22;
}

/**
 * Token strings of CPython 3.11 `tokenize.generate_tokens(io.StringIO(source).readline)`, minus
 * COMMENT, NL, ENCODING, ENDMARKER, INDENT and DEDENT; NEWLINE kept (its string is the line ending,
 * `"\n"` or `"\r\n"`, or `""` for the NEWLINE tokenize adds when the source does not end in one).
 * ERRORTOKEN strings are kept too, as tokenize yields them.
 * @throws {TokenizeError} where tokenize raises `TokenError` or `IndentationError`.
 */
export function pythonTokens(source: string): string[] {
  return pythonTokensWithOffsets(source).tokens;
}

/**
 * {@link pythonTokens}, with the offset (UTF-16 index into `source`) where each kept token starts;
 * the final empty NEWLINE starts at `source.length`.
 * @throws {TokenizeError} where tokenize raises `TokenError` or `IndentationError`.
 */
export function pythonTokensWithOffsets(source: string): { tokens: string[]; starts: number[] } {
  const tokens: string[] = [];
  const starts: number[] = [];
  tokenizeSource(source, tokens, starts);
  return { tokens, starts };
}
