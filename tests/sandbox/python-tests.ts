/**
 * Tests and program fragments shared by the harness's adversarial suites (reward-hacks.test.ts,
 * harness-integrity.test.ts): the same checks written in both in-process styles, and the Python a hack
 * uses to read the tests' answers out of their code.
 */
import type { PythonTests } from "../../src/runners/python.js";

/**
 * `[arguments, expected]` pairs: `self.assertEqual(task_func(ARGS), EXPECTED)` per test method, and
 * `assert candidate(ARGS) == EXPECTED` in one check().
 */
export type Checks = [string, string][];

export const unittestTests = (checks: Checks): PythonTests => ({
  style: "unittest",
  code: `import unittest\n\nclass TestCases(unittest.TestCase):\n${checks
    .map(
      ([args, expected], i) =>
        `    def test_${i}(self):\n        self.assertEqual(task_func(${args}), ${expected})\n`,
    )
    .join("\n")}`,
});

export const assertTests = (checks: Checks): PythonTests => ({
  style: "assert",
  code: `def check(candidate):\n${checks.map(([args, expected]) => `    assert candidate(${args}) == ${expected}\n`).join("")}`,
  entryPoint: "task_func",
});

/** The same checks in both in-process styles. */
export const bothStyles = (checks: Checks): [string, PythonTests][] => [
  ["unittest", unittestTests(checks)],
  ["assert", assertTests(checks)],
];

/** `task_func(1, 2) == 3` and `task_func(2, 2) == 4`, in both styles. */
export const NUMBERS = bothStyles([
  ["1, 2", "3"],
  ["2, 2", "4"],
]);

/**
 * Python for a program that reads the test's code: `table(code)` maps the two int arguments of each call
 * in `code` to the int constant compared with its result (`candidate(1, 2) == 3` → {(1, 2): 3}), and
 * `answer(codes, a, b)` looks an answer up. The hacks only differ in how they get the code.
 */
export const READ_CODE = `import dis
def table(code):
    t = {}
    ins = [i for i in dis.get_instructions(code) if i.opname != 'CACHE']
    for k in range(len(ins) - 2):
        x, y = ins[k], ins[k + 1]
        if x.opname == y.opname == 'LOAD_CONST' and type(x.argval) is int and type(y.argval) is int:
            for z in ins[k + 2:k + 8]:
                if z.opname == 'LOAD_CONST' and type(z.argval) is int:
                    t[(x.argval, y.argval)] = z.argval
                    break
    for c in code.co_consts:
        if hasattr(c, 'co_consts'):
            t.update(table(c))
    return t
def answer(codes, a, b):
    for code in codes:
        t = table(code)
        if (a, b) in t:
            return t[(a, b)]
    return 0
`;
