/**
 * normalizeProgram / programTokens: the two distance scopes of SPEC §2.3, checked against an
 * independent CPython implementation of the same definition (positions from `ast` on norm(X)).
 */
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, test } from "vitest";
import { normalizeProgram, programTokens } from "../../src/core/normalize.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { PySyntaxError } from "../../src/core/python/syntax-error.js";

/** CPython: tokens of norm(X) from the first statement of the first def (BFS, docstring dropped). */
const FUNCTION_BODY_ORACLE = `
import ast, io, json, sys, tokenize
DROP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
def first_def(body):
    level = list(body)
    while level:
        nxt = []
        for s in level:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return s
            for field in ("body", "orelse", "finalbody"):
                nxt.extend(getattr(s, field, []) or [])
            for h in getattr(s, "handlers", []) or []:
                nxt.extend(h.body)
            for c in getattr(s, "cases", []) or []:
                nxt.extend(c.body)
        level = nxt
    return None
out = []
for source in json.load(sys.stdin):
    norm = ast.unparse(ast.parse(source))
    toks = [t for t in tokenize.generate_tokens(io.StringIO(norm).readline) if t.type not in DROP]
    tree = ast.parse(norm)
    fn = first_def(tree.body)
    if fn is None:
        out.append([t.string for t in toks]); continue
    body = fn.body
    doc = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
    if doc and len(body) == 1:
        end = (body[0].end_lineno, body[0].end_col_offset)
        rest = [t for t in toks if t.start >= end]
        out.append([t.string for t in rest[1:]]); continue  # drop the docstring's NEWLINE
    start_stmt = body[1] if doc else body[0]
    start = (start_stmt.lineno, start_stmt.col_offset)
    if start_stmt.decorator_list if hasattr(start_stmt, "decorator_list") else False:
        start = (start_stmt.decorator_list[0].lineno, start_stmt.decorator_list[0].col_offset - 1)
    out.append([t.string for t in toks if t.start >= start])
json.dump(out, sys.stdout)
`;

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

let expected: string[][];

beforeAll(async () => {
  await loadPythonGrammar();
  const run = spawnSync("python3", ["-c", FUNCTION_BODY_ORACLE], { input: JSON.stringify(PROGRAMS) });
  if (run.status !== 0) throw new Error(run.stderr.toString());
  expected = JSON.parse(run.stdout.toString()) as string[][];
});

describe("scopes", () => {
  test.each(PROGRAMS.map((p, i) => [i, p] as const))(
    "function_body tokens of program %i match CPython",
    (i, p) => {
      expect(programTokens(p, "function_body")).toEqual(expected[i]);
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
