/** The score memo (core/score-memo.ts): a count-bounded LRU with hit and miss counts. */
import { describe, expect, it } from "vitest";
import { ScoreMemo } from "../../src/core/score-memo.js";

describe("ScoreMemo", () => {
  it("answers what it kept and counts hits and misses", () => {
    const memo = new ScoreMemo<number>(4);
    expect(memo.get("a")).toBeUndefined();
    memo.set("a", 1);
    expect(memo.get("a")).toBe(1);
    expect(memo.stats()).toEqual({ entries: 1, hits: 1, misses: 1 });
  });

  it("keeps at most its bound, letting the least recently used go first", () => {
    const memo = new ScoreMemo<number>(2);
    memo.set("a", 1);
    memo.set("b", 2);
    expect(memo.get("a")).toBe(1); // now "b" is the least recently used
    memo.set("c", 3);
    expect(memo.get("b")).toBeUndefined();
    expect(memo.get("a")).toBe(1);
    expect(memo.get("c")).toBe(3);
    expect(memo.stats().entries).toBe(2);
  });

  it("keeps nothing with a bound of 0", () => {
    const memo = new ScoreMemo<number>(0);
    memo.set("a", 1);
    expect(memo.get("a")).toBeUndefined();
    expect(memo.stats()).toEqual({ entries: 0, hits: 0, misses: 1 });
  });
});
