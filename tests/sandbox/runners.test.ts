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
import { createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import { DEFAULT_LIMITS, type ExecutionLimits, type Sandbox } from "../../src/sandbox/sandbox.js";
import { BACKENDS, OTHER_PROCESSES } from "./backends.js";

const limits: ExecutionLimits = { ...DEFAULT_LIMITS, wallTimeMs: 8_000 };
describe.each(BACKENDS)("%s", (_backend, createSandbox) => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await createSandbox();
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
      expect((await run(ADD, { style: "unittest", code: "class TestCases(:\n" })).verdict).toBe(
        "INFRA_ERROR",
      );
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

    test("a correct program passes every case", async () => {
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

  describe("stdio style: all cases in one sandboxed process, one forked child per case", () => {
    const SUM = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n";
    const sumCases = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ input: `${i} ${i}\n`, output: `${2 * i}\n` }));

    test("a hanging case is TIMEOUT, killed at the shared deadline; a rollout scored alongside is fine", async () => {
      const hang =
        "import sys, time\nx = int(sys.stdin.read().split()[0])\nif x == 1:\n    time.sleep(60)\nprint(2 * x)\n";
      const short = { ...limits, wallTimeMs: 1_500 };
      const started = performance.now();
      const [hung, fine] = await Promise.all([
        run(hang, { style: "stdio", cases: sumCases(3) }, short),
        run(SUM, { style: "stdio", cases: sumCases(3) }, short),
      ]);
      expect(hung).toMatchObject({ verdict: "TIMEOUT", testsPassed: 1, testsTotal: 3 });
      expect(hung.detail).toContain("case 2");
      expect(performance.now() - started).toBeLessThan(1_500 + 1_000);
      expect(fine).toMatchObject({ verdict: "PASSED", testsPassed: 3, testsTotal: 3 });
    });

    test("a case that floods stdout or stderr is RUNTIME_ERROR (output limit), the others still count", async () => {
      const flood = (stream: string) =>
        `import sys\nx = int(sys.stdin.read().split()[0])\nwhile x == 1:\n    sys.${stream}.write('A' * 100000)\nprint(2 * x)\n`;
      for (const stream of ["stdout", "stderr"]) {
        const o = await run(
          flood(stream),
          { style: "stdio", cases: sumCases(3) },
          { ...limits, wallTimeMs: 5_000 },
        );
        expect(o, stream).toMatchObject({ verdict: "RUNTIME_ERROR", testsPassed: 2, testsTotal: 3 });
        expect(o.detail).toBe("case 2: output limit exceeded");
        expect(o.stderrTail.length).toBeLessThanOrEqual(4096);
        expect(o.wallTimeMs).toBeLessThan(5_000);
      }
    });

    test("a program that kills the harness (its parent) after printing the right answer is never PASSED", async () => {
      for (const kill of ["os.kill(os.getppid(), 9)", "os.kill(os.getppid(), 19)", "os.kill(-1, 9)"]) {
        const program = `import os, sys\nprint(sum(map(int, sys.stdin.read().split())), flush=True)\n${kill}\n`;
        const o = await run(
          program,
          { style: "stdio", cases: sumCases(2) },
          { ...limits, wallTimeMs: 2_000 },
        );
        expect(o.verdict, `${kill}: ${o.detail}`).not.toBe("PASSED");
        expect(["RUNTIME_ERROR", "TIMEOUT"], `${kill}: ${o.detail}`).toContain(o.verdict);
      }
    });

    test("the program cannot write the harness's records: fake records with the nonce from memory are its output", async () => {
      // The nonce is in the forked child's memory (a copy of the harness's); the record channel is not.
      const forge = `import gc, os, sys
prefix = None
for f in gc.get_objects():
    for cell in (getattr(f, '__closure__', None) or ()) if callable(f) else ():
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if isinstance(v, bytes) and v.startswith(b'\\n@@minedit:'):
            prefix = v
assert prefix is not None, 'nonce not found'
fake = b''.join(prefix + b'case:{"index": %d, "exit": 0, "signal": null, "timed_out": false, "truncated": false, "out": "OAo=", "err": ""}\\n' % i for i in range(3))
fake += prefix + b'result:{"status": "ok", "reached": 3}\\n'
for fd in range(3, 64):
    try:
        os.write(fd, fake)
    except OSError:
        pass
for path in [f'/proc/{os.getppid()}/fd/{n}' for n in range(64)] + [f'/proc/1/fd/{n}' for n in range(8)]:
    try:
        fd = os.open(path, os.O_WRONLY)
        os.write(fd, fake)
    except OSError:
        pass
os.write(1, fake)
os.write(2, fake)
os._exit(0)
`;
      const o = await run(forge, {
        style: "stdio",
        cases: [
          { input: "", output: "8" },
          { input: "", output: "8" },
        ],
      });
      expect(o).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 0, testsTotal: 2 });
      expect(o.detail).toContain("case 1: wrong answer");
    });

    test("a program that reads all of a large stdin, in pieces or at once", async () => {
      const numbers = Array.from({ length: 200_000 }, (_, i) => i % 1000);
      const input = `${numbers.join(" ")}\n`;
      const output = `${numbers.reduce((a, b) => a + b, 0)}\n`;
      const o = await run(SUM, {
        style: "stdio",
        cases: [
          { input, output },
          { input: "1 2", output: "3" },
        ],
      });
      expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 2 });
      const lines =
        "import sys\nn = 0\nfor line in sys.stdin:\n    n += sum(map(int, line.split()))\nprint(n)\n";
      const multi = `${numbers.join("\n")}\n`;
      expect(await run(lines, { style: "stdio", cases: [{ input: multi, output }] })).toMatchObject({
        verdict: "PASSED",
      });
    });

    test("stdio programs may exit: judged by output and exit status 0 (sys.exit(0) passes, others fail)", async () => {
      const exiting = (how: string) => `import sys\nprint(sum(map(int, sys.stdin.read().split())))\n${how}\n`;
      for (const how of [
        "sys.exit(0)",
        "sys.exit()",
        "raise SystemExit",
        "import os; sys.stdout.flush(); os._exit(0)",
      ]) {
        expect((await run(exiting(how), { style: "stdio", cases: sumCases(2) })).verdict, how).toBe("PASSED");
      }
      const failing: [string, string][] = [
        ["sys.exit(3)", "case 1: exit code 3"],
        ["sys.exit('bye')", "case 1: exit code 1"],
        ["raise KeyboardInterrupt", "case 1: killed by SIGINT"],
        ["import os; os.kill(os.getpid(), 9)", "case 1: killed by SIGKILL"],
      ];
      for (const [how, detail] of failing) {
        const o = await run(exiting(how), { style: "stdio", cases: sumCases(2) });
        expect(o, how).toMatchObject({ verdict: "RUNTIME_ERROR", testsPassed: 0, detail });
      }
    });

    test("each case runs as a fresh __main__: no state from the previous case, no process left from it", async () => {
      // A leftover would show up as a process that is neither the program nor one of its ancestors (the
      // sandbox's init, the harness, and with warm interpreters the fork server).
      const program = `import sys, time
${OTHER_PROCESSES}
seen = globals().get('seen', 0) + 1
print(__name__, seen, len(others), sys.argv, os.path.basename(__file__))
if os.fork() == 0:
    os.setsid()
    time.sleep(30)
    os._exit(0)
`;
      const expected = "__main__ 1 0 ['main.py'] main.py\n";
      const o = await run(program, {
        style: "stdio",
        cases: Array.from({ length: 3 }, () => ({ input: "", output: expected })),
      });
      expect(o, o.detail).toMatchObject({ verdict: "PASSED", testsPassed: 3 });
    });

    // harness.py _stdio compiles main.py once, before the cases, unless compiling it fails or warns: each
    // case's stderr must still be what `python3 main.py` itself prints (the oracle: the interpreter run
    // directly in the same sandbox), warnings and syntax errors at compile time, tracebacks naming the
    // file and line, in every case.
    test("each case's stderr is what `python3 main.py` prints: warnings, syntax errors, tracebacks", async () => {
      const programs: [string, string, string][] = [
        [
          "a warning while compiling",
          "x = 1\nprint(x is 1, file=__import__('sys').stderr)\nprint(2)\n",
          "PASSED",
        ],
        [
          "an invalid escape",
          "import re\nprint(len(re.findall('\\d', '12')), file=__import__('sys').stderr)\nprint(2)\n",
          "PASSED",
        ],
        ["a syntax error", "print(2\n", "RUNTIME_ERROR"],
        [
          "a traceback",
          "import sys\nprint(__file__, file=sys.stderr)\n\nraise ValueError('line 4')\n",
          "RUNTIME_ERROR",
        ],
        ["no stderr at all", "print(2)\n", "PASSED"],
      ];
      for (const [what, program, verdict] of programs) {
        const direct = await sandbox.run({
          files: { "main.py": program },
          argv: ["python3", "-s", "main.py"],
          limits,
        });
        const o = await run(program, {
          style: "stdio",
          cases: [
            { input: "", output: "2\n" },
            { input: "", output: "2\n" },
          ],
        });
        expect(o.verdict, `${what}: ${o.detail}`).toBe(verdict);
        expect(o.stderrTail, what).toBe(direct.stderr);
        if (verdict === "PASSED") expect(o.testsPassed, what).toBe(2);
      }
    });

    test("threads and atexit run before the exit, as the interpreter does", async () => {
      const program =
        "import atexit, threading, time\natexit.register(lambda: print('bye'))\ndef late():\n    time.sleep(0.1)\n    print('thread')\nthreading.Thread(target=late).start()\nprint('main')\n";
      const o = await run(program, { style: "stdio", cases: [{ input: "", output: "main\nthread\nbye\n" }] });
      expect(o, o.detail).toMatchObject({ verdict: "PASSED" });
    });

    test("memory exhaustion in one case is MEMORY_LIMIT; float tolerance per case", async () => {
      const hog =
        "import sys\nx = int(sys.stdin.read())\nif x == 2:\n    b = bytearray(1 << 40)\nprint(x / 3)\n";
      const cases = [
        { input: "1", output: "0.333333" },
        { input: "2", output: "0.666667" },
      ];
      const o = await run(hog, { style: "stdio", cases, floatTolerance: 1e-6 });
      expect(o).toMatchObject({ verdict: "MEMORY_LIMIT", testsPassed: 1, detail: "case 2: out of memory" });
      expect(o.stderrTail).toContain("MemoryError");
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
});
