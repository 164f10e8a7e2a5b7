/**
 * The `function_body` scope on small programs, every expectation counted by hand from the over-editing
 * paper's rules (docs/reward.md "Distance and scope"): the body starts at the `def` line of the first
 * `FunctionDef` in `ast.walk` order when it has no docstring, at its second statement when it has one, is
 * empty with only a docstring (every distance 0), and comes from the regex fallback when the program has
 * no `FunctionDef`. Token counts include the NEWLINEs ("\n", and the final "").
 */
import { beforeAll, describe, expect, test } from "vitest";
import { normalizeProgram, scopedNormalizedDistance } from "../../src/core/normalize.js";
import { firstFunctionDefByAstWalk } from "../../src/core/paper-function-body.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { parsePython } from "../../src/core/python/parse.js";
import { prepareTask } from "../../src/core/score-rollout.js";

beforeAll(async () => {
  await loadPythonGrammar();
});

function bodyDistance(a: string, b: string): number {
  return scopedNormalizedDistance(normalizeProgram(a, "function_body"), normalizeProgram(b, "function_body"));
}

describe("function_body scope, counted by hand", () => {
  test("without a docstring the def line is part of the body", () => {
    const a = "def f(x):\n    return x + 1\n";
    // def f ( x ) : NEWLINE return x + 1 NEWLINE("") = 12 tokens
    expect(normalizeProgram(a, "function_body").tokens).toEqual([
      "def",
      "f",
      "(",
      "x",
      ")",
      ":",
      "\n",
      "return",
      "x",
      "+",
      "1",
      "",
    ]);
    // One substitution (+ → -) over 12 tokens; a renamed parameter costs 2 (the def line and the use).
    expect(bodyDistance(a, "def f(x):\n    return x - 1\n")).toBeCloseTo(1 / 12, 12);
    expect(bodyDistance(a, "def f(y):\n    return y + 1\n")).toBeCloseTo(2 / 12, 12);
  });

  test("decorators are above the def line and never count", () => {
    const a = "@cache\ndef f(x):\n    return x\n";
    expect(bodyDistance(a, "@lru_cache(maxsize=None)\ndef f(x):\n    return x\n")).toBe(0);
    // def f ( x ) : NEWLINE return x NEWLINE("") = 10 tokens, `x` → `y` in the return: 1
    expect(bodyDistance(a, "@cache\ndef f(x):\n    return y\n")).toBeCloseTo(1 / 10, 12);
  });

  test("with a docstring the body starts at the second statement", () => {
    const a = 'def f(x):\n    """Doc."""\n    y = x\n    return y\n';
    // y = x NEWLINE return y NEWLINE("") = 7 tokens; the docstring's change is outside the body
    expect(normalizeProgram(a, "function_body").tokens).toEqual(["y", "=", "x", "\n", "return", "y", ""]);
    expect(bodyDistance(a, 'def f(x):\n    """Other."""\n    y = x\n    return x\n')).toBeCloseTo(1 / 7, 12);
  });

  test("a function with only a docstring has an empty body: every distance is 0", () => {
    const onlyDoc = 'def f():\n    """Doc."""\n';
    const withCode = 'def f():\n    """Doc."""\n    return 1\n';
    expect(normalizeProgram(onlyDoc, "function_body")).toMatchObject({ tokens: [], emptyScope: true });
    expect(bodyDistance(onlyDoc, withCode)).toBe(0);
    expect(bodyDistance(withCode, onlyDoc)).toBe(0);
    // The same through a prepared task: d(G, C) = 0 when C's body is empty.
    expect(prepareTask(onlyDoc, withCode, "function_body").dGold).toBe(0);
  });

  test("an async-only program takes the regex fallback, which drops the def line", () => {
    const a = "async def f(x):\n    return x + 1\n";
    // The regex finds `def f(x):\n` inside `async def`; what follows, `    return x + 1`, tokenizes to
    // return x + 1 NEWLINE("") = 5 tokens (its INDENT is dropped).
    expect(normalizeProgram(a, "function_body").tokens).toEqual(["return", "x", "+", "1", ""]);
    expect(bodyDistance(a, "async def f(x):\n    return x * 2\n")).toBeCloseTo(2 / 5, 12);
  });

  test("a def in an except handler is one level deeper than a def under a later if", () => {
    const program = (one: number, two: number) =>
      `try:\n    import x\nexcept ImportError:\n    def f():\n        return ${one}\nif True:\n    def g():\n        return ${two}\n`;
    const walked = firstFunctionDefByAstWalk(parsePython(program(1, 2)).body);
    expect(walked?.name).toBe("g");
    // From `    def g():` on: def g ( ) : NEWLINE return 2 NEWLINE("") = 9 tokens.
    expect(normalizeProgram(program(1, 2), "function_body").tokens).toHaveLength(9);
    expect(bodyDistance(program(1, 2), program(5, 2))).toBe(0);
    expect(bodyDistance(program(1, 2), program(1, 3))).toBeCloseTo(1 / 9, 12);
  });

  test("a method's body followed by a shallower method makes tokenize fail: the body is split on spaces", () => {
    const a =
      'class A:\n\n    def m(self):\n        """Doc."""\n        return 1\n\n    def n(self):\n        return 2\n';
    // From `        return 1` the dedent to column 4 matches no indentation tokenize saw: IndentationError.
    expect(normalizeProgram(a, "function_body").tokens).toEqual([
      "return",
      "1",
      "def",
      "n(self):",
      "return",
      "2",
    ]);
    expect(bodyDistance(a, a.replace("return 2", "return 3"))).toBeCloseTo(1 / 6, 12);
  });

  test("an empty program has an empty body; a blank one is its own (token-less) body", () => {
    expect(normalizeProgram("", "function_body")).toMatchObject({ tokens: [], emptyScope: true });
    expect(normalizeProgram("# only a comment\n", "function_body")).toMatchObject({ emptyScope: true });
    const blank = normalizeProgram("   \n", "function_body");
    expect(blank.tokens).toEqual([]);
    expect(blank.emptyScope).toBeUndefined();
    // "   \n" is not the empty string: its distance to any tokened body is |Y| / |Y| = 1.
    expect(scopedNormalizedDistance(blank, normalizeProgram("x = 1\n", "function_body"))).toBe(1);
  });
});
