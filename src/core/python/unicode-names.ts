/**
 * Resolves the NAME of a `\N{NAME}` escape the way CPython 3.11 does (Modules/unicodedata.c, `_getcode`
 * called with `with_named_seq = 0`), against the Unicode 14.0 database that 3.11 ships:
 *
 * - `HANGUL SYLLABLE <L><V><T>`: computed, with CPython's greedy longest-match of the jamo short names;
 *   the prefix and the jamo are case-sensitive (CPython compares them with `strncmp`);
 * - `CJK UNIFIED IDEOGRAPH-<4 or 5 upper-case hex digits>`, inside the unified-ideograph ranges;
 * - otherwise a character name or a name alias (NameAliases.txt, every type), compared after ASCII
 *   upper-casing (CPython's `Py_TOUPPER`); named sequences are not accepted.
 */
import { brotliDecompressSync } from "node:zlib";
import { CJK_UNIFIED_IDEOGRAPH_RANGES, UNICODE_NAMES_BROTLI_BASE64 } from "./unicode-names-data.js";

// Jamo short names of the Unicode standard (§3.12), in CPython's `hangul_syllables` column order.
const JAMO_L = [
  "G",
  "GG",
  "N",
  "D",
  "DD",
  "R",
  "M",
  "B",
  "BB",
  "S",
  "SS",
  "",
  "J",
  "JJ",
  "C",
  "K",
  "T",
  "P",
  "H",
];
const JAMO_V = [
  "A",
  "AE",
  "YA",
  "YAE",
  "EO",
  "E",
  "YEO",
  "YE",
  "O",
  "WA",
  "WAE",
  "OE",
  "YO",
  "U",
  "WEO",
  "WE",
  "WI",
  "YU",
  "EU",
  "YI",
  "I",
];
const JAMO_T = [
  "",
  "G",
  "GG",
  "GS",
  "N",
  "NJ",
  "NH",
  "D",
  "L",
  "LG",
  "LM",
  "LB",
  "LS",
  "LT",
  "LP",
  "LH",
  "M",
  "B",
  "BS",
  "S",
  "SS",
  "NG",
  "J",
  "C",
  "K",
  "T",
  "P",
  "H",
];
const HANGUL_BASE = 0xac00;
const HANGUL_PREFIX = "HANGUL SYLLABLE ";
const CJK_PREFIX = "CJK UNIFIED IDEOGRAPH-";

let names: Map<string, number> | undefined;

/**
 * The name and alias table (upper-case name → code point), decoded on first use: most programs never
 * write `\N{...}`, so workers should not pay for it at start-up.
 */
export function unicodeNameTable(): ReadonlyMap<string, number> {
  if (names !== undefined) return names;
  const text = brotliDecompressSync(Buffer.from(UNICODE_NAMES_BROTLI_BASE64, "base64")).toString("latin1");
  const [charLines = "", aliasLines = ""] = text.split("\n\n");
  const table = new Map<string, number>();
  let codePoint = -1;
  for (const line of charLines.split("\n")) {
    const space = line.indexOf(" ");
    codePoint += Number.parseInt(line.slice(0, space), 36);
    table.set(line.slice(space + 1), codePoint);
  }
  for (const line of aliasLines.split("\n")) {
    const space = line.indexOf(" ");
    table.set(line.slice(space + 1), Number.parseInt(line.slice(0, space), 36));
  }
  names = table;
  return table;
}

/** The code point CPython 3.11 gives `\N{name}`, or undefined where it reports an unknown name. */
export function lookupUnicodeName(name: string): number | undefined {
  if (name.startsWith(HANGUL_PREFIX)) return hangulSyllable(name.slice(HANGUL_PREFIX.length));
  if (name.startsWith(CJK_PREFIX)) return cjkIdeograph(name.slice(CJK_PREFIX.length));
  return unicodeNameTable().get(asciiUpper(name));
}

function hangulSyllable(rest: string): number | undefined {
  let pos = 0;
  const l = longestJamo(rest, pos, JAMO_L);
  pos += l.length;
  const v = longestJamo(rest, pos, JAMO_V);
  pos += v.length;
  const t = longestJamo(rest, pos, JAMO_T);
  pos += t.length;
  if (l.index < 0 || v.index < 0 || t.index < 0 || pos !== rest.length) return undefined;
  return HANGUL_BASE + (l.index * JAMO_V.length + v.index) * JAMO_T.length + t.index;
}

/** CPython's `find_syllable`: the longest short name that `text` continues with at `pos`. */
function longestJamo(text: string, pos: number, jamo: readonly string[]): { index: number; length: number } {
  let index = -1;
  let length = -1;
  jamo.forEach((short, i) => {
    if (short.length > length && text.startsWith(short, pos)) {
      index = i;
      length = short.length;
    }
  });
  return { index, length: Math.max(length, 0) };
}

function cjkIdeograph(hex: string): number | undefined {
  if (!/^[0-9A-F]{4,5}$/.test(hex)) return undefined;
  const codePoint = Number.parseInt(hex, 16);
  return CJK_UNIFIED_IDEOGRAPH_RANGES.some(([start, end]) => start <= codePoint && codePoint < end)
    ? codePoint
    : undefined;
}

/** `Py_TOUPPER`: ASCII only, so that e.g. U+0131 (dotless i) does not become "I" as with toUpperCase. */
function asciiUpper(text: string): string {
  return text.replace(/[a-z]+/g, (s) => s.toUpperCase());
}
