/**
 * The Python runners in the real bwrap sandbox: each test style passing and failing with tests counted,
 * stdio comparison (trailing whitespace, float tolerance, shared wall budget), the verdict of a program
 * that crashes while loading, and INFRA_ERROR only for what the candidate cannot cause.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import {
  outputMatches,
  type PythonTests,
  parseHarnessRecords,
  runPythonTests,
} from "../../src/runners/python.js";
import { type BwrapSandbox, createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import { DEFAULT_LIMITS, type ExecutionLimits } from "../../src/sandbox/sandbox.js";

const limits: ExecutionLimits = { ...DEFAULT_LIMITS, wallTimeMs: 8_000 };
let sandbox: BwrapSandbox;

beforeAll(async () => {
  sandbox = await createBwrapSandbox();
});

afterAll(async () => {
  await sandbox.close();
});

const run = (program: string, tests: PythonTests, l: ExecutionLimits = limits) =>
  runPythonTests(sandbox, program, tests, l);

const ADD = "def task_func(a, b):\n    return a + b\n";
const unittestCode = (body: string) => `import unittest\n\nclass TestCases(unittest.TestCase):\n${body}`;
const TWO_TESTS = unittestCode(
  "    def test_small(self):\n        self.assertEqual(task_func(1, 2), 3)\n\n    def test_negative(self):\n        self.assertEqual(task_func(-1, -2), -3)\n",
);

describe("unittest style (BigCodeBench)", () => {
  test("a correct program passes, tests counted", async () => {
    const o = await run(ADD, { style: "unittest", code: TWO_TESTS });
    expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 2, testsTotal: 2, detail: "" });
    expect(o.wallTimeMs).toBeGreaterThan(0);
  });

  test("a wrong program fails, with the passing tests counted and the failure in detail and stderr", async () => {
    const o = await run("def task_func(a, b):\n    return abs(a + b)\n", {
      style: "unittest",
      code: TWO_TESTS,
    });
    expect(o).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 1, testsTotal: 2 });
    expect(o.detail).toBe("test_negative: AssertionError: 3 != -3");
    expect(o.stderrTail).toContain("FAIL: test_negative");
  });

  test("an exception inside a test is a failed test, not a crash", async () => {
    const o = await run(
      "def task_func(a, b):\n    if a < 0:\n        raise ValueError('neg')\n    return a + b\n",
      {
        style: "unittest",
        code: TWO_TESTS,
      },
    );
    expect(o).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 1, testsTotal: 2 });
    expect(o.detail).toContain("ValueError: neg");
  });

  test("program and tests share one module, with setUpClass, fixtures and helpers", async () => {
    const code = `import unittest, os
from unittest.mock import patch

class TestCases(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = 10

    def setUp(self):
        with open('data.txt', 'w') as f:
            f.write('5')

    def test_file(self):
        self.assertEqual(task_func('data.txt'), 15)

    @patch('__test__.helper', return_value=1)
    def test_patched(self, _):
        self.assertEqual(task_func('data.txt'), 11)

    @unittest.skip('not counted')
    def test_skipped(self):
        self.fail()
`;
    const program =
      "import os\ndef helper(x):\n    return x\ndef task_func(path):\n    return 10 + helper(int(open(path).read()))\n";
    const o = await run(program, { style: "unittest", code });
    expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 2, testsTotal: 2 });
  });

  test("a failing setUpClass fails the run", async () => {
    const code = unittestCode(
      "    @classmethod\n    def setUpClass(cls):\n        task_func(None, 1)\n\n    def test_a(self):\n        pass\n",
    );
    const o = await run(ADD, { style: "unittest", code });
    expect(o).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 0, testsTotal: 1 });
  });

  test("a program that raises while loading is a RUNTIME_ERROR", async () => {
    const o = await run("import no_such_module\n", { style: "unittest", code: TWO_TESTS });
    expect(o).toMatchObject({ verdict: "RUNTIME_ERROR", testsPassed: 0, testsTotal: 2 });
    expect(o.detail).toContain("ModuleNotFoundError");
    expect(o.stderrTail).toContain("program.py");
  });

  test("tests that do not compile, or have no TestCases, are INFRA_ERROR (not the candidate's doing)", async () => {
    expect((await run(ADD, { style: "unittest", code: "class TestCases(:\n" })).verdict).toBe("INFRA_ERROR");
    const none = await run(ADD, {
      style: "unittest",
      code: "import unittest\nclass Other(unittest.TestCase):\n    def test_a(self):\n        pass\n",
    });
    expect(none).toMatchObject({ verdict: "INFRA_ERROR" });
    expect(none.detail).toContain("TestCases");
  });
});

describe("assert style (HumanEval)", () => {
  const check = `METADATA = {}

def check(candidate):
    assert candidate(1, 2) == 3
    assert candidate(0, 0) == 0, "zero"
    assert candidate(-1, 1) == 0
`;

  test("a correct program passes, each top-level assert counted", async () => {
    const o = await run(ADD, { style: "assert", code: check, entryPoint: "task_func" });
    expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 3, testsTotal: 3 });
  });

  test("failing asserts are counted and the others still run", async () => {
    const o = await run("def task_func(a, b):\n    return a * b\n", {
      style: "assert",
      code: check,
      entryPoint: "task_func",
    });
    expect(o).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 1, testsTotal: 3 });
    expect(o.detail).toBe("assert #1: AssertionError");
  });

  test("asserts in loops make 'check() completes' one more test", async () => {
    const loop =
      "def check(candidate):\n    assert candidate(1, 1) == 2\n    for i in range(5):\n        assert candidate(i, i) == 2 * i\n";
    const pass = await run(ADD, { style: "assert", code: loop, entryPoint: "task_func" });
    expect(pass).toMatchObject({ verdict: "PASSED", testsPassed: 2, testsTotal: 2 });
    const fail = await run("def task_func(a, b):\n    return 2 if a == 1 else 0\n", {
      style: "assert",
      code: loop,
      entryPoint: "task_func",
    });
    expect(fail).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 1, testsTotal: 2 });
  });

  test("a check that raises after its asserts (e.g. an expected-exception loop) fails the run", async () => {
    const raising =
      "def check(candidate):\n    assert candidate(1, 1) == 2\n    for bad in ('x',):\n        try:\n            candidate(bad, 1)\n        except TypeError:\n            pass\n        else:\n            raise AssertionError('must raise')\n";
    const lenient = "def task_func(a, b):\n    return a + b if isinstance(a, int) else 0\n";
    const fail = await run(lenient, { style: "assert", code: raising, entryPoint: "task_func" });
    expect(fail).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 1, testsTotal: 2 });
    const pass = await run(ADD, { style: "assert", code: raising, entryPoint: "task_func" });
    expect(pass).toMatchObject({ verdict: "PASSED", testsPassed: 2, testsTotal: 2 });
  });

  test("a missing entry point fails the tests", async () => {
    const o = await run("def other(a, b):\n    return a + b\n", {
      style: "assert",
      code: check,
      entryPoint: "task_func",
    });
    expect(o).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 0, testsTotal: 3 });
    expect(o.detail).toContain("does not define task_func");
  });

  test("tests without check() are INFRA_ERROR", async () => {
    expect(
      (await run(ADD, { style: "assert", code: "assert True\n", entryPoint: "task_func" })).verdict,
    ).toBe("INFRA_ERROR");
  });
});

describe("stdio style (DeepCoder)", () => {
  const SUM = "import sys\nnums = list(map(int, sys.stdin.read().split()))\nprint(sum(nums))\n";
  const cases = [
    { input: "1 2\n", output: "3\n" },
    { input: "5 5 5\n", output: "15" },
    { input: "-4 4\n", output: "0\n\n\n" },
  ];

  test("a correct program passes every case, each run as its own process", async () => {
    const o = await run(SUM, { style: "stdio", cases });
    expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 3, testsTotal: 3 });
  });

  test("trailing whitespace per line and trailing blank lines are ignored", async () => {
    const o = await run("print('a  \\t')\nprint('b')\nprint()\nprint('   ')\n", {
      style: "stdio",
      cases: [{ input: "", output: "a\nb" }],
    });
    expect(o.verdict).toBe("PASSED");
  });

  test("wrong answers are counted over all cases; the first failure is the detail", async () => {
    const o = await run("import sys\nprint(abs(sum(map(int, sys.stdin.read().split()))))\n", {
      style: "stdio",
      cases: [cases[0], { input: "-1 -2\n", output: "-3\n" }, cases[1]] as {
        input: string;
        output: string;
      }[],
    });
    expect(o).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 2, testsTotal: 3 });
    expect(o.detail).toBe('case 2: wrong answer, expected "-3\\n", got "3\\n"');
  });

  test("float tolerance (absolute or relative)", async () => {
    const program =
      "import sys\na, b = map(float, sys.stdin.read().split())\nprint(f'{a / b:.9f} {int(a)}')\n";
    const tests = (tolerance?: number): PythonTests => ({
      style: "stdio",
      cases: [
        { input: "1 3", output: "0.333333 1" },
        { input: "2000000 3", output: "666666.6667 2000000" },
      ],
      ...(tolerance === undefined ? {} : { floatTolerance: tolerance }),
    });
    expect((await run(program, tests())).verdict).toBe("FAILED_TESTS");
    expect(await run(program, tests(1e-6))).toMatchObject({ verdict: "PASSED", testsPassed: 2 });
    // 1e-9: 0.333333333 vs 0.333333 is off by 3e-7 (fails); 666666.666666667 vs 666666.6667 is off by 3e-5,
    // within 1e-9 relative to 666666.6667 (passes).
    expect(await run(program, tests(1e-9))).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 1 });
  });

  test("a crash is a RUNTIME_ERROR, exit status in the detail", async () => {
    const o = await run("import sys\nx = int(sys.stdin.read())\nprint(1 // x)\n", {
      style: "stdio",
      cases: [
        { input: "1", output: "1" },
        { input: "0", output: "0" },
      ],
    });
    expect(o).toMatchObject({
      verdict: "RUNTIME_ERROR",
      testsPassed: 1,
      testsTotal: 2,
      detail: "case 2: exit code 1",
    });
    expect(o.stderrTail).toContain("ZeroDivisionError");
  });

  test("the cases share one wall budget; cases it does not reach fail", async () => {
    const o = await run(
      "import time\ntime.sleep(0.6)\nprint(1)\n",
      { style: "stdio", cases: Array.from({ length: 6 }, () => ({ input: "", output: "1" })) },
      { ...limits, wallTimeMs: 2_000 },
    );
    expect(o.verdict).toBe("TIMEOUT");
    expect(o.testsPassed).toBeGreaterThanOrEqual(1);
    expect(o.testsPassed).toBeLessThan(4);
    expect(o.testsTotal).toBe(6);
    expect(o.wallTimeMs).toBeLessThan(2_000 + 1_000);
  });

  test("no cases is INFRA_ERROR", async () => {
    expect((await run(SUM, { style: "stdio", cases: [] })).verdict).toBe("INFRA_ERROR");
  });
});

describe("outputMatches", () => {
  test.each([
    ["3\n", "3", undefined, true],
    ["3 \r\n4\t\n\n", "3\n4", undefined, true],
    ["3\n\n4", "3\n4", undefined, false],
    [" 3", "3", undefined, false],
    ["0.3333333", "0.333333", undefined, false],
    ["0.3333333", "0.333333", 1e-6, true],
    ["1e9", "1000000001", 1e-6, true],
    ["1.5 abc", "1.5000001 abc", 1e-6, true],
    ["1.5 abd", "1.5000001 abc", 1e-6, false],
    ["1.5 2", "1.5", 1e-6, false],
    ["nan", "nan", 1e-6, true],
    ["nan", "1.0", 1e-6, false],
    ["", "", undefined, true],
    ["\n\n", "", undefined, true],
  ] as const)("%j vs %j (tolerance %s) → %s", (actual, expected, tolerance, result) => {
    expect(outputMatches(actual, expected, tolerance)).toBe(result);
  });
});

describe("the harness protocol and infrastructure faults", () => {
  test("records without the exact nonce are ignored", () => {
    const stdout =
      '@@minedit:abc:result:{"status":"ok"}\n@@minedit:abcd:test:{"ok":true}\nnoise @@minedit:abcd:result:{}\n@@minedit:abcd:result:{"status":"ok","passed":1}';
    expect(parseHarnessRecords(stdout, "abcd")).toEqual([
      { kind: "test", value: { ok: true } },
      { kind: "result", value: { status: "ok", passed: 1 } },
    ]);
  });

  test("a sandbox that cannot run gives INFRA_ERROR; cancellation throws Cancelled", async () => {
    const closed = await createBwrapSandbox();
    await closed.close();
    const o = await runPythonTests(closed, ADD, { style: "unittest", code: TWO_TESTS }, limits);
    expect(o.verdict).toBe("INFRA_ERROR");
    expect(o.detail).toContain("closed");
    await expect(
      runPythonTests(sandbox, ADD, { style: "unittest", code: TWO_TESTS }, limits, AbortSignal.abort()),
    ).rejects.toMatchObject({
      code: ErrorCode.Cancelled,
    });
  });

  test("a memory limit too small for the harness to start is INFRA_ERROR, not the candidate's failure", async () => {
    const o = await run(ADD, { style: "unittest", code: TWO_TESTS }, { ...limits, memoryBytes: 8 << 20 });
    expect(o.verdict).toBe("INFRA_ERROR");
  });
});
