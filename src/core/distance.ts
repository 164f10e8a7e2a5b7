/**
 * Token-level edit distance (docs/reward.md#distance-and-scope): every token is one symbol, never its characters, so `["abc"]`
 * and `["abd"]` are at distance 1 and identifier length carries no weight (the over-editing paper,
 * §3.1: "treats keywords, identifiers, operators, and punctuation as code units").
 */
import levenshtein from "fast-levenshtein";

/**
 * Number of distinct symbols a UTF-16 string can carry, one per code unit.
 *
 * fast-levenshtein@3 delegates to fastest-levenshtein (Myers' bit-parallel algorithm), which reads its
 * inputs with `charCodeAt` and indexes a `Uint32Array(0x10000)` by the code unit. Lone surrogates
 * (0xD800–0xDFFF) are therefore ordinary symbols to it, and all 65536 code units are usable ids.
 * (The `useCollator` option would compare characters through `Intl.Collator`; we never pass it.)
 */
const MAX_SYMBOLS = 0x10000;

/** Size of the argument lists given to `String.fromCharCode`, well below engine argument limits. */
const CHUNK = 8192;

/**
 * Interns the tokens of both sequences to dense integer ids, shared between the two sequences so that
 * equal tokens get equal ids. Returns `null` once more than {@link MAX_SYMBOLS} distinct tokens appear.
 */
function internPair(
  a: readonly string[],
  b: readonly string[],
  limit: number,
): { a: Uint32Array; b: Uint32Array; symbols: number } | null {
  const ids = new Map<string, number>();
  const encode = (tokens: readonly string[]): Uint32Array | null => {
    const out = new Uint32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i] as string;
      let id = ids.get(token);
      if (id === undefined) {
        id = ids.size;
        if (id >= limit) {
          return null;
        }
        ids.set(token, id);
      }
      out[i] = id;
    }
    return out;
  };
  const ea = encode(a);
  if (ea === null) {
    return null;
  }
  const eb = encode(b);
  return eb === null ? null : { a: ea, b: eb, symbols: ids.size };
}

/**
 * Ids below this are turned into a string by the platform's UTF-16 decoder, which is several times
 * faster than `String.fromCharCode`: no id can be half of a surrogate pair, which it would replace.
 */
const DECODABLE_SYMBOLS = 0xd800;
const utf16 = new TextDecoder("utf-16le");

/** One UTF-16 code unit per id (ids must be < 0x10000; `symbols`: how many distinct ids there are). */
function toCodeUnits(ids: ArrayLike<number>, symbols: number): string {
  if (symbols <= DECODABLE_SYMBOLS)
    return utf16.decode(ids instanceof Uint16Array ? ids : Uint16Array.from(ids));
  const units = Uint16Array.from(ids);
  let s = "";
  for (let i = 0; i < units.length; i += CHUNK) {
    s += String.fromCharCode(...units.subarray(i, i + CHUNK));
  }
  return s;
}

function toInt32(tokens: readonly string[], ids: Map<string, number>): Int32Array {
  const out = new Int32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    let id = ids.get(token);
    if (id === undefined) {
      id = ids.size;
      ids.set(token, id);
    }
    out[i] = id;
  }
  return out;
}

/**
 * Plain O(n·m) Levenshtein dynamic programme (unit costs for insertion, deletion, substitution) over
 * integer sequences, in O(min(n, m)) memory. It is the oracle the fast path is tested against and the
 * fallback when the two sequences have more distinct tokens than UTF-16 has code units.
 */
export function levenshteinDp(a: ArrayLike<number>, b: ArrayLike<number>): number {
  // Keep the shorter sequence along the row.
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  const n = short.length;
  if (n === 0) {
    return long.length;
  }
  let prev = new Int32Array(n + 1);
  let cur = new Int32Array(n + 1);
  for (let j = 0; j <= n; j++) {
    prev[j] = j;
  }
  for (let i = 1; i <= long.length; i++) {
    cur[0] = i;
    const li = long[i - 1];
    for (let j = 1; j <= n; j++) {
      const substitution = (prev[j - 1] as number) + (li === short[j - 1] ? 0 : 1);
      const deletion = (prev[j] as number) + 1;
      const insertion = (cur[j - 1] as number) + 1;
      cur[j] = Math.min(substitution, deletion, insertion);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[n] as number;
}

/**
 * Where two id sequences stop agreeing: the length of their common prefix, and where their common suffix
 * (not overlapping the prefix) starts in each. Levenshtein(a, b) is that of what lies between — an
 * optimal alignment matches a common prefix and suffix symbol for symbol — and a repair and the program
 * it repairs agree almost everywhere, so what is left is usually a few tokens (python-Levenshtein, the
 * paper's distance, trims the same way; fastest-levenshtein does not).
 */
function differingSpan<T>(a: ArrayLike<T>, b: ArrayLike<T>): [number, number, number] {
  let start = 0;
  const shorter = Math.min(a.length, b.length);
  while (start < shorter && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return [start, endA, endB];
}

/** fastest-levenshtein on the differing spans of two id sequences (ids < 0x10000). */
function codeUnitDistance(
  a: Uint32Array | Uint16Array,
  b: Uint32Array | Uint16Array,
  symbols: number,
): number {
  const [start, endA, endB] = differingSpan(a, b);
  if (start === endA || start === endB) return endA - start + (endB - start);
  return levenshtein.get(
    toCodeUnits(a.subarray(start, endA), symbols),
    toCodeUnits(b.subarray(start, endB), symbols),
  );
}

/**
 * Levenshtein distance between two token sequences, each token one symbol (unit costs).
 *
 * Tokens are interned to ids, the common prefix and suffix are set aside, each remaining id becomes one
 * UTF-16 code unit, and fast-levenshtein's bit-parallel implementation runs on the two strings. Beyond
 * 65536 distinct tokens (far more than any program has) it falls back to {@link levenshteinDp}.
 */
export function tokenLevenshtein(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) {
    return a.length + b.length;
  }
  const interned = internPair(a, b, MAX_SYMBOLS);
  if (interned === null) {
    const ids = new Map<string, number>();
    return levenshteinDp(toInt32(a, ids), toInt32(b, ids));
  }
  return codeUnitDistance(interned.a, interned.b, interned.symbols);
}

/**
 * A token sequence made ready to be compared with many others — a task's C against the M of every
 * rollout: its symbols are assigned and its code-unit string built once, so a comparison only looks up
 * the other sequence's tokens. Gives exactly what {@link tokenLevenshtein} and
 * {@link normalizedTokenDistance} give.
 */
export class TokenBaseline {
  readonly tokens: readonly string[];
  private readonly symbols = new Map<string, number>();
  /** The baseline's ids, one code unit each; null beyond {@link DECODABLE_SYMBOLS} distinct tokens. */
  private readonly ids: Uint16Array | null;

  constructor(tokens: readonly string[]) {
    this.tokens = tokens;
    const ids = new Uint32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i] as string;
      let id = this.symbols.get(token);
      if (id === undefined) {
        id = this.symbols.size;
        this.symbols.set(token, id);
      }
      ids[i] = id;
    }
    this.ids = this.symbols.size < DECODABLE_SYMBOLS ? Uint16Array.from(ids) : null;
  }

  /**
   * Levenshtein(tokens, baseline), each token one symbol. The common prefix and suffix are found on the
   * token strings (equal strings are equal symbols), so only the tokens between them are looked up.
   */
  distance(tokens: readonly string[]): number {
    const base = this.tokens;
    const baseIds = this.ids;
    if (tokens.length === 0 || base.length === 0 || baseIds === null) return tokenLevenshtein(tokens, base);
    const [start, end, baseEnd] = differingSpan(tokens, base);
    if (start === end || start === baseEnd) return end - start + (baseEnd - start);
    const ids = new Uint16Array(end - start);
    let novel: Map<string, number> | null = null;
    for (let i = start; i < end; i++) {
      const token = tokens[i] as string;
      let id = this.symbols.get(token);
      if (id === undefined) {
        novel ??= new Map();
        id = novel.get(token);
        if (id === undefined) {
          id = this.symbols.size + novel.size;
          if (id >= DECODABLE_SYMBOLS) return tokenLevenshtein(tokens, base);
          novel.set(token, id);
        }
      }
      ids[i - start] = id;
    }
    // A token the baseline lacks has an id of its own, so equal ids are equal tokens.
    return codeUnitDistance(ids, baseIds.subarray(start, baseEnd), DECODABLE_SYMBOLS);
  }

  /** d(tokens, baseline) as {@link normalizedTokenDistance} gives it. */
  normalizedDistance(tokens: readonly string[]): number {
    const longest = Math.max(tokens.length, this.tokens.length);
    return longest === 0 ? 0 : this.distance(tokens) / longest;
  }
}

/**
 * Normalized token distance d(X, Y) = Levenshtein(X, Y) / max(|X|, |Y|), in [0, 1], and 0 when both
 * sequences are empty (docs/reward.md#distance-and-scope).
 */
export function normalizedTokenDistance(a: readonly string[], b: readonly string[]): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 0 : tokenLevenshtein(a, b) / longest;
}
