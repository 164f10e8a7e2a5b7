/**
 * The `sonar` cognitive-complexity variant (docs/reward.md#added-cognitive-complexity; the CC named in
 * `reward_version`) against SonarSource's own expectations, from two independent sources:
 *
 * 1. Always: Python functions written for this test (not copied from anywhere), each with its expected
 *    total derived by hand, increment by increment, from sonar-python's `CognitiveComplexityVisitor`
 *    (python-frontend/src/main/java/org/sonar/python/metrics/CognitiveComplexityVisitor.java at
 *    SonarSource/sonar-python commit bc7197219001ec84b7ed59d8ea44ceede9c3b1e0). The rules it implements,
 *    as the comments below apply them:
 *    - `if`, `while`, `for`, `except`, a conditional expression: +1 + the nesting level (visitIfStatement,
 *      visitWhileStatement, visitForStatement, visitExceptClause, visitConditionalExpression);
 *      `elif` and every `else` (of if, for, while, try): +1 (incrementWithoutNesting);
 *    - `and`/`or`: +1 per run of one operator in a flattened chain; flattenOperators descends only into
 *      operands that are themselves and/or expressions, so a parenthesized operand starts its own chain;
 *    - nesting: a statement list one level deeper than its statement, except the bodies of try, finally,
 *      class, def and with (isStmtListIncrementsNestingLevel) — so the bodies of if/elif/else, for, while,
 *      except and a match's case blocks nest; a conditional expression nests its three operands;
 *    - a nested def starts at the enclosing function's current level + 1, or at that level for a
 *      "wrapper" (every other statement of the enclosing body is `return <name>`); a class, and a def
 *      directly in a class, start at 0 (NestingLevel); lambdas, comprehensions, match and case add
 *      nothing (no visitor method for them).
 * 2. When MINEDIT_SONAR_PYTHON_DIR names a git directory of SonarSource/sonar-python (e.g. the one
 *    `fetch github:SonarSource/sonar-python` makes; never copied into this repository): every function of
 *    their test resources whose complexity they state — the `# =N` of each function in
 *    python-frontend/src/test/resources/metrics/cognitive-complexities.py and the file's total asserted in
 *    CognitiveComplexityVisitorTest.java; in the rule S3776's resources (python-checks/src/test/resources/
 *    checks/, the files CognitiveComplexityFunctionCheckTest.java verifies, at the threshold it sets), the
 *    "from N to the T allowed" and `effortToFix=E` (N = T + E) of each Noncompliant function, and
 *    "at most T" for each function with no issue. Their per-line `+N` comments are not compared: our
 *    measure reports per function, not per token.
 */
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import {
  cognitiveComplexity,
  type FunctionComplexity,
  functionComplexities,
  MODULE_ENTRY_NAME,
} from "../../src/core/cognitive-complexity.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { parsePython } from "../../src/core/python/parse.js";
import { skipFor } from "../setup/skip.js";

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

type Case = { title: string; source: string; sonar: number };

const CASES: Case[] = [
  {
    title: "with and try bodies do not nest; except and the finally's loop count at the for body's level",
    source: py`
      def drain(rows):
          with open("log") as sink:        # +0, body not nested
              for row in rows:             # +1 (level 0)
                  try:                     # +0, body not nested
                      if row:              # +2 (1 + level 1: the for body)
                          sink.write(row)
                  except ValueError:       # +2 (1 + level 1)
                      continue
                  finally:                 # +0, body not nested
                      while row:           # +2 (1 + level 1)
                          row = row[1:]
    `,
    sonar: 7,
  },
  {
    title: "boolean operator chains: one increment per run of one operator; parentheses start a new chain",
    source: py`
      def flags(a, b, c, d):
          x = a and b and c                # +1 (and)
          y = a and b or c                 # +2 (and, or)
          z = a or b or not c and d        # +2 (or or, and): the not is an operand
          w = (a and b) and c              # +1 (outer and) +1 (the parenthesized and: its own chain)
          return x, y, z, w
    `,
    sonar: 7,
  },
  {
    title: "a def inside an if starts one level below the if's body",
    source: py`
      def order(items):
          if items:                        # +1 (level 0)
              def key(item):               # not a wrapper (order also has an if): level 1 + 1 = 2
                  return item if item else 0   # +3 (1 + level 2)
              items.sort(key=key)
          return items
    `,
    sonar: 4,
  },
  {
    title: "a wrapper function keeps its decorator's level",
    source: py`
      def checked(fn):
          def inner(*args):                # wrapper: checked's only other statement is return inner; level 0
              for a in args:               # +1 (level 0)
                  if a is None:            # +2 (1 + level 1)
                      raise ValueError(a)
              return fn(*args)
          return inner
    `,
    sonar: 3,
  },
  {
    title: "a class resets the nesting level, and a method in it starts at 0",
    source: py`
      def make():
          while True:                      # +1 (level 0)
              class Local:                 # class level 0, body not nested
                  def pick(self, x):       # parent is a class: level 0
                      return 1 if x else 2     # +1 (1 + level 0)
              return Local
    `,
    sonar: 2,
  },
  {
    title: "for/else, try/except/else: the else clauses +1, the for's else body nests",
    source: py`
      def search(xs, target):
          for i, x in enumerate(xs):       # +1 (level 0)
              if x == target:              # +2 (1 + level 1)
                  break
          else:                            # +1
              try:                         # +0; body at level 1 (the else body), not deeper
                  return int(target)
              except (TypeError, ValueError):  # +2 (1 + level 1)
                  return None
              else:                        # +1
                  pass
          return i
    `,
    sonar: 7,
  },
  {
    title: "elif, an or in its test, and a conditional expression in the else body",
    source: py`
      def sign(x):
          if x > 0:                        # +1 (level 0)
              return 1
          elif x < 0 or x is None:         # +1 (elif) +1 (or)
              return -1
          else:                            # +1
              return 0 if x == 0 else x    # +2 (1 + level 1: the else body)
    `,
    sonar: 6,
  },
  {
    title: "comprehension ifs and lambdas add nothing; a conditional in a lambda counts at its level",
    source: py`
      def pick(rows):
          keep = [r for r in rows if r if r[0]]    # +0: comprehension clauses are not statements
          key = lambda r: r[0] if r else None      # +1 (1 + level 0): a lambda opens no level
          return sorted(keep, key=key)
    `,
    sonar: 1,
  },
  {
    title: "match and case add nothing, a case body nests, a guard's operators count",
    source: py`
      def describe(cmd):
          match cmd:                       # +0
              case [x, y] if x and y:      # +1 (and, in the guard)
                  return "pair"
              case {"op": op}:
                  if op:                   # +2 (1 + level 1: the case body)
                      return op
          return None
    `,
    sonar: 3,
  },
  {
    title: "two levels of nested functions that are not wrappers",
    source: py`
      def outer(n):
          total = 0
          def mid(k):                      # outer has other statements: level 0 + 1 = 1
              def leaf(j):                 # mid's return is not a bare name: level 1 + 1 = 2
                  while j:                 # +3 (1 + level 2)
                      j -= 1
                  return j
              return leaf(k) if k else 0   # +2 (1 + level 1)
          return mid(n) + total
    `,
    sonar: 5,
  },
  {
    title: "async for and async with count as for and with",
    source: py`
      async def fetch_all(urls, session):
          async with session:              # +0, body not nested
              async for u in urls:         # +1 (level 0)
                  if not u:                # +2 (1 + level 1)
                      continue
                  await session.get(u)
    `,
    sonar: 3,
  },
  {
    title: "nested conditional expressions and an except inside a while",
    source: py`
      def retry(task, tries):
          while tries:                     # +1 (level 0)
              try:
                  return task()
              except OSError as e:         # +2 (1 + level 1)
                  tries = tries - 1 if e.errno else (0 if tries > 3 else tries)  # +3 (1 + level 2) +4 (1 + level 3)
          return None
    `,
    sonar: 10,
  },
];

describe("the sonar variant on functions derived by hand from sonar-python's visitor", () => {
  for (const c of CASES) {
    it(c.title, () => {
      const module = parsePython(c.source);
      const functions = functionComplexities(module, "sonar");
      expect(functions.map((f) => f.complexity)).toEqual([c.sonar]);
      expect(cognitiveComplexity(module, "sonar")).toBe(c.sonar);
    });
  }
});

// ---- SonarSource's own test resources, read from a sonar-python git directory ----

const SONAR_DIR = process.env.MINEDIT_SONAR_PYTHON_DIR;
const NO_SONAR =
  SONAR_DIR === undefined || SONAR_DIR === ""
    ? "MINEDIT_SONAR_PYTHON_DIR not set: SonarSource/sonar-python's test resources are read at run time, never shipped"
    : undefined;

function git(args: readonly string[]): string {
  const run = spawnSync("git", ["--git-dir", SONAR_DIR as string, ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0)
    throw new Error(`MINEDIT_SONAR_PYTHON_DIR=${SONAR_DIR}: git ${args.join(" ")}: ${run.stderr.trim()}`);
  return run.stdout;
}

const show = (path: string) => git(["show", `HEAD:${path}`]);

const METRICS_PY = "python-frontend/src/test/resources/metrics/cognitive-complexities.py";
const METRICS_TEST =
  "python-frontend/src/test/java/org/sonar/python/metrics/CognitiveComplexityVisitorTest.java";
const CHECK_TEST =
  "python-checks/src/test/java/org/sonar/python/checks/CognitiveComplexityFunctionCheckTest.java";
const CHECK_SOURCE =
  "python-checks/src/main/java/org/sonar/python/checks/CognitiveComplexityFunctionCheck.java";

/** One stated expectation: a function (by its def line) and its complexity, exactly or at most. */
type Expectation = { file: string; line: number; name: string; exactly?: number; atMost?: number };

/** The outermost functions of a resource file, by def line (the module entry dropped). */
function oursByLine(source: string): Map<number, FunctionComplexity> {
  return new Map(
    functionComplexities(parsePython(source), "sonar")
      .filter((f) => f.name !== MODULE_ENTRY_NAME)
      .map((f) => [f.line, f]),
  );
}

/** `def` lines at the start of a line or indented in a class body (the functions S3776 reports). */
function defLines(source: string): { line: number; name: string; text: string }[] {
  return source
    .split("\n")
    .map((text, i) => ({ text, line: i + 1, m: /^(\s*)(?:async\s+)?def\s+(\w+)/.exec(text) }))
    .filter((d) => d.m !== null)
    .map((d) => ({ line: d.line, name: (d.m as RegExpExecArray)[2] as string, text: d.text }));
}

/** The check test's verified resources with the threshold each is verified at. */
function checkResources(): { file: string; threshold: number }[] {
  const defaultThreshold = Number(/DEFAULT_THRESHOLD\s*=\s*(\d+)/.exec(show(CHECK_SOURCE))?.[1]);
  expect(Number.isInteger(defaultThreshold)).toBe(true);
  return show(CHECK_TEST)
    .split("@Test")
    .slice(1)
    .flatMap((body) => {
      const verified = /PythonCheckVerifier\.verify\("src\/test\/resources\/([^"]+\.py)"/.exec(body);
      if (verified === null) return []; // verifyNoIssue on generated files: skipped by file type, not by CC
      const set = /setThreshold\((\d+)\)/.exec(body);
      return [
        {
          file: `python-checks/src/test/resources/${verified[1]}`,
          threshold: set === null ? defaultThreshold : Number(set[1]),
        },
      ];
    });
}

describe("the sonar variant on sonar-python's own test resources", skipFor(NO_SONAR), () => {
  it("gives every function the complexity SonarSource's tests state", () => {
    const commit = git(["rev-parse", "HEAD"]).trim();
    const expectations: Expectation[] = [];
    const disagreements: string[] = [];
    const measured = new Map<string, Map<number, FunctionComplexity>>();
    const ours = (file: string, source: string) => {
      let found = measured.get(file);
      if (found === undefined) {
        found = oursByLine(source);
        measured.set(file, found);
      }
      return found;
    };

    // The metrics visitor's resource: `# =N` on each def line the test's function visitor reaches.
    const metrics = show(METRICS_PY);
    for (const d of defLines(metrics)) {
      const stated = /#\s*=(\d+)/.exec(d.text);
      if (stated !== null)
        expectations.push({ file: METRICS_PY, line: d.line, name: d.name, exactly: Number(stated[1]) });
    }
    // Every outermost function we find is one they state a value for, and the other way round.
    expect([...ours(METRICS_PY, metrics).keys()].sort((x, y) => x - y)).toEqual(
      expectations.map((e) => e.line),
    );
    const fileTotal = Number(/getComplexity\(\)\)\.isEqualTo\((\d+)\)/.exec(show(METRICS_TEST))?.[1]);
    expect(Number.isInteger(fileTotal)).toBe(true);
    const total = cognitiveComplexity(parsePython(metrics), "sonar");
    if (total !== fileTotal)
      disagreements.push(`${METRICS_PY} (whole file): sonar ${fileTotal}, ours ${total}`);

    // The rule's resources: Noncompliant functions state N, the others are at most the threshold.
    for (const { file, threshold } of checkResources()) {
      const source = show(file);
      for (const d of defLines(source)) {
        if (!ours(file, source).has(d.line)) continue; // an inner function: S3776 reports outermost ones
        const from = /Cognitive Complexity from (\d+) to the (\d+) allowed/.exec(d.text);
        const effort = /effortToFix=(\d+)/.exec(d.text);
        if (from !== null) {
          expect(Number(from[2]), `${file}:${d.line} threshold`).toBe(threshold);
          expectations.push({ file, line: d.line, name: d.name, exactly: Number(from[1]) });
        } else if (effort !== null) {
          expectations.push({ file, line: d.line, name: d.name, exactly: threshold + Number(effort[1]) });
        } else if (/Noncompliant/.test(d.text)) {
          throw new Error(`${file}:${d.line}: a Noncompliant function with no stated complexity`);
        } else {
          expectations.push({ file, line: d.line, name: d.name, atMost: threshold });
        }
      }
    }

    for (const e of expectations) {
      const mine = measured.get(e.file)?.get(e.line);
      const value = mine?.complexity;
      const ok =
        value !== undefined &&
        (e.exactly !== undefined ? value === e.exactly : value <= (e.atMost as number));
      if (!ok)
        disagreements.push(
          `${e.file}:${e.line} ${e.name}: sonar ${e.exactly ?? `≤ ${e.atMost}`}, ours ${value ?? "(not found)"}`,
        );
    }
    const exact = expectations.filter((e) => e.exactly !== undefined).length;
    console.info(
      `sonar-python ${commit}: ${expectations.length + 1} expectations (${exact} exact function totals, ` +
        `${expectations.length - exact} upper bounds, 1 file total), ${disagreements.length} disagreements`,
    );
    expect(disagreements).toEqual([]);
    expect(exact).toBeGreaterThan(25);
  });
});
