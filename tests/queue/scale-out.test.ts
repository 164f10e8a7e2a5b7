/**
 * The queue mode with nothing faked (issue 17): our own redis-server, fronts (`minedit serve --queue`) and
 * workers (`minedit worker`) as separate processes of the built CLI on loopback, real gRPC clients, real
 * programs in the real sandbox. The programs sleep so that the tests can act while they run: SIGKILL a
 * worker mid-batch, send the same rollouts to both fronts at once, restart Redis mid-batch, let a call's
 * deadline pass, cancel a stream, kill a front and let its jobs' deadlines pass; last, one process that is
 * front and worker, and what the shared Redis cache keeps.
 *
 * Each test starts its own Redis (on a free port), fronts and workers, and stops them when it ends, so any
 * one of them passes alone (`-t "<name>"`) and none depends on what another left behind. Waits poll the
 * awaited condition (`until`), never a fixed time.
 *
 * Short BullMQ lock (2 s) and stalled check (0.5 s) so a dead worker's jobs move on quickly; the fronts'
 * in-process result cache is off so every repeat goes through Redis.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { status } from "@grpc/grpc-js";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import {
  type RolloutResult,
  RolloutSchema,
  type ScoreBatchResponse,
  ScoreStreamRequestSchema,
  Verdict,
} from "../../src/gen/minedit/v1/reward_pb.js";
import { callError, scoreBatch, scoreStream } from "../server/harness.js";
import {
  type Front,
  freePort,
  inspector,
  type Proc,
  RedisProcess,
  sleepyRollout,
  startFront,
  startWorker,
  stats,
  until,
} from "./harness.js";

const TASKS = join(process.cwd(), "datasets", "seed", "demo-tasks.jsonl");
const WAIT = "minedit:executions:wait";
const PRIORITIZED = "minedit:executions:prioritized";
const ACTIVE = "minedit:executions:active";
const CALLERS = "minedit:executions:mx:callers:*";

let dir: string;
let config: string;
let shortDeadlineConfig: string;
let shortWallConfig: string;
let cachedConfig: string;
let variant = 0;

function writeConfig(
  name: string,
  queue: Record<string, unknown>,
  sandbox: Record<string, unknown> = {},
  tasks: Record<string, unknown> = {},
): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      pool: { threads: 1 },
      // The runs counted below are the rollouts' own: no gate, no inline gold check.
      tasks: { files: [TASKS], gate: false, inlineGoldCheck: false, ...tasks },
      sandbox: { executionConcurrency: 1, wallTimeMs: 20_000, resultCacheBytes: 0, ...sandbox },
      queue: { lockMs: 2000, stalledIntervalMs: 500, pollMs: 200, outageToleranceMs: 30_000, ...queue },
    }),
  );
  return file;
}

/** `count` rollouts of distinct programs (never seen before in this file) sleeping `sleepS`. */
function distinctBatch(prefix: string, count: number, sleepS: number) {
  return Array.from({ length: count }, (_, i) => sleepyRollout(`${prefix}-${i}`, ++variant, sleepS));
}

function expectAllPassed(response: ScoreBatchResponse, ids: string[]): RolloutResult[] {
  // Each rollout answered exactly once, in request order.
  expect(response.results.map((r) => r.id)).toEqual(ids);
  for (const result of response.results) {
    expect(result.verdict, `${result.id}: ${result.detail}`).toBe(Verdict.PASSED);
    expect(result.reward).toBeCloseTo(0.1 - (result.components?.excess ?? 0), 9);
  }
  return response.results;
}

/** One test's own queue: its Redis, a client to look into it, and the processes it started. */
type Cluster = {
  redis: RedisProcess;
  look: Redis;
  fronts: Front[];
  /** Workers, in start order (a test may stop and remove some). */
  workers: Proc[];
  /** Everything started, stopped when the test ends. */
  started: Proc[];
  clients: Front["client"][];
  /** Starts a front on this cluster's Redis (stopped when the test ends). */
  front(configFile: string, extra?: string[]): Promise<Front>;
  /** Starts a worker on this cluster's Redis (stopped when the test ends). */
  worker(): Promise<Proc>;
};

/**
 * A Redis of the test's own on a free port, with `fronts` fronts (config, extra flags) and `workers`
 * workers on it; all of it is stopped, and Redis killed, when the test ends (passed or not).
 */
async function cluster(fronts: readonly [string, string[]?][], workers: number): Promise<Cluster> {
  const redis = new RedisProcess(await freePort());
  const c: Cluster = {
    redis,
    look: inspector(redis.url),
    fronts: [],
    workers: [],
    started: [],
    clients: [],
    async front(configFile, extra = []) {
      const front = await startFront(redis.url, configFile, extra);
      c.started.push(front.proc);
      c.clients.push(front.client);
      return front;
    },
    async worker() {
      const worker = await startWorker(redis.url, config);
      c.started.push(worker);
      c.workers.push(worker);
      return worker;
    },
  };
  onTestFinished(async () => {
    for (const client of c.clients) client.close();
    await Promise.all(c.started.map((p) => p.stop()));
    c.look.disconnect();
    await redis.kill();
  });
  await redis.start();
  c.fronts.push(...(await Promise.all(fronts.map(([file, extra]) => c.front(file, extra)))));
  await Promise.all(Array.from({ length: workers }, () => c.worker()));
  return c;
}

/**
 * A key's length as KEDA's Redis scaler reads it: ZCARD for a sorted set, LLEN for a list or a missing
 * key (kedacore/keda pkg/scalers/redis_scaler.go at 04f6e3c85db0, the Lua script in NewRedisScaler: it
 * asks for the key's TYPE first).
 */
async function kedaLength(look: Redis, key: string): Promise<number> {
  const type = await look.type(key);
  if (type === "zset") return look.zcard(key);
  if (type === "list" || type === "none") return look.llen(key);
  throw new Error(`KEDA's Redis scaler cannot count a ${type} (${key})`);
}

/** Jobs waiting to be taken: minedit's prioritized ones, and any a lost worker put back in the list. */
async function waitingJobs(look: Redis): Promise<number> {
  return (await look.zcard(PRIORITIZED)) + (await look.llen(WAIT));
}

/** Whether every deadline the callers of queued jobs carry has passed (and there is at least one). */
async function allDeadlinesPassed(look: Redis): Promise<boolean> {
  const keys = await look.keys(CALLERS);
  if (keys.length === 0) return false;
  const deadlines = (await Promise.all(keys.map((key) => look.hvals(key)))).flat().map(Number);
  return deadlines.length > 0 && deadlines.every((deadline) => deadline < Date.now());
}

beforeAll(() => {
  // Config files only: every process and Redis belongs to one test.
  dir = mkdtempSync(join(tmpdir(), "minedit-queue-"));
  config = writeConfig("config.json", {});
  shortDeadlineConfig = writeConfig("short-deadline.json", { jobDeadlineMs: 2000 });
  // Limits travel in the job: this front's runs get 2 s of wall time (no CPU limit) on any worker.
  shortWallConfig = writeConfig("short-wall.json", {}, { wallTimeMs: 2000, cpuTimeMs: 0 });
  // The in-process result cache at its default (on), as a user's front runs.
  cachedConfig = writeConfig("cached.json", {}, { resultCacheBytes: 64 * 1024 * 1024 });
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("fronts and workers on one Redis", () => {
  test("a batch through each front: every rollout answered once; the OpenRLHF endpoint goes through the queue too", async () => {
    const { look, fronts } = await cluster([[config, ["--openrlhf-port", "0"]], [config]], 2);
    const [frontA, frontB] = fronts as [Front, Front];
    const before = await stats(look);
    const a = distinctBatch("a", 3, 0.2);
    const b = distinctBatch("b", 3, 0.2);
    const [ra, rb] = await Promise.all([
      scoreBatch(frontA.client, { rollouts: a }),
      scoreBatch(frontB.client, { rollouts: b }),
    ]);
    expectAllPassed(
      ra,
      a.map((r) => r.id),
    );
    expectAllPassed(
      rb,
      b.map((r) => r.id),
    );
    expect((await stats(look)).runs - before.runs).toBe(6);

    const task = JSON.parse(readFileSync(TASKS, "utf8").split("\n")[0] as string) as {
      task_id: string;
      gold: string;
    };
    const prompt = "Repair this program.\n";
    const response = await fetch(frontA.openrlhf as string, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: [`${prompt}\`\`\`python\n${task.gold}\`\`\``],
        prompts: [prompt],
        labels: [task.task_id],
      }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { rewards: number[] }).rewards).toEqual([0.1]);
  });

  test("the same rollouts sent to both fronts at once run once", async () => {
    const { look, fronts } = await cluster([[config], [config]], 2);
    const [frontA, frontB] = fronts as [Front, Front];
    const before = await stats(look);
    const batch = distinctBatch("same", 4, 0.6);
    // A duplicate inside the batch too (the in-call dedupe), then the whole batch at both fronts.
    const rollouts = [...batch, { ...(batch[0] as (typeof batch)[number]), id: "same-dup" }];
    const ids = rollouts.map((r) => r.id);
    const [ra, rb] = await Promise.all([
      scoreBatch(frontA.client, { rollouts }),
      scoreBatch(frontB.client, { rollouts }),
    ]);
    const resultsA = expectAllPassed(ra, ids);
    const resultsB = expectAllPassed(rb, ids);
    expect((await stats(look)).runs - before.runs).toBe(4);
    // Per distinct program exactly one of the two fronts' first rollouts ran it; the other reused it.
    for (let i = 0; i < batch.length; i++) {
      expect([resultsA[i]?.cached, resultsB[i]?.cached].filter((c) => c === false)).toHaveLength(1);
    }
    expect(resultsA[4]?.cached && resultsB[4]?.cached).toBe(true);
  });

  test("a worker SIGKILLed mid-batch loses nothing: its job runs on the other worker", async () => {
    const { look, fronts, workers } = await cluster([[config]], 2);
    const [frontA] = fronts as [Front];
    const before = await stats(look);
    const batch = distinctBatch("kill", 6, 1.5);
    const call = scoreBatch(frontA.client, { rollouts: batch });
    // Both workers busy: one job each.
    await until("both workers running a job", async () => (await look.llen(ACTIVE)) === 2);
    const victim = workers.shift() as Proc;
    await victim.stop("SIGKILL");
    const started = Date.now();
    const response = await call;
    expectAllPassed(
      response,
      batch.map((r) => r.id),
    );
    // The killed run never finished, so every job completed exactly once, on the survivor.
    expect((await stats(look)).runs - before.runs).toBe(6);
    expect(Date.now() - started).toBeGreaterThan(1500);
    const events = await look.xrange("minedit:executions:events", "-", "+");
    expect(events.some(([, fields]) => fields[1] === "stalled")).toBe(true);
  });

  test("Redis restarted mid-batch: the batch completes; a call while it is down is UNAVAILABLE; then it recovers", async () => {
    const { redis, look, fronts } = await cluster([[config], [config]], 2);
    const [frontA, frontB] = fronts as [Front, Front];
    const batch = distinctBatch("restart", 4, 1.0);
    const call = scoreBatch(frontB.client, { rollouts: batch });
    await until("a job running", async () => (await look.llen(ACTIVE)) >= 1);
    await redis.kill();
    // Down until the fronts have seen it: front A refuses a call (front B's batch is still waiting).
    await until("front A to refuse calls while Redis is down", async () => {
      const error = await callError(
        scoreBatch(
          frontA.client,
          { rollouts: distinctBatch("probe", 1, 0) },
          { call: { deadline: Date.now() + 2000 } },
        ),
      );
      return error.code === status.UNAVAILABLE;
    });
    await redis.start();
    // Redis came back empty: the fronts add their lost jobs again and the workers run them.
    expectAllPassed(
      await call,
      batch.map((r) => r.id),
    );

    await redis.kill();
    const refused = await callError(scoreBatch(frontA.client, { rollouts: distinctBatch("down", 1, 0) }));
    expect(refused.code).toBe(status.UNAVAILABLE);
    expect(refused.details).toMatch(/^the job queue is unreachable: Redis at redis:\/\/127\.0\.0\.1:\d+ /);
    await redis.start();
    const after = distinctBatch("back", 2, 0);
    await until("the front to take calls again", async () => {
      try {
        expectAllPassed(
          await scoreBatch(frontA.client, { rollouts: after }),
          after.map((r) => r.id),
        );
        return true;
      } catch {
        return false;
      }
    });
  });

  test("slowest first through the queue: workers take the slowest queued task first, and KEDA's Redis scaler counts what waits", async () => {
    // Three stored tasks whose golds burn 0.1, 0.5 and 1 s of CPU: the front's gate measures them, and
    // that is the time each job is expected to take. One worker with one slot, kept busy by an inline
    // rollout while the three rollouts arrive fastest first in one batch.
    const burns = { fast: 0.1, medium: 0.5, slow: 1.0 };
    const tasksFile = join(dir, "burning-tasks.jsonl");
    const gold = (seconds: number) =>
      `import time\n\ndef f(x):\n    end = time.process_time() + ${seconds}\n    while time.process_time() < end:\n        pass\n    return x + 1\n`;
    writeFileSync(
      tasksFile,
      Object.entries(burns)
        .map(([name, seconds]) =>
          JSON.stringify({
            task_id: `burn/${name}`,
            corrupted: "def f(x):\n    return x\n",
            gold: gold(seconds),
            entry_point: "f",
            tests: { style: "assert", code: "def check(candidate):\n    assert candidate(1) == 2\n" },
          }),
        )
        .join("\n"),
    );
    const gatedConfig = writeConfig(
      "gated.json",
      {},
      {},
      { files: [tasksFile], gate: true, gateCacheDir: join(dir, "gate-cache") },
    );
    const { look, fronts } = await cluster([[gatedConfig]], 1);
    const [front] = fronts as [Front];
    const blocker = scoreBatch(front.client, { rollouts: distinctBatch("blocker", 1, 4) });
    await until("the worker busy", async () => (await look.llen(ACTIVE)) === 1);
    const rollouts = Object.entries(burns).map(([name, seconds]) =>
      create(RolloutSchema, {
        id: name,
        completion: `\`\`\`python\n${gold(seconds)}\`\`\``,
        taskRef: { case: "taskId", value: `burn/${name}` },
      }),
    );
    const call = scoreBatch(front.client, { rollouts });
    await until("three jobs waiting", async () => (await waitingJobs(look)) === 3, 20_000);
    // What the ScaledObject's two triggers read (deploy/keda.yaml): the prioritized set holds them all.
    expect(await kedaLength(look, PRIORITIZED)).toBe(3);
    expect(await kedaLength(look, WAIT)).toBe(0);
    // Which job is which task: its program names its burn time.
    const queued = await look.zrange(PRIORITIZED, 0, -1);
    const taskOf = new Map<string, string>();
    for (const id of queued) {
      const data = JSON.parse((await look.hget(`minedit:executions:${id}`, "data")) as string) as {
        program: string;
      };
      const name = Object.entries(burns).find(([, seconds]) => data.program.includes(`+ ${seconds}\n`))?.[0];
      taskOf.set(id, name as string);
    }
    expect(queued.map((id) => taskOf.get(id))).toEqual(["slow", "medium", "fast"]);

    expectAllPassed(await call, ["fast", "medium", "slow"]);
    expectAllPassed(await blocker, ["blocker-0"]);
    // The order the worker took them in: BullMQ's "active" events.
    const events = await look.xrange("minedit:executions:events", "-", "+");
    const taken = events
      .map(([, fields]) =>
        Object.fromEntries(fields.flatMap((v, i, all) => (i % 2 === 0 ? [[v, all[i + 1]]] : []))),
      )
      .filter((e) => e.event === "active" && taskOf.has(e.jobId as string))
      .map((e) => taskOf.get(e.jobId as string));
    expect(taken).toEqual(["slow", "medium", "fast"]);
  }, 120_000);

  test("a call whose deadline passes withdraws: its waiting jobs are removed, nobody runs them", async () => {
    // One worker with one slot, so most of the batch is still waiting at the deadline.
    const { look, fronts } = await cluster([[config]], 1);
    const [frontA] = fronts as [Front];
    const before = await stats(look);
    const batch = distinctBatch("cancel", 5, 1.0);
    const error = await callError(
      scoreBatch(frontA.client, { rollouts: batch }, { call: { deadline: Date.now() + 1500 } }),
    );
    expect(error.code).toBe(status.DEADLINE_EXCEEDED);
    await until("the waiting list to empty", async () => (await waitingJobs(look)) === 0, 5000);
    await until("the running job to stop", async () => (await look.llen(ACTIVE)) === 0, 5000);
    const after = await stats(look);
    // The job running at the deadline (at most two: one slot, jobs of 1 s) and nothing after it.
    expect(after.runs - before.runs).toBeLessThanOrEqual(2);
    expect(await look.keys("minedit:executions:mx:callers:*")).toEqual([]);
  });

  test("a cancelled call withdraws: its waiting jobs are removed, nobody runs them", async () => {
    const { look, fronts } = await cluster([[config]], 1);
    const [frontB] = fronts as [Front];
    const before = await stats(look);
    const stream = scoreStream(frontB.client);
    const ended = new Promise<void>((resolve) => {
      stream.on("error", () => resolve());
      stream.on("end", () => resolve());
    });
    stream.on("data", () => {});
    stream.write(create(ScoreStreamRequestSchema, { rollouts: distinctBatch("cancelled", 5, 1.0) }));
    await until("jobs waiting", async () => (await waitingJobs(look)) >= 3, 10_000);
    stream.cancel();
    await ended;
    await until("the waiting list to empty", async () => (await waitingJobs(look)) === 0, 5000);
    await until("the running job to stop", async () => (await look.llen(ACTIVE)) === 0, 5000);
    expect((await stats(look)).runs - before.runs).toBeLessThanOrEqual(1);
    expect(await look.keys("minedit:executions:mx:callers:*")).toEqual([]);
  });

  test("the call's deadline travels with its jobs: a front killed with jobs queued, workers skip them once it passed", async () => {
    // No worker yet: the jobs wait until the front is gone and their deadline has passed. The front's
    // own result cache is on: runs it joins across calls still go to the queue under each call's signal.
    const { look, fronts, worker } = await cluster([[cachedConfig]], 0);
    const [front] = fronts as [Front];
    const before = await stats(look);
    const batch = distinctBatch("orphan", 3, 0.2);
    // The gRPC deadline (2.5 s) is what the jobs carry; queue.jobDeadlineMs (10 min) is only for calls
    // without one (OpenRLHF's HTTP endpoint: the next test's front).
    const call = scoreBatch(
      front.client,
      { rollouts: batch },
      { call: { deadline: Date.now() + 2500 } },
    ).catch(() => null);
    await until("three jobs waiting", async () => (await waitingJobs(look)) === 3);
    await front.proc.stop("SIGKILL");
    front.client.close();
    await call;
    await until("the jobs' deadline (the call's) to pass", () => allDeadlinesPassed(look), 10_000);
    await worker();
    await until("the jobs taken", async () => (await waitingJobs(look)) === 0);
    await until("three skipped", async () => (await stats(look)).skipped - before.skipped === 3);
    expect((await stats(look)).runs - before.runs).toBe(0);
  });

  test("a call without a deadline of its own (OpenRLHF HTTP) carries queue.jobDeadlineMs", async () => {
    const { look, fronts, worker } = await cluster([[shortDeadlineConfig, ["--openrlhf-port", "0"]]], 0);
    const [front] = fronts as [Front];
    const before = await stats(look);
    const task = JSON.parse(readFileSync(TASKS, "utf8").split("\n")[1] as string) as { task_id: string };
    const prompt = "Repair this program.\n";
    const program = "def nothing_like_the_gold():\n    return 42\n";
    const post = fetch(front.openrlhf as string, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: [`${prompt}\`\`\`python\n${program}\`\`\``],
        prompts: [prompt],
        labels: [task.task_id],
      }),
    }).catch(() => null);
    await until("its job waiting", async () => (await waitingJobs(look)) === 1);
    await front.proc.stop("SIGKILL");
    front.client.close();
    await post;
    // queue.jobDeadlineMs is 2 s for that front: the deadline its job carries.
    await until("the job's deadline (queue.jobDeadlineMs) to pass", () => allDeadlinesPassed(look), 10_000);
    await worker();
    await until("the job taken", async () => (await waitingJobs(look)) === 0);
    await until("one skipped", async () => (await stats(look)).skipped - before.skipped === 1);
    expect((await stats(look)).runs - before.runs).toBe(0);
  });

  test("one process can be both (serve --queue --worker); the shared cache keeps deterministic verdicts only, with a TTL", async () => {
    const { look, front } = await cluster([], 0);
    const both = await front(shortWallConfig, ["--worker"]);
    const passing = distinctBatch("both", 2, 0);
    // Sleeps past the 2 s wall limit: TIMEOUT, which depends on the load and is never cached.
    const slow = sleepyRollout("both-timeout", ++variant, 4);
    const resultKeys = async () => (await look.keys("minedit:executions:mx:result:*")).length;
    const keysBefore = await resultKeys();
    const before = await stats(look);
    const first = await scoreBatch(both.client, { rollouts: [...passing, slow] });
    expect(first.results.map((r) => [r.verdict, r.cached])).toEqual([
      [Verdict.PASSED, false],
      [Verdict.PASSED, false],
      [Verdict.TIMEOUT, false],
    ]);
    expect((await stats(look)).runs - before.runs).toBe(3);
    expect((await resultKeys()) - keysBefore).toBe(2);
    for (const key of await look.keys("minedit:executions:mx:result:*")) {
      const ttl = await look.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60 * 60 * 1000);
    }
    // Again: the passing ones come from Redis (no run), the TIMEOUT runs again.
    const again = await scoreBatch(both.client, { rollouts: [...passing, slow] });
    expect(again.results.map((r) => [r.verdict, r.cached])).toEqual([
      [Verdict.PASSED, true],
      [Verdict.PASSED, true],
      [Verdict.TIMEOUT, false],
    ]);
    expect((await stats(look)).runs - before.runs).toBe(4);
    expect(both.proc.output).toMatch(/and a worker here/);
  });
});
