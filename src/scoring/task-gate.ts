/**
 * The ground-truth gate: before a task store is served, every repair task's gold program runs against
 * its tests, and so does its corrupted program. A task is served only when the gold passes and the
 * corrupted program does not — otherwise every reward on it would be wrong (a repair that cannot pass,
 * or "repairs" of a program that already passes) — and the gold's measured time sets the task's limits
 * (see {@link calibratedLimits}), as evalplus and BigCodeBench time their tests against the reference
 * solution rather than one fixed limit for every task.
 *
 * Each verdict is remembered on disk by the task's content (gate-cache.ts), so a restart, or another
 * replica on the same disk, does not run them again. A sandbox fault is not remembered: the next start
 * tries again.
 */
import type { CalibrationConfig } from "../config.js";
import { mapConcurrent } from "../core/map-concurrent.js";
import type { TestOutcome } from "../runners/python.js";
import type { ExecutionLimits } from "../sandbox/sandbox.js";
import { wallBackstopMs } from "./limits.js";
import type { StoredTask } from "./task-store.js";

/** What the gate measured of one task, as remembered. */
export type GateRecord = {
  goldVerdict: TestOutcome["verdict"];
  goldDetail: string;
  corruptedVerdict: TestOutcome["verdict"];
  /** The gold run's wall time and, when the sandbox reports them, its CPU and idle time. */
  goldWallMs: number;
  goldCpuMs: number | null;
  goldIdleMs: number | null;
};

/** How long a gold took: wall time, and CPU and idle time when the sandbox measured them (else null). */
export type GoldTiming = { wallMs: number; cpuMs: number | null; idleMs: number | null };

const timingOf = (record: GateRecord): GoldTiming => ({
  wallMs: record.goldWallMs,
  cpuMs: record.goldCpuMs,
  idleMs: record.goldIdleMs,
});

/** Where gate records are kept between starts; keys are content hashes (see gate-cache.ts). */
export interface GateCache {
  get(key: string): Promise<GateRecord | undefined>;
  set(key: string, record: GateRecord): Promise<void>;
}

/** A task the gate lets through, with the gold's timing, or the reason it is refused. */
export type GateVerdict =
  | { usable: true; gold: GoldTiming; fromCache: boolean }
  | { usable: false; reason: string; fromCache: boolean };

export type GateOptions = {
  /** Runs `program` against the task's tests in the sandbox with `limits`. */
  runTests(task: StoredTask, program: string, limits: ExecutionLimits): Promise<TestOutcome>;
  /** What the gold is timed with: generous ({@link measuringLimits}), so a slow gold is timed, not refused. */
  measuring: ExecutionLimits;
  /** The limits the task would be served with, from its gold's timing ({@link calibratedLimits}); the
   * corrupted program runs with them (it must fail as it would when served). */
  served(gold: GoldTiming): ExecutionLimits;
  cache: GateCache;
  /** The content key of a task (its programs, tests, runtime and what runs them). */
  keyOf(task: StoredTask): string;
  /** Tasks gated at once (= sandboxed runs at once: two per task). */
  concurrency: number;
  /** Called after each task, with how many are done. */
  onProgress?(done: number, total: number): void;
};

/**
 * Whether a gold that took `gold` fits `limits` (its calibrated ones): its CPU time within the CPU limit
 * its idle time within the idle limit, and its wall time within the wall limit. Only a gold slower than
 * the calibration's ceilings does not.
 */
export function goldFits(gold: GoldTiming, limits: ExecutionLimits): boolean {
  const cpuFits = limits.cpuTimeMs === undefined || (gold.cpuMs ?? gold.wallMs) <= limits.cpuTimeMs;
  const idleFits = limits.idleTimeMs === undefined || (gold.idleMs ?? 0) <= limits.idleTimeMs;
  return cpuFits && idleFits && gold.wallMs <= limits.wallTimeMs;
}

/**
 * Why a gate record makes its task unusable, or null when it is usable. With `served` (the limits the
 * gold's time calibrates), a gold that passed only with the measuring limits and does not fit them is
 * refused too: the server would judge it TIMEOUT.
 */
export function refusal(record: GateRecord, served?: ExecutionLimits): string | null {
  if (record.goldVerdict !== "PASSED") {
    return `the gold program does not pass its own tests (${record.goldVerdict}${record.goldDetail === "" ? "" : `: ${record.goldDetail}`})`;
  }
  if (served !== undefined && !goldFits(timingOf(record), served)) {
    const cpu = record.goldCpuMs === null ? "" : `, ${record.goldCpuMs} ms of CPU`;
    const idle = record.goldIdleMs === null ? "" : `, ${record.goldIdleMs} ms idle`;
    const limit =
      (served.cpuTimeMs === undefined ? "" : `${served.cpuTimeMs} ms of CPU, `) +
      (served.idleTimeMs === undefined ? "" : `${served.idleTimeMs} ms idle, `);
    return `the gold program needs ${record.goldWallMs} ms${cpu}${idle}: more than the limits the calibration allows it (${limit}${served.wallTimeMs} ms wall)`;
  }
  if (record.corruptedVerdict === "PASSED") {
    return "the corrupted program already passes the tests: there is nothing to repair";
  }
  return null;
}

/** Gates every task; the verdicts are keyed by task id. */
export async function gateTasks(
  tasks: readonly StoredTask[],
  options: GateOptions,
): Promise<Map<string, GateVerdict>> {
  const verdicts = new Map<string, GateVerdict>();
  let done = 0;
  await mapConcurrent(tasks, options.concurrency, async (task) => {
    verdicts.set(task.taskId, await gateOne(task, options));
    done += 1;
    options.onProgress?.(done, tasks.length);
  });
  return verdicts;
}

async function gateOne(task: StoredTask, options: GateOptions): Promise<GateVerdict> {
  const key = options.keyOf(task);
  const cached = await options.cache.get(key);
  if (cached !== undefined) return verdictOf(cached, true, options);
  const gold = await options.runTests(task, task.gold, options.measuring);
  const corrupted = await options.runTests(
    task,
    task.corrupted,
    options.served({
      wallMs: gold.wallTimeMs,
      cpuMs: gold.cpuTimeMs ?? null,
      idleMs: gold.idleTimeMs ?? null,
    }),
  );
  for (const [which, outcome] of [
    ["gold", gold],
    ["corrupted", corrupted],
  ] as const) {
    // A broken sandbox says nothing about the task: refuse it for now, and ask again next start.
    if (outcome.verdict === "INFRA_ERROR" && outcome.infraCause !== "unusable_tests") {
      return {
        usable: false,
        reason: `the sandbox failed while running the ${which} program (${outcome.detail}); not remembered, so the next start tries again`,
        fromCache: false,
      };
    }
  }
  const record: GateRecord = {
    goldVerdict: gold.verdict,
    goldDetail: gold.detail,
    corruptedVerdict: corrupted.verdict,
    goldWallMs: gold.wallTimeMs,
    goldCpuMs: gold.cpuTimeMs ?? null,
    goldIdleMs: gold.idleTimeMs ?? null,
  };
  await options.cache.set(key, record);
  return verdictOf(record, false, options);
}

function verdictOf(record: GateRecord, fromCache: boolean, options: GateOptions): GateVerdict {
  const reason = refusal(record, options.served(timingOf(record)));
  return reason === null
    ? { usable: true, gold: timingOf(record), fromCache }
    : { usable: false, reason, fromCache };
}

/**
 * The limits a gold is timed with: the calibration's ceilings (a CPU limit of `cpuCeilingMs` with its
 * wall backstop where the configured limits count CPU time, else a wall limit of `wallCeilingMs`), never
 * below the configured limits. So a gold slower than the configured limit (BigCodeBench/195 and 428 take
 * about 45 s of CPU) is measured and its task served with a limit that follows its time
 * ({@link calibratedLimits}), rather than refused for a limit meant for typical tasks.
 */
export function measuringLimits(
  base: ExecutionLimits,
  calibration: CalibrationConfig,
  share: { concurrency: number; cores: number } = { concurrency: 1, cores: 1 },
): ExecutionLimits {
  const wallTimeMs = Math.max(base.wallTimeMs, calibration.wallCeilingMs);
  if (base.cpuTimeMs === undefined) return { ...base, wallTimeMs };
  const cpuTimeMs = Math.max(base.cpuTimeMs, calibration.cpuCeilingMs);
  return {
    ...base,
    cpuTimeMs,
    wallTimeMs: wallBackstopMs(cpuTimeMs, share.concurrency, share.cores, base.wallTimeMs),
  };
}

/**
 * A task's limits from its gold's timing: `max(floor, factor × gold)`, capped at the configured ceiling.
 * Where the configured limits count CPU time (`base.cpuTimeMs`), that is the CPU limit (from the gold's
 * CPU time; its wall time when the sandbox did not measure the CPU, never less), the gold's idle time
 * scaled with the wall floor and ceiling is the idle limit (when the sandbox measured it: a candidate that
 * sleeps or blocks for ever ends there, whatever the load), and the wall limit is only the backstop of
 * {@link wallBackstopMs} for `share` (at least the gold's scaled wall time); without it the scaled wall
 * time is the limit. Memory, processes and output stay as configured.
 */
export function calibratedLimits(
  base: ExecutionLimits,
  gold: GoldTiming,
  calibration: CalibrationConfig,
  share: { concurrency: number; cores: number } = { concurrency: 1, cores: 1 },
): ExecutionLimits {
  const scale = (measured: number, floor: number, ceiling: number) =>
    Math.min(ceiling, Math.max(floor, Math.ceil(calibration.factor * measured)));
  const wallTimeMs = scale(gold.wallMs, calibration.wallFloorMs, calibration.wallCeilingMs);
  const limits: ExecutionLimits = { ...base, wallTimeMs };
  if (base.cpuTimeMs !== undefined) {
    const cpuTimeMs = scale(gold.cpuMs ?? gold.wallMs, calibration.cpuFloorMs, calibration.cpuCeilingMs);
    limits.cpuTimeMs = cpuTimeMs;
    limits.wallTimeMs = wallBackstopMs(cpuTimeMs, share.concurrency, share.cores, wallTimeMs);
    if (gold.idleMs !== null) {
      limits.idleTimeMs = scale(gold.idleMs, calibration.wallFloorMs, calibration.wallCeilingMs);
    }
  }
  return limits;
}
