/**
 * What a front puts in Redis for a worker (src/queue/protocol.ts): the job's priority (slowest first,
 * within BullMQ's range) and job data a worker accepts whatever limits the scorer gives it — the gate's
 * calibrated ones included, which a worker once refused for their idle-time limit.
 */
import { PRIORITY_LIMIT } from "bullmq";
import { describe, expect, test } from "vitest";
import { parseConfig } from "../../src/config.js";
import { jobData, jobPriority, parseJobData } from "../../src/queue/protocol.js";
import { executionLimits } from "../../src/scoring/limits.js";
import { calibratedLimits } from "../../src/scoring/task-gate.js";

describe("a job's priority", () => {
  // BullMQ's range: 1 (first) … 2²¹ − 1 = 2,097,151 (last); 0 would be "no priority".
  test.each([
    [0, 2_097_151],
    [1, 2_097_150],
    [30.4, 2_097_121],
    [30.5, 2_097_120],
    [1500, 2_095_651],
    [2_097_150, 1],
    [1e9, 1],
    [-5, 2_097_151],
    [Number.NaN, 2_097_151],
    [Number.POSITIVE_INFINITY, 2_097_151],
  ])("a task expected to take %s ms runs at priority %s", (expectedMs, priority) => {
    expect(jobPriority(expectedMs)).toBe(priority);
  });

  test("is an integer BullMQ accepts, and a slower task never comes after a faster one", () => {
    let previous = PRIORITY_LIMIT + 1;
    for (let ms = 0; ms <= 5000; ms += 7) {
      const priority = jobPriority(ms);
      expect(Number.isInteger(priority)).toBe(true);
      expect(priority).toBeGreaterThanOrEqual(1);
      expect(priority).toBeLessThanOrEqual(PRIORITY_LIMIT);
      expect(priority).toBeLessThan(previous);
      previous = priority;
    }
  });
});

describe("job data", () => {
  const tests = {
    style: "assert" as const,
    code: "def check(candidate):\n    assert candidate(1) == 2\n",
    entryPoint: "f",
  };

  test("a gated task's calibrated limits travel: CPU and idle time included", () => {
    const config = parseConfig({});
    const limits = calibratedLimits(
      executionLimits(config, 2),
      { wallMs: 120, cpuMs: 80, idleMs: 30 },
      config.tasks.calibration,
      { concurrency: 2, cores: 2 },
    );
    expect(limits.idleTimeMs).toBeGreaterThan(0);
    expect(limits.cpuTimeMs).toBeGreaterThan(0);
    const data = JSON.parse(JSON.stringify(jobData("def f(x):\n    return x + 1\n", tests, limits)));
    expect(parseJobData(data)).toEqual(data);
  });

  test("a limit nobody knows is refused, saying where", () => {
    const config = parseConfig({});
    const data = jobData("def f(x):\n    return x\n", tests, {
      ...executionLimits(config, 2),
      shellMs: 5,
    } as never);
    expect(parseJobData(JSON.parse(JSON.stringify(data)))).toBe(
      'malformed job data at limits: Unrecognized key: "shellMs"',
    );
  });
});
