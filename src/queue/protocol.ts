/**
 * What fronts and workers say to each other through Redis (docs/deploy.md): the job's data and result,
 * and the names of the keys minedit keeps beside BullMQ's.
 *
 * - A **job** is one distinct repair execution. Its id is the scorer's content key (sha256 over the tests
 *   and runtime, the limits, the normalized program, the harness and the reward definition), so identical
 *   rollouts of concurrent calls, from any front, become one job: BullMQ ignores an add whose id exists.
 * - **Callers** (`…:mx:callers:<job id>`, a hash call id → deadline in epoch ms) are the calls waiting for
 *   a job. Workers skip a job no caller wants any more (all withdrew, or every deadline passed) and stop a
 *   running one the same way; a front that withdraws the last caller removes the waiting job.
 * - **Results** (`…:mx:result:<job id>`) are the shared cache: deterministic outcomes only (never TIMEOUT
 *   or INFRA_ERROR, as `isReusable` says), each with a TTL.
 */
import { PRIORITY_LIMIT } from "bullmq";
import { z } from "zod";
import type { QueueConfig } from "../config.js";
import { VERDICTS } from "../core/reward.js";
import { HARNESS_DIGEST, type PythonTests, type TestOutcome } from "../runners/python.js";
import type { ExecutionLimits } from "../sandbox/sandbox.js";

/** Bumped when the job or result shape changes: a worker refuses jobs of another version. */
export const PROTOCOL_VERSION = 2;

/** The BullMQ job name of a repair execution. */
export const EXECUTION_JOB = "execute";

/** BullMQ's largest priority number (2²¹ − 1), the least urgent; 0 means none, which BullMQ serves first. */
export const LOWEST_PRIORITY = PRIORITY_LIMIT;

/**
 * A job's BullMQ priority: slowest first among what is queued, as the in-process scheduler does
 * (src/scoring/execution-slots.ts). A smaller number runs earlier, so the number falls by one per
 * millisecond the task's gold is expected to take; an unknown time (0: an inline task) is the lowest
 * priority, and anything expected to take 35 minutes or more the highest. Equal priorities keep the order
 * they were added in (BullMQ scores a prioritized job by its priority, then a counter).
 */
export function jobPriority(expectedMs: number): number {
  const ms = Number.isFinite(expectedMs) ? Math.max(0, Math.round(expectedMs)) : 0;
  return LOWEST_PRIORITY - Math.min(ms, LOWEST_PRIORITY - 1);
}

/** A job's data: what the worker runs. */
export type ExecutionJobData = {
  v: number;
  /** The front's harness digest: a worker with another harness would judge differently (version skew). */
  harness: string;
  program: string;
  tests: PythonTests;
  limits: ExecutionLimits;
};

/** A job's return value. */
export type ExecutionJobResult =
  | { kind: "outcome"; outcome: TestOutcome; fromCache: boolean }
  /** Not run: nobody wanted it any more when a worker took it (or while it ran). */
  | { kind: "skipped"; reason: string };

const LimitsSchema = z.strictObject({
  wallTimeMs: z.number().int().positive(),
  cpuTimeMs: z.number().int().positive().optional(),
  memoryBytes: z.number().int().positive(),
  maxProcesses: z.number().int().positive(),
  maxFileBytes: z.number().int().positive(),
  maxOutputBytes: z.number().int().positive(),
  // The gate's calibrated limits of a stored task carry it (task-gate.ts, calibratedLimits).
  idleTimeMs: z.number().int().positive().optional(),
});

const JobDataSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  harness: z.string(),
  program: z.string(),
  // The runner checks the shape of each style; here only that it is one.
  tests: z.looseObject({ style: z.enum(["unittest", "assert", "stdio"]) }),
  limits: LimitsSchema,
});

/** The data of the job for an execution, as a front adds it. */
export function jobData(program: string, tests: PythonTests, limits: ExecutionLimits): ExecutionJobData {
  return { v: PROTOCOL_VERSION, harness: HARNESS_DIGEST, program, tests, limits };
}

/** A job's data as a worker received it, checked; a string saying what is wrong otherwise. */
export function parseJobData(data: unknown): ExecutionJobData | string {
  const parsed = JobDataSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `malformed job data at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`;
  }
  if (parsed.data.harness !== HARNESS_DIGEST) {
    return (
      `version skew: the job was made by a front with test harness ${parsed.data.harness}, this worker has ` +
      `${HARNESS_DIGEST}; run fronts and workers of one minedit version on one queue (queue.name)`
    );
  }
  return parsed.data as ExecutionJobData;
}

const OutcomeSchema = z.object({
  verdict: z.enum(VERDICTS),
  testsPassed: z.number(),
  testsTotal: z.number(),
  wallTimeMs: z.number(),
  cpuTimeMs: z.number().optional(),
  idleTimeMs: z.number().optional(),
  stderrTail: z.string(),
  detail: z.string(),
  infraCause: z.enum(["unusable_tests", "sandbox"]).optional(),
});

/** True when A and B have the same keys: a field added to one and not the other fails the typecheck. */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
// A field the scorer adds to the limits or the outcome must travel through Redis too: the strict limits
// refused a gated task's `idleTimeMs` (every such job failed), and the outcome's check would drop one.
const limitsTravel: SameKeys<z.output<typeof LimitsSchema>, ExecutionLimits> = true;
const outcomesTravel: SameKeys<z.output<typeof OutcomeSchema>, TestOutcome> = true;
void limitsTravel;
void outcomesTravel;

const ResultSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("outcome"), outcome: OutcomeSchema, fromCache: z.boolean() }),
  z.object({ kind: z.literal("skipped"), reason: z.string() }),
]);

/** A job result (a BullMQ return value) from its JSON text, or null when it is not one. */
export function parseJobResult(text: string): ExecutionJobResult | null {
  try {
    const parsed = ResultSchema.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data as ExecutionJobResult) : null;
  } catch {
    return null;
  }
}

/** A cached outcome from its JSON text, or null. */
export function parseOutcome(text: string | null): TestOutcome | null {
  if (text === null) return null;
  try {
    const parsed = OutcomeSchema.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data as TestOutcome) : null;
  } catch {
    return null;
  }
}

/**
 * An outcome as it travels and is cached: without the stderr tail, which no rollout result carries
 * (src/scoring/rollout-scorer.ts reports verdict, counts, detail and time) and which is most of its size.
 */
export function travelling(outcome: TestOutcome): TestOutcome {
  return { ...outcome, stderrTail: "" };
}

/** Key names of one queue. */
export type QueueKeys = {
  /**
   * BullMQ's waiting list: jobs without a priority. Every job minedit adds has one (see
   * {@link jobPriority}), so this list holds only jobs a worker lost (stalled: BullMQ puts them back here,
   * and serves this list before the prioritized set).
   */
  wait: string;
  /** BullMQ's prioritized jobs: a sorted set, where minedit's jobs wait to be taken. */
  prioritized: string;
  callers(jobId: string): string;
  result(jobId: string): string;
  /** Counters the workers keep: `runs`, `cacheHits`, `skipped`, `failed`. */
  stats: string;
};

export function queueKeys(config: Pick<QueueConfig, "prefix" | "name">): QueueKeys {
  const base = `${config.prefix}:${config.name}`;
  return {
    wait: `${base}:wait`,
    prioritized: `${base}:prioritized`,
    callers: (jobId) => `${base}:mx:callers:${jobId}`,
    result: (jobId) => `${base}:mx:result:${jobId}`,
    stats: `${base}:mx:stats`,
  };
}

/** How long a callers hash outlives its latest deadline, so a late worker still finds it. */
export const CALLERS_SLACK_MS = 60_000;

/**
 * Redis Lua: adds a caller to a job's callers hash and keeps the hash until the latest deadline (plus
 * slack). Returns how many callers were there before: more than 0 means another call already wanted the
 * job. KEYS[1] callers; ARGV call id, deadline ms, slack ms.
 */
export const ADD_CALLER_LUA = `
local before = redis.call('HLEN', KEYS[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local latest = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
  local n = tonumber(v)
  if n ~= nil and n > latest then latest = n end
end
redis.call('PEXPIREAT', KEYS[1], latest + tonumber(ARGV[3]))
return before`;

/** Redis Lua: removes a caller; returns how many remain. KEYS[1] callers; ARGV call id. */
export const REMOVE_CALLER_LUA = `
redis.call('HDEL', KEYS[1], ARGV[1])
return redis.call('HLEN', KEYS[1])`;

/**
 * Redis Lua: the latest deadline of a job's callers that is still ahead (ms), or -1 when none is. KEYS[1]
 * callers; ARGV now in ms (the worker's clock: deadlines are the fronts' clocks, kept in sync by NTP).
 */
export const LATEST_DEADLINE_LUA = `
local latest = -1
local now = tonumber(ARGV[1])
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
  local n = tonumber(v)
  if n ~= nil and n > now and n > latest then latest = n end
end
return latest`;
