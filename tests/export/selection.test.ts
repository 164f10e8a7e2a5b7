/**
 * rSFT and DPO selection on hand-made scored candidates whose right answer is known: the paper's recipe
 * (§4.1) with the tie-breaks and no-pair reasons of src/export/selection.ts. The end-to-end tests in
 * candidates.test.ts score real completions; here the scores are given, so every rule is isolated.
 */
import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/core/reward.js";
import { DpoSelector, RsftSelector, type ScoredCandidate } from "../../src/export/selection.js";

let next = 0;
function candidate(
  name: string,
  verdict: Verdict,
  distance: number | null,
  excess: number | null = distance,
) {
  const c: ScoredCandidate = {
    completion: name,
    order: next,
    verdict,
    reward: verdict === "PASSED" ? 0.1 - (excess ?? 0) : verdict === "INFRA_ERROR" ? null : -0.2,
    distance,
    excess,
    testsPassed: verdict === "PASSED" ? 3 : 1,
    testsTotal: 3,
  };
  next += 1;
  return c;
}

function feed<T extends RsftSelector | DpoSelector>(selector: T, candidates: ScoredCandidate[]): T {
  next = 0;
  for (const c of candidates) selector.add(c);
  return selector;
}

describe("rSFT selection", () => {
  it("keeps the k passing candidates closest to the reference repair, closest first", () => {
    next = 0;
    const all = [
      candidate("rewrite", "PASSED", 0.4),
      candidate("fails", "FAILED_TESTS", 0.01),
      candidate("gold", "PASSED", 0),
      candidate("docstring", "PASSED", 0.05),
      candidate("no code", "NO_CODE", null),
      candidate("rename", "PASSED", 0.1),
      candidate("timeout", "TIMEOUT", 0.02),
      candidate("sandbox fault", "INFRA_ERROR", 0),
    ];
    const selector = feed(new RsftSelector(3), all);
    expect(selector.selected().map((c) => c.completion)).toEqual(["gold", "docstring", "rename"]);
    expect(selector.counts).toEqual({ total: 8, passed: 4, failed: 3, infraError: 1 });
    expect(
      feed(new RsftSelector(1), all)
        .selected()
        .map((c) => c.completion),
    ).toEqual(["gold"]);
    expect(
      feed(new RsftSelector(10), all)
        .selected()
        .map((c) => c.completion),
    ).toEqual(["gold", "docstring", "rename", "rewrite"]);
  });

  it("breaks ties in d(M, G) by the smaller excess, then by input order", () => {
    next = 0;
    const selected = feed(new RsftSelector(4), [
      candidate("c: same distance, larger excess", "PASSED", 0.1, 0.2),
      candidate("a: same distance, smaller excess, first", "PASSED", 0.1, 0.05),
      candidate("b: same distance and excess as a, second", "PASSED", 0.1, 0.05),
      candidate("z: negative excess but farther from G", "PASSED", 0.3, -0.1),
    ]).selected();
    expect(selected.map((c) => c.completion[0])).toEqual(["a", "b", "c", "z"]);
  });

  it("keeps nothing when nothing passed", () => {
    next = 0;
    const selector = feed(new RsftSelector(3), [
      candidate("fails", "FAILED_TESTS", 0.1),
      candidate("crash", "RUNTIME_ERROR", 0.2),
    ]);
    expect(selector.selected()).toEqual([]);
  });
});

describe("DPO pairs", () => {
  it("prefers the smallest-edit passing candidate over the largest-edit passing one", () => {
    next = 0;
    const result = feed(new DpoSelector("largest-edit"), [
      candidate("docstring", "PASSED", 0.05),
      candidate("rewrite", "PASSED", 0.4),
      candidate("fails", "FAILED_TESTS", 0.9),
      candidate("gold", "PASSED", 0),
      candidate("rename", "PASSED", 0.1),
    ]).pair();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.pair.chosen.completion).toBe("gold");
    expect(result.pair.rejected.completion).toBe("rewrite");
  });

  it("takes the first failing candidate as rejected with --rejected failing", () => {
    next = 0;
    const result = feed(new DpoSelector("failing"), [
      candidate("rename", "PASSED", 0.1),
      candidate("sandbox fault", "INFRA_ERROR", null),
      candidate("unparsable", "UNPARSABLE", null),
      candidate("fails", "FAILED_TESTS", 0.02),
      candidate("gold", "PASSED", 0),
    ]).pair();
    expect(result.ok && [result.pair.chosen.completion, result.pair.rejected.completion]).toEqual([
      "gold",
      "unparsable",
    ]);
  });

  it("says why a task has no pair", () => {
    next = 0;
    const reasons = [
      feed(new DpoSelector("largest-edit"), [candidate("f", "FAILED_TESTS", 0.1)]).pair(),
      feed(new DpoSelector("largest-edit"), [
        candidate("g", "PASSED", 0),
        candidate("f", "TIMEOUT", 0.3),
      ]).pair(),
      feed(new DpoSelector("largest-edit"), [
        candidate("x", "PASSED", 0.1, 0.1),
        candidate("y", "PASSED", 0.1, 0.2),
      ]).pair(),
      feed(new DpoSelector("failing"), [
        candidate("g", "PASSED", 0),
        candidate("i", "INFRA_ERROR", null),
      ]).pair(),
      feed(new DpoSelector("failing"), [candidate("f", "FAILED_TESTS", 0.1)]).pair(),
    ].map((r) => (r.ok ? "pair" : r.reason));
    expect(reasons).toEqual(["noPassing", "onePassing", "tiedPassing", "noFailing", "noPassing"]);
  });
});
