import levenshtein from "fast-levenshtein";
import { describe, expect, it } from "vitest";
import {
  levenshteinDp,
  normalizedTokenDistance,
  TokenBaseline,
  tokenLevenshtein,
} from "../../src/core/distance.js";

/** mulberry32: a tiny seeded PRNG, so every property run is reproducible. */
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

function int(rand: () => number, n: number): number {
  return Math.floor(rand() * n);
}

/** Random token sequence over an alphabet of `alphabet` tokens that look like code tokens. */
function tokens(rand: () => number, length: number, alphabet: number): string[] {
  return Array.from({ length }, () => `t${int(rand, alphabet)}`);
}

/** A random sequence and an edited copy of it, so pairs share long runs like real repairs do. */
function editedPair(
  rand: () => number,
  length: number,
  alphabet: number,
  edits: number,
): [string[], string[]] {
  const a = tokens(rand, length, alphabet);
  const b = [...a];
  for (let k = 0; k < edits; k++) {
    const op = int(rand, 3);
    const at = int(rand, b.length + 1);
    if (op === 0) {
      b.splice(at, 0, `t${int(rand, alphabet)}`);
    } else if (b.length > 0 && op === 1) {
      b.splice(Math.min(at, b.length - 1), 1);
    } else if (b.length > 0) {
      b[Math.min(at, b.length - 1)] = `t${int(rand, alphabet)}`;
    }
  }
  return [a, b];
}

/** Independent oracle for tokenLevenshtein: intern, then the plain DP. */
function oracle(a: readonly string[], b: readonly string[]): number {
  const ids = new Map<string, number>();
  const enc = (xs: readonly string[]) =>
    xs.map((x) => {
      let id = ids.get(x);
      if (id === undefined) {
        id = ids.size;
        ids.set(x, id);
      }
      return id;
    });
  return levenshteinDp(enc(a), enc(b));
}

describe("levenshteinDp (the oracle)", () => {
  it.each([
    ["kitten", "sitting", 3],
    ["flaw", "lawn", 2],
    ["", "", 0],
    ["", "abc", 3],
    ["abc", "", 3],
    ["abc", "abc", 0],
    ["abc", "cba", 2],
    ["intention", "execution", 5],
  ])("%s vs %s = %i", (x, y, d) => {
    const codes = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
    expect(levenshteinDp(codes(x), codes(y))).toBe(d);
    expect(levenshteinDp(new Int32Array(codes(y)), new Int32Array(codes(x)))).toBe(d);
  });
});

describe("tokenLevenshtein", () => {
  it("treats each token as one symbol, never its characters", () => {
    expect(tokenLevenshtein(["abc"], ["abd"])).toBe(1);
    expect(tokenLevenshtein(["longIdentifierName"], ["x"])).toBe(1);
    expect(tokenLevenshtein(["def", "f", "(", ")", ":"], ["def", "g", "(", ")", ":"])).toBe(1);
    // Same characters, different tokenization: still different token sequences.
    expect(tokenLevenshtein(["ab", "c"], ["a", "bc"])).toBe(2);
  });

  it("handles empty sequences", () => {
    expect(tokenLevenshtein([], [])).toBe(0);
    expect(tokenLevenshtein([], ["a", "b"])).toBe(2);
    expect(tokenLevenshtein(["a", "b", "c"], [])).toBe(3);
  });

  it("handles tokens that are empty strings or look like surrogates and control characters", () => {
    expect(tokenLevenshtein(["", "\n", "\ud800"], ["", "\n", "\udfff"])).toBe(1);
    expect(tokenLevenshtein(["😀", "x"], ["😀", "y"])).toBe(1);
    expect(tokenLevenshtein(["NEWLINE", "\n"], ["\n"])).toBe(1);
  });

  it("agrees with the plain DP on 2000 random pairs (small and large alphabets, lengths across 32/64)", () => {
    const rand = prng(20240611);
    for (let i = 0; i < 2000; i++) {
      // Alternate regimes: tiny alphabets force many matches; large ones make most tokens unique.
      const alphabet = [2, 3, 5, 20, 500, 5000][i % 6] as number;
      const maxLength = i % 10 === 0 ? 300 : 70;
      let a: string[];
      let b: string[];
      if (i % 2 === 0) {
        a = tokens(rand, int(rand, maxLength + 1), alphabet);
        b = tokens(rand, int(rand, maxLength + 1), alphabet);
      } else {
        [a, b] = editedPair(rand, int(rand, maxLength + 1), alphabet, int(rand, 12));
      }
      const expected = oracle(a, b);
      const actual = tokenLevenshtein(a, b);
      if (actual !== expected) {
        throw new Error(`pair ${i}: got ${actual}, DP says ${expected}\na=${a.join(" ")}\nb=${b.join(" ")}`);
      }
    }
  });

  it("agrees with the plain DP on every length pair around the 32-symbol word boundary", () => {
    const rand = prng(7);
    for (let n = 0; n <= 70; n++) {
      for (const m of [0, 1, 31, 32, 33, 63, 64, 65]) {
        const a = tokens(rand, n, 4);
        const b = tokens(rand, m, 4);
        expect(tokenLevenshtein(a, b)).toBe(oracle(a, b));
      }
    }
  });

  it("uses every UTF-16 code unit as an id, including the surrogate range (60 000 distinct tokens)", () => {
    // Ids are handed out in order of first appearance, so with all tokens distinct the token at index i
    // has id i, and ids 0xD800-0xDFFF (lone surrogates as code units) sit at those indices. Replacing k
    // tokens by fresh ones costs exactly k (each fresh token needs its own edit, and k substitutions
    // suffice); swapping two adjacent ones costs exactly 2.
    const n = 60_000;
    const a = Array.from({ length: n }, (_, i) => `v${i}`);
    const b = [...a];
    const replaced = [0xd800 + 5, 0xdbff, 0xdc00, 0xdfff - 3, 100];
    for (const at of replaced) {
      expect(at).toBeLessThan(n);
      b[at] = `fresh${at}`;
    }
    expect(tokenLevenshtein(a, b)).toBe(replaced.length);
    const c = [...a];
    [c[0xdc10], c[0xdc11]] = [c[0xdc11] as string, c[0xdc10] as string];
    expect(tokenLevenshtein(a, c)).toBe(2);
  });

  it("relies on fast-levenshtein comparing raw UTF-16 code units, lone surrogates included", () => {
    // The assumption behind the fast path, checked on the library itself: random strings drawn from
    // the surrogate range (and the whole code-unit range) against the DP over charCodeAt values.
    const rand = prng(11);
    for (let i = 0; i < 300; i++) {
      const base = i % 2 === 0 ? 0xd800 : 0;
      const span = i % 2 === 0 ? (i % 4 === 0 ? 4 : 0x800) : 0x10000;
      const unit = () => base + int(rand, span);
      const x = Array.from({ length: int(rand, 90) }, unit);
      const y = Array.from({ length: int(rand, 90) }, unit);
      expect(levenshtein.get(String.fromCharCode(...x), String.fromCharCode(...y))).toBe(levenshteinDp(x, y));
    }
  });

  it("falls back to the DP beyond 65 536 distinct tokens", () => {
    const a = Array.from({ length: 70_000 }, (_, i) => `v${i}`);
    const keep = [3, 17, 65_535, 65_536, 69_999];
    const b = keep.map((i) => a[i] as string);
    // b is a subsequence of a, so exactly the other tokens must be deleted.
    expect(tokenLevenshtein(a, b)).toBe(a.length - b.length);
    expect(tokenLevenshtein(b, a)).toBe(a.length - b.length);
    // A new token in b pushes the distinct count past the limit on b's side too.
    // Best alignment: keep v0, substitute v1 by the new token, delete the remaining 65 534.
    expect(tokenLevenshtein(a.slice(0, 65_536), ["v0", "brand-new"])).toBe(65_536 - 1);
  });
});

describe("TokenBaseline (one C against every M of a task)", () => {
  it("gives tokenLevenshtein and normalizedTokenDistance exactly, on 2000 random pairs", () => {
    const rand = prng(1818);
    for (let i = 0; i < 2000; i++) {
      const alphabet = [2, 5, 40, 800][i % 4] as number;
      const [a, b] =
        i % 2 === 0
          ? [tokens(rand, int(rand, 120), alphabet), tokens(rand, int(rand, 120), alphabet)]
          : editedPair(rand, int(rand, 120), alphabet, int(rand, 10));
      const baseline = new TokenBaseline(b);
      expect(baseline.distance(a)).toBe(tokenLevenshtein(a, b));
      expect(baseline.normalizedDistance(a)).toBe(normalizedTokenDistance(a, b));
      // The baseline's symbols are not changed by a comparison: the next one sees the same table.
      expect(baseline.distance(b)).toBe(0);
    }
  });

  it("handles empty sequences on either side", () => {
    expect(new TokenBaseline([]).distance(["a", "b"])).toBe(2);
    expect(new TokenBaseline(["a"]).distance([])).toBe(1);
    expect(new TokenBaseline([]).normalizedDistance([])).toBe(0);
  });

  it("falls back to the general path when the symbols would reach the surrogate range", () => {
    // 0xD800 distinct symbols cannot go through the UTF-16 decoder: a baseline that large, or a
    // comparison whose new tokens take the count there, is compared as tokenLevenshtein compares it.
    const big = Array.from({ length: 0xd800 + 10 }, (_, i) => `v${i}`);
    const edited = [...big];
    edited[0xd805] = "fresh";
    expect(new TokenBaseline(big).distance(edited)).toBe(1);
    const near = Array.from({ length: 0xd7ff }, (_, i) => `v${i}`);
    const extra = [...near, "n1", "n2", "n3"];
    expect(new TokenBaseline(near).distance(extra)).toBe(3);
    expect(new TokenBaseline(near).distance(extra)).toBe(tokenLevenshtein(extra, near));
  });
});

describe("the common prefix and suffix are set aside before counting", () => {
  it("gives the plain DP's distance when prefix and suffix overlap or cover a whole side", () => {
    const cases: [string, string][] = [
      ["a b a", "a"],
      ["a", "a b a"],
      ["a a a a", "a a"],
      ["a b c", "a b c"],
      ["a b c", "a c"],
      ["x a b c", "a b c"],
      ["a b c x", "a b c"],
      ["a b a b", "a b"],
      ["b a b", "a b a"],
      ["a b", "b a"],
    ];
    for (const [x, y] of cases) {
      const [a, b] = [x.split(" "), y.split(" ")];
      expect(tokenLevenshtein(a, b), `${x} / ${y}`).toBe(oracle(a, b));
      expect(new TokenBaseline(b).distance(a), `${x} / ${y}`).toBe(oracle(a, b));
    }
  });

  it("agrees with the plain DP on 3000 pairs sharing long ends, with tiny alphabets (ambiguous trims)", () => {
    const rand = prng(2718);
    for (let i = 0; i < 3000; i++) {
      const alphabet = [1, 2, 3, 30][i % 4] as number;
      const prefix = tokens(rand, int(rand, 50), alphabet);
      const suffix = tokens(rand, int(rand, 50), alphabet);
      const a = [...prefix, ...tokens(rand, int(rand, 12), alphabet), ...suffix];
      const b = [...prefix, ...tokens(rand, int(rand, 12), alphabet), ...suffix];
      const expected = oracle(a, b);
      expect(tokenLevenshtein(a, b)).toBe(expected);
      expect(new TokenBaseline(b).distance(a)).toBe(expected);
      expect(new TokenBaseline(a).distance(b)).toBe(expected);
    }
  });
});

describe("properties of the distance", () => {
  const rand = prng(99);
  const samples = Array.from({ length: 120 }, (_, i) => tokens(rand, int(rand, 40), i % 2 === 0 ? 3 : 30));

  it("identity: d(X, X) = 0", () => {
    for (const x of samples) {
      expect(tokenLevenshtein(x, x)).toBe(0);
      expect(normalizedTokenDistance(x, x)).toBe(0);
      expect(normalizedTokenDistance(x, [...x])).toBe(0);
    }
  });

  it("symmetry: d(X, Y) = d(Y, X)", () => {
    for (let i = 0; i + 1 < samples.length; i++) {
      const x = samples[i] as string[];
      const y = samples[i + 1] as string[];
      expect(tokenLevenshtein(x, y)).toBe(tokenLevenshtein(y, x));
      expect(normalizedTokenDistance(x, y)).toBe(normalizedTokenDistance(y, x));
    }
  });

  it("triangle inequality on the raw distance", () => {
    const r = prng(3);
    for (let k = 0; k < 1500; k++) {
      const x = samples[int(r, samples.length)] as string[];
      const y = samples[int(r, samples.length)] as string[];
      const z = samples[int(r, samples.length)] as string[];
      expect(tokenLevenshtein(x, z)).toBeLessThanOrEqual(tokenLevenshtein(x, y) + tokenLevenshtein(y, z));
    }
  });

  it("bounds: 0 <= d <= 1, and raw distance between |len diff| and max length", () => {
    for (let i = 0; i < samples.length; i++) {
      for (let j = i; j < samples.length; j += 7) {
        const x = samples[i] as string[];
        const y = samples[j] as string[];
        const raw = tokenLevenshtein(x, y);
        const d = normalizedTokenDistance(x, y);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(1);
        expect(raw).toBeGreaterThanOrEqual(Math.abs(x.length - y.length));
        expect(raw).toBeLessThanOrEqual(Math.max(x.length, y.length));
        // d is 0 only for equal sequences.
        expect(d === 0).toBe(x.length === y.length && x.every((t, k) => t === y[k]));
      }
    }
  });
});

describe("normalizedTokenDistance", () => {
  it("is 0 when both are empty and 1 when exactly one is", () => {
    expect(normalizedTokenDistance([], [])).toBe(0);
    expect(normalizedTokenDistance([], ["x"])).toBe(1);
    expect(normalizedTokenDistance(["x", "y"], [])).toBe(1);
  });

  it("divides by the longer sequence", () => {
    // One substituted token among four.
    expect(normalizedTokenDistance(["a", "<", "b", "\n"], ["a", "<=", "b", "\n"])).toBe(0.25);
    // Two insertions: Levenshtein 2, lengths 3 and 5.
    expect(normalizedTokenDistance(["range", "(", "n"], ["range", "(", "n", "+", "1"])).toBe(2 / 5);
    expect(normalizedTokenDistance(["a", "b"], ["c", "d"])).toBe(1);
  });
});
