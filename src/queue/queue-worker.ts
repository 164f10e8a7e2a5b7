/**
 * The worker's side of the queue (`minedit worker`, or `serve --worker`): a BullMQ Worker that runs
 * execution jobs in this process's sandbox, `slots` at a time, with the scorer's own execution step
 * ({@link runTestsWithRetries}, src/scoring/rollout-scorer.ts).
 *
 * Per job: skip it when no caller wants it any more (every call withdrew or is past its deadline); answer
 * from the shared result cache when an identical run finished meanwhile; otherwise run it, stopping when
 * the last caller withdraws or the latest deadline passes; keep a deterministic outcome in the cache (with
 * the TTL); count what it did in the queue's stats hash. BullMQ renews the job's lock while it runs; a
 * worker that dies stops renewing and the stalled-job check of the others puts the job back.
 */
import { hostname } from "node:os";
import { UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueConfig } from "../config.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { isReusable } from "../scoring/result-cache.js";
import { runTestsWithRetries } from "../scoring/rollout-scorer.js";
import {
  type ExecutionJobData,
  type ExecutionJobResult,
  LATEST_DEADLINE_LUA,
  parseJobData,
  parseOutcome,
  queueKeys,
  travelling,
} from "./protocol.js";
import { blockingClient, commandClient, displayUrl } from "./redis-connection.js";

export type QueueWorkerOptions = {
  config: QueueConfig & { url: string };
  sandbox: Sandbox;
  /** Jobs run at once: the sandbox's execution slots (`sandbox.executionConcurrency`). */
  slots: number;
  /** Retries of a run the sandbox broke (`sandbox.infraRetries`). */
  infraRetries: number;
  log: (line: string) => void;
};

export type QueueWorkerStats = { runs: number; cacheHits: number; skipped: number; failed: number };

export type RunningQueueWorker = {
  /** This worker's counts since it started (the queue's totals are in the stats hash). */
  readonly stats: QueueWorkerStats;
  /** Whether it is connected and taking jobs. */
  readonly running: boolean;
  /** Drains: takes no new job, lets the running ones finish, then disconnects. Idempotent. */
  close(): Promise<void>;
};

type RedisWithScripts = Redis & { mineditLatestDeadline(key: string, nowMs: number): Promise<number> };

/** Starts a worker on the queue; it takes jobs at once. */
export function startQueueWorker(options: QueueWorkerOptions): RunningQueueWorker {
  const { config, sandbox, slots, infraRetries, log } = options;
  const keys = queueKeys(config);
  const name = `${hostname()}-${process.pid}`;
  const client = commandClient(config.url, `minedit-worker-commands:${name}`) as RedisWithScripts;
  client.defineCommand("mineditLatestDeadline", { numberOfKeys: 1, lua: LATEST_DEADLINE_LUA });
  const stats: QueueWorkerStats = { runs: 0, cacheHits: 0, skipped: 0, failed: 0 };
  const count = (what: keyof QueueWorkerStats) => {
    stats[what] += 1;
    client.hincrby(keys.stats, what, 1).catch(() => {});
  };

  const connection = blockingClient(config.url, `minedit-worker:${name}`);
  const worker = new Worker<ExecutionJobData, ExecutionJobResult>(
    config.name,
    async (job, _token, signal) => {
      try {
        return await runJob(job.id as string, job.data, signal);
      } catch (error) {
        count("failed");
        // One attempt: the failure is final and its event answers the callers, so their hash can go.
        await client.del(keys.callers(job.id as string)).catch(() => {});
        throw error;
      }
    },
    {
      connection,
      prefix: config.prefix,
      name,
      concurrency: slots,
      lockDuration: config.lockMs,
      stalledInterval: config.stalledIntervalMs,
      maxStalledCount: config.maxStalledCount,
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
    },
  );
  let lastError = "";
  worker.on("error", (error: Error) => {
    // Reconnections are routine; say it once per distinct message rather than on every retry.
    if (error.message === lastError) return;
    lastError = error.message;
    log(`queue worker: ${error.message}`);
  });
  worker.on("ready", () => {
    lastError = "";
  });

  async function runJob(
    jobId: string,
    data: unknown,
    bullSignal: AbortSignal | undefined,
  ): Promise<ExecutionJobResult> {
    const job = parseJobData(data);
    if (typeof job === "string") throw new UnrecoverableError(job);
    const latest = await client.mineditLatestDeadline(keys.callers(jobId), Date.now());
    if (latest < 0) {
      count("skipped");
      return { kind: "skipped", reason: "no caller wants it any more (withdrawn or past its deadline)" };
    }
    if (config.resultTtlMs > 0) {
      const remembered = parseOutcome(await client.get(keys.result(jobId)));
      if (remembered !== null) {
        count("cacheHits");
        return { kind: "outcome", outcome: remembered, fromCache: true };
      }
    }
    const controller = new AbortController();
    const stop = (reason: string) =>
      controller.abort(new MineditError(ErrorCode.Cancelled, `stopped on the worker: ${reason}`));
    const onBullAbort = () => stop("the worker is shutting down or the job was cancelled");
    bullSignal?.addEventListener("abort", onBullAbort, { once: true });
    let latestMs = latest;
    const deadline = () =>
      setTimeout(() => stop("every caller's deadline passed"), Math.max(0, latestMs - Date.now()));
    let deadlineTimer = deadline();
    // While it runs: still wanted? Deadlines may have grown (another call joined) or gone (all withdrew).
    const watcher = setInterval(() => {
      client
        .mineditLatestDeadline(keys.callers(jobId), Date.now())
        .then((now) => {
          if (now < 0) stop("every caller withdrew");
          else if (now !== latestMs) {
            latestMs = now;
            clearTimeout(deadlineTimer);
            deadlineTimer = deadline();
          }
        })
        .catch(() => {}); // Redis away: keep running; the lock decides whether the result still counts.
    }, config.pollMs);
    try {
      const outcome = await runTestsWithRetries(
        sandbox,
        job.program,
        job.tests,
        job.limits,
        infraRetries,
        controller.signal,
      );
      const result = travelling(outcome);
      count("runs");
      // Its callers are answered by the completion event; a call that comes later is a new caller.
      await client.del(keys.callers(jobId)).catch(() => {});
      if (config.resultTtlMs > 0 && isReusable(outcome)) {
        await client
          .set(keys.result(jobId), JSON.stringify(result), "PX", config.resultTtlMs)
          .catch(() => {});
      }
      return { kind: "outcome", outcome: result, fromCache: false };
    } catch (error) {
      if (controller.signal.aborted) {
        count("skipped");
        const reason = controller.signal.reason;
        return { kind: "skipped", reason: isMineditError(reason) ? reason.rawMessage : "stopped" };
      }
      throw error;
    } finally {
      clearInterval(watcher);
      clearTimeout(deadlineTimer);
      bullSignal?.removeEventListener("abort", onBullAbort);
    }
  }

  log(`queue worker: taking jobs from ${displayUrl(config.url)} queue "${config.name}", ${slots} slots`);
  let closing: Promise<void> | undefined;
  return {
    stats,
    get running() {
      return worker.isRunning() && client.status === "ready";
    },
    close() {
      closing ??= (async () => {
        await worker.close();
        client.disconnect();
        connection.disconnect();
      })();
      return closing;
    },
  };
}
