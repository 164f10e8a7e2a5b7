/**
 * Python 3.11 literals: decoding source tokens into constant values, and `repr()` of constants, exactly
 * as CPython does it. The decoder follows Parser/tokenizer.c (number syntax), Parser/string_parser.c,
 * Objects/unicodeobject.c and Objects/bytesobject.c (escapes); the repr functions follow
 * Objects/unicodeobject.c, Objects/bytesobject.c, Python/pystrtod.c and Objects/complexobject.c.
 *
 * Strings are JavaScript strings: a Python `str` is a sequence of code points, which we hold as UTF-16
 * (a lone surrogate stays a lone code unit). Two separate surrogate code points that UTF-16 would read
 * as one astral character are kept apart by {@link STR_SEPARATOR} (see `Constant` in ast.ts). Bytes
 * are strings of code units 0–255.
 */
import type { ConstantValue } from "./ast.js";
import { PySyntaxError } from "./syntax-error.js";
import { lookupUnicodeName } from "./unicode-names.js";
import { isPrintable } from "./unicode-printable.js";

/**
 * CPython 3.11's default `sys.get_int_max_str_digits()` (CVE-2020-10735): decimal ↔ int conversions
 * of more digits raise, both when a decimal literal is compiled and when `repr()` prints an int.
 */
export const INT_MAX_STR_DIGITS = 4300;

// ---------------------------------------------------------------------------------------------------
// Separate surrogate code points
// ---------------------------------------------------------------------------------------------------

/**
 * The code unit that keeps two Python code points apart where UTF-16 would merge them: a high
 * surrogate code point followed by a low surrogate code point (`'\ud800\udc80'` is two code points
 * in Python, but "\ud800\udc80" is one astral character in JavaScript). U+FFFF is a noncharacter;
 * it is a separator only directly after a high surrogate unit and directly before a low surrogate
 * unit or another U+FFFF. A real U+FFFF after a lone high surrogate gets a separator too, so that
 * every Python str has exactly one spelling: `'\ud800\uffff'` is "\ud800\uffff\uffff".
 */
export const STR_SEPARATOR = "\uffff";

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * Whether the unit at `i` of a str value is a {@link STR_SEPARATOR} (prints nothing, counts as no
 * code point) rather than a real U+FFFF.
 */
function isSeparatorAt(value: string, i: number): boolean {
  if (value.charCodeAt(i) !== 0xffff || !isHigh(value.charCodeAt(i - 1))) return false;
  const next = value.charCodeAt(i + 1);
  return isLow(next) || next === 0xffff;
}

/**
 * Python's `"".join(parts)` for str values in the AST convention: where one part ends with a (lone)
 * high surrogate and the next starts with a low surrogate or U+FFFF, those are separate code points
 * and get a {@link STR_SEPARATOR} between them. Used for implicit concatenation (`'\ud800' '\udc80'`)
 * and for the literal pieces of f-strings.
 */
export function joinPythonStr(parts: readonly string[]): string {
  let out = "";
  for (const part of parts) out = appendPythonStr(out, part);
  return out;
}

function appendPythonStr(out: string, part: string): string {
  // A high surrogate at the very end of `out` has no partner, so it is a code point of its own.
  const first = part.charCodeAt(0);
  return isHigh(out.charCodeAt(out.length - 1)) && (isLow(first) || first === 0xffff)
    ? out + STR_SEPARATOR + part
    : out + part;
}

// ---------------------------------------------------------------------------------------------------
// repr
// ---------------------------------------------------------------------------------------------------

/** Python's `repr(str)`: the quote is `'` unless the text has a `'` and no `"`. */
export function reprStr(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (let i = 0; i < value.length; i++) {
    let cp = value.charCodeAt(i);
    if (isHigh(cp) && i + 1 < value.length) {
      const low = value.charCodeAt(i + 1);
      if (isLow(low)) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        i++;
      } else if (isSeparatorAt(value, i + 1)) {
        // Skip the separator: the high surrogate is printed alone, the next code point after it.
        i++;
      }
    }
    if (cp < 0x7f) {
      if (cp === 0x5c || cp === quote.charCodeAt(0)) out += `\\${String.fromCharCode(cp)}`;
      else if (cp === 0x09) out += "\\t";
      else if (cp === 0x0a) out += "\\n";
      else if (cp === 0x0d) out += "\\r";
      else if (cp < 0x20) out += `\\x${hex(cp, 2)}`;
      else out += String.fromCharCode(cp);
    } else if (isPrintable(cp)) {
      out += String.fromCodePoint(cp);
    } else if (cp <= 0xff) {
      out += `\\x${hex(cp, 2)}`;
    } else if (cp <= 0xffff) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return out + quote;
}

/** Python's `repr(bytes)` for a string of code units 0–255. */
export function reprBytes(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = `b${quote}`;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0xff) throw new RangeError(`bytes value holds code unit ${c} > 255`);
    if (c === 0x5c || c === quote.charCodeAt(0)) out += `\\${String.fromCharCode(c)}`;
    else if (c === 0x09) out += "\\t";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c < 0x20 || c >= 0x7f) out += `\\x${hex(c, 2)}`;
    else out += String.fromCharCode(c);
  }
  return out + quote;
}

/**
 * Python's `repr(float)`: the shortest digits that round-trip (JavaScript picks the same ones), laid
 * out by `PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0)`.
 */
export function reprFloat(value: number): string {
  return formatRepr(value, true);
}

/**
 * `repr()` of the complex constant `imag`j, i.e. `complex(0, imag)`. With a real part of +0.0 CPython
 * prints only the imaginary part, without parentheses and without `.0` (`1j`, `2.5j`, `1e+16j`, `infj`).
 */
export function reprComplex(imag: number): string {
  return `${formatRepr(imag, false)}j`;
}

/**
 * Python's `repr(int)` for a decimal digit string. Like CPython, refuses more than
 * {@link INT_MAX_STR_DIGITS} digits (there `ast.unparse` raises `ValueError`); throws a `RangeError`.
 */
export function reprInt(decimal: string): string {
  if (!/^-?[0-9]+$/.test(decimal)) throw new RangeError(`not a decimal integer: ${decimal}`);
  const digits = decimal.length - (decimal.startsWith("-") ? 1 : 0);
  if (digits > INT_MAX_STR_DIGITS) {
    throw new RangeError(
      `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`,
    );
  }
  return decimal;
}

/** Python/pystrtod.c `format_float_short` in mode 'r'. */
function formatRepr(x: number, addDot0: boolean): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Number.POSITIVE_INFINITY) return "inf";
  if (x === Number.NEGATIVE_INFINITY) return "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return addDot0 ? `${sign}0.0` : `${sign}0`;
  // toExponential() without an argument yields the shortest round-trip digits, as dtoa mode 0 does.
  const [mantissa = "", exponent = ""] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  // Decimal point position: value = 0.<digits> × 10^decpt (dtoa's convention).
  const decpt = Number(exponent) + 1;
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${body}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) {
    return `${sign}${digits}${"0".repeat(decpt - digits.length)}${addDot0 ? ".0" : ""}`;
  }
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

// ---------------------------------------------------------------------------------------------------
// Number literals
// ---------------------------------------------------------------------------------------------------

// The Python 3.11 lexical grammar (Doc/reference/lexical_analysis.rst), as Parser/tokenizer.c applies it.
const DIGITS = "[0-9](?:_?[0-9])*";
const POINT_FLOAT = `(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.)`;
const EXPONENT = `[eE][+-]?${DIGITS}`;
const FLOAT = `(?:${POINT_FLOAT}(?:${EXPONENT})?|${DIGITS}${EXPONENT})`;
const FLOAT_RE = new RegExp(`^${FLOAT}$`);
const IMAGINARY_RE = new RegExp(`^(?:${FLOAT}|${DIGITS})[jJ]$`);
const DECIMAL_RE = /^(?:[1-9](?:_?[0-9])*|0(?:_?0)*)$/;
const RADIX_RE: Record<string, { re: RegExp; digit: RegExp; name: string }> = {
  x: { re: /^0[xX](?:_?[0-9a-fA-F])+$/, digit: /[0-9a-fA-F]/, name: "hexadecimal" },
  o: { re: /^0[oO](?:_?[0-7])+$/, digit: /[0-7]/, name: "octal" },
  b: { re: /^0[bB](?:_?[01])+$/, digit: /[01]/, name: "binary" },
};

/**
 * The value of a Python 3.11 NUMBER token. Ints of any size become decimal strings; floats and the
 * imaginary part of `...j` literals are rounded as CPython's `float()` rounds (correctly, as does
 * JavaScript's `Number()` on the same digits). Throws {@link PySyntaxError} where CPython rejects the
 * token, including decimal ints over {@link INT_MAX_STR_DIGITS} digits.
 */
export function parseNumberLiteral(text: string): ConstantValue {
  const radix = /^0([xXoObB])/.exec(text)?.[1]?.toLowerCase();
  if (radix !== undefined) {
    const spec = RADIX_RE[radix] as (typeof RADIX_RE)[string];
    if (!spec.re.test(text)) {
      const bad = [...text.slice(2)].find((c) => c !== "_" && !spec.digit.test(c));
      const message =
        bad !== undefined && /[0-9]/.test(bad)
          ? `invalid digit '${bad}' in ${spec.name} literal`
          : `invalid ${spec.name} literal`;
      throw new PySyntaxError(message, 0);
    }
    const value = BigInt(`0${radix}${text.slice(2).replaceAll("_", "")}`);
    return { kind: "int", value: value.toString() };
  }
  if (DECIMAL_RE.test(text)) {
    const digits = text.replaceAll("_", "").replace(/^0+(?=.)/, "");
    if (digits.length > INT_MAX_STR_DIGITS) {
      throw new PySyntaxError(
        `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits.length} digits; use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to avoid decimal conversions.`,
        0,
      );
    }
    return { kind: "int", value: digits };
  }
  if (IMAGINARY_RE.test(text)) {
    return { kind: "complex", imag: Number(text.slice(0, -1).replaceAll("_", "")) };
  }
  if (FLOAT_RE.test(text)) return { kind: "float", value: Number(text.replaceAll("_", "")) };
  if (new RegExp(`^${DIGITS}$`).test(text)) {
    throw new PySyntaxError(
      "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
      0,
    );
  }
  throw new PySyntaxError(/[jJ]/.test(text) ? "invalid imaginary literal" : "invalid decimal literal", 0);
}

// ---------------------------------------------------------------------------------------------------
// String literals
// ---------------------------------------------------------------------------------------------------

/**
 * Splits one string token (`rb'''x'''`, `F"a{b}"`) into its prefix (lower-cased), its quote (`'`, `"`,
 * `'''` or `"""`) and the body between the quotes. Like the tokenizer, an opening `'''` makes the
 * literal triple-quoted. Throws {@link PySyntaxError} when the text is not one complete literal.
 */
export function splitStringLiteral(text: string): { prefix: string; quote: string; body: string } {
  const { prefix, quote } = splitStringStart(text);
  const start = prefix.length + quote.length;
  const end = text.length - quote.length;
  if (end < start || !text.endsWith(quote)) {
    throw new PySyntaxError(
      quote.length === 3 ? "unterminated triple-quoted string literal" : "unterminated string literal",
      prefix.length,
    );
  }
  return { prefix, quote, body: text.slice(start, end) };
}

/**
 * The prefix (lower-cased) and quote of a string literal from its opening alone, e.g. tree-sitter's
 * `string_start` token (`rb'''`). Does not check the prefix letters: callers decide which they allow.
 */
export function splitStringStart(text: string): { prefix: string; quote: string } {
  const prefix = /^[A-Za-z]*/.exec(text)?.[0] ?? "";
  const q = text[prefix.length];
  if (q !== "'" && q !== '"') throw new PySyntaxError("not a string literal", prefix.length);
  const quote = text.startsWith(q.repeat(3), prefix.length) ? q.repeat(3) : q;
  return { prefix: prefix.toLowerCase(), quote };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/**
 * The value of a string or bytes literal from the text between its quotes, as CPython 3.11 decodes
 * it. Newlines `\r\n` and `\r` become `\n` first (CPython's tokenizer translates them in the whole
 * source). Unknown escapes such as `\d` stay as written (CPython only warns). Bytes come back as
 * code units 0–255. Throws {@link PySyntaxError} (offset = index in `body`) for what CPython rejects:
 * truncated `\x`/`\u`/`\U`, code points above U+10FFFF, unknown or malformed `\N{...}`, non-ASCII
 * characters in bytes, NUL characters. A str value follows the {@link STR_SEPARATOR} convention:
 * a surrogate code point from an escape never merges with its neighbour (`\ud800\udc80` stays two
 * code points), while astral characters, from the source or from `\U0001xxxx`, are ordinary pairs.
 */
export function decodeStringBody(body: string, flags: { bytes: boolean; raw: boolean }): string {
  const nul = body.indexOf("\0");
  if (nul >= 0) throw new PySyntaxError("source code string cannot contain null bytes", nul);
  if (flags.bytes) {
    const wide = /[\u0080-\uffff]/.exec(body);
    if (wide !== null) throw new PySyntaxError("bytes can only contain ASCII literal characters", wide.index);
  }
  if (flags.raw) return body.replace(/\r\n?/g, "\n");
  return flags.bytes ? decodeBytesEscapes(body) : decodeStrEscapes(body);
}

/** `_PyUnicode_DecodeUnicodeEscapeInternal`, after string_parser.c's `decode_unicode_with_escapes`. */
function decodeStrEscapes(body: string): string {
  let out = "";
  let i = 0;
  while (i < body.length) {
    const backslash = body.indexOf("\\", i);
    const stop = backslash < 0 ? body.length : backslash;
    if (stop > i) out = appendPythonStr(out, normalizeNewlines(body.slice(i, stop)));
    if (backslash < 0) break;
    i = backslash + 1;
    const c = body[i];
    // decode_unicode_with_escapes turns a backslash before a non-ASCII character (or at the very end)
    // into a literal backslash; the character itself is then read as usual.
    if (c === undefined || c.charCodeAt(0) >= 0x80) {
      out += "\\";
      continue;
    }
    i++;
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      out += simple;
    } else if (c === "\n") {
      // Line continuation inside the literal.
    } else if (c === "\r") {
      if (body[i] === "\n") i++;
    } else if (c >= "0" && c <= "7") {
      const octal = /^[0-7]{1,2}/.exec(body.slice(i, i + 2))?.[0] ?? "";
      i += octal.length;
      // Up to 0o777: CPython 3.11 keeps values above 0o377 (3.12 starts warning about them).
      out += String.fromCharCode(Number.parseInt(c + octal, 8));
    } else if (c === "x" || c === "u" || c === "U") {
      const count = c === "x" ? 2 : c === "u" ? 4 : 8;
      const digits = body.slice(i, i + count);
      if (!new RegExp(`^[0-9a-fA-F]{${count}}$`).test(digits)) {
        throw unicodeEscapeError(backslash, body, `truncated \\${c}${"X".repeat(count)} escape`);
      }
      const cp = Number.parseInt(digits, 16);
      if (cp > 0x10ffff) throw unicodeEscapeError(backslash, body, "illegal Unicode character");
      i += count;
      // `\ud800\udc80` is two code points: appendPythonStr keeps them from merging.
      out = appendPythonStr(out, String.fromCodePoint(cp));
    } else if (c === "N") {
      const close = body[i] === "{" ? body.indexOf("}", i + 1) : -1;
      if (close <= i + 1) throw unicodeEscapeError(backslash, body, "malformed \\N character escape");
      const cp = lookupUnicodeName(body.slice(i + 1, close));
      if (cp === undefined) throw unicodeEscapeError(backslash, body, "unknown Unicode character name");
      i = close + 1;
      out = appendPythonStr(out, String.fromCodePoint(cp));
    } else {
      out += `\\${c}`;
    }
  }
  return out;
}

/** `_PyBytes_DecodeEscape`: like str, but no `\u`, `\U`, `\N`, and octal values wrap modulo 256. */
function decodeBytesEscapes(body: string): string {
  let out = "";
  let i = 0;
  while (i < body.length) {
    const backslash = body.indexOf("\\", i);
    const stop = backslash < 0 ? body.length : backslash;
    if (stop > i) out += normalizeNewlines(body.slice(i, stop));
    if (backslash < 0) break;
    i = backslash + 1;
    const c = body[i];
    if (c === undefined) throw new PySyntaxError("(value error) Trailing \\ in string", backslash);
    i++;
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      out += simple;
    } else if (c === "\n") {
      // Line continuation inside the literal.
    } else if (c === "\r") {
      if (body[i] === "\n") i++;
    } else if (c >= "0" && c <= "7") {
      const octal = /^[0-7]{1,2}/.exec(body.slice(i, i + 2))?.[0] ?? "";
      i += octal.length;
      // CPython stores the value into an unsigned char: b'\777' == b'\xff', b'\400' == b'\x00'.
      out += String.fromCharCode(Number.parseInt(c + octal, 8) & 0xff);
    } else if (c === "x") {
      const digits = body.slice(i, i + 2);
      if (!/^[0-9a-fA-F]{2}$/.test(digits)) {
        throw new PySyntaxError(`(value error) invalid \\x escape at position ${backslash}`, backslash);
      }
      i += 2;
      out += String.fromCharCode(Number.parseInt(digits, 16));
    } else {
      // Unknown escape: the backslash stays and the next character is read again as plain text.
      out += "\\";
      i--;
    }
  }
  return out;
}

function normalizeNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

function unicodeEscapeError(start: number, body: string, reason: string): PySyntaxError {
  // CPython reports the byte range of the bad escape; we report the backslash's index.
  const end = Math.min(body.length, start + 1);
  return new PySyntaxError(
    `(unicode error) 'unicodeescape' codec can't decode bytes in position ${start}-${end}: ${reason}`,
    start,
  );
}
