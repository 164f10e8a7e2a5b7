/**
 * The statistics of held-out evaluation and paired comparison (src/core/eval/, issue 14 items 4–5):
 * hand-computed cases, closed forms, and CPython as an oracle — exact `fractions` arithmetic for the
 * binomial tails, `statistics.NormalDist` (also AS241) and `math.erfc` for the normal quantile — run in one
 * python3 process per oracle question.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { seededRandom } from "../../src/core/corruption/engine.js";
import { binomialLogPmf } from "../../src/core/eval/binomial.js";
import { bootstrapByGroup } from "../../src/core/eval/bootstrap.js";
import { mean, median, quantileOfSorted } from "../../src/core/eval/descriptive.js";
import { mcnemarExact } from "../../src/core/eval/mcnemar.js";
import { holmAdjust } from "../../src/core/eval/multiple-testing.js";
import { normalQuantile } from "../../src/core/eval/normal-quantile.js";
import { meanDifference, pairedTable, riskDifference } from "../../src/core/eval/paired-effects.js";
import { passAtK } from "../../src/core/eval/pass-at-k.js";
import { mdePairedMean, mdePairedProportion } from "../../src/core/eval/power.js";

/** Runs a python3 script that reads JSON on stdin and prints JSON; returns the parsed answer. */
function python<T>(script: string, input: unknown): T {
  const result = spawnSync("python3", ["-c", script], { input: JSON.stringify(input), encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** |actual − expected| ≤ tolerance · |expected| (both 0 passes). */
function expectRelative(actual: number, expected: number, tolerance: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

function binomial(n: number, k: number): bigint {
  let value = 1n;
  for (let i = 1; i <= k; i += 1) value = (value * BigInt(n - k + i)) / BigInt(i);
  return value;
}

describe("passAtK", () => {
  test("is 1 − C(n−c, k)/C(n, k) for every n ≤ 20", () => {
    for (let n = 1; n <= 20; n += 1)
      for (let c = 0; c <= n; c += 1)
        for (let k = 1; k <= n; k += 1) {
          const closed = 1 - Number(binomial(n - c, k)) / Number(binomial(n, k));
          expect(Math.abs(passAtK(n, c, k) - closed)).toBeLessThan(1e-14);
        }
  });

  test("matches the closed form in exact integers for large n", () => {
    for (const [n, c, k] of [
      [200, 13, 100],
      [200, 1, 10],
      [1000, 37, 5],
      [500, 250, 200],
    ] as const) {
      // 1 − ratio, with the ratio scaled by 10^30 in BigInt so no precision is lost before the division.
      const scaled = (binomial(n - c, k) * 10n ** 30n) / binomial(n, k);
      expectRelative(passAtK(n, c, k), 1 - Number(scaled) / 1e30, 1e-12);
    }
  });

  test("identities: pass@1 = c/n, c = 0 gives 0, n − c < k gives 1", () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 15); // 1 − C(3,2)/C(5,2) = 1 − 3/10
    for (let n = 1; n <= 50; n += 1) {
      for (let c = 0; c <= n; c += 1) expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 14);
      for (let k = 1; k <= n; k += 1) expect(passAtK(n, 0, k)).toBe(0);
      for (let c = 1; c <= n; c += 1)
        for (let k = n - c + 1; k <= n; k += 1) expect(passAtK(n, c, k)).toBe(1);
    }
    // Small pass@k keeps its relative precision (1 − a product near 1 would not).
    expectRelative(passAtK(1_000_000, 1, 1), 1e-6, 1e-15);
    expectRelative(passAtK(1_000_000, 3, 2), 1 - ((999_997 / 1_000_000) * 999_996) / 999_999, 1e-9);
  });

  test("is non-decreasing in k and in c", () => {
    for (let k = 1; k < 30; k += 1) expect(passAtK(30, 4, k + 1)).toBeGreaterThanOrEqual(passAtK(30, 4, k));
    for (let c = 0; c < 30; c += 1) expect(passAtK(30, c + 1, 5)).toBeGreaterThanOrEqual(passAtK(30, c, 5));
  });

  test("throws RangeError outside 0 ≤ c ≤ n, 1 ≤ k ≤ n, integers", () => {
    expect(() => passAtK(5, 2, 6)).toThrow(RangeError);
    expect(() => passAtK(5, 2, 0)).toThrow(RangeError);
    expect(() => passAtK(5, 6, 1)).toThrow(RangeError);
    expect(() => passAtK(5, -1, 1)).toThrow(RangeError);
    expect(() => passAtK(0, 0, 1)).toThrow(RangeError);
    expect(() => passAtK(5, 1.5, 1)).toThrow(RangeError);
  });
});

const MCNEMAR_ORACLE = `
import json, sys
from fractions import Fraction
out = []
for b, c in json.load(sys.stdin):
    n, m = b + c, min(b, c)
    term, total = 1, 1  # C(n, 0), then C(n, i) = C(n, i - 1) (n - i + 1) / i, exact integers
    for i in range(1, m + 1):
        term = term * (n - i + 1) // i
        total += term
    p = min(Fraction(1), Fraction(2 * total, 2 ** n))
    out.append(float(p))  # float(Fraction) is correctly rounded
print(json.dumps(out))
`;

describe("mcnemarExact", () => {
  test("hand-computed binomial sums", () => {
    // b=0, c=5: 2 · (1/2)^5.
    expect(mcnemarExact(0, 5)).toEqual({ pValue: 0.0625, discordant: 5 });
    expect(mcnemarExact(5, 0).pValue).toBe(0.0625);
    // b=1, c=9: 2 · (1 + 10)/1024 = 22/1024.
    expectRelative(mcnemarExact(1, 9).pValue, 22 / 1024, 1e-14);
    expectRelative(mcnemarExact(1, 9).pValue, 0.021484375, 1e-14);
    // b=2, c=8: 2 · (1 + 10 + 45)/1024.
    expectRelative(mcnemarExact(2, 8).pValue, 112 / 1024, 1e-14);
    // One discordant pair can never be significant: 2 · 1/2 = 1.
    expect(mcnemarExact(0, 1).pValue).toBe(1);
    for (const b of [1, 2, 7, 40, 1000]) expect(mcnemarExact(b, b).pValue).toBe(1);
    expect(mcnemarExact(0, 0)).toEqual({ pValue: 1, discordant: 0 });
  });

  test("b=400, c=480 against exact rational arithmetic", () => {
    // Precomputed with python3: from fractions import Fraction; from math import comb;
    // float(Fraction(2 * sum(comb(880, i) for i in range(401)), 2 ** 880)) == 0.007707305043339141
    expectRelative(mcnemarExact(400, 480).pValue, 0.007707305043339141, 1e-13);
    expect(mcnemarExact(400, 480).discordant).toBe(880);
  });

  test("agrees with CPython's exact fractions from 1 to 25 000 discordant pairs", () => {
    const cases: [number, number][] = [
      [0, 1],
      [1, 2],
      [3, 4],
      [7, 20],
      [15, 16],
      [30, 60],
      [100, 130],
      [480, 400],
      [1000, 1100],
      [2500, 2400],
      [10000, 10500],
      [12345, 12000],
      [0, 1000],
      [0, 1074],
      [3, 1200],
    ];
    const oracle = python<number[]>(MCNEMAR_ORACLE, cases);
    cases.forEach(([b, c], index) => {
      const expected = oracle[index] as number;
      const { pValue } = mcnemarExact(b, c);
      if (expected < 1e-300) expect(pValue).toBeLessThan(1e-300);
      else expectRelative(pValue, expected, 1e-12);
    });
  });

  test("is symmetric and falls as the split becomes lopsided", () => {
    for (let b = 0; b <= 30; b += 1) {
      expect(mcnemarExact(b, 30 - b).pValue).toBe(mcnemarExact(30 - b, b).pValue);
      if (b < 15) expect(mcnemarExact(b, 30 - b).pValue).toBeLessThan(mcnemarExact(b + 1, 29 - b).pValue);
    }
  });

  test("throws RangeError for negative or fractional counts", () => {
    expect(() => mcnemarExact(-1, 3)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 3)).toThrow(RangeError);
    expect(() => mcnemarExact(Number.NaN, 3)).toThrow(RangeError);
  });
});

describe("binomialLogPmf", () => {
  test("agrees with CPython's exact fractions", () => {
    const cases: [number, number, number][] = [
      [0, 10, 0.5],
      [10, 10, 0.5],
      [3, 10, 0.5],
      [1, 2, 0.5],
      [17, 40, 0.25],
      [400, 880, 0.5],
      [440, 880, 0.5],
      [5000, 20000, 0.5],
      [10000, 20000, 0.5],
      [12, 100000, 0.5],
      [300, 1000, 0.3],
    ];
    const oracle = python<number[]>(
      `
import json, sys
from decimal import Decimal, getcontext
from fractions import Fraction
from math import comb
getcontext().prec = 50
out = []
for x, n, p in json.load(sys.stdin):
    p = Fraction(p)  # the exact double the test passes
    value = comb(n, x) * p ** x * (1 - p) ** (n - x)
    out.append(float(Decimal(value.numerator).ln() - Decimal(value.denominator).ln()))
print(json.dumps(out))
`,
      cases,
    );
    cases.forEach(([x, n, p], index) => {
      const expected = oracle[index] as number;
      expect(Math.abs(binomialLogPmf(x, n, p) - expected)).toBeLessThanOrEqual(
        1e-14 * Math.max(1, -expected),
      );
    });
  });

  test("edge probabilities and bad arguments", () => {
    expect(binomialLogPmf(0, 5, 0)).toBe(0);
    expect(binomialLogPmf(1, 5, 0)).toBe(-Infinity);
    expect(binomialLogPmf(5, 5, 1)).toBe(0);
    expect(binomialLogPmf(4, 5, 1)).toBe(-Infinity);
    expect(() => binomialLogPmf(6, 5, 0.5)).toThrow(RangeError);
    expect(() => binomialLogPmf(1, 5, 1.5)).toThrow(RangeError);
  });
});

describe("holmAdjust", () => {
  test("the textbook example (Wikipedia, Holm–Bonferroni method: p = 0.01, 0.04, 0.03, 0.005)", () => {
    // Sorted 0.005, 0.01, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.02, 0.03, 0.06, 0.04 → running max 0.06.
    const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    for (const [index, expected] of [0.03, 0.06, 0.06, 0.02].entries())
      expect(adjusted[index]).toBeCloseTo(expected, 15);
    // At α = 0.05 Holm rejects H4 and H1 only, as the example says.
    expect(adjusted.map((p) => p <= 0.05)).toEqual([true, false, false, true]);
  });

  test("caps at 1, keeps ties equal, handles no and one p-value", () => {
    const adjusted = holmAdjust([0.5, 0.6, 0.01]);
    expect(adjusted[0]).toBe(1);
    expect(adjusted[1]).toBe(1);
    expect(adjusted[2]).toBeCloseTo(0.03, 15);
    const tied = holmAdjust([0.02, 0.01, 0.02, 0.02]);
    expect(tied[0]).toBe(tied[2]);
    expect(tied[0]).toBe(tied[3]);
    expect(holmAdjust([])).toEqual([]);
    expect(holmAdjust([0.2])).toEqual([0.2]);
  });

  test("is the smallest level at which Holm's step-down procedure rejects (random p-values)", () => {
    const random = seededRandom("holm");
    for (let trial = 0; trial < 200; trial += 1) {
      const m = 1 + Math.floor(random() * 12);
      // Some exact ties and some tiny values, as family p-values have.
      const pValues = Array.from({ length: m }, () => (random() < 0.2 ? 0.01 : random() ** 3));
      const adjusted = holmAdjust(pValues);
      // Holm at level α: walk the sorted p-values, reject while p₍ₖ₎ ≤ α / (m − k + 1).
      const rejects = (alpha: number): Set<number> => {
        const order = pValues
          .map((_, i) => i)
          .sort((x, y) => (pValues[x] as number) - (pValues[y] as number));
        const rejected = new Set<number>();
        for (const [k, index] of order.entries()) {
          if ((pValues[index] as number) * (m - k) > alpha) break;
          rejected.add(index);
        }
        return rejected;
      };
      const levels = [...new Set([...adjusted, 1])].sort((x, y) => x - y);
      pValues.forEach((p, i) => {
        expect(adjusted[i]).toBeGreaterThanOrEqual(p);
        expect(adjusted[i]).toBeLessThanOrEqual(1);
        const smallest = levels.find((alpha) => rejects(alpha).has(i));
        if (smallest !== undefined && smallest < 1) expect(adjusted[i]).toBe(smallest);
        pValues.forEach((q, j) => {
          if (p <= q) expect(adjusted[i]).toBeLessThanOrEqual(adjusted[j] as number);
        });
      });
    }
  });

  test("throws RangeError for a p-value outside [0, 1]", () => {
    expect(() => holmAdjust([0.1, 1.5])).toThrow(RangeError);
    expect(() => holmAdjust([Number.NaN])).toThrow(RangeError);
  });
});

describe("normalQuantile", () => {
  test("known values to 1e-12", () => {
    expect(Math.abs(normalQuantile(0.975) - 1.959963984540054)).toBeLessThan(1e-12);
    expect(Math.abs(normalQuantile(0.8) - 0.8416212335729143)).toBeLessThan(1e-12);
    expect(Math.abs(normalQuantile(0.995) - 2.5758293035489004)).toBeLessThan(1e-12);
    expect(Math.abs(normalQuantile(0.9) - 1.2815515655446004)).toBeLessThan(1e-12);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
  });

  test("equals CPython's NormalDist.inv_cdf bit for bit (same AS241), and Φ(z) = p by math.erfc", () => {
    const ps = [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.001, 0.01, 0.02425, 0.075, 0.0751, 0.2, 0.3];
    for (let i = 1; i < 100; i += 1) ps.push(i / 100);
    ps.push(0.5 + 1e-9, 0.925, 0.99, 0.999, 0.99999, 1 - 1e-12);
    const oracle = python<{ inverse: number[]; cdf: number[] }>(
      `
import json, sys, math
from statistics import NormalDist
ps, zs = json.load(sys.stdin)
print(json.dumps({
    "inverse": [NormalDist().inv_cdf(p) for p in ps],
    "cdf": [0.5 * math.erfc(-z / math.sqrt(2)) for z in zs],
}))
`,
      [ps, ps.map(normalQuantile)],
    );
    ps.forEach((p, index) => {
      const z = normalQuantile(p);
      expect(Math.abs(z - (oracle.inverse[index] as number))).toBeLessThanOrEqual(
        1e-14 * Math.max(1, Math.abs(z)),
      );
      // Φ(z) = p, to the accuracy Φ's slope allows: δp/p ≈ |z| δz.
      if (p < 0.99) expectRelative(oracle.cdf[index] as number, p, 1e-13 * Math.max(1, Math.abs(z)));
      if (p > 1e-15) expect(normalQuantile(1 - p)).toBeCloseTo(-z, 6);
    });
  });

  test("is increasing and odd about ½", () => {
    for (let i = 1; i < 1000; i += 1)
      expect(normalQuantile((i + 1) / 1001)).toBeGreaterThan(normalQuantile(i / 1001));
    // Offsets of i/4096 keep ½ ± x exact, so p − ½ is exactly ±x and the two results are exact negatives.
    for (let i = 1; i < 2048; i += 1)
      expect(normalQuantile(0.5 - i / 4096)).toBe(-normalQuantile(0.5 + i / 4096));
  });

  test("throws RangeError outside [0, 1]", () => {
    expect(() => normalQuantile(-0.1)).toThrow(RangeError);
    expect(() => normalQuantile(1.1)).toThrow(RangeError);
    expect(() => normalQuantile(Number.NaN)).toThrow(RangeError);
  });
});

describe("minimum detectable effects", () => {
  const z975 = 1.959963984540054;
  const z80 = 0.8416212335729143;

  test("paired mean: (z_{1−α/2} + z_power) · σ / √n", () => {
    expect(mdePairedMean(100, 1)).toBeCloseTo((z975 + z80) / 10, 14); // 0.28015852181...
    expect(mdePairedMean(100, 1)).toBeCloseTo(0.2801585218113, 12);
    expect(mdePairedMean(400, 3.5)).toBeCloseTo(((z975 + z80) * 3.5) / 20, 14);
    // α = 0.01, power 0.9: z = 2.5758293035489004 and 1.2815515655446004.
    expect(mdePairedMean(50, 2, { alpha: 0.01, power: 0.9 })).toBeCloseTo(
      ((2.5758293035489004 + 1.2815515655446004) * 2) / Math.sqrt(50),
      13,
    );
    expect(mdePairedMean(10, 0)).toBe(0);
  });

  test("paired proportion: Connor's formula solved for δ", () => {
    // n = 100, ψ = 0.2: √0.2 · (1.95996·10 + 0.84162·√(100 + 0.70833 − 3.84146)) / (100 + 0.70833).
    const a = z975;
    const b = z80;
    const hand = (Math.sqrt(0.2) * (a * 10 + b * Math.sqrt(100 + b * b - a * a))) / (100 + b * b);
    expect(mdePairedProportion(100, 0.2)).toBeCloseTo(hand, 14);
    expect(mdePairedProportion(100, 0.2)).toBeCloseTo(0.12381933148441376, 12);
  });

  test("paired proportion: δ solves Connor's sample-size equation (n back, unsquared, any power)", () => {
    for (const power of [0.3, 0.5, 0.8, 0.9, 0.99])
      for (const alpha of [0.01, 0.05, 0.1])
        for (const [n, psi] of [
          [100, 0.2],
          [500, 0.1],
          [50, 0.5],
          [2000, 0.05],
          [400, 0.9],
        ] as const) {
          const delta = mdePairedProportion(n, psi, { alpha, power });
          if (!Number.isFinite(delta)) continue;
          const za = normalQuantile(1 - alpha / 2);
          const zb = normalQuantile(power);
          expect(delta * Math.sqrt(n)).toBeCloseTo(
            za * Math.sqrt(psi) + zb * Math.sqrt(psi - delta * delta),
            10,
          );
          const backN = (za * Math.sqrt(psi) + zb * Math.sqrt(psi - delta * delta)) ** 2 / delta ** 2;
          expectRelative(backN, n, 1e-10);
        }
  });

  test("paired proportion: shrinks with n, grows with ψ, Infinity when nothing is detectable", () => {
    for (let n = 50; n < 5000; n *= 2)
      expect(mdePairedProportion(n * 2, 0.2)).toBeLessThan(mdePairedProportion(n, 0.2));
    expect(mdePairedProportion(500, 0.3)).toBeGreaterThan(mdePairedProportion(500, 0.2));
    expect(mdePairedProportion(100, 0)).toBe(Infinity); // no discordant tasks, no difference
    expect(mdePairedProportion(2, 0.5)).toBe(Infinity); // n < z_a² − z_b²
    expect(mdePairedProportion(10, 0.2)).toBe(Infinity); // δ ≈ 0.35 > ψ: impossible
  });

  test("throws RangeError for bad arguments", () => {
    expect(() => mdePairedProportion(0, 0.2)).toThrow(RangeError);
    expect(() => mdePairedProportion(100, 1.2)).toThrow(RangeError);
    expect(() => mdePairedProportion(100, 0.2, { alpha: 0 })).toThrow(RangeError);
    expect(() => mdePairedMean(100, 1, { power: 1 })).toThrow(RangeError);
    expect(() => mdePairedMean(100, -1)).toThrow(RangeError);
  });
});

describe("effect sizes and descriptive statistics", () => {
  const a = [true, true, false, false, true];
  const b = [true, false, true, false, false];

  test("paired table and risk difference", () => {
    expect(pairedTable(a, b)).toEqual({ both: 1, onlyA: 2, onlyB: 1, neither: 1 });
    expect(riskDifference(a, b)).toBeCloseTo(3 / 5 - 2 / 5, 15);
    expect(riskDifference(b, a)).toBeCloseTo(-0.2, 15);
    expect(() => riskDifference(a, b.slice(1))).toThrow(RangeError);
    expect(() => riskDifference([], [])).toThrow(RangeError);
  });

  test("mean paired difference", () => {
    expect(
      meanDifference([
        [3, 1],
        [2, 2],
        [0, 1],
      ]),
    ).toBeCloseTo(1 / 3, 15);
    expect(() => meanDifference([])).toThrow(RangeError);
  });

  test("mean, median, quantiles (R type 7)", () => {
    expect(mean([3, 1, 2])).toBe(2);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(mean([])).toBeNull();
    expect(median([])).toBeNull();
    expect(quantileOfSorted([1, 2, 3, 4], 0.25)).toBe(1.75); // numpy.percentile([1, 2, 3, 4], 25)
    expect(quantileOfSorted([1, 2, 3, 4], 1)).toBe(4);
    expect(quantileOfSorted([7], 0.3)).toBe(7);
    expect(() => quantileOfSorted([], 0.5)).toThrow(RangeError);
  });
});

describe("bootstrapByGroup", () => {
  /** 30 problems with 1–4 tasks each, pass/fail drawn from a per-problem pass rate. */
  const problems: boolean[][] = (() => {
    const random = seededRandom("problems");
    return Array.from({ length: 30 }, () => {
      const rate = random();
      return Array.from({ length: 1 + Math.floor(random() * 4) }, () => random() < rate);
    });
  })();
  const passRate = (sample: readonly boolean[]) => mean(sample.map(Number));

  test("is reproducible with a seed, and different seeds differ", () => {
    const first = bootstrapByGroup(problems, passRate, { seed: 7 });
    expect(bootstrapByGroup(problems, passRate, { seed: 7 })).toEqual(first);
    expect(bootstrapByGroup(problems, passRate)).toEqual(bootstrapByGroup(problems, passRate, { seed: 0 }));
    const other = bootstrapByGroup(problems, passRate, { seed: 8 });
    expect(other?.estimate).toBe(first?.estimate);
    expect([other?.low, other?.high]).not.toEqual([first?.low, first?.high]);
  });

  test("draws group ⌊u · G⌋ for each next generator number u, and concatenates in draw order", () => {
    const groups = [["a0", "a1"], ["b0"], ["c0", "c1", "c2"], ["d0"]];
    const seen: (readonly string[])[] = [];
    bootstrapByGroup(
      groups,
      (sample) => {
        seen.push(sample);
        return sample.length;
      },
      { resamples: 3, seed: 42 },
    );
    const random = seededRandom(42);
    const expected = [groups.flat()];
    for (let r = 0; r < 3; r += 1)
      expected.push(groups.flatMap(() => groups[Math.floor(random() * groups.length)] as string[]));
    expect(seen).toEqual(expected);
  });

  test("gives the same numbers on every machine (pinned)", () => {
    // Pinned from one run: mulberry32 and the sort are integer / IEEE-exact, so any change here is a
    // change of the draws, not of the platform.
    expect(bootstrapByGroup(problems, passRate, { seed: 7, resamples: 500 })).toEqual(PINNED);
  });

  test("estimate is the statistic of the original sample; the interval covers it; level nests", () => {
    const interval = bootstrapByGroup(problems, passRate);
    expect(interval).not.toBeNull();
    expect(interval?.estimate).toBe(passRate(problems.flat()));
    expect(interval?.low).toBeLessThanOrEqual(interval?.estimate as number);
    expect(interval?.high).toBeGreaterThanOrEqual(interval?.estimate as number);
    expect(interval?.low).toBeGreaterThanOrEqual(0);
    expect(interval?.high).toBeLessThanOrEqual(1);
    const narrower = bootstrapByGroup(problems, passRate, { level: 0.8 });
    expect(narrower?.low).toBeGreaterThanOrEqual(interval?.low as number);
    expect(narrower?.high).toBeLessThanOrEqual(interval?.high as number);
    expect((narrower?.high as number) - (narrower?.low as number)).toBeLessThan(
      (interval?.high as number) - (interval?.low as number),
    );
  });

  test("resamples groups: perfectly correlated groups widen the interval against item-level resampling", () => {
    // 20 problems of 10 tasks each; a problem's tasks all pass or all fail (10 problems each way).
    const correlated = Array.from({ length: 20 }, (_, i) => Array.from({ length: 10 }, () => i % 2 === 0));
    const byGroup = bootstrapByGroup(correlated, passRate) as { low: number; high: number };
    const byItem = bootstrapByGroup(
      correlated.flat().map((task) => [task]),
      passRate,
    ) as { low: number; high: number };
    const groupWidth = byGroup.high - byGroup.low;
    const itemWidth = byItem.high - byItem.low;
    // Normal theory: 2 · 1.96 · √(¼/20) ≈ 0.44 by problem, 2 · 1.96 · √(¼/200) ≈ 0.14 by task: √10 apart.
    expect(groupWidth).toBeGreaterThan(0.35);
    expect(groupWidth).toBeLessThan(0.5);
    expect(itemWidth).toBeGreaterThan(0.1);
    expect(itemWidth).toBeLessThan(0.17);
    expect(groupWidth / itemWidth).toBeGreaterThan(2.5);
  });

  test("paired: groups of task pairs with meanDifference", () => {
    const random = seededRandom("pairs");
    const pairs = Array.from({ length: 40 }, () =>
      Array.from({ length: 3 }, (): [number, number] => {
        const base = random() * 10;
        return [base + 1 + random(), base];
      }),
    );
    const interval = bootstrapByGroup(pairs, (sample) =>
      sample.length === 0 ? null : meanDifference(sample),
    );
    expect(interval?.estimate).toBeCloseTo(meanDifference(pairs.flat()), 14);
    expect(interval?.low).toBeGreaterThan(1);
    expect(interval?.high).toBeLessThan(2);
  });

  test("null handling: null estimate → null; null resamples skipped; fewer than half usable → null", () => {
    expect(bootstrapByGroup(problems, () => null)).toBeNull();
    expect(bootstrapByGroup([], passRate)).toBeNull();

    // Mean excess over passing repairs: undefined in resamples that draw no passing problem.
    type Repair = { passed: boolean; excess: number };
    const repairs: Repair[][] = Array.from({ length: 10 }, (_, i) =>
      i === 0
        ? [
            { passed: true, excess: 2 },
            { passed: true, excess: 4 },
          ]
        : [{ passed: false, excess: 0 }],
    );
    let calls = 0;
    let nulls = 0;
    const meanExcess = (sample: readonly Repair[]) => {
      calls += 1;
      const value = mean(sample.filter((r) => r.passed).map((r) => r.excess));
      if (value === null) nulls += 1;
      return value;
    };
    // P(problem 0 never drawn in 10 draws) = 0.9¹⁰ ≈ 0.35: about a third of the resamples are skipped.
    const interval = bootstrapByGroup(repairs, meanExcess, { resamples: 1000 });
    expect(calls).toBe(1001);
    expect(nulls).toBeGreaterThan(250);
    expect(nulls).toBeLessThan(450);
    expect(interval).toEqual({ estimate: 3, low: 3, high: 3 });

    // Defined only when problem 0 is drawn twice or more: P ≈ 0.26 < ½, so no interval.
    const twice = (sample: readonly Repair[]) => (sample.filter((r) => r.passed).length >= 4 ? 1 : null);
    expect(
      bootstrapByGroup(
        [[...(repairs[0] as Repair[]), ...(repairs[0] as Repair[])], ...repairs.slice(1)],
        twice,
      ),
    ).not.toBeNull();
    expect(bootstrapByGroup(repairs, twice)).toBeNull();
  });

  test("throws RangeError for bad options or a non-finite statistic", () => {
    expect(() => bootstrapByGroup(problems, passRate, { resamples: 0 })).toThrow(RangeError);
    expect(() => bootstrapByGroup(problems, passRate, { resamples: 1.5 })).toThrow(RangeError);
    expect(() => bootstrapByGroup(problems, passRate, { level: 1 })).toThrow(RangeError);
    expect(() => bootstrapByGroup(problems, passRate, { seed: Number.NaN })).toThrow(RangeError);
    expect(() => bootstrapByGroup(problems, () => Number.NaN)).toThrow(RangeError);
  });
});

const PINNED = { estimate: 0.40789473684210525, low: 0.2709873949579832, high: 0.5460095137420719 };
