/**
 * CPU-time limits (issue 13 item 3; sandbox/python/forkserver.py, src/scoring/limits.ts): the time limit
 * counts the run's CPU time, the wall limit is only a backstop, so a verdict does not depend on how many
 * runs share the cores. The same programs are judged at concurrency 2 and 16 on this machine's cores
 * (2 in CI: 16 is 8× oversubscribed, the load itself): a CPU-bound program within its limit stays PASSED,
 * a busy loop is TIMEOUT by CPU, a program that sleeps within the backstop is PASSED (sleep burns no CPU),
 * one that sleeps forever is TIMEOUT by the backstop alone. The outcome carries the run's CPU time and
 * names the limit that stopped it; stdio cases share the CPU limit as CPU time. The idle limit (time
 * neither running nor waiting for a CPU) stops a sleeping program long before the backstop, and a
 * CPU-starved program (8× oversubscribed: alone, in a thread, in subprocesses) is never idle.
 */
import { availableParallelism } from "node:os";
import { afterAll, describe, expect, test } from "vitest";
import { type PythonTests, runPythonTests, type TestOutcome } from "../../src/runners/python.js";
import { DEFAULT_LIMITS, type ExecutionLimits, type Sandbox } from "../../src/sandbox/sandbox.js";
import { wallBackstopMs } from "../../src/scoring/limits.js";
import { BACKENDS, createWarmSandbox } from "./backends.js";

const CPU_LIMIT_MS = 2_000;
const CORES = availableParallelism();
const limitsAt = (concurrency: number): ExecutionLimits => ({
  ...DEFAULT_LIMITS,
  cpuTimeMs: CPU_LIMIT_MS,
  wallTimeMs: wallBackstopMs(CPU_LIMIT_MS, concurrency, CORES),
});

const TESTS: PythonTests = {
  style: "unittest",
  code: "import unittest\nclass TestCases(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(f(), 1)\n",
};
/** About 0.5 s of CPU here: a quarter of the limit, alone or with 15 others on 2 cores. */
const WITHIN = "def f():\n    s = 0\n    for i in range(3_000_000):\n        s += i * i\n    return 1\n";
const BUSY = "def f():\n    while True:\n        pass\n";
const SLEEPS = "import time\ndef f():\n    time.sleep(1.5)\n    return 1\n";

/** 16 runs: 12 CPU-bound within the limit, 2 busy loops, 2 that sleep within the backstop. */
const PROGRAMS = [
  ...Array.from({ length: 12 }, () => ["within", WITHIN] as const),
  ["busy", BUSY] as const,
  ["busy", BUSY] as const,
  ["sleeps", SLEEPS] as const,
  ["sleeps", SLEEPS] as const,
];

const opened: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(opened.map((sandbox) => sandbox.close()));
});

async function judge(concurrency: number): Promise<{ kind: string; outcome: TestOutcome }[]> {
  const sandbox = await createWarmSandbox(concurrency);
  opened.push(sandbox);
  const limits = limitsAt(concurrency);
  return Promise.all(
    PROGRAMS.map(async ([kind, program]) => ({
      kind,
      outcome: await runPythonTests(sandbox, program, TESTS, limits),
    })),
  );
}

describe("CPU-time limits", () => {
  test("the same verdicts at concurrency 2 and 16: within the limit PASSED, busy loops TIMEOUT", async () => {
    const verdicts: Record<number, string[]> = {};
    for (const concurrency of [2, 16]) {
      const started = performance.now();
      const results = await judge(concurrency);
      const seconds = (performance.now() - started) / 1000;
      verdicts[concurrency] = results.map(({ kind, outcome }) => `${kind}:${outcome.verdict}`);
      for (const { kind, outcome } of results) {
        expect(outcome.verdict, `${kind} at ${concurrency}: ${outcome.detail}`).toBe(
          kind === "busy" ? "TIMEOUT" : "PASSED",
        );
      }
      console.log(`concurrency ${concurrency} on ${CORES} cores: 16 runs in ${seconds.toFixed(1)} s`);
    }
    expect(verdicts[16]).toEqual(verdicts[2]);
  }, 120_000);

  test("the run's CPU time is reported, and a sleep costs none of it", async () => {
    const sandbox = await createWarmSandbox(2);
    opened.push(sandbox);
    const limits = limitsAt(2);
    const run = (code: string) => sandbox.run({ files: {}, argv: ["python3", "-s", "-c", code], limits });
    const busy = await run("while True: pass");
    expect(busy.timedOut).toBe(true);
    expect(busy.cpuTimeMs).toBeGreaterThanOrEqual(CPU_LIMIT_MS);
    expect(busy.cpuTimeMs).toBeLessThan(CPU_LIMIT_MS + 500);
    const sleeper = await run("import time; time.sleep(1)");
    expect(sleeper.exitCode).toBe(0);
    expect(sleeper.wallTimeMs).toBeGreaterThanOrEqual(1000);
    expect(sleeper.cpuTimeMs).toBeLessThan(300);
    // CPU of processes the program starts counts too (reaped by the fork server or by the program).
    const child = await run(
      "import subprocess, sys; subprocess.run([sys.executable, '-c', 'while True: pass'])",
    );
    expect(child.timedOut).toBe(true);
    expect(child.cpuTimeMs).toBeGreaterThanOrEqual(CPU_LIMIT_MS);
  }, 60_000);

  test("the outcome carries the run's CPU time and names the limit that stopped it (CPU, or the wall backstop)", async () => {
    const sandbox = await createWarmSandbox(2);
    opened.push(sandbox);
    const limits = { ...DEFAULT_LIMITS, cpuTimeMs: 1000, wallTimeMs: wallBackstopMs(1000, 1, CORES) };
    const passed = await runPythonTests(sandbox, WITHIN, TESTS, limits);
    expect(passed.verdict, passed.detail).toBe("PASSED");
    expect(passed.cpuTimeMs).toBeGreaterThan(0);
    expect(passed.cpuTimeMs).toBeLessThan(1000);
    const busy = await runPythonTests(sandbox, BUSY, TESTS, limits);
    expect(busy.verdict).toBe("TIMEOUT");
    expect(busy.detail).toContain("killed after the 1000 ms CPU time limit");
    expect(busy.cpuTimeMs).toBeGreaterThanOrEqual(1000);
    const sleeper = { ...limits, wallTimeMs: 1500 };
    const asleep = await runPythonTests(
      sandbox,
      "import time\ndef f():\n    time.sleep(3600)\n",
      TESTS,
      sleeper,
    );
    expect(asleep.verdict).toBe("TIMEOUT");
    expect(asleep.detail).toContain("killed after the 1500 ms wall limit");
    // Without a CPU limit the wall limit is the limit.
    const { cpuTimeMs: _, ...wallOnly } = sleeper;
    const loop = await runPythonTests(sandbox, BUSY, TESTS, wallOnly);
    expect(loop.detail).toContain("killed after the 1500 ms wall limit");
  }, 60_000);

  test.each(BACKENDS)(
    "stdio cases share the CPU limit as CPU time (%s): a sleeping case is not charged, a busy one is stopped and named",
    async (_backend, create) => {
      const sandbox = await create();
      opened.push(sandbox);
      const limits = { ...DEFAULT_LIMITS, cpuTimeMs: 1500, wallTimeMs: wallBackstopMs(1500, 1, CORES) };
      const cases = [1, 2, 3].map((n) => ({ input: `${n}\n`, output: `${n}\n` }));
      const tests: PythonTests = { style: "stdio", cases };
      // 3 × 0.8 s of sleep: more wall time than the CPU limit, almost no CPU.
      const sleeps = await runPythonTests(
        sandbox,
        "import time\ntime.sleep(0.8)\nprint(input())\n",
        tests,
        limits,
      );
      expect(sleeps.verdict, sleeps.detail).toBe("PASSED");
      // (The fresh backend does not measure CPU time: no cpuTimeMs there.)
      expect(sleeps.cpuTimeMs ?? 0).toBeLessThan(1500);
      // Case 1 passes, case 2 burns the rest of the budget: stopped by the harness, which still reports.
      const burns = await runPythonTests(
        sandbox,
        "n = int(input())\nif n == 2:\n    while True:\n        pass\nprint(n)\n",
        tests,
        limits,
      );
      expect(burns).toMatchObject({ verdict: "TIMEOUT", testsPassed: 1, testsTotal: 3 });
      expect(burns.detail).toMatch(/^case 2: CPU time limit of 1500 ms spent/);
      if (burns.cpuTimeMs !== undefined) expect(burns.cpuTimeMs).toBeGreaterThanOrEqual(1000);
    },
    60_000,
  );

  test("a program that sleeps forever is stopped by the wall backstop alone", async () => {
    const sandbox = await createWarmSandbox(1);
    opened.push(sandbox);
    const limits = { ...DEFAULT_LIMITS, cpuTimeMs: 500, wallTimeMs: wallBackstopMs(500, 1, CORES) };
    const r = await sandbox.run({
      files: {},
      argv: ["python3", "-s", "-c", "import time; time.sleep(3600)"],
      limits,
    });
    expect(r.timedOut).toBe(true);
    expect(r.wallTimeMs).toBeGreaterThanOrEqual(limits.wallTimeMs);
    expect(r.cpuTimeMs).toBeLessThan(300);
  }, 30_000);

  test("the idle limit stops a program that sleeps for ever; CPU-starved runs never reach it (concurrency 16)", async () => {
    const sandbox = await createWarmSandbox(16);
    opened.push(sandbox);
    const limits = { ...DEFAULT_LIMITS, cpuTimeMs: 5000, idleTimeMs: 1000, wallTimeMs: 60_000 };
    const loop = "s = 0\nfor i in range(8_000_000):\n    s += i\n";
    const programs: [string, string][] = [
      ["cpu", loop],
      [
        "thread",
        `import threading\ndef w():\n${loop.trimEnd().replace(/^/gm, "    ")}\nt = threading.Thread(target=w)\nt.start()\nt.join()\n`,
      ],
      [
        "subprocess",
        `import subprocess, sys\nsubprocess.run([sys.executable, '-c', ${JSON.stringify(loop)}])\n`,
      ],
      [
        "short subprocesses",
        "import subprocess, sys\nfor _ in range(20):\n    subprocess.run([sys.executable, '-c', 'pass'])\n",
      ],
      ["sleeps within", "import time\ntime.sleep(0.5)\n"],
      ["sleeps for ever", "import time\ntime.sleep(3600)\n"],
    ];
    const runs = programs.flatMap((p) => [p, p, p]);
    const results = await Promise.all(
      runs.map(async ([kind, code]) => ({
        kind,
        r: await sandbox.run({ files: {}, argv: ["python3", "-s", "-c", code], limits }),
      })),
    );
    for (const { kind, r } of results) {
      const label = `${kind}: wall ${r.wallTimeMs} ms, cpu ${r.cpuTimeMs} ms, idle ${r.idleTimeMs} ms`;
      expect(r.idleTimeMs, label).toBeDefined();
      if (kind === "sleeps for ever") {
        expect(r, label).toMatchObject({ timedOut: true, idleLimitExceeded: true });
        // Stopped by the idle limit, not by the wall backstop a minute later.
        expect(r.wallTimeMs, label).toBeLessThan(5000);
      } else {
        expect(r.exitCode, label).toBe(0);
        expect(r.timedOut, label).toBe(false);
        expect(r.idleLimitExceeded ?? false, label).toBe(false);
      }
      if (kind === "sleeps within") expect(r.idleTimeMs, label).toBeGreaterThanOrEqual(470);
      if (kind === "cpu" || kind === "thread" || kind === "subprocess") {
        // Starved: most of the wall time waiting for a CPU, none of it idle.
        expect(r.idleTimeMs ?? 0, label).toBeLessThan(300);
      }
    }
    const cpuBound = results.filter(({ kind }) => kind === "cpu").map(({ r }) => r.wallTimeMs);
    console.log(
      `idle limit at concurrency 16 on ${CORES} cores: CPU-bound runs took ${cpuBound.join(", ")} ms wall`,
    );
  }, 120_000);

  test("the outcome names the idle limit, and a gold's idle time is reported", async () => {
    const sandbox = await createWarmSandbox(1);
    opened.push(sandbox);
    const limits = { ...DEFAULT_LIMITS, cpuTimeMs: 1000, idleTimeMs: 800, wallTimeMs: 30_000 };
    const asleep = await runPythonTests(
      sandbox,
      "import time\ndef f():\n    time.sleep(3600)\n",
      TESTS,
      limits,
    );
    expect(asleep.verdict).toBe("TIMEOUT");
    expect(asleep.detail).toContain("killed after 800 ms idle (sleeping or blocked: the idle limit)");
    const naps = await runPythonTests(
      sandbox,
      "import time\ndef f():\n    time.sleep(0.6)\n    return 1\n",
      TESTS,
      limits,
    );
    expect(naps.verdict, naps.detail).toBe("PASSED");
    // Counted to the end: the fork server looks once more when the program ends, before reaping it (the
    // periodic looks alone could stop up to 250 ms short).
    expect(naps.idleTimeMs).toBeGreaterThanOrEqual(570);
    const stdio = await runPythonTests(
      sandbox,
      "import time\nif input() == '2':\n    time.sleep(3600)\nprint('ok')\n",
      { style: "stdio", cases: ["1", "2"].map((n) => ({ input: `${n}\n`, output: "ok\n" })) },
      limits,
    );
    expect(stdio).toMatchObject({ verdict: "TIMEOUT", testsPassed: 1 });
    expect(stdio.detail).toMatch(/^case 2: idle limit of 800 ms spent/);
  }, 60_000);
});
