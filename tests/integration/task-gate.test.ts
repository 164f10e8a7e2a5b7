import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { ErrorCode, isMineditError } from "../../src/errors.js";
import type { RolloutOutput } from "../../src/scoring/rollout.js";
import { type ScoringEngine, startScoringEngine } from "../../src/scoring/scoring-engine.js";
import { calibratedLimits, goldFits, measuringLimits, refusal } from "../../src/scoring/task-gate.js";

const fence = (code: string) => `\`\`\`python\n${code}\`\`\`\n`;

const check = "def check(candidate):\n    assert candidate(2, 3) == 5\n";
const task = (taskId: string, gold: string, corrupted: string) => ({
  task_id: taskId,
  gold,
  corrupted,
  entry_point: "add",
  tests: { style: "assert", code: check },
});
const GOOD = task("gate/good", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n");
const GOLD_FAILS = task(
  "gate/gold-fails",
  "def add(a, b):\n    return a * b\n",
  "def add(a, b):\n    return a - b\n",
);
const CORRUPTED_PASSES = task(
  "gate/corrupted-passes",
  "def add(a, b):\n    return a + b\n",
  "def add(a, b):\n    return b + a\n",
);
/** Its gold takes about a second of wall time: its calibrated backstop is longer than a fast task's. */
const SLOW = task(
  "gate/slow",
  "import time\ndef add(a, b):\n    time.sleep(1.0)\n    return a + b\n",
  "import time\ndef add(a, b):\n    time.sleep(1.0)\n    return a - b\n",
);

let dir: string;
let cacheDir: string;
let taskFile: string;
const engines: ScoringEngine[] = [];

async function start(file = taskFile): Promise<{ engine: ScoringEngine; lines: string[] }> {
  const lines: string[] = [];
  const config = parseConfig({
    pool: { threads: 1 },
    sandbox: { executionConcurrency: 2 },
    tasks: { gateCacheDir: cacheDir },
  });
  const engine = await startScoringEngine(config, [file], true, { log: (line) => lines.push(line) });
  engines.push(engine);
  return { engine, lines };
}

async function scoreOne(engine: ScoringEngine, taskId: string, completion: string): Promise<RolloutOutput> {
  const outputs: RolloutOutput[] = [];
  const input = { id: "r", completion, task: { kind: "stored" as const, taskId }, groupId: "" };
  for await (const o of engine.scorer.score([input], undefined, new AbortController().signal))
    outputs.push(o);
  return outputs[0] as RolloutOutput;
}

// The engine's pool runs dist/workers/, built once by the global setup (tests/setup/build-dist.ts).
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "minedit-gate-"));
  cacheDir = join(dir, "cache");
  taskFile = join(dir, "tasks.jsonl");
  writeFileSync(
    taskFile,
    [GOOD, GOLD_FAILS, CORRUPTED_PASSES, SLOW].map((t) => JSON.stringify(t)).join("\n"),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe("the ground-truth gate", () => {
  it("refuses a task whose gold fails and one whose corrupted program passes, and says why", async () => {
    const { engine, lines } = await start();
    expect([...engine.refused.keys()].sort()).toEqual(["gate/corrupted-passes", "gate/gold-fails"]);
    expect(engine.refused.get("gate/gold-fails")).toMatch(
      /gold program does not pass its own tests \(FAILED_TESTS/,
    );
    expect(engine.refused.get("gate/corrupted-passes")).toMatch(/corrupted program already passes/);
    expect(lines[0]).toMatch(/task gate: 2 of 4 repair tasks served, 2 refused \(0 remembered/);
    expect(lines.some((l) => l.includes("refused gate/gold-fails"))).toBe(true);

    const served = await scoreOne(engine, "gate/good", fence(GOOD.gold));
    expect(served).toMatchObject({ verdict: "PASSED", reward: 0.1 });
    const error = await scoreOne(engine, "gate/gold-fails", fence(GOLD_FAILS.gold)).catch((e: unknown) => e);
    expect(isMineditError(error) && error.code).toBe(ErrorCode.FailedPrecondition);
    expect(String((error as Error).message)).toMatch(
      /task "gate\/gold-fails" is not served: the gold program/,
    );
  });

  it("remembers the verdicts by content: a second start runs nothing, a changed task is gated again", async () => {
    expect(readdirSync(cacheDir).length).toBeGreaterThan(0);
    const again = await start();
    expect(again.lines[0]).toMatch(/2 of 4 repair tasks served, 2 refused \(4 remembered/);
    const changed = join(dir, "changed.jsonl");
    // Content, not the task id, is the key: this one's gold differs from every task gated so far.
    const fixed = { ...GOLD_FAILS, gold: "def add(a, b):\n    return b + a\n" };
    writeFileSync(changed, [GOOD, fixed].map((t) => JSON.stringify(t)).join("\n"));
    const third = await start(changed);
    expect(third.lines[0]).toMatch(/2 of 2 repair tasks served, 0 refused \(1 remembered/);
  });

  it("calibrates the limits from the gold's time: a hanging candidate of a fast task stops at the floor", async () => {
    const { engine } = await start();
    const started = performance.now();
    const hang = await scoreOne(
      engine,
      "gate/good",
      fence("import time\ndef add(a, b):\n    time.sleep(60)\n"),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(hang.verdict).toBe("TIMEOUT");
    // The floor (3 s), not the configured 10 s.
    expect(seconds).toBeLessThan(8);
    // The slow task's gold needs ~1 s: a candidate twice as slow is still within 4× the gold.
    const slower = await scoreOne(
      engine,
      "gate/slow",
      fence("import time\ndef add(a, b):\n    time.sleep(2.0)\n    return a + b\n"),
    );
    expect(slower.verdict).toBe("PASSED");
  }, 60_000);

  it("times the gold with the calibration's ceiling: a gold slower than the configured CPU limit is served with a limit that follows it", async () => {
    // ~1.5 s of CPU against a configured limit of 1 s (BigCodeBench/195 and 428: ~45 s against 10 s).
    const burn =
      "import time\ndef add(a, b):\n    t = time.process_time()\n    while time.process_time() - t < 1.5:\n        pass\n";
    const file = join(dir, "slow-cpu.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify(task("gate/slow-cpu", `${burn}    return a + b\n`, `${burn}    return a - b\n`))}\n`,
    );
    const lines: string[] = [];
    const config = parseConfig({
      pool: { threads: 1 },
      sandbox: { executionConcurrency: 2, cpuTimeMs: 1000 },
      tasks: { gateCacheDir: join(dir, "cache-slow-cpu") },
    });
    const engine = await startScoringEngine(config, [file], true, { log: (line) => lines.push(line) });
    engines.push(engine);
    expect(lines[0]).toMatch(/1 of 1 repair tasks served, 0 refused/);
    const gold = await scoreOne(engine, "gate/slow-cpu", fence(`${burn}    return a + b\n`));
    expect(gold.verdict).toBe("PASSED");
  }, 60_000);
});

describe("calibration and refusal rules", () => {
  const base = {
    wallTimeMs: 10_000,
    memoryBytes: 1 << 30,
    maxProcesses: 64,
    maxFileBytes: 1 << 24,
    maxOutputBytes: 1 << 20,
  };
  const calibration = parseConfig({}).tasks.calibration;

  it("max(floor, factor × gold), capped at the ceiling; the CPU limit only where the sandbox has one", () => {
    expect(calibratedLimits(base, { wallMs: 40, cpuMs: null, idleMs: null }, calibration).wallTimeMs).toBe(
      3000,
    );
    expect(calibratedLimits(base, { wallMs: 2000, cpuMs: null, idleMs: null }, calibration).wallTimeMs).toBe(
      8000,
    );
    expect(
      calibratedLimits(base, { wallMs: 30_000, cpuMs: null, idleMs: null }, calibration).wallTimeMs,
    ).toBe(60_000);
    expect(
      calibratedLimits(base, { wallMs: 2000, cpuMs: 500, idleMs: null }, calibration).cpuTimeMs,
    ).toBeUndefined();
    const withCpu = calibratedLimits(
      { ...base, cpuTimeMs: 10_000 },
      { wallMs: 2000, cpuMs: 500, idleMs: null },
      calibration,
    );
    expect(withCpu.cpuTimeMs).toBe(2000);
    expect(withCpu.idleTimeMs).toBeUndefined(); // the sandbox did not measure the gold's idle time
    expect(withCpu.memoryBytes).toBe(base.memoryBytes);
  });

  it("the idle limit: the gold's idle time scaled with the wall floor and ceiling, only with a CPU limit", () => {
    const withCpu = { ...base, cpuTimeMs: 10_000 };
    const idle = (idleMs: number) =>
      calibratedLimits(withCpu, { wallMs: 2000, cpuMs: 500, idleMs }, calibration).idleTimeMs;
    expect(idle(5)).toBe(3000);
    expect(idle(5000)).toBe(20_000);
    expect(idle(45_000)).toBe(60_000);
    // Without a CPU limit the wall limit is the time limit: no idle limit.
    expect(
      calibratedLimits(base, { wallMs: 2000, cpuMs: 500, idleMs: 5 }, calibration).idleTimeMs,
    ).toBeUndefined();
    // The wall backstop is unchanged by it.
    expect(calibratedLimits(withCpu, { wallMs: 2000, cpuMs: 500, idleMs: 5 }, calibration).wallTimeMs).toBe(
      calibratedLimits(withCpu, { wallMs: 2000, cpuMs: 500, idleMs: null }, calibration).wallTimeMs,
    );
  });

  it("the gold is timed with the ceilings (CPU with its wall backstop, or wall), never below the configured limits", () => {
    expect(measuringLimits(base, calibration)).toEqual({ ...base, wallTimeMs: 60_000 });
    const cpu = measuringLimits({ ...base, cpuTimeMs: 10_000 }, calibration, { concurrency: 4, cores: 2 });
    expect(cpu.cpuTimeMs).toBe(60_000);
    expect(cpu.wallTimeMs).toBe(3 * 60_000 + 5000);
    expect(measuringLimits({ ...base, cpuTimeMs: 90_000 }, calibration).cpuTimeMs).toBe(90_000);
  });

  it("a gold that passes only with the measuring limits, slower than the ceilings allow, is refused", () => {
    const withCpu = { ...base, cpuTimeMs: 10_000 };
    // BigCodeBench/195: 45 s of waiting, 0.1 s of CPU — within the 60 s wall ceiling: served.
    const waits = { wallMs: 45_000, cpuMs: 100, idleMs: 44_800 };
    expect(goldFits(waits, calibratedLimits(withCpu, waits, calibration))).toBe(true);
    // BigCodeBench/1104: 73 s of waiting — beyond the wall ceiling: the server would judge its gold TIMEOUT.
    const waitsLonger = { wallMs: 73_000, cpuMs: 200, idleMs: 72_700 };
    const served = calibratedLimits(withCpu, waitsLonger, calibration);
    expect(goldFits(waitsLonger, served)).toBe(false);
    const record = { goldVerdict: "PASSED", goldDetail: "", corruptedVerdict: "FAILED_TESTS" } as const;
    expect(refusal({ ...record, goldWallMs: 73_000, goldCpuMs: 200, goldIdleMs: 72_700 }, served)).toMatch(
      /^the gold program needs 73000 ms, 200 ms of CPU, 72700 ms idle: more than the limits the calibration allows it \(1000 ms of CPU, 60000 ms idle, 60000 ms wall\)$/,
    );
    // Idle beyond the ceiling alone (a wall backstop that would still allow it) is refused too.
    const sleepsLong = { wallMs: 50_000, cpuMs: 9000, idleMs: 70_000 };
    const wide = calibratedLimits(withCpu, sleepsLong, calibration, { concurrency: 16, cores: 2 });
    expect(wide.wallTimeMs).toBeGreaterThan(sleepsLong.idleMs);
    expect(goldFits(sleepsLong, wide)).toBe(false);
    // 54 s of CPU (BigCodeBench/102) fits the 60 s CPU ceiling.
    const busy = { wallMs: 98_000, cpuMs: 54_000, idleMs: 300 };
    expect(goldFits(busy, calibratedLimits(withCpu, busy, calibration, { concurrency: 2, cores: 2 }))).toBe(
      true,
    );
  });

  it("a task is usable when its gold passes and its corrupted program does not", () => {
    const record = { goldDetail: "", goldWallMs: 1, goldCpuMs: null, goldIdleMs: null };
    expect(refusal({ ...record, goldVerdict: "PASSED", corruptedVerdict: "FAILED_TESTS" })).toBeNull();
    expect(refusal({ ...record, goldVerdict: "PASSED", corruptedVerdict: "TIMEOUT" })).toBeNull();
    expect(refusal({ ...record, goldVerdict: "TIMEOUT", corruptedVerdict: "FAILED_TESTS" })).toMatch(
      /TIMEOUT/,
    );
    expect(refusal({ ...record, goldVerdict: "PASSED", corruptedVerdict: "PASSED" })).toMatch(
      /already passes/,
    );
  });
});
