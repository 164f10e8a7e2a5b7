/**
 * normalizeProgram / programTokens: the two distance scopes, checked against CPython: `function_body` by
 * tests/oracle/paper_body_scope.py (the over-editing paper's body extraction, our restatement).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { normalizeProgram, programTokens } from "../../src/core/normalize.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { PySyntaxError } from "../../src/core/python/syntax-error.js";

/** The paper's body scope by CPython (tests/oracle/paper_body_scope.py, our restatement of its rules). */
const BODY_ORACLE = fileURLToPath(new URL("../oracle/paper_body_scope.py", import.meta.url));

const PROGRAMS = [
  "def f(x):\n    '''Doc.'''\n    return x + 1\n",
  "import os\n\nclass A:\n    def m(self):\n        return 1\n\ndef g():\n    pass\n",
  "X = 1\nif X:\n    def inner():\n        y = 2\n        return y\nprint(X)\n",
  "def only_doc():\n    'just a docstring'\n\nz = 3\n",
  "async def f():\n    await g()\n    return [i async for i in h()]\n",
  "def f():\n    @dec\n    def g(): pass\n    return g\n",
  "x = 1\ny = 2\n",
  "def a():\n    def b():\n        return 1\n    return b\ndef c():\n    return 2\n",
];

let expected: { body: string; tokens: string[] }[];

beforeAll(async () => {
  await loadPythonGrammar();
  const input = PROGRAMS.map((a, i) => JSON.stringify({ id: String(i), a, b: a })).join("\n");
  const run = spawnSync("python3", [BODY_ORACLE], { input });
  if (run.status !== 0) throw new Error(run.stderr.toString());
  expected = run.stdout
    .toString()
    .trim()
    .split("\n")
    .map((line) => {
      const record = JSON.parse(line) as { body_a: string; tokens_a: string[] };
      return { body: record.body_a, tokens: record.tokens_a };
    });
});

describe("scopes", () => {
  test.each(PROGRAMS.map((p, i) => [i, p] as const))(
    "function_body tokens of program %i match the paper's extraction under CPython",
    (i, p) => {
      const oracle = expected[i];
      const body = normalizeProgram(p, "function_body");
      expect(body.tokens).toEqual(oracle?.tokens);
      expect(body.emptyScope === true).toBe(oracle?.body === "");
    },
  );

  test("program scope keeps every token, NEWLINEs included, and ends with the empty NEWLINE", () => {
    expect(programTokens("x = (1 +\n  2)  # c\n")).toEqual(["x", "=", "1", "+", "2", ""]);
    expect(programTokens("if a:\n    b\n")).toEqual(["if", "a", ":", "\n", "b", ""]);
  });

  test("normalization removes comments and formatting, keeps docstrings", () => {
    const { normalized } = normalizeProgram('def f( a ,b ):\n    """Doc."""\n    return a+b  # sum\n');
    expect(normalized).toBe('def f(a, b):\n    """Doc."""\n    return a + b');
  });

  test("nesting that CPython 3.11 cannot handle is a PySyntaxError, not a crash", () => {
    // CPython: SyntaxError (too many nested parentheses), RecursionError, MemoryError respectively.
    expect(() => programTokens(`x = ${"(".repeat(201)}1${")".repeat(201)}`)).toThrow(PySyntaxError);
    expect(() => programTokens(`x = ${Array(50_000).fill("1").join(" + ")}`)).toThrow(PySyntaxError);
    expect(() => programTokens(`x = ${"-".repeat(20_000)}1`)).toThrow(PySyntaxError);
    expect(programTokens(`x = ${"(".repeat(200)}1${")".repeat(200)}`)).toEqual(["x", "=", "1", ""]);
  });

  test("invalid Python is a PySyntaxError", () => {
    expect(() => programTokens("def f(:\n")).toThrow(PySyntaxError);
  });
});
