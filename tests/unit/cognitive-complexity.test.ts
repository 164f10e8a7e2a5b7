/**
 * Cognitive complexity (docs/reward.md#added-cognitive-complexity): hand-checked programs for every construct and rule, in both variants.
 * The Python comments give the increments, as in the white paper's examples: "+2 (nesting 1)" is the
 * structural +1 plus the nesting increment. `sonar` is SonarSource's rules for Python (sonar-python's
 * CognitiveComplexityVisitor); `paper` is the over-editing paper's own visitor (nreHieW/fyp
 * `partial_edits/utils/complexity_utils.py`, rules P1–P12 of src/core/cognitive-complexity.ts; every `paper`
 * value here is what that code computes). tests/differential/paper-complexity.test.ts checks the `paper`
 * variant on the whole standard library.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  type CognitiveComplexityVariant,
  cognitiveComplexity,
  type FunctionComplexity,
  functionComplexities,
} from "../../src/core/cognitive-complexity.js";
import { analyzeProgram, normalizeProgram } from "../../src/core/normalize.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { parsePython, parseWithTreeSitter } from "../../src/core/python/parse.js";

beforeAll(async () => {
  await loadPythonGrammar();
});

/** Python source written indented inside the test: the common indentation and first newline removed. */
function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = String.raw({ raw: strings }, ...values).replace(/^\n/, "");
  const lines = text.split("\n");
  const indents = lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)?.[0].length ?? 0);
  const common = Math.min(...indents);
  return lines.map((l) => l.slice(common)).join("\n");
}

/**
 * Both measures of a program that CPython 3.11 accepts, on the tree of each of the normalizer's two
 * parsers (the direct parser and the tree-sitter path), which must agree.
 */
function measure(
  source: string,
  variant: CognitiveComplexityVariant = "sonar",
): { total: number; functions: FunctionComplexity[] } {
  const direct = parsePython(source);
  const result = {
    total: cognitiveComplexity(direct, variant),
    functions: functionComplexities(direct, variant),
  };
  const fallback = parseWithTreeSitter(source);
  expect({
    total: cognitiveComplexity(fallback, variant),
    functions: functionComplexities(fallback, variant),
  }).toEqual(result);
  return result;
}

type Case = { title: string; source: string; sonar: number; paper: number };

const CASES: Case[] = [
  {
    title: "straight-line code is 0",
    source: py`
      def f(x):
          y = x + 1
          print(y, not x, x < y <= 3, [i for i in range(y)])   # paper +1 (a comprehension's for)
          return y
    `,
    sonar: 0,
    paper: 1,
  },
  {
    title: "if / elif / else",
    source: py`
      def f(x):
          if x > 0:        # +1
              return 1
          elif x < 0:      # +1 (elif: no nesting increment)
              return -1
          else:            # sonar +1, paper 0
              return 0
    `,
    sonar: 3,
    paper: 2,
  },
  {
    title: "elif and else bodies are nested",
    source: py`
      def f(a, b):
          if a:            # +1
              pass
          elif b:          # +1
              if a:        # +2 (nesting 1)
                  pass
          else:            # sonar +1; paper: an else holding only an if is an elif (same AST)
              if b:        # sonar +2 (nesting 1); paper +1 (an elif)
                  pass
    `,
    sonar: 7,
    paper: 5,
  },
  {
    title: "'else:' around an 'if': sonar an else and a nested if (as written), paper an elif (the AST)",
    source: py`
      def f(a, b):
          if a:            # +1
              pass
          else:            # sonar +1, paper 0
              if b:        # sonar +2 (nesting 1); paper +1 (orelse is one If: an elif)
                  pass
    `,
    sonar: 4,
    paper: 2,
  },
  {
    title: "one-line if bodies and nested ifs",
    source: py`
      def f(a, b, c):
          if a:            # +1
              if b:        # +2 (nesting 1)
                  if c: return 1   # +3 (nesting 2)
          if a: return 2   # +1
    `,
    sonar: 7,
    paper: 7,
  },
  {
    title: "loops nest; break and continue are free",
    source: py`
      def f(xs):
          while xs:                # +1
              for x in xs:         # +2 (nesting 1)
                  if x:            # +3 (nesting 2)
                      break
                  continue
    `,
    sonar: 6,
    paper: 6,
  },
  {
    title: "for-else and while-else",
    source: py`
      def f(xs):
          for x in xs:       # +1
              pass
          else:              # sonar +1, paper 0
              if xs:         # +2 (nesting 1)
                  pass
          while xs:          # +1
              xs.pop()
          else:              # sonar +1, paper 0
              pass
    `,
    sonar: 6,
    paper: 4,
  },
  {
    title: "async for and async with",
    source: py`
      async def f(xs, lock):
          async with lock:         # 0; sonar: body not nested, paper: nested
              async for x in xs:   # sonar +1; paper +2 (nesting 1)
                  if x:            # sonar +2 (nesting 1); paper +3 (nesting 2)
                      pass
    `,
    sonar: 3,
    paper: 5,
  },
  {
    title: "try / except / else / finally",
    source: py`
      def f(a, b, c, d):
          try:
              if a:                # sonar +1 (a try body is not nested); paper +2 (it is)
                  pass
          except ValueError:       # +1
              if b:                # +2 (nesting 1)
                  pass
          except (KeyError, TypeError) as e:   # +1
              print(e)
          else:                    # sonar +1, paper 0
              if c:                # +2 (nesting 1)
                  pass
          finally:
              if d:                # sonar +1 (a finally body is not nested); paper +2 (it is)
                  pass
    `,
    sonar: 9,
    paper: 10,
  },
  {
    title: "except* and an except inside a loop pay for nesting",
    source: py`
      def f(xs):
          for x in xs:             # +1
              try:
                  g(x)
              except* OSError:     # sonar +2 (nesting 1); paper 0 (ast.TryStar has no visit method)
                  pass
    `,
    sonar: 3,
    paper: 1,
  },
  {
    title: "with adds nothing; it nests in the paper only",
    source: py`
      def f(p):
          with open(p) as fh, open(p) as gh:   # 0
              if fh:                           # sonar +1; paper +2 (nesting 1)
                  pass
    `,
    sonar: 1,
    paper: 2,
  },
  {
    title: "a ternary",
    source: py`
      def f(a):
          return 1 if a else 2     # +1
    `,
    sonar: 1,
    paper: 1,
  },
  {
    title: "ternaries nest their operands in sonar, not in the paper",
    source: py`
      def f(a, b, xs):
          for x in xs:                           # +1
              y = (1 if a else 2) if b else 3    # sonar: outer +2 (nesting 1), inner +3 (nesting 2)
                                                 # paper: +2 +2 (both at nesting 1)
              z = 1 if a else 2 if b else 3      # sonar: +2 (nesting 1), +3 (nesting 2); paper: +2 +2
    `,
    sonar: 11,
    paper: 9,
  },
  {
    title: "a condition is at the level of its statement (sonar) or never visited (paper)",
    source: py`
      def f(a, x, y):
          if (x if a else y):      # +1 for the if; sonar +1 for the ternary (nesting 0), paper 0
              pass
    `,
    sonar: 2,
    paper: 1,
  },
  {
    title: "boolean operator sequences (sonar: runs of like operators; paper: operands − 1 per BoolOp)",
    source: py`
      def f(a, b, c, d):
          s = a and b and c        # sonar +1; paper +2
          t = a or b or c          # sonar +1; paper +2
          u = a and b or c         # sonar +2; paper +2
          v = a and b or c and d   # sonar +3 (and, or, and); paper +3
          w = a or b and c or d    # sonar +3 (or, and, or: read left to right); paper +3
          x = not (a and b)        # +1
          return s, t, u, v, w, x
    `,
    sonar: 11,
    paper: 13,
  },
  {
    title: "parentheses and calls end a boolean sequence",
    source: py`
      def f(a, b, c):
          x = (a and b) and c      # +2
          y = a and (b and c)      # +2
          z = g(a and b) or c      # +2
          w = (a and  # a comment inside the sequence
               b and c)            # sonar +1; paper +2
          return x, y, z, w
    `,
    sonar: 7,
    paper: 8,
  },
  {
    title: "boolean operators in conditions (never visited by the paper)",
    source: py`
      def f(a, b, c):
          if a and b or c:         # +1 for the if; sonar +2 for the operators, paper 0
              pass
          while a or b:            # +1; sonar +1, paper 0
              pass
    `,
    sonar: 5,
    paper: 2,
  },
  {
    title: "a nested function nests one level deeper (sonar; the paper nests no def)",
    source: py`
      def outer(xs):
          if xs:                   # +1
              pass
          def inner(x):            # sonar: outer also has other statements, so inner is at nesting 1
              if x:                # sonar +2 (nesting 1); paper +1
                  pass
          return inner
    `,
    sonar: 3,
    paper: 2,
  },
  {
    title: "a function defined inside an if starts below it",
    source: py`
      def outer(flag):
          if flag:                 # +1
              def inner(x):        # nesting 1 (the if body) + 1 (nested function; not in the paper)
                  if x:            # sonar +3 (nesting 2); paper +2 (nesting 1)
                      pass
              return inner
    `,
    sonar: 4,
    paper: 3,
  },
  {
    title: "a wrapper function (decorator idiom) does not nest",
    source: py`
      def deco(fn):
          @functools.wraps(fn)
          def wrapper(*args):      # deco only returns wrapper: nesting 0
              if args:             # +1
                  pass
              return fn(*args)
          return wrapper
    `,
    sonar: 1,
    paper: 1,
  },
  {
    title: "a docstring makes the enclosing function more than a wrapper",
    source: py`
      def deco(fn):
          """Decorate fn."""
          def wrapper(*args):      # sonar: nesting 1
              if args:             # sonar +2 (nesting 1); paper +1
                  pass
          return wrapper
    `,
    sonar: 2,
    paper: 1,
  },
  {
    title: "returning anything but a bare name is more than a wrapper",
    source: py`
      def deco(fn):
          def wrapper():           # sonar: nesting 1
              if fn:               # sonar +2 (nesting 1); paper +1
                  pass
          return wrapper if fn else None   # +1
    `,
    sonar: 3,
    paper: 2,
  },
  {
    title: "lambdas do not nest (sonar-python has no lambda rule)",
    source: py`
      def f(xs):
          key = lambda x: x if x else 0    # +1
          for x in xs:                     # +1
              g(lambda: 1 if x else 2)     # +2 (nesting 1, none from the lambda)
          return key
    `,
    sonar: 4,
    paper: 4,
  },
  {
    title: "a class resets the nesting level, even inside a function (sonar; not the paper)",
    source: py`
      def f(a):
          if a:                            # +1
              class C:
                  def m(self, b):
                      return 1 if b else 2 # sonar +1 (the class resets the level to 0); paper +2
              return C
    `,
    sonar: 2,
    paper: 3,
  },
  {
    title: "decorators, defaults and annotations count with their function",
    source: py`
      @register(1 if DEBUG else 2)         # +1
      def f(x=a and b) -> (int if T else str):   # +1 for the and; +1 for the ternary
          return x
    `,
    sonar: 3,
    paper: 3,
  },
  {
    title: "comprehensions: their for and if are free in sonar, +1 + nesting each in the paper",
    source: py`
      def f(xs):
          ys = [x for x in xs if x]                        # sonar 0; paper +2 (for, if)
          zs = {x: y for x in xs for y in x if x and y}    # +1 (the and); paper +3 (for, for, if)
          return [1 if x else 2 for x in ys], zs           # +1 (a ternary); paper +1 (for)
    `,
    sonar: 2,
    paper: 8,
  },
  {
    title: "match: sonar 0 per case, bodies nested; paper +1 per case, bodies visited twice",
    source: py`
      def f(cmd):
          match cmd:                       # 0 (sonar-python has no match rule)
              case [x, *_] if x and cmd:   # paper +1; +1 for the guard's and
                  if x:                    # +2 (nesting 1); paper again +1 (the match's own level)
                      pass
              case {"k": 1 | 2}:           # paper +1
                  pass
              case _:                      # paper +1
                  return 1 if cmd else 0   # +2 (nesting 1); paper again +1
    `,
    sonar: 5,
    paper: 10,
  },
  {
    title: "the paper never visits conditions, iterables, with items or exception types",
    source: py`
      def f(a, b, xs):
          while a or b:                          # +1; sonar +1 (or)
              pass
          for x in (xs if a else []):            # +1; sonar +1 (ternary, nesting 0)
              pass
          with open(a if b else xs):             # sonar +1 (ternary); paper 0
              pass
          try:
              pass
          except (KeyError if a else OSError):   # +1; sonar +1 (ternary, nesting 0)
              pass
    `,
    sonar: 7,
    paper: 3,
  },
  {
    title: "a match inside a case body is visited twice by the paper",
    source: py`
      match a:
          case 1:                  # paper +1
              match b:             # paper: visited at nesting 1, then again at nesting 0
                  case 2:          # paper +2, then +1
                      x = p and q  # +1; paper +1 +1, then +1 +1
    `,
    sonar: 1,
    paper: 8,
  },
  {
    title: "recursion is not counted (sonar-python)",
    source: py`
      def fact(n):
          if n <= 1:               # +1
              return 1
          return n * fact(n - 1)   # 0
    `,
    sonar: 1,
    paper: 1,
  },
  {
    title: "code outside functions counts too",
    source: py`
      import sys
      if __name__ == "__main__":                       # +1
          main(sys.argv[1] if sys.argv[1:] else None)  # +2 (nesting 1)
    `,
    sonar: 3,
    paper: 3,
  },
];

describe("cognitiveComplexity", () => {
  it.each(CASES)("$title: sonar $sonar, paper $paper", ({ source, sonar, paper }) => {
    expect(measure(source, "sonar").total).toBe(sonar);
    expect(measure(source, "paper").total).toBe(paper);
  });

  it("defaults to the sonar variant", () => {
    expect(cognitiveComplexity(parsePython("def f(a, b):\n    return a and b\n"))).toBe(1);
  });

  it("a 5,000-term boolean sequence is one increment and does not overflow the stack", () => {
    const chain = Array.from({ length: 5000 }, (_, i) => `a${i}`).join(" and ");
    expect(measure(`x = ${chain}\n`).total).toBe(1);
    expect(measure(`x = ${chain}\n`, "paper").total).toBe(4999);
    const mixed = Array.from({ length: 5000 }, (_, i) => `a${i} ${i % 2 === 0 ? "and" : "or"}`).join(" ");
    expect(measure(`x = ${mixed} z\n`).total).toBe(5000);
    expect(measure(`x = ${mixed} z\n`, "paper").total).toBe(5000);
  });
});

describe("functionComplexities", () => {
  it("one entry per outermost function or method, qualified, in source order, then <module>", () => {
    const source = py`
      class A:
          flag = 1 if X else 2     # +1, outside every function
          def m(self):
              if self:             # +1
                  pass
          class B:
              async def n(self):
                  for x in self:   # +1
                      def inner():
                          while x: # +3 (nesting 1 from the for body, +1 nested function)
                              pass
      def g(a):
          return a or not a        # +1
    `;
    const { total, functions } = measure(source);
    expect(functions).toEqual([
      { name: "A.m", line: 3, complexity: 1 },
      { name: "A.B.n", line: 7, complexity: 4 },
      { name: "g", line: 12, complexity: 1 },
      { name: "<module>", line: 1, complexity: 1 },
    ]);
    expect(total).toBe(7);
    expect(functions.reduce((sum, f) => sum + f.complexity, 0)).toBe(total);
    // The paper nests no def: the while is +2 (nesting 1 from the for body only).
    expect(measure(source, "paper").functions).toEqual([
      { name: "A.m", line: 3, complexity: 1 },
      { name: "A.B.n", line: 7, complexity: 3 },
      { name: "g", line: 12, complexity: 1 },
      { name: "<module>", line: 1, complexity: 1 },
    ]);
  });

  it("a function inside a function is part of the outer one; no <module> entry when it has none", () => {
    const source = py`
      def outer(xs):
          def inner(x):
              return 1 if x else 2     # +2 (nesting 1)
          return [inner(x) for x in xs]
      def other():
          pass
    `;
    expect(measure(source).functions).toEqual([
      { name: "outer", line: 1, complexity: 2 },
      { name: "other", line: 5, complexity: 0 },
    ]);
    // The paper: +1 for the ternary (a def does not nest), +1 for the comprehension's for.
    expect(measure(source, "paper").functions[0]).toEqual({ name: "outer", line: 1, complexity: 2 });
  });

  it("is empty for a program without functions or complexity", () => {
    expect(measure("x = 1\n").functions).toEqual([]);
  });
});

describe("analyzeProgram", () => {
  it("returns normalizeProgram's result plus CC from the same parse", () => {
    const source = "def f(a, b):\n    if a and b:  # comment\n        return 1\n    return 0\n";
    for (const scope of ["program", "function_body"] as const) {
      const analyzed = analyzeProgram(source, scope);
      expect(analyzed).toEqual({ ...normalizeProgram(source, scope), cognitiveComplexity: 2 });
    }
    expect(analyzeProgram(source, "program", "paper").cognitiveComplexity).toBe(1);
  });

  it("measures CRLF sources like LF sources", () => {
    const source = "def f(a):\r\n    if a:\r\n        return 1 if a else 2\r\n";
    expect(analyzeProgram(source).cognitiveComplexity).toBe(3);
  });
});
