/**
 * Hostile candidate programs (docs/sandbox.md, §7): each gets a failing verdict (never PASSED, never
 * INFRA_ERROR, which would mask the sample instead of penalizing it), leaves nothing running on the host,
 * and a normal program scored right after it in the same sandbox still passes.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Verdict } from "../../src/core/reward.js";
import { ErrorCode } from "../../src/errors.js";
import { type PythonTests, runPythonTests, type TestOutcome } from "../../src/runners/python.js";
import { DEFAULT_LIMITS, type ExecutionLimits, type Sandbox } from "../../src/sandbox/sandbox.js";
import { BACKENDS } from "./backends.js";

const limits: ExecutionLimits = { ...DEFAULT_LIMITS, wallTimeMs: 3_000 };
/** This checkout (the server's own files), wherever it lives: the isolation checks must target it. */
const CHECKOUT = fileURLToPath(new URL("../..", import.meta.url));
describe.each(BACKENDS)("%s", (_backend, createSandbox) => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await createSandbox();
  });

  afterAll(async () => {
    await sandbox.close();
  });

  const ADD = "def task_func(a, b):\n    return a + b\n";
  const TESTS: PythonTests = {
    style: "unittest",
    code: "import unittest\n\nclass TestCases(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(task_func(1, 2), 3)\n\n    def test_b(self):\n        self.assertEqual(task_func(2, 2), 4)\n",
  };
  const CHECK: PythonTests = {
    style: "assert",
    code: "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(2, 2) == 4\n",
    entryPoint: "task_func",
  };

  /** A correct program, scored after the hostile one: the sandbox and the runner are still fine. */
  async function normalStillPasses(tests: PythonTests = TESTS): Promise<void> {
    const o = await runPythonTests(sandbox, ADD, tests, limits);
    expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 2, testsTotal: 2 });
  }

  async function score(
    program: string,
    tests: PythonTests = TESTS,
    l: ExecutionLimits = limits,
  ): Promise<TestOutcome> {
    const o = await runPythonTests(sandbox, program, tests, l);
    expect(o.verdict).not.toBe("PASSED");
    expect(o.verdict).not.toBe("INFRA_ERROR");
    return o;
  }

  function expectVerdict(o: TestOutcome, verdict: Verdict): void {
    expect(o.verdict, `${o.detail}\n${o.stderrTail}`).toBe(verdict);
  }

  /**
   * A unique process name, so what a program leaves behind can be found on the host: `named(name, code)`
   * is a program that becomes an interpreter running `code` under that name (exec of a link named so to
   * python3; a run's processes are not dumpable, so /proc/self/comm is not theirs to write, and the
   * harness refuses ctypes to the program).
   */
  const marker = () => `mn${randomBytes(5).toString("hex")}`;
  const named = (name: string, code: string) =>
    `import os, sys\nos.symlink(sys.executable, '/tmp/${name}')\nos.execv('/tmp/${name}', ['${name}', '-c', ${JSON.stringify(code)}])\n`;
  const leftovers = (name: string) => spawnSync("pgrep", ["-a", name], { encoding: "utf8" }).stdout.trim();

  describe("resource abuse", () => {
    test("infinite loop: TIMEOUT", async () => {
      const o = await score("def task_func(a, b):\n    while True:\n        pass\n");
      expectVerdict(o, "TIMEOUT");
      expect(o.wallTimeMs).toBeLessThan(limits.wallTimeMs + 2_000);
      await normalStillPasses();
    });

    test("sleeping past the deadline: TIMEOUT, killed promptly", async () => {
      const name = marker();
      const started = performance.now();
      const o = await score(named(name, "import time\ntime.sleep(600)\n"));
      expectVerdict(o, "TIMEOUT");
      expect(performance.now() - started).toBeLessThan(limits.wallTimeMs + 2_000);
      expect(leftovers(name)).toBe("");
      await normalStillPasses();
    });

    test("fork bomb: a failing verdict, no process left, the host fine", async () => {
      const name = marker();
      const program = named(
        name,
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
      );
      const o = await score(program);
      expectVerdict(o, "TIMEOUT");
      expect(leftovers(name)).toBe("");
      // The host can still start processes.
      expect(spawnSync("true").status).toBe(0);
      await normalStillPasses();
    });

    test("memory bomb, at once or step by step: MEMORY_LIMIT", async () => {
      expectVerdict(await score(`x = bytearray(8 << 30)\n${ADD}`), "MEMORY_LIMIT");
      // Growing bombs touch every page they get (Python zero-fills), so a smaller limit keeps this fast.
      const small = { ...limits, memoryBytes: 256 << 20 };
      const growing =
        "def task_func(a, b):\n    chunks = []\n    while True:\n        chunks.append(bytearray(16 << 20))\n";
      const o = await score(growing, TESTS, small);
      expectVerdict(o, "MEMORY_LIMIT");
      expect(o.testsPassed).toBe(0);
      expectVerdict(await score(growing, CHECK, small), "MEMORY_LIMIT");
      const atLoad = "chunks = []\nwhile True:\n    chunks.append(b'x' * (16 << 20))\n";
      expectVerdict(await score(atLoad, TESTS, small), "MEMORY_LIMIT");
      await normalStillPasses();
    });

    test("stdout flood: output capped, failing verdict, server memory bounded", async () => {
      const before = process.memoryUsage().rss;
      const o = await score(`import sys\nwhile True:\n    sys.stdout.write('A' * 100000)\n${ADD}`);
      expectVerdict(o, "RUNTIME_ERROR");
      expect(o.detail).toContain("output limit");
      expect(o.wallTimeMs).toBeLessThan(limits.wallTimeMs);
      const stderrFlood = await score(`import os\nwhile True:\n    os.write(2, b'E' * 100000)\n${ADD}`);
      expectVerdict(stderrFlood, "RUNTIME_ERROR");
      expect(stderrFlood.stderrTail.length).toBeLessThanOrEqual(4096);
      expect(process.memoryUsage().rss - before).toBeLessThan(64 << 20);
      await normalStillPasses();
    });
  });

  describe("escaping the sandbox", () => {
    let server: Server;
    let port = 0;
    let connections = 0;

    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.end("3");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    test("network connect: refused, so a program that needs the network fails", async () => {
      // The answer is served by the host on 127.0.0.1; only a program that reaches it would pass.
      const program = `import socket\ndef task_func(a, b):\n    if a == 1:\n        return int(socket.create_connection(("127.0.0.1", ${port}), timeout=1).recv(10))\n    return 4\n`;
      const o = await score(program);
      expectVerdict(o, "FAILED_TESTS");
      expect(o.testsPassed).toBe(1);
      expect(o.detail).toContain("ConnectionRefusedError");
      const dns =
        "import urllib.request\ndef task_func(a, b):\n    return len(urllib.request.urlopen('http://example.com', timeout=1).read())\n";
      expectVerdict(await score(dns), "FAILED_TESTS");
      expect(connections).toBe(0);
      await normalStillPasses();
    });

    test("writes outside scratch fail and create nothing on the host", async () => {
      const name = `minedit-hostile-${marker()}`;
      const targets = [`/usr/${name}`, join(CHECKOUT, name), `/root/${name}`, `/${name}`];
      // Passes only if every write succeeded.
      const program = `def task_func(a, b):\n    for p in ${JSON.stringify(targets)}:\n        open(p, 'w').write('x')\n    return a + b\n`;
      const o = await score(program);
      expectVerdict(o, "FAILED_TESTS");
      for (const p of targets) expect(existsSync(p)).toBe(false);
      await normalStillPasses();
    });

    test("host files outside the runtime are not readable", async () => {
      const packageJson = join(CHECKOUT, "package.json");
      expect(existsSync(packageJson)).toBe(true); // so that "not readable" means hidden, not absent
      const program = `def task_func(a, b):\n    text = open(${JSON.stringify(packageJson)}).read() + open('/root/.bashrc').read()\n    return a + b if text else None\n`;
      const o = await score(program);
      expectVerdict(o, "FAILED_TESTS");
      expect(o.detail).toContain("FileNotFoundError");
      await normalStillPasses();
    });

    test("killing the parent, or every process it can see, gets no pass and hurts nothing", async () => {
      for (const kill of ["os.kill(os.getppid(), 9)", "os.kill(1, 9)", "os.kill(-1, 9)", "os.killpg(0, 9)"]) {
        const o = await score(`import os\n${kill}\n`);
        expect(["FAILED_TESTS", "RUNTIME_ERROR"], `${kill}: ${o.detail}`).toContain(o.verdict);
      }
      await normalStillPasses();
    });
  });

  describe("cheating the test runner", () => {
    test("sys.exit(0) and os._exit(0) before the tests run: not PASSED", async () => {
      for (const tests of [TESTS, CHECK]) {
        const exit = await score(`import sys\n${ADD}sys.exit(0)\n`, tests);
        expectVerdict(exit, "RUNTIME_ERROR");
        expect(exit.detail).toContain("sys.exit(0)");
        expectVerdict(await score(`import os\n${ADD}os._exit(0)\n`, tests), "RUNTIME_ERROR");
        expectVerdict(await score(`${ADD}raise SystemExit\n`, tests), "RUNTIME_ERROR");
        await normalStillPasses(tests);
      }
    });

    test("exiting from inside a test: not PASSED", async () => {
      const exitInTest = "import sys\ndef task_func(a, b):\n    sys.exit(0)\n";
      expectVerdict(await score(exitInTest), "FAILED_TESTS");
      const hardExit = "import os\ndef task_func(a, b):\n    os._exit(0)\n";
      expectVerdict(await score(hardExit), "RUNTIME_ERROR");
      expectVerdict(await score(hardExit, CHECK), "RUNTIME_ERROR");
      const interrupt = "def task_func(a, b):\n    raise KeyboardInterrupt\n";
      expectVerdict(await score(interrupt), "FAILED_TESTS");
      expectVerdict(await score(interrupt, CHECK), "FAILED_TESTS");
      const skip = "import unittest\ndef task_func(a, b):\n    raise unittest.SkipTest('no')\n";
      expectVerdict(await score(skip), "FAILED_TESTS");
      await normalStillPasses();
    });

    test.each([
      [
        "assertEqual replaced",
        "import unittest\nunittest.TestCase.assertEqual = lambda self, *a, **k: None\n",
      ],
      [
        "assertEqual code swapped",
        "import unittest\nunittest.TestCase._baseAssertEqual.__code__ = (lambda self, first, second, msg=None: None).__code__\n",
      ],
      [
        // Set from library code (the audit hook lets mock do it): only the integrity snapshot sees it.
        "assertEqual defaults swapped through unittest.mock",
        "import unittest, unittest.mock\nunittest.mock.patch.object(unittest.TestCase._baseAssertEqual, '__defaults__', ('x',)).start()\n",
      ],
      [
        // No audit event at all: a wrapper re-initialised in place.
        "classmethod re-initialised in place",
        "import unittest\nunittest.TestCase.__dict__['doClassCleanups'].__init__(lambda cls: None)\n",
      ],
      [
        "failureException replaced",
        "import unittest\nclass Never(Exception): pass\nunittest.TestCase.failureException = Never\n",
      ],
      [
        "TestResult.addFailure silenced",
        "import unittest.result\nunittest.result.TestResult.addFailure = lambda *a: None\nunittest.result.TestResult.addError = lambda *a: None\n",
      ],
      ["TestCase.run replaced", "import unittest\nunittest.TestCase.run = lambda self, result=None: None\n"],
      [
        "sys.modules['unittest'] replaced",
        "import sys, types\nfake = types.ModuleType('unittest')\nclass TestCase:\n    pass\nfake.TestCase = TestCase\nsys.modules['unittest'] = fake\n",
      ],
      [
        "builtins.__build_class__ hooked",
        "import builtins\n_b = builtins.__build_class__\ndef hook(f, name, *bases, **kw):\n    return _b(f, name, *bases, **kw)\nbuiltins.__build_class__ = hook\n",
      ],
      ["trace function installed", "import sys\nsys.settrace(lambda *a: None)\n"],
    ])("monkey-patching unittest (%s): not PASSED", async (_, patch) => {
      // The program's own function is wrong, so only the patch could make it pass.
      const o = await score(`${patch}def task_func(a, b):\n    return 0\n`);
      expectVerdict(o, "FAILED_TESTS");
      expect(o.detail).toContain("tampered");
      expect(o.testsPassed).toBe(0);
      await normalStillPasses();
    });

    test("patching during a test is caught after that test", async () => {
      const program =
        "import unittest\ndef task_func(a, b):\n    unittest.TestCase.assertEqual = lambda self, *x, **k: None\n    return 0\n";
      const o = await score(program);
      expectVerdict(o, "FAILED_TESTS");
      expect(o.detail).toContain("tampered");
      await normalStillPasses();
    });

    test("making the tests look unusable after they loaded is FAILED_TESTS, never a masked INFRA_ERROR", async () => {
      // A thread deletes TestCases (or marks it skipped) as soon as the tests define it.
      const program = (action: string) =>
        `import threading\ndef spoil():\n    g = globals()\n    while 'TestCases' not in g:\n        pass\n    ${action}\nthreading.Thread(target=spoil, daemon=True).start()\ndef task_func(a, b):\n    return 0\n`;
      for (const action of ["del g['TestCases']", "g['TestCases'].__unittest_skip__ = True"]) {
        expectVerdict(await score(program(action)), "FAILED_TESTS");
      }
      await normalStillPasses();
    });

    test("printing a fake result record, with a guessed nonce or the stdin it never sees: not PASSED", async () => {
      const fake = (nonce: string) =>
        `print('\\n@@minedit:${nonce}:ready:{"total": 2}')\nprint('\\n@@minedit:${nonce}:result:{"status": "ok", "passed": 2, "total": 2, "all_ok": true, "memory_error": false, "detail": ""}')\n`;
      const stolen = "import os, sys\nnonce = sys.stdin.read().strip()\n";
      for (const program of [
        `${fake("0".repeat(32))}import os\nos._exit(0)\n`,
        `${stolen}${fake("' + nonce + '")}os._exit(0)\n`,
      ]) {
        for (const tests of [TESTS, CHECK]) {
          const o = await score(program, tests);
          expectVerdict(o, "RUNTIME_ERROR");
        }
      }
      await normalStillPasses(CHECK);
    });

    test("an object that claims equality with everything is still compared by the tests' own values", async () => {
      // The expected value's builtin type decides (the harness's docstring); more such hacks, each with a
      // legitimate look-alike, are in reward-hacks.test.ts.
      const always =
        "class Any:\n    def __eq__(self, other):\n        return True\ndef task_func(a, b):\n    return Any()\n";
      const strict: PythonTests = {
        style: "unittest",
        code: "import unittest\n\nclass TestCases(unittest.TestCase):\n    def test_a(self):\n        self.assertIsInstance(task_func(1, 2), int)\n",
      };
      expectVerdict(await score(always, strict), "FAILED_TESTS");
      expectVerdict(await score(always), "FAILED_TESTS");
      expectVerdict(await score(always, CHECK), "FAILED_TESTS");
    });
  });

  describe("cancellation", () => {
    test("aborting the signal kills the run promptly and throws Cancelled", async () => {
      const name = marker();
      const controller = new AbortController();
      const started = performance.now();
      const pending = runPythonTests(
        sandbox,
        named(name, "import time\ntime.sleep(600)\n"),
        TESTS,
        limits,
        controller.signal,
      );
      setTimeout(() => controller.abort(), 200);
      await expect(pending).rejects.toMatchObject({ code: ErrorCode.Cancelled });
      expect(performance.now() - started).toBeLessThan(1_500);
      expect(leftovers(name)).toBe("");
      await normalStillPasses();
    });
  });
});
