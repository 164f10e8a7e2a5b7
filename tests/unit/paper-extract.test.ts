/**
 * The paper's rule for the code of an answer (src/core/paper-extract.ts) against CPython: a hand-written
 * corpus of the answers where Python's `str.strip`, `re` and `ast.parse` and JavaScript's built-ins part
 * ways, plus a few thousand seeded variations of them, each extracted by tests/oracle/paper_extract.py
 * (our own statement of the rule, run by CPython 3.11) and by the TypeScript port; every result must be
 * the same string. A few expectations are also written out by hand.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { paperExtractCode, pythonStrip } from "../../src/core/paper-extract.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";

const ORACLE = join(import.meta.dirname, "..", "oracle", "paper_extract.py");
const F = "```";

/** What CPython extracts from each answer, by the oracle. */
function oracle(answers: readonly string[]): string[] {
  const run = spawnSync("python3", [ORACLE], {
    input: JSON.stringify(answers),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as string[];
}

/** The tricky answers, one per corner of the rule. */
const CORPUS: readonly string[] = [
  // prose only, and prose that happens to be a Python program
  "I cannot see what is wrong with this function without more context.",
  "Sure",
  "  Sure.  ",
  "None",
  "The fix is to change `<` to `<=`.",
  "",
  "   \n\t  ",
  // plain code without a fence, and code with a syntax error
  "def f(x):\n    return x + 1\n",
  "\n\ndef f(x):\n    return x + 1\n\n\n",
  "def f(x):\n    return x +\n",
  "Here you go:\ndef f(x):\n    return x + 1\n",
  // the fence kinds
  `Fixed:\n\n${F}python\ndef f(x):\n    return x + 1\n${F}\n`,
  `${F}Python\nx = 1\n${F}`,
  `${F}PYTHON\nx = 1\n${F}`,
  `text\n${F}py\nx = 1\n${F}\nmore`,
  `text\n${F}python3\nx = 1\n${F}\nmore`,
  `text\n${F}\nx = 1\n${F}\nmore`,
  `text\n${F} python\nx = 1\n${F}\nmore`,
  `text\n${F}python   \nx = 1\n${F}\nmore`,
  `text\n${F}python \t \n\n\nx = 1\n${F}\nmore`,
  `text\n${F}pythonic\nx = 1\n${F}\nmore`,
  `text\n   ${F}python\n   x = 1\n   ${F}\nmore`,
  `text\n${F}python\nx = 1${F}\nmore`,
  `text\n${F}python\nx = 1\n${F}${F}\n`,
  `text ${F}python\nx = 1\n${F}`,
  // empty fences
  `Here is the fixed function:\n\n${F}python\n${F}\n`,
  `Here is the fixed function:\n\n${F}python\n\n${F}\n`,
  `${F}\n${F}`,
  `${F}python\n   \n${F} and ${F}python\nx = 1\n${F}`,
  // unclosed fences
  `Start:\n${F}python\ndef f(x):\n    return x`,
  `Start:\n${F}python\ndef f(x):\n    return x\n\nThat is all.   `,
  `${F}python`,
  `Start:\n${F}python\n`,
  // several blocks: the longest wins, the first of equals
  `${F}python\nx = 1\n${F}\nor\n${F}python\nx = 22\n${F}\n`,
  `${F}python\nx = 2\n${F}\nor\n${F}python\nx = 3\n${F}\n`,
  `${F}python\ny = "😀😀"\n${F}\nor\n${F}python\ny = "abcd"\n${F}\n`,
  `${F}python\ny = "abc"\n${F}\nor\n${F}python\ny = "😀😀"\n${F}\n`,
  // think blocks
  `<think>\nMaybe:\n${F}python\nx = 0\n${F}\n</think>\n${F}python\nx = 1\n${F}`,
  `<think>\n${F}python\nx = 0\n${F}\n</think>\nThe answer has no code.`,
  `<think>a</think>b</think>\n${F}python\nx = 1\n${F}`,
  `<thought>\n${F}python\nx = 0\n${F}\n</thought>\n${F}python\nx = 2\n${F}`,
  `</thought>${F}python\nx = 0\n${F}</think>\n${F}python\nx = 3\n${F}`,
  "<think>x = 1</think>",
  // line endings
  `Fixed:\r\n\r\n${F}python\r\ndef f(x):\r\n    return x + 1\r\n${F}\r\n`,
  `Fixed:\r\n${F}python\r\nx = 1\r\n${F}`,
  "def f(x):\r\n    return x + 1\r\n",
  `a\r${F}python\nx = 1\n${F}`,
  `a\u2028${F}python\nx = 1\n${F}`,
  `a\u2029${F}python\nx = 1\n${F}`,
  // Python's whitespace is not JavaScript's
  "\u0085x = 1\u0085",
  "\u001cx = 1\u001f",
  "\ufeffx = 1",
  "x = 1\ufeff",
  "\u00a0\u3000x = 1\u2009",
  `text\n${F}python\u0085\nx = 1\n${F}`,
  `text\n${F}python\ufeff\nx = 1\n${F}`,
  `text\n${F}python\u2028\nx = 1\n${F}`,
  `text\n${F}python\nx = 1\u001e\n${F}`,
  `text\n${F}python\n\ufeffx = 1\ufeff\n${F}`,
  // zero-width characters CPython's ast.parse rejects outside literals and comments
  "x = 1\n\ufeff",
  "x = 1\n\u200b",
  "\u2060x = 1",
  "x = (1\u200b)",
  'x = "\ufeff\u200b\u2060"',
  'x = b"\ufeff"',
  "x = 1  # \u2060",
  // odd characters
  "x = 1\u0000",
  `text\n${F}python\nx = "\u0000"\n${F}`,
  "print('😀')",
];

/** A deterministic generator (mulberry32), so a failing variation can be found again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "Here is the fix.",
  "Sure",
  "x = 1",
  "def f(a):\n    return a <= 1",
  "def f(a):\n    return a <=",
  "y = '😀'",
  `${F}python`,
  `${F}Python`,
  `${F}py`,
  F,
  `${F}python  `,
  `   ${F}python`,
  `${F}${F}`,
  "<think>",
  "</think>",
  "</thought>",
  "",
  " ",
  "\t",
  "\u0085",
  "\ufeff",
  "\u00a0",
  "\u001c",
  "\u200b",
  "\u2060",
  'x = "\ufeff"',
];
const JOINS = ["\n", "\n", "\n", "\r\n", "\r", "", " ", "\n\n", "\u2028"];

/** An answer made of 1–9 pieces joined by line breaks and other separators. */
function variation(next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const count = 1 + Math.floor(next() * 9);
  let text = pick(PIECES);
  for (let i = 1; i < count; i += 1) text += pick(JOINS) + pick(PIECES);
  return next() < 0.3 ? pick([" ", "\n", "\u0085", "\ufeff"]) + text + pick([" ", "\n", "\u2028"]) : text;
}

beforeAll(async () => {
  await loadPythonGrammar();
});

describe("paperExtractCode", () => {
  it("gives what a hand count of the rule gives", () => {
    expect(paperExtractCode("I cannot see what is wrong with this function.")).toBe("");
    // a single word parses as a Python expression: the paper runs it as the program
    expect(paperExtractCode("  Sure  ")).toBe("Sure");
    expect(paperExtractCode(`Fixed:\n${F}python\nx = 1\n${F}\n`)).toBe("x = 1");
    // ```py is not an opening of the paper's pattern
    expect(paperExtractCode(`Fixed:\n${F}py\nx = 1\n${F}\n`)).toBe("");
    // trailing spaces after the info string are whitespace before the newline
    expect(paperExtractCode(`Fixed:\n${F}python   \nx = 1\n${F}\n`)).toBe("x = 1");
    // an empty block is no code; an empty block with no line inside is the unclosed "```" that follows
    expect(paperExtractCode(`Fixed:\n${F}python\n\n${F}\n`)).toBe("");
    expect(paperExtractCode(`Fixed:\n${F}python\n${F}\n`)).toBe(F);
    expect(paperExtractCode(`Fixed:\n${F}python\nx = 1`)).toBe("x = 1");
    expect(paperExtractCode(`<think>\n${F}python\nx = 0\n${F}\n</think>\nNo code here.`)).toBe("");
    expect(paperExtractCode(`Fixed:\r\n${F}python\r\nx = 1\r\n${F}\r\n`)).toBe("x = 1");
    // an opening indented by spaces is not at the start of its line
    expect(paperExtractCode(`Fixed:\n  ${F}python\n  x = 1\n  ${F}\n`)).toBe("");
  });

  it("strips Python's whitespace, not JavaScript's", () => {
    expect(pythonStrip("\u0085\u001c x \u001f\u2028")).toBe("x");
    expect(pythonStrip("\ufeffx\ufeff")).toBe("\ufeffx\ufeff");
  });

  it("agrees with CPython on the hand-written corpus", () => {
    const expected = oracle(CORPUS);
    const differing = CORPUS.flatMap((answer, i) => {
      const ours = paperExtractCode(answer);
      return ours === expected[i]
        ? []
        : [`${JSON.stringify(answer)}: CPython ${JSON.stringify(expected[i])}, ours ${JSON.stringify(ours)}`];
    });
    expect(differing).toEqual([]);
    // the corpus reaches every branch: parsed whole, closed block, unclosed block, and no code
    expect(expected.filter((e) => e === "").length).toBeGreaterThan(5);
    expect(expected.filter((e) => e !== "").length).toBeGreaterThan(30);
  });

  it("agrees with CPython on 4,000 seeded variations", () => {
    const next = random(20_250_101);
    const answers = Array.from({ length: 4000 }, () => variation(next));
    const expected = oracle(answers);
    const differing = answers.flatMap((answer, i) => {
      const ours = paperExtractCode(answer);
      return ours === expected[i]
        ? []
        : [`${JSON.stringify(answer)}: CPython ${JSON.stringify(expected[i])}, ours ${JSON.stringify(ours)}`];
    });
    expect(differing.slice(0, 10)).toEqual([]);
    // the variations are not all of one kind
    expect(new Set(expected).size).toBeGreaterThan(100);
    expect(expected.filter((e) => e === "").length).toBeGreaterThan(200);
  });
});
