/**
 * Differential tests of src/core/python/literals.ts against CPython 3.11 (the `python3` on PATH).
 *
 * All inputs are generated up front from a seeded PRNG and sent to ONE python3 process (JSON on stdin,
 * JSON on stdout); each test then compares our result with CPython's, exactly.
 */
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import type { ConstantValue } from "../../src/core/python/ast.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import {
  decodeStringBody,
  INT_MAX_STR_DIGITS,
  joinPythonStr,
  parseNumberLiteral,
  reprBytes,
  reprComplex,
  reprFloat,
  reprInt,
  reprStr,
  STR_SEPARATOR,
  splitStringLiteral,
  splitStringStart,
} from "../../src/core/python/literals.js";
import { parsePython } from "../../src/core/python/parse.js";
import { PySyntaxError } from "../../src/core/python/syntax-error.js";
import { lookupUnicodeName, unicodeNameTable } from "../../src/core/python/unicode-names.js";
import { isPrintable } from "../../src/core/python/unicode-printable.js";
import { unparse } from "../../src/core/python/unparse.js";

const ORACLE = String.raw`
import ast, json, re, struct, sys, unicodedata, warnings
assert sys.version_info[:2] == (3, 11), sys.version
warnings.simplefilter("ignore")  # invalid escapes only warn in 3.11; never let a filter turn them into errors
sys.set_int_max_str_digits(0)    # the oracle itself must print huge ints; number() restores the limit to parse

req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
bits = lambda x: struct.pack(">d", x).hex()
out = {}

# The STR_SEPARATOR convention of ast.ts (JSON, like JavaScript, merges "\ud800\udc80" into one
# character): U+FFFF after a high surrogate and before a low surrogate or U+FFFF.
SEPARATOR_AT = re.compile("(?<=[\ud800-\udbff])(?=[\udc00-\udfff\uffff])")
SEPARATOR = re.compile("(?<=[\ud800-\udbff])\uffff(?=[\udc00-\udfff\uffff])")
separate = lambda s: SEPARATOR_AT.sub("\uffff", s)
unseparate = lambda s: SEPARATOR.sub("", s)

floats = [struct.unpack(">d", bytes.fromhex(h))[0] for h in req["floats"]]
out["floats"] = [[repr(x), repr(complex(0, x))] for x in floats]
out["strs"] = [repr(unseparate(s)) for s in req["strs"]]
out["bytes"] = [repr(s.encode("latin-1")) for s in req["bytes"]]
out["ints"] = [repr(int(s)) for s in req["ints"]]

def number(text):
    sys.set_int_max_str_digits(4300)  # CPython's default, which applies when a literal is compiled
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        return {"t": "error", "m": e.msg}
    if not isinstance(node, ast.Constant):
        return {"t": "other"}
    v = node.value
    if isinstance(v, bool) or v is None:
        return {"t": "other"}
    if isinstance(v, int):
        sys.set_int_max_str_digits(0)
        return {"t": "int", "v": str(v)}
    if isinstance(v, float):
        return {"t": "float", "v": bits(v)}
    if isinstance(v, complex):
        return {"t": "complex", "v": bits(v.imag), "re": bits(v.real)}
    return {"t": "other"}
out["numbers"] = [number(t) for t in req["numbers"]]

def literal(src):
    try:
        node = ast.parse(src, mode="eval").body
    except SyntaxError as e:
        return {"e": e.msg}
    if not isinstance(node, ast.Constant):
        return {"e": "not a constant: " + type(node).__name__}
    v = node.value
    return {"v": v.decode("latin-1") if isinstance(v, bytes) else separate(v)}
out["bodies"] = [literal(p + q + b + q) for p, q, b in req["bodies"]]
out["lookups"] = [literal('"\\N{' + n + '}"') for n in req["lookups"]]

# Separate surrogate code points: implicitly concatenated literals, code point sequences, whole modules.
def with_repr(lit):
    return {**lit, "r": repr(unseparate(lit["v"]))} if "v" in lit else lit
out["sepTokens"] = [with_repr(literal(" ".join(tokens))) for tokens in req["sepTokens"]]
out["sepCodePoints"] = [[separate(s), repr(s)] for s in ("".join(map(chr, cps)) for cps in req["sepCodePoints"])]
def unparsed(src):
    try:
        return {"v": ast.unparse(ast.parse(src))}
    except SyntaxError as e:
        return {"e": e.msg}
out["sepSources"] = [unparsed(src) for src in req["sepSources"]]

# Every code point: printable or not, and its name where it has one.
non_printable = []
start = None
for cp in range(0x110000):
    p = chr(cp).isprintable()
    if not p and start is None:
        start = cp
    elif p and start is not None:
        non_printable.append([start, cp]); start = None
if start is not None:
    non_printable.append([start, 0x110000])
out["nonPrintable"] = non_printable
out["names"] = [[cp, n] for cp in range(0x110000) if (n := unicodedata.name(chr(cp), None)) is not None]
out["reprAll"] = "\n".join(repr(chr(cp)) for cp in range(0x110000))
sys.stdout.write(json.dumps(out, ensure_ascii=True))
`;

type NumberValue =
  | { t: "int"; v: string }
  | { t: "float"; v: string }
  | { t: "complex"; v: string; re: string };
type OracleNumber = NumberValue | { t: "error"; m: string } | { t: "other" };
type OracleLiteral = { v: string } | { e: string };
type OracleOutput = {
  floats: [string, string][];
  strs: string[];
  bytes: string[];
  ints: string[];
  numbers: OracleNumber[];
  bodies: OracleLiteral[];
  lookups: OracleLiteral[];
  sepTokens: ({ v: string; r: string } | { e: string })[];
  sepCodePoints: [string, string][];
  sepSources: OracleLiteral[];
  nonPrintable: [number, number][];
  names: [number, string][];
  reprAll: string;
};

/** mulberry32: a tiny seeded PRNG, so every run sees the same inputs. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(0x11_2024);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;

// --- doubles <-> bits -------------------------------------------------------------------------
const view = new DataView(new ArrayBuffer(8));
function toBits(x: number): string {
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
}
function fromBits(hex: string): number {
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}
function randomBits(): string {
  return Array.from({ length: 4 }, () => int(0x10000).toString(16).padStart(4, "0")).join("");
}

function floatInputs(): string[] {
  const xs: number[] = [0, -0, Infinity, -Infinity, Number.NaN, 5e-324, -5e-324, Number.MAX_VALUE];
  xs.push(Number.MIN_VALUE * 3, 2.2250738585072014e-308, 2.225073858507201e-308, 0.1, 0.3, 1 / 3);
  for (let e = -330; e <= 310; e++) {
    const p = Number(`1e${e}`);
    xs.push(p, -p, p * 1.5, p * (1 + Number.EPSILON), p * (1 - Number.EPSILON / 2), 9.999999999999998 * p);
  }
  for (let i = 0; i < 2000; i++) {
    xs.push(int(2 ** 20) * 10 ** int(18), Math.round(rand() * 2 ** 53) * (rand() < 0.5 ? 1 : -1));
    xs.push(rand() * 10 ** (int(40) - 20), (rand() - 0.5) * 2 ** (int(2100) - 1074));
  }
  for (const m of [1, 2, 3, 5, 7, 9, 11, 123456789]) {
    for (const e of [-6, -5, -4, -3, 14, 15, 16, 17]) xs.push(m * 10 ** e, Number(`${m}e${e}`));
  }
  const hexes = xs.map(toBits);
  for (let i = 0; i < 12000; i++) hexes.push(randomBits());
  return hexes;
}

// --- strings ------------------------------------------------------------------------------------
const INTERESTING_RANGES: [number, number][] = [
  [0x00, 0x80], // ASCII incl. controls, quotes, backslash
  [0x80, 0x100], // C1 controls, NBSP, soft hyphen
  [0x300, 0x370], // combining marks
  [0x2000, 0x2070], // spaces, zero-width, bidi controls, LS/PS
  [0xd800, 0xe000], // surrogates
  [0xe000, 0xe010], // private use
  [0xfe00, 0x10000], // variation selectors, BOM, specials, noncharacters
  [0x1f300, 0x1fb00], // emoji, incl. ones assigned after Unicode 14.0
  [0x1e000, 0x1f000], // scripts added in 15.0–17.0
  [0x31350, 0x323b0], // CJK extension H (15.0)
  [0xe0000, 0xe0080], // tags
  [0x10fff0, 0x110000],
];
function randomCodePoint(): number {
  if (rand() < 0.25) return int(0x110000);
  const [lo, hi] = pick(INTERESTING_RANGES);
  return lo + int(hi - lo);
}
function strInputs(): string[] {
  const out = [
    "",
    "'",
    '"',
    "'\"",
    "\\",
    "a'b",
    'a"b',
    "it's",
    "\\'\"",
    "\x7f",
    "\u00a0",
    "\ud800",
    "\udfff",
  ];
  out.push(
    "\ud83d\ude00",
    "\ud83d",
    "\ude00\ud83d",
    "\u2028\u2029\u200b\u200d\ufeff",
    "é\u0301",
    "\x00\x1f\x1b",
  );
  for (let i = 0; i < 4000; i++) {
    const n = int(12);
    let s = "";
    for (let k = 0; k < n; k++) {
      s += rand() < 0.2 ? pick(["'", '"', "\\", "\n", "\t", "\r"]) : String.fromCodePoint(randomCodePoint());
    }
    out.push(s);
  }
  return out;
}

function bytesInputs(): string[] {
  const out = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i));
  out.push("", "'", '"', "'\"", "a'b", 'a"b');
  for (let i = 0; i < 2000; i++) {
    out.push(Array.from({ length: int(10) }, () => String.fromCharCode(int(256))).join(""));
  }
  return out;
}

// --- number literals -------------------------------------------------------------------------------
/** Exact decimal of the midpoint between a positive finite double and the next one up. */
function midpointDecimal(x: number): string {
  view.setFloat64(0, x);
  const raw = view.getBigUint64(0);
  const biased = Number((raw >> 52n) & 0x7ffn);
  const fraction = raw & ((1n << 52n) - 1n);
  const [m, e] = biased === 0 ? [fraction, -1074] : [fraction | (1n << 52n), biased - 1075];
  const k = e - 1; // midpoint = (2m + 1) * 2^k
  const odd = 2n * m + 1n;
  return k >= 0 ? (odd << BigInt(k)).toString() : `${odd * 5n ** BigInt(-k)}e-${-k}`;
}
function withUnderscores(digits: string): string {
  return [...digits].map((d, i) => (i > 0 && rand() < 0.15 ? `_${d}` : d)).join("");
}
function numberInputs(): string[] {
  const out = [
    ...[
      "0",
      "00",
      "0_0",
      "0777",
      "0_7",
      "007",
      "1",
      "1_000",
      "1__0",
      "1_",
      "_1",
      "0x",
      "0x_",
      "0x_1",
      "0x1_",
    ],
    ...["0xDEAD_beef", "0X1F", "0o17", "0O17", "0o8", "0o_7", "0b2", "0b1_0", "0B1", "0b", "0_b1", "0xg"],
    ...["1.", ".5", "1.e5", "1._5", "1_.5", "1.e", "1e", "1e+", "1e_5", "1e5_0", "1_0.0_1", "00.5", "0777.5"],
    ...[
      "0777e1",
      "0777j",
      "01j",
      "0.j",
      "1j",
      "1J",
      "1.5J",
      "1e3j",
      ".5j",
      "1j2",
      "1jj",
      "0x1j",
      "1e400",
      "1e-400",
    ],
    ...[
      "2e-324",
      "3e-324",
      "1e308",
      "1.8e308",
      "1.7976931348623157e308",
      "4.9406564584124654e-324",
      "0e0",
      "0e-0",
    ],
    ...[
      "09.e-1_0",
      "1E+1_0",
      "1.5_",
      "._5",
      "0.",
      "0_.5",
      "1e-0009",
      "1.__class__",
      "1if",
      "-1",
      "1-2",
      "0xf.e",
    ],
    "9".repeat(INT_MAX_STR_DIGITS),
    "9".repeat(INT_MAX_STR_DIGITS + 1),
    `1${"_0".repeat(INT_MAX_STR_DIGITS)}`,
    "0".repeat(5000),
    `0x${"f".repeat(4000)}`,
    `0b${"1".repeat(3000)}`,
    `${"1".repeat(5000)}.0`,
    `${"1".repeat(5000)}j`,
    `0.${"0".repeat(400)}1e400`,
  ];
  // Random texts over the number alphabet: mostly invalid, some valid; CPython decides.
  const alphabet = "0000111223456789______...eeEjJxXoObBabcdefABCDEF+-";
  for (let i = 0; i < 5000; i++) {
    const n = 1 + int(8);
    let s = "";
    for (let k = 0; k < n; k++) s += alphabet[int(alphabet.length)];
    out.push(s);
  }
  // Valid-looking literals of every shape, with random underscores.
  const digits = (n: number, set = "0123456789") => Array.from({ length: n }, () => pick([...set])).join("");
  for (let i = 0; i < 2000; i++) {
    const d = withUnderscores(digits(1 + int(25)));
    const f = withUnderscores(digits(1 + int(25)));
    const exp = `${pick(["e", "E"])}${pick(["", "+", "-"])}${withUnderscores(digits(1 + int(3)))}`;
    out.push(
      `${pick(["1", "9", "0"])}${d}`,
      `${d}.${f}`,
      `.${f}${rand() < 0.5 ? exp : ""}`,
      `${d}.${rand() < 0.5 ? exp : ""}`,
      `${d}${exp}`,
      `${d}.${f}${exp}${pick(["j", "J", ""])}`,
      `0${pick(["x", "X"])}${withUnderscores(digits(1 + int(30), "0123456789abcdefABCDEF"))}`,
      `0${pick(["o", "O"])}${withUnderscores(digits(1 + int(30), "01234567"))}`,
      `0${pick(["b", "B"])}${withUnderscores(digits(1 + int(80), "01"))}`,
    );
  }
  // Correct rounding: exact midpoints between adjacent doubles, and just above / below them.
  for (let i = 0; i < 1500; i++) {
    const x = Math.abs(fromBits(randomBits()));
    if (!Number.isFinite(x) || x === Number.MAX_VALUE) continue;
    const mid = midpointDecimal(x);
    out.push(mid);
    const [mant = "", exp] = mid.split("e");
    const suffix = exp === undefined ? "" : `e${exp}`;
    out.push(`${mant}.000000000000000000001${suffix}`);
    const cut = mant.replace(/^(\d{1,}?)(0*)$/, "$1");
    if (cut.length > 1) {
      // One unit less in the last nonzero digit (the literal is below the midpoint).
      const below = (BigInt(cut) - 1n).toString() + "0".repeat(mant.length - cut.length);
      out.push(`${below}${suffix}`);
    }
  }
  for (let i = 0; i < 1000; i++) {
    out.push(`${digits(1 + int(40))}e${int(700) - 350}`, `0.${digits(int(30))}1e-${300 + int(30)}`);
  }
  return out;
}

// --- string bodies ---------------------------------------------------------------------------------
const BODY_PIECES = [
  ...["\\", "\\", "\\", "\\", "n", "t", "x", "u", "U", "N", "{", "}", "0", "1", "3", "4", "7", "8", "9"],
  ...["a", "b", "f", "r", "v", "c", "d", "e", "A", "F", "G", "z", " ", "\n", "\r", "\r\n", '"', "é", "😀"],
  ...["\\'", "\\x41", "\\xfF", "\\x4", "\\u00e9", "\\u12", "\\U0001F600", "\\U00110000", "\\U0000004"],
  ...["\\777", "\\400", "\\1234", "\\08", "\\d", "\\\n", "\\\r\n", "\\\r", "\\é", "\\N{", "\\N"],
  ...["\\N{LATIN SMALL LETTER A}", "\\N{latin small letter a}", "\\N{HANGUL SYLLABLE GAG}", "\\N{BOGUS}"],
  ...["\\N{CJK UNIFIED IDEOGRAPH-4E00}", "\\N{NBSP}", "\\N{}", "\\ud800", "\\udc80"],
];
/** Whether `body` between `q`×3 quotes is one complete triple-quoted token (as the tokenizer scans). */
function fitsTriple(body: string, q: string): boolean {
  const text = body + q.repeat(3);
  for (let i = 0; i < body.length; i++) {
    if (text[i] === "\\") i++;
    else if (text.startsWith(q.repeat(3), i)) return false;
  }
  // A final unpaired backslash would escape the closing quote.
  return !/(^|[^\\])(\\\\)*\\$/.test(body);
}
type Body = { prefix: string; quote: string; body: string };
function bodyInputs(): Body[] {
  const bodies = [
    "",
    "abc",
    "\\\\",
    "\\'",
    "a\rb",
    "a\r\nb",
    "\\\r\nx",
    "\\N{LATIN CAPITAL LETTER A WITH MACRON}",
  ];
  for (let i = 0; i < 3000; i++) {
    bodies.push(Array.from({ length: 1 + int(6) }, () => pick(BODY_PIECES)).join(""));
  }
  const out: Body[] = [];
  for (const body of bodies) {
    const quote = ["'''", '"""'].find((q) => fitsTriple(body, q[0] as string));
    if (quote === undefined) continue;
    for (const prefix of ["", "r", "b", "rb"]) out.push({ prefix, quote, body });
  }
  return out;
}

// --- \N{...} names -----------------------------------------------------------------------------
function lookupInputs(): string[] {
  const table = [...unicodeNameTable().keys()];
  const out = [...table];
  const sample = () => pick(table);
  for (let i = 0; i < 1500; i++) {
    out.push(sample().toLowerCase());
    out.push([...sample()].map((c) => (rand() < 0.5 ? c.toLowerCase() : c)).join(""));
    out.push(`${sample()} `, ` ${sample()}`, sample().replace(" ", "  "), sample().slice(0, -1));
  }
  const jamo = ["", "G", "GG", "N", "A", "AE", "YA", "EO", "NG", "SS", "WAE", "LH", "H", "I", "Q", "ga"];
  for (let i = 0; i < 1500; i++) {
    out.push(`HANGUL SYLLABLE ${pick(jamo)}${pick(jamo)}${pick(jamo)}`);
    const cp = 0x3000 + int(0x20000);
    const hex = cp.toString(16);
    out.push(`CJK UNIFIED IDEOGRAPH-${hex.toUpperCase()}`, `CJK UNIFIED IDEOGRAPH-${hex}`);
    out.push(`CJK UNIFIED IDEOGRAPH-0${hex.toUpperCase()}`, `cjk unified ideograph-${hex.toUpperCase()}`);
  }
  out.push(
    "hangul syllable ga",
    "HANGUL SYLLABLE ga",
    "Hangul Syllable GA",
    "HANGUL SYLLABLE ",
    "HANGUL SYLLABLE",
  );
  out.push(
    "CJK UNIFIED IDEOGRAPH-",
    "CJK UNIFIED IDEOGRAPH-4DC0",
    "CJK UNIFIED IDEOGRAPH-9FFF",
    "TANGUT IDEOGRAPH-17000",
  );
  out.push(
    "CJK UNIFIED IDEOGRAPH-3134A",
    "CJK UNIFIED IDEOGRAPH-3134B",
    "CJK UNIFIED IDEOGRAPH-2EBE0",
    "LATIN SMALL LETTER ı",
  );
  out.push(
    "LATIN CAPITAL LETTER A WITH MACRON AND GRAVE",
    "KEYCAP NUMBER SIGN",
    "TAMIL SYLLABLE SSA",
    "nBsP",
    "BOM",
  );
  return out;
}

// --- separate surrogate code points -----------------------------------------------------------------
/**
 * Pieces of a str literal body that produce surrogates, U+FFFF or astral characters next to each other:
 * escapes (`\ud800`, `\U0000dc00`) give separate code points, `\U0001F600` and a literal 😀 give one.
 */
const SEP_PIECES = [
  ...["\\ud800", "\\udbff", "\\udc80", "\\udfff", "\\uffff", "\\U0000d800", "\\U0000DC00", "\\U0001F600"],
  ...["\\U0010FFFF", "\\N{LATIN SMALL LETTER A}", "\\x41", "😀", "\uffff", "a", "é", "'", "\\\\"],
];
/** The same inside a `'...'` literal: the quote is escaped. */
const SEP_SOURCE_PIECES = SEP_PIECES.map((piece) => (piece === "'" ? "\\'" : piece));
function sepBody(max: number, pieces: readonly string[] = SEP_PIECES): string {
  return Array.from({ length: int(max + 1) }, () => pick(pieces)).join("");
}
/** Implicitly concatenated plain literals: ['"\ud800"', "u'\udc80'", ...]. */
function sepTokenInputs(): string[][] {
  const out = [
    ["'\\ud800\\udc80'"],
    ["'\\udc80\\ud800'"],
    ["'\\ud800'", "'\\udc80'"],
    ["'\\ud800'", "''", "'\\udc80'"],
    ["'\\ud800'", "'\\uffff'"],
    ["'\\ud800\\uffff'", "'\\udc80'"],
    ["'\\ud800'", "'\uffff'"],
    ["'\\U0001F600\\ud800'", "'😀'"],
    ["'😀'", "'\\udc80'"],
    ["'\\ud800'", "r'\\udc80'"],
    ["'\\ud800\\U0001F600\\udc80'"],
    ["'\\U0000d800\\U0000dc80'"],
  ];
  for (let i = 0; i < 1500; i++) {
    const tokens = Array.from({ length: 1 + int(4) }, () => `${pick(["", "", "u", "r"])}"""${sepBody(4)}"""`);
    // A body ending in a backslash would escape the closing quotes.
    out.push(tokens.filter((token) => !/(^|[^\\])(\\\\)*\\"""$/.test(token)));
  }
  return out.filter((tokens) => tokens.length > 0);
}
/** Python strs as code point sequences, biased towards surrogates and U+FFFF. */
function sepCodePointInputs(): number[][] {
  const special = [0xd800, 0xdbff, 0xdc00, 0xdfff, 0xffff, 0xfffe, 0x1f600, 0x10ffff, 0x61, 0x27];
  const out: number[][] = [
    [0xd800, 0xdc80],
    [0xdc80, 0xd800],
    [0xd800, 0xffff],
    [0xd800, 0xffff, 0xdc00],
  ];
  for (let i = 0; i < 3000; i++) {
    out.push(Array.from({ length: int(8) }, () => (rand() < 0.8 ? pick(special) : 0xd800 + int(0x800))));
  }
  return out;
}
/** Whole modules: implicit concatenation with f-strings, f-string pieces and format specs, docstrings. */
function sepSourceInputs(): string[] {
  const out = [
    "x = '\\ud800' '\\udc80'",
    "x = f'\\ud800{y}\\udc80'",
    "x = f'\\ud800' '\\udc80'",
    "x = '\\ud800' f'\\udc80{y}'",
    "x = f'{y}\\ud800' f'\\udc80{y}'",
    "x = f'\\ud800{{\\udc80'",
    "x = f'{y:\\ud800\\udc80}'",
    "x = f'{y:{z}\\ud800}' '\\udc80'",
    "'\\ud800' '\\udc80'\nx = 1",
    "def f():\n    '''\\ud800\\udc80'''",
    "match x:\n    case '\\ud800' '\\udc80':\n        pass",
    "x = '😀' '\\U0001F600' '\\ud83d\\ude00' '\\ud83d' '\\ude00'",
  ];
  const spec = () => sepBody(2).replace(/['\\{}]/g, "");
  const fPiece = () => pick(["{y}", "{y!r}", "{{", "}}", `{y:${spec()}}`]);
  for (let i = 0; i < 600; i++) {
    const tokens = Array.from({ length: 1 + int(3) }, () => {
      const f = rand() < 0.6;
      const parts = Array.from({ length: 1 + int(4) }, () =>
        f && rand() < 0.3 ? fPiece() : sepBody(2, SEP_SOURCE_PIECES),
      );
      return `${f ? "f" : ""}'${parts.join("")}'`;
    });
    out.push(`x = ${tokens.join(" ")}`);
  }
  return out;
}

// --- run the oracle once -----------------------------------------------------------------------------
const inputs = {
  floats: floatInputs(),
  strs: strInputs(),
  bytes: bytesInputs(),
  ints: ["0", "1", "-1", "9".repeat(4300), `-${"9".repeat(4300)}`, "123456789012345678901234567890"],
  numbers: numberInputs(),
  bodies: bodyInputs(),
  lookups: lookupInputs(),
  sepTokens: sepTokenInputs(),
  sepCodePoints: sepCodePointInputs(),
  sepSources: sepSourceInputs(),
};
let oracle: OracleOutput;

beforeAll(() => {
  const request = {
    ...inputs,
    bodies: inputs.bodies.map((b) => [b.prefix, b.quote, b.body]),
  };
  const run = spawnSync("python3", ["-c", ORACLE], {
    input: JSON.stringify(request),
    maxBuffer: 1 << 30,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`python3 oracle failed: ${run.stderr}`);
  oracle = JSON.parse(run.stdout) as OracleOutput;
});

/** Runs `f` and returns its value, or the PySyntaxError it threw (other errors propagate). */
function attempt<T>(f: () => T): T | PySyntaxError {
  try {
    return f();
  } catch (e) {
    if (e instanceof PySyntaxError) return e;
    throw e;
  }
}

/** Asserts every pair matched; lists the first mismatches in full when not. */
function expectAllEqual(label: string, pairs: { input: unknown; ours: unknown; cpython: unknown }[]): void {
  const bad = pairs.filter((p) => !Object.is(p.ours, p.cpython));
  console.log(`${label}: ${pairs.length - bad.length}/${pairs.length} match CPython`);
  const short = (v: unknown) => {
    const text = typeof v === "string" ? v : JSON.stringify(v);
    return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
  };
  expect(
    bad.slice(0, 10).map((p) => ({ input: short(p.input), ours: short(p.ours), cpython: short(p.cpython) })),
  ).toEqual([]);
}

describe("repr", () => {
  it("reprFloat and reprComplex match repr(float) and repr(complex(0, x))", () => {
    const pairs = inputs.floats.flatMap((h, i) => {
      const x = fromBits(h);
      const [f, c] = oracle.floats[i] as [string, string];
      return [
        { input: h, ours: reprFloat(x), cpython: f },
        { input: h, ours: reprComplex(x), cpython: c },
      ];
    });
    expectAllEqual("floats", pairs);
    expect(reprFloat(1e16)).toBe("1e+16");
    expect(reprFloat(1e15)).toBe("1000000000000000.0");
    expect(reprFloat(1.5e-5)).toBe("1.5e-05");
    expect(reprFloat(0.0001)).toBe("0.0001");
    expect(reprFloat(-0)).toBe("-0.0");
    expect(reprComplex(1)).toBe("1j");
    expect(reprComplex(Infinity)).toBe("infj");
  });

  it("reprStr matches repr(str) on random strings", () => {
    expectAllEqual(
      "strs",
      inputs.strs.map((s, i) => ({ input: s, ours: reprStr(s), cpython: oracle.strs[i] })),
    );
  });

  it("reprStr matches repr(chr(cp)) for every code point", () => {
    const expected = oracle.reprAll.split("\n");
    const pairs = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      const ours = reprStr(String.fromCodePoint(cp));
      if (ours !== expected[cp]) pairs.push({ input: cp.toString(16), ours, cpython: expected[cp] });
    }
    console.log(`repr(chr(cp)): ${0x110000 - pairs.length}/${0x110000} match CPython`);
    expect(pairs.slice(0, 10)).toEqual([]);
  });

  it("reprBytes matches repr(bytes)", () => {
    expectAllEqual(
      "bytes",
      inputs.bytes.map((s, i) => ({ input: s, ours: reprBytes(s), cpython: oracle.bytes[i] })),
    );
  });

  it("reprInt matches repr(int) and refuses what CPython refuses", () => {
    expectAllEqual(
      "ints",
      inputs.ints.map((s, i) => ({ input: s, ours: reprInt(s), cpython: oracle.ints[i] })),
    );
    expect(() => reprInt("9".repeat(INT_MAX_STR_DIGITS + 1))).toThrow(/Exceeds the limit \(4300 digits\)/);
  });
});

describe("isPrintable (Unicode 14.0, as CPython 3.11)", () => {
  it("agrees with str.isprintable() on every code point", () => {
    const expected = new Uint8Array(0x110000).fill(1);
    for (const [lo, hi] of oracle.nonPrintable) expected.fill(0, lo, hi);
    let mismatches = 0;
    // The gap we avoid by not using \p{...}: Node's ICU follows a newer Unicode than CPython 3.11.
    const icu = /^[\p{C}\p{Z}]$/u;
    let icuMismatches = 0;
    for (let cp = 0; cp < 0x110000; cp++) {
      const want = expected[cp] === 1;
      if (isPrintable(cp) !== want) mismatches++;
      const icuPrintable = cp === 0x20 || !icu.test(String.fromCodePoint(cp));
      if (icuPrintable !== want) icuMismatches++;
    }
    console.log(
      `isPrintable: ${mismatches} mismatches; \\p{C}\\p{Z} of Node ${process.versions.node} ` +
        `(Unicode ${process.versions.unicode}) would disagree with CPython 3.11 on ${icuMismatches} code points`,
    );
    expect(mismatches).toBe(0);
  });
});

describe("parseNumberLiteral", () => {
  it("accepts and rejects exactly what CPython does, with the same values", () => {
    const describeOurs = (text: string): OracleNumber | { t: "error" } => {
      const r = attempt((): ConstantValue => parseNumberLiteral(text));
      if (r instanceof PySyntaxError) return { t: "error" };
      return r.kind === "int"
        ? { t: "int", v: r.value }
        : r.kind === "float"
          ? { t: "float", v: toBits(r.value) }
          : r.kind === "complex"
            ? { t: "complex", v: toBits(r.imag), re: toBits(0) }
            : { t: "other" };
    };
    let valid = 0;
    const pairs = inputs.numbers.map((text, i) => {
      const want = oracle.numbers[i] as OracleNumber;
      // A text that is not one NUMBER token (`1-2`, `0xf.e`) must be rejected too.
      const cpython = want.t === "other" ? { t: "error" } : want.t === "error" ? { t: "error" } : want;
      if (want.t !== "other" && want.t !== "error") valid++;
      return { input: text, ours: JSON.stringify(describeOurs(text)), cpython: JSON.stringify(cpython) };
    });
    console.log(`number literals: ${valid} valid, ${pairs.length - valid} rejected by CPython`);
    expectAllEqual("numbers", pairs);
  });

  it("returns the documented shapes", () => {
    expect(parseNumberLiteral("0x_ff")).toEqual({ kind: "int", value: "255" });
    expect(parseNumberLiteral("1_0.0_1")).toEqual({ kind: "float", value: 10.01 });
    expect(parseNumberLiteral("1e3j")).toEqual({ kind: "complex", imag: 1000 });
    expect(() => parseNumberLiteral("0777")).toThrow(PySyntaxError);
    expect(() => parseNumberLiteral("9".repeat(INT_MAX_STR_DIGITS + 1))).toThrow(/4300 digits/);
  });
});

describe("string literals", () => {
  it("splitStringLiteral separates prefix, quote and body", () => {
    expect(splitStringLiteral("rb'''x'''")).toEqual({ prefix: "rb", quote: "'''", body: "x" });
    expect(splitStringLiteral('F"a{b}"')).toEqual({ prefix: "f", quote: '"', body: "a{b}" });
    expect(splitStringLiteral("''")).toEqual({ prefix: "", quote: "'", body: "" });
    expect(splitStringLiteral('""""""')).toEqual({ prefix: "", quote: '"""', body: "" });
    expect(splitStringLiteral("'''a'b'''")).toEqual({ prefix: "", quote: "'''", body: "a'b" });
    expect(splitStringLiteral("U'\\''")).toEqual({ prefix: "u", quote: "'", body: "\\'" });
    expect(splitStringStart("Rb'''")).toEqual({ prefix: "rb", quote: "'''" });
    expect(splitStringStart('f"')).toEqual({ prefix: "f", quote: '"' });
    for (const bad of ["''''", "'abc", "abc", "b", "'''x''", ""]) {
      expect(() => splitStringLiteral(bad), bad).toThrow(PySyntaxError);
    }
  });

  it("decodeStringBody matches CPython for str, bytes, raw and raw bytes", () => {
    const pairs = inputs.bodies.map((b, i) => {
      const want = oracle.bodies[i] as OracleLiteral;
      const r = attempt(() =>
        decodeStringBody(b.body, { bytes: b.prefix.includes("b"), raw: b.prefix.includes("r") }),
      );
      // Also check that splitStringLiteral finds the same body in the whole token.
      expect(splitStringLiteral(`${b.prefix}${b.quote}${b.body}${b.quote}`).body).toBe(b.body);
      return {
        input: `${b.prefix}${b.quote}${b.body}${b.quote}`,
        ours: r instanceof PySyntaxError ? "<error>" : JSON.stringify(r),
        cpython: "e" in want ? "<error>" : JSON.stringify(want.v),
      };
    });
    const errors = pairs.filter((p) => p.cpython === "<error>").length;
    console.log(`string bodies: ${pairs.length} (${errors} rejected by CPython)`);
    expectAllEqual("string bodies", pairs);
  });

  it("keeps CPython's octal rules", () => {
    const str = (b: string) => decodeStringBody(b, { bytes: false, raw: false });
    const bytes = (b: string) => decodeStringBody(b, { bytes: true, raw: false });
    expect(str("\\777")).toBe("\u01ff");
    expect(str("\\1234")).toBe("S4");
    expect(str("\\08")).toBe("\x008");
    expect(bytes("\\777")).toBe("\xff");
    expect(bytes("\\400")).toBe("\x00");
    expect(str("\\8")).toBe("\\8");
  });
});

describe("separate surrogate code points (STR_SEPARATOR)", () => {
  const flagsOf = (prefix: string) => ({ bytes: false, raw: prefix.includes("r") });

  it("decodes and joins implicitly concatenated literals to CPython's code points, repr included", () => {
    const pairs = inputs.sepTokens.flatMap((tokens, i) => {
      const want = oracle.sepTokens[i] as { v: string; r: string } | { e: string };
      const value = joinPythonStr(
        tokens.map((token) => {
          const { prefix, body } = splitStringLiteral(token);
          return decodeStringBody(body, flagsOf(prefix));
        }),
      );
      const input = tokens.join(" ");
      if ("e" in want) return [{ input, ours: "<value>", cpython: `<error ${want.e}>` }];
      return [
        { input, ours: JSON.stringify(value), cpython: JSON.stringify(want.v) },
        { input, ours: reprStr(value), cpython: want.r },
      ];
    });
    expectAllEqual("separate surrogates: literals", pairs);
    // The documented spellings, checked by hand once.
    expect(oracle.sepTokens[0]).toEqual({ v: "\ud800\uffff\udc80", r: "'\\ud800\\udc80'" });
    expect(decodeStringBody("\\ud800\\udc80", flagsOf(""))).toBe(`\ud800${STR_SEPARATOR}\udc80`);
    expect(decodeStringBody("\\ud800\\uffff", flagsOf(""))).toBe("\ud800\uffff\uffff");
    expect(decodeStringBody("\\U0001F600\\ud83d\\ude00😀", flagsOf(""))).toBe("😀\ud83d\uffff\ude00😀");
  });

  it("joinPythonStr of single code points, and reprStr of the result, match CPython", () => {
    const pairs = inputs.sepCodePoints.flatMap((cps, i) => {
      const [separated, repr] = oracle.sepCodePoints[i] as [string, string];
      const value = joinPythonStr(cps.map((cp) => String.fromCodePoint(cp)));
      const input = cps.map((cp) => cp.toString(16)).join(" ");
      return [
        { input, ours: JSON.stringify(value), cpython: JSON.stringify(separated) },
        { input, ours: reprStr(value), cpython: repr },
      ];
    });
    expectAllEqual("separate surrogates: code points", pairs);
    expect(reprStr("\ud800\uffff")).toBe("'\\ud800\\uffff'"); // not followed by a low surrogate: a real U+FFFF
    expect(reprStr("\ud800\uffff\uffff")).toBe("'\\ud800\\uffff'");
  });

  it("parse + unparse print them as CPython's ast.unparse does (f-strings, specs, docstrings)", async () => {
    await loadPythonGrammar();
    const pairs = inputs.sepSources.map((source, i) => {
      const want = oracle.sepSources[i] as OracleLiteral;
      const ours = attempt(() => unparse(parsePython(source)));
      return {
        input: source,
        ours: ours instanceof PySyntaxError ? "<error>" : ours,
        cpython: "e" in want ? "<error>" : want.v,
      };
    });
    const errors = pairs.filter((p) => p.cpython === "<error>").length;
    console.log(`separate surrogates: ${pairs.length} modules (${errors} rejected by CPython)`);
    expect(errors).toBeLessThan(pairs.length / 10);
    expectAllEqual("separate surrogates: modules", pairs);
  });
});

describe("\\N{NAME}", () => {
  it("every CPython character name resolves to its code point", () => {
    let bad = 0;
    for (const [cp, name] of oracle.names) {
      if (lookupUnicodeName(name) !== cp) bad++;
    }
    console.log(`unicodedata.name: ${oracle.names.length - bad}/${oracle.names.length} names resolve`);
    expect(bad).toBe(0);
  });

  it("accepts and rejects names and aliases exactly as CPython's \\N{} does", () => {
    const pairs = inputs.lookups.map((name, i) => {
      const want = oracle.lookups[i] as OracleLiteral;
      const r = attempt(() => decodeStringBody(`\\N{${name}}`, { bytes: false, raw: false }));
      return {
        input: name,
        ours: r instanceof PySyntaxError ? "<error>" : r,
        cpython: "e" in want ? "<error>" : want.v,
      };
    });
    const accepted = pairs.filter((p) => p.cpython !== "<error>").length;
    console.log(`\\N lookups: ${pairs.length} names, ${accepted} accepted by CPython`);
    expectAllEqual("\\N lookups", pairs);
  });
});
