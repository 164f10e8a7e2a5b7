/**
 * The direct parser's three answers (src/core/python/direct/direct-parse.ts): it accepts (with the tree
 * the tree-sitter path builds), rejects where CPython must reject (a tokenizer error, or a program that
 * ends too early), or leaves the program to the fallback (null). Which programs CPython accepts is
 * settled by the differential tests (tests/differential/direct-parser.test.ts, normalize-stdlib.test.ts,
 * syntax-validity.test.ts); these pin the behaviour of each rule on small programs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Expr, Module, Stmt } from "../../src/core/python/ast.js";
import { parseDirect } from "../../src/core/python/direct/direct-parse.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { parsePython, parseWithTreeSitter } from "../../src/core/python/parse.js";
import { PySyntaxError } from "../../src/core/python/syntax-error.js";
import { unparse } from "../../src/core/python/unparse.js";

beforeAll(async () => {
  await loadPythonGrammar();
});

type Answer = "accepted" | "rejected" | "fallback";

function answer(source: string): Answer {
  try {
    return parseDirect(source) === null ? "fallback" : "accepted";
  } catch (error) {
    if (error instanceof PySyntaxError) return "rejected";
    throw error;
  }
}

/** The tree without the source marks (`parenthesized`), which the two parsers set in different places. */
function unmarked(module: Module): unknown {
  return JSON.parse(JSON.stringify(module, (key, value) => (key === "parenthesized" ? undefined : value)));
}

const ACCEPTED = [
  "x = 1\n",
  "def f(a, /, b=2, *args, c, d=4, **kw) -> int:\n    return a\n",
  "async def f():\n    async with a as b, c:\n        await x\n    async for i in y:\n        yield i\n",
  "class A(B, metaclass=M, *c, **d):\n    '''doc'''\n    x: int = 1\n",
  "@a.b(c)\n@d\ndef f(): pass\n",
  "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n",
  "try:\n    pass\nexcept (A, B) as e:\n    raise X from e\nelse:\n    pass\nfinally:\n    pass\n",
  "try:\n    pass\nexcept* A:\n    pass\n",
  "with (a as b, c):\n    pass\n",
  "with (a, b) as c:\n    pass\n",
  "while x := f():\n    break\nelse:\n    continue\n",
  "for x, *y in z:\n    del x, y[0], z.a\n",
  "a = b = c, d\na += 1\n(x): int\nx.y: T = v\n",
  "f(a, *b, c=1, **d)\nf(x for x in y)\nf(*a, b)\n",
  "x = [i for i in y if i if not i]\ny = {k: v for k, v in z}\nz = {*a, b}\nw = {**a, 'b': 1}\n",
  "x = a if b else c\ny = lambda a, *b, c=1, **d: a\nz = not a and b or c\n",
  "x = a[1:2, ::3, *b]\ny = a[x := 1]\nz = (yield)\n",
  "x = 1_000 + 0x_1f + 0o7 + 0b1 + 1.5e-3 + 2j + .5 + 1. + 09.5\n",
  "x = 'a' \"b\" '''c''' r'\\d' u'f' F'h{i!r:>{w}}' f'{x=}' f'{{{y}}}'\ny = b'e' rb'g' Rb'\\x'\n",
  "x = (1 +\n    2)\ny = 3 \\\n    + 4\n",
  "global x, y\nnonlocal z\nimport a.b as c, d\nfrom .. e import (f, g as h,)\nfrom . import *\n",
  "assert x, 'm'\nraise\nreturn *a, b\nprint(match, case, _)\nmatch = 1\n",
  "x = '\u00e9t\u00e9'  # comment \u00e9\n",
];

describe("programs it accepts", () => {
  it.each(ACCEPTED)("%j: the tree-sitter path's tree", (source) => {
    expect(answer(source)).toBe("accepted");
    expect(unmarked(parseDirect(source) as Module)).toEqual(unmarked(parseWithTreeSitter(source)));
  });

  it("`from __future__ import *`, which ast.parse accepts and tree-sitter-python's grammar does not", () => {
    expect(unparse(parseDirect("from __future__ import *\n") as Module)).toBe("from __future__ import *");
    expect(() => parseWithTreeSitter("from __future__ import *\n")).toThrow(PySyntaxError);
  });

  it("indentation inside brackets is not indentation (a tree-sitter limit the direct parser does not have)", () => {
    const source = "def f():\n    if x:\n        y = (a,\n  b)\n    return y\n";
    expect(unparse(parsePython(source))).toBe("def f():\n    if x:\n        y = (a, b)\n    return y");
  });
});

describe("programs it rejects by itself, because CPython must", () => {
  it.each([
    ["cut short in a block header", "def f(x):\n    if x:\n"],
    ["cut short in an expression", "x = a +\n"],
    ["cut short after a decorator", "@dec\n"],
    ["a conditional expression without else, at the end", "x = a if b\n"],
    ["an unclosed bracket", "x = f(a,\n  b"],
    ["an unterminated string", "x = 'abc\ny = 1\n"],
    ["an unterminated triple-quoted string", 'def f():\n    """doc\n'],
    ["prose with a backtick", "The fix is in `f`.\n"],
    ["a stray character", "x = 1 $ 2\n"],
    ["an unmatched closing bracket", "x = (1]\n"],
    ["a dedent to no enclosing level", "if x:\n        a\n    b\n"],
    ["a leading zero", "x = 012\n"],
    ["a misplaced underscore", "x = 1__0\n"],
    ["'<>'", "x = a <> b\n"],
    ["a line continuation at the end", "x = 1 \\"],
  ])("%s", (_why, source) => {
    expect(answer(source)).toBe("rejected");
    expect(() => parseWithTreeSitter(source)).toThrow(PySyntaxError);
  });
});

describe("programs it leaves to the tree-sitter path", () => {
  it.each([
    ["an error in the middle", "x = (a b)\ny = 1\n"],
    ["a match statement", "match x:\n    case 1:\n        pass\n"],
    ["a tab in an indentation", "if x:\n\ty = 1\n"],
    ["a non-ASCII name", "caf\u00e9 = 1\n"],
    ["a number glued to a keyword (a warning in CPython)", "x = 1if y else 2\n"],
    ["\\N{...} in an f-string", "x = f'\\N{BULLET} {y}'\n"],
    ["an f-string error", "x = f'{}'\n"],
    ["a NUL character", "x = 1  # \u0000\n"],
    ["a lone surrogate", "x = '\ud800'\n"],
    ["deep nesting", `x = ${"(".repeat(120)}1${")".repeat(120)}\n`],
    ["a very long chain of operators", `x = ${Array.from({ length: 300 }, (_, i) => `a${i}`).join(" + ")}\n`],
    ["a literal CPython rejects", "x = '\\x4'\n"],
  ])("%s", (_why, source) => {
    expect(answer(source)).toBe("fallback");
  });

  it("the fallback still decides them as CPython does", () => {
    expect(() => parsePython("x = (a b)\ny = 1\n")).toThrow(PySyntaxError);
    expect(unparse(parsePython("match x:\n    case 1:\n        pass\n"))).toBe(
      "match x:\n    case 1:\n        pass",
    );
    expect(unparse(parsePython("x = 1if y else 2\n"))).toBe("x = 1 if y else 2");
  });
});

describe("the marks cognitive complexity reads (ast.ts)", () => {
  const statements = (source: string): Stmt[] => (parseDirect(source) as Module).body;

  it("an `if` written `elif` is marked; `else:` + `if` is not", () => {
    const [elifChain] = statements("if a:\n    pass\nelif b:\n    pass\n");
    const [elseIf] = statements("if a:\n    pass\nelse:\n    if b:\n        pass\n");
    expect(elifChain?.type === "If" && elifChain.orelse[0]).toMatchObject({ type: "If", elif: true });
    expect(elseIf?.type === "If" && elseIf.orelse[0]).not.toHaveProperty("elif");
  });

  it("a parenthesized name or boolean operation is marked, as on the tree-sitter path", () => {
    for (const parse of [parseDirect, parseWithTreeSitter]) {
      const [ret] = (parse("return (f)\n") as Module).body;
      const [chain] = (parse("x = (a and b) or c\n") as Module).body;
      expect(ret?.type === "Return" && ret.value).toMatchObject({
        type: "Name",
        id: "f",
        parenthesized: true,
      });
      const value = chain?.type === "Assign" ? (chain.value as Expr) : null;
      expect(value?.type === "BoolOp" && value.values[0]).toMatchObject({
        type: "BoolOp",
        parenthesized: true,
      });
    }
  });

  it("a definition carries the line of its def or class keyword (async included, decorators not)", () => {
    const body = statements("\n@d\nclass A:\n    @e\n    async def f(self): pass\n");
    const cls = body[0];
    expect(cls).toMatchObject({ type: "ClassDef", lineno: 3 });
    expect(cls?.type === "ClassDef" && cls.body[0]).toMatchObject({ type: "AsyncFunctionDef", lineno: 5 });
  });
});
