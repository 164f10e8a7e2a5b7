/**
 * Token-level edit distance (SPEC §2.3): every token is one symbol, never its characters, so `["abc"]`
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
  if (symbols <= DECODABLE_SYMBOLS) return utf16.decode(Uint16Array.from(ids));
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
 * Levenshtein distance between two token sequences, each token one symbol (unit costs).
 *
 * Tokens are interned to ids, each id becomes one UTF-16 code unit, and fast-levenshtein's bit-parallel
 * implementation runs on the two strings. Beyond 65536 distinct tokens (far more than any program has)
 * it falls back to {@link levenshteinDp}.
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
  const { symbols } = interned;
  return levenshtein.get(toCodeUnits(interned.a, symbols), toCodeUnits(interned.b, symbols));
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
  private readonly codes: string | null;

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
    this.codes = this.symbols.size < DECODABLE_SYMBOLS ? toCodeUnits(ids, this.symbols.size) : null;
  }

  /** Levenshtein(tokens, baseline), each token one symbol. */
  distance(tokens: readonly string[]): number {
    const base = this.tokens;
    if (tokens.length === 0 || base.length === 0 || this.codes === null)
      return tokenLevenshtein(tokens, base);
    const ids = new Uint16Array(tokens.length);
    let novel: Map<string, number> | null = null;
    for (let i = 0; i < tokens.length; i++) {
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
      ids[i] = id;
    }
    return levenshtein.get(utf16.decode(ids), this.codes);
  }

  /** d(tokens, baseline) as {@link normalizedTokenDistance} gives it. */
  normalizedDistance(tokens: readonly string[]): number {
    const longest = Math.max(tokens.length, this.tokens.length);
    return longest === 0 ? 0 : this.distance(tokens) / longest;
  }
}

/**
 * Normalized token distance d(X, Y) = Levenshtein(X, Y) / max(|X|, |Y|), in [0, 1], and 0 when both
 * sequences are empty (SPEC §2.3).
 */
export function normalizedTokenDistance(a: readonly string[], b: readonly string[]): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 0 : tokenLevenshtein(a, b) / longest;
}
