/**
 * The cache of analyzed programs (src/core/analyzed-program-cache.ts): it answers exactly what
 * analyzeProgram answers, parses a program once per scope, keeps the programs CPython rejects with their
 * error (and nothing else that throws), evicts the least recently used first, and keeps its estimate of
 * the bytes it holds within its bound.
 */
import { beforeAll, describe, expect, test } from "vitest";
import type { DistanceScope } from "../../src/config.js";
import { AnalyzedProgramCache, entryBytes } from "../../src/core/analyzed-program-cache.js";
import { type AnalyzedProgram, analyzeProgram } from "../../src/core/normalize.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { PySyntaxError } from "../../src/core/python/syntax-error.js";

beforeAll(async () => {
  await loadPythonGrammar();
});

const isSyntaxError = (error: unknown): error is Error => error instanceof PySyntaxError;

/** analyzeProgram, counting its calls. */
function counting(): { analyze: (p: string, s: DistanceScope) => AnalyzedProgram; calls: () => number } {
  let calls = 0;
  return {
    analyze: (program, scope) => {
      calls += 1;
      return analyzeProgram(program, scope);
    },
    calls: () => calls,
  };
}

const PROGRAMS = [
  "def f(x):\n    '''Doc.'''\n    return x + 1\n",
  "def g(a, b):\n    if a and not b:\n        return [i * 2 for i in range(a)]\n    return None\n",
  "import os\nprint(os.sep)\n",
];

describe("AnalyzedProgramCache", () => {
  test("answers what analyzeProgram answers, each program parsed once per scope", () => {
    const { analyze, calls } = counting();
    const cache = new AnalyzedProgramCache(1 << 20, analyze);
    for (const scope of ["program", "function_body"] as const) {
      for (let round = 0; round < 3; round++) {
        for (const program of PROGRAMS) {
          expect(cache.analyzeProgram(program, scope, isSyntaxError)).toEqual(analyzeProgram(program, scope));
        }
      }
    }
    expect(calls()).toBe(2 * PROGRAMS.length);
    expect(cache.stats()).toMatchObject({ entries: 6, hits: 12, misses: 6 });
  });

  test("a program CPython rejects is kept with its error; an error of ours is not", () => {
    const { analyze, calls } = counting();
    const cache = new AnalyzedProgramCache(1 << 20, analyze);
    const thrown = () => {
      try {
        cache.analyzeProgram("def f(:\n", "program", isSyntaxError);
      } catch (error) {
        return error;
      }
      return null;
    };
    const first = thrown();
    expect(first).toBeInstanceOf(PySyntaxError);
    expect(thrown()).toBe(first);
    expect(calls()).toBe(1);

    let bugs = 0;
    const buggy = new AnalyzedProgramCache(1 << 20, () => {
      bugs += 1;
      throw new Error("a bug");
    });
    for (let i = 0; i < 2; i++)
      expect(() => buggy.analyzeProgram("x = 1\n", "program", isSyntaxError)).toThrow("a bug");
    expect(bugs).toBe(2);
    expect(buggy.stats().entries).toBe(0);
  });

  test("least recently used out first, the estimate within the bound; an entry over the bound is not kept", () => {
    const programs = Array.from({ length: 6 }, (_, i) => `value_${i} = ${"1 + ".repeat(20)}${i}\n`);
    const sizes = programs.map((p) =>
      entryBytes(`program\u0000${p}`, { value: analyzeProgram(p, "program") }),
    );
    // Room for three entries of this size, not four.
    const bound = Math.max(...sizes) * 3 + 10;
    const { analyze, calls } = counting();
    const cache = new AnalyzedProgramCache(bound, analyze);
    const look = (i: number) => cache.analyzeProgram(programs[i] as string, "program", isSyntaxError);
    look(0);
    look(1);
    look(2);
    look(0); // 0 is now the most recently used: 1 is the oldest
    look(3); // evicts 1
    expect(cache.stats().entries).toBe(3);
    expect(cache.stats().bytes).toBeLessThanOrEqual(bound);
    const before = calls();
    look(0);
    look(2);
    look(3);
    expect(calls()).toBe(before);
    look(1);
    expect(calls()).toBe(before + 1);
    for (let i = 0; i < 200; i++) {
      look(i % programs.length);
      expect(cache.stats().bytes).toBeLessThanOrEqual(bound);
    }

    const tiny = new AnalyzedProgramCache(100, analyze);
    tiny.analyzeProgram(programs[0] as string, "program", isSyntaxError);
    expect(tiny.stats()).toMatchObject({ entries: 0, bytes: 0, misses: 1 });
  });

  test("a program normalized to a known one (the task's C or G) keeps its token array, cached or not", () => {
    const corrupted = analyzeProgram(PROGRAMS[0] as string);
    const restyled = "def f(x):\n    'Doc.'\n    return (x + 1)\n";
    const cache = new AnalyzedProgramCache(1 << 20);
    for (let round = 0; round < 2; round++) {
      const answer = cache.analyzeProgram(restyled, "program", isSyntaxError, [corrupted]);
      // The same array: the scorer then takes d(M, C) = 0 without counting (score-rollout.ts).
      expect(answer.tokens).toBe(corrupted.tokens);
    }
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1 });
    expect(
      new AnalyzedProgramCache(1 << 20).analyzeProgram(restyled, "program", isSyntaxError).tokens,
    ).not.toBe(corrupted.tokens);
  });
});
