/**
 * The front's side of the queue: an {@link ExecutionBackend} that turns each distinct repair execution
 * into a BullMQ job (id = its content key) and answers from the job's result. What it guarantees and how
 * (docs/deploy.md has the operator's view):
 *
 * - **One run for identical executions.** All waiters of a job id in this process share one entry; other
 *   fronts' adds of the same id are ignored by BullMQ while the job exists; a job found in the shared
 *   result cache is not added at all.
 * - **At-least-once.** Results arrive as BullMQ `completed` / `failed` events. Every `pollMs` the front
 *   checks that each job it waits for still exists; one missing twice in a row (Redis lost it, or its
 *   event was lost) is looked up in the cache and otherwise added again. A worker that dies mid-run loses
 *   its lock and BullMQ's stalled-job check gives the job to another. Each waiter is answered once.
 * - **Deadlines and cancellation.** Each call registers as a caller of its jobs with its deadline
 *   (protocol.ts); when the call is cancelled or its deadline passes, it withdraws, and a job left with no
 *   caller is removed if it is still waiting (a running one is stopped by its worker).
 * - **Slowest first.** Each job carries a BullMQ priority from its task's expected time (protocol.ts,
 *   `jobPriority`): workers take the slowest of what is queued, so a step does not end on a slow test
 *   started last.
 * - **Redis down.** New calls are refused with UNAVAILABLE (see {@link QueueFront.checkAvailable}); calls
 *   in flight wait `outageToleranceMs` for Redis to come back, then fail with UNAVAILABLE.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueConfig } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { TestOutcome } from "../runners/python.js";
import type { ExecutionBackend, ExecutionJob } from "../scoring/rollout-scorer.js";
import {
  ADD_CALLER_LUA,
  CALLERS_SLACK_MS,
  EXECUTION_JOB,
  type ExecutionJobData,
  jobData,
  jobPriority,
  parseJobResult,
  parseOutcome,
  type QueueKeys,
  queueKeys,
  REMOVE_CALLER_LUA,
} from "./protocol.js";
import { blockingClient, commandClient, unavailable } from "./redis-connection.js";

type Settlement = { outcome: TestOutcome; reused: boolean };

type Waiter = {
  call: FrontCall;
  resolve(settlement: Settlement): void;
  reject(error: unknown): void;
  /** Another call (here or at another front) was waiting for the job before this one. */
  reused: boolean;
};

type Entry = {
  job: ExecutionJob;
  waiters: Set<Waiter>;
  /** "new": to be added (again); "queued": added, waiting for its result. */
  state: "new" | "queued";
  /** Redis time (ms) of the last add: a completion event from before it is an earlier run's. */
  sinceMs: number;
  /** Polls in a row that found the job gone without an answer. */
  missing: number;
};

/** A scoring call as the front knows it. */
export type FrontCall = {
  readonly id: string;
  /** Epoch ms after which no worker should start (or continue) this call's jobs. */
  readonly deadlineMs: number;
  /** Aborted when the caller gives up, or by the front (reason: UNAVAILABLE) when Redis stays away. */
  readonly signal: AbortSignal;
  /** Job ids this call registered as a caller of. */
  readonly jobs: Set<string>;
};

type CallRecord = FrontCall & { controller: AbortController; ownDeadline: boolean };

export type QueueFrontOptions = {
  config: QueueConfig & { url: string };
  log: (line: string) => void;
};

type RedisWithScripts = Redis & {
  mineditAddCaller(key: string, callId: string, deadlineMs: number, slackMs: number): Promise<number>;
  mineditRemoveCaller(key: string, callId: string): Promise<number>;
};

export class QueueFront implements ExecutionBackend {
  private readonly keys: QueueKeys;
  private readonly client: RedisWithScripts;
  private readonly eventsClient: Redis;
  private readonly queue: Queue<ExecutionJobData>;
  private readonly events: QueueEvents;
  private readonly pending = new Map<string, Entry>();
  /** Registrations (and adds) not yet sent to Redis: sent together, in order, once per tick. */
  private toSend: { entry: Entry; waiter: Waiter }[] = [];
  private sendScheduled = false;
  private sending: Promise<void> | null = null;
  /** Open calls by their signal (and, for callers that did not open one, by the caller's signal). */
  private readonly calls = new Map<AbortSignal, CallRecord>();
  private readonly frontId = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  private callCount = 0;
  private lastError = "not connected yet";
  private downSinceMs: number | null = null;
  private readonly poller: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: QueueFrontOptions) {
    const { config } = options;
    this.keys = queueKeys(config);
    this.client = commandClient(config.url, `minedit-front:${this.frontId}`) as RedisWithScripts;
    this.client.defineCommand("mineditAddCaller", { numberOfKeys: 1, lua: ADD_CALLER_LUA });
    this.client.defineCommand("mineditRemoveCaller", { numberOfKeys: 1, lua: REMOVE_CALLER_LUA });
    this.client.on("error", (error: Error) => {
      this.lastError = error.message;
    });
    this.client.on("ready", () => {
      this.downSinceMs = null;
      this.schedulePoll();
    });
    this.queue = new Queue<ExecutionJobData>(config.name, {
      connection: this.client,
      prefix: config.prefix,
      streams: { events: { maxLen: config.eventsMaxLen } },
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
    });
    this.queue.on("error", () => {});
    this.eventsClient = blockingClient(config.url, `minedit-front-events:${this.frontId}`);
    this.events = new QueueEvents(config.name, { connection: this.eventsClient, prefix: config.prefix });
    this.events.on("error", () => {});
    this.events.on("completed", ({ jobId, returnvalue }, id) => this.onCompleted(jobId, returnvalue, id));
    this.events.on("failed", ({ jobId, failedReason }, id) => this.onFailed(jobId, failedReason, id));
    this.events.on("removed", ({ jobId }, id) => this.onRemoved(jobId, id));
    this.poller = setInterval(() => this.poll(), config.pollMs);
    this.poller.unref();
  }

  /** Whether the front can hand work to the queue now. */
  get available(): boolean {
    return !this.closed && this.client.status === "ready";
  }

  /** Executions this front is waiting for (distinct jobs). */
  get waiting(): number {
    return this.pending.size;
  }

  /** Throws UNAVAILABLE, saying why, when Redis cannot be reached: a new call must not start then. */
  checkAvailable(): void {
    if (!this.available)
      throw unavailable(this.options.config.url, this.closed ? "shutting down" : this.lastError);
  }

  /** Resolves once Redis answers (or after `timeoutMs`, with false). */
  async waitUntilReady(timeoutMs: number): Promise<boolean> {
    if (this.available) return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.client.off("ready", onReady);
        resolve(false);
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.client.once("ready", onReady);
    });
  }

  /**
   * Opens a scoring call: its jobs are registered with `deadlineMs` (the call's own deadline, epoch ms;
   * default: now + `jobDeadlineMs`), and they are withdrawn when `signal` aborts. Give the returned call's
   * signal to the scorer; `close()` when the call is over.
   */
  openCall(signal: AbortSignal, deadlineMs?: number): FrontCall & { close(): void } {
    const controller = new AbortController();
    const call: CallRecord = {
      id: `${this.frontId}:${++this.callCount}`,
      deadlineMs: deadlineMs ?? Date.now() + this.options.config.jobDeadlineMs,
      ownDeadline: deadlineMs !== undefined,
      signal: controller.signal,
      jobs: new Set<string>(),
      controller,
    };
    this.calls.set(call.signal, call);
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    controller.signal.addEventListener("abort", () => this.withdraw(call), { once: true });
    return {
      ...call,
      close: () => {
        signal.removeEventListener("abort", onAbort);
        // Anything still registered (a call that ended early) is withdrawn.
        if (!controller.signal.aborted)
          controller.abort(new MineditError(ErrorCode.Cancelled, "the call is over"));
        this.calls.delete(call.signal);
      },
    };
  }

  execute(job: ExecutionJob, signal: AbortSignal): Promise<Settlement> {
    let call = this.calls.get(signal);
    if (call === undefined) {
      // A caller that did not open a call: one per signal, with the default deadline.
      call = this.calls.get(this.openCall(signal).signal) as CallRecord;
      this.calls.set(signal, call);
    }
    const theCall = call;
    return new Promise<Settlement>((resolve, reject) => {
      if (theCall.signal.aborted) {
        reject(abortError(theCall.signal));
        return;
      }
      const waiter: Waiter = { call: theCall, resolve, reject, reused: false };
      let entry = this.pending.get(job.key);
      if (entry === undefined) {
        entry = { job, waiters: new Set(), state: "new", sinceMs: 0, missing: 0 };
        this.pending.set(job.key, entry);
      }
      entry.waiters.add(waiter);
      theCall.jobs.add(job.key);
      this.toSend.push({ entry, waiter });
      this.scheduleSend();
    });
  }

  private scheduleSend(): void {
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    // setImmediate: every job of a batch is handed over in the same tick, so they travel together.
    setImmediate(() => {
      this.sendScheduled = false;
      void this.send();
    });
  }

  /** Sends the pending registrations and adds; on a Redis failure they stay for the next poll. */
  private async send(): Promise<void> {
    if (this.sending !== null) {
      await this.sending;
      if (this.toSend.length > 0) this.scheduleSend();
      return;
    }
    if (this.toSend.length === 0 || !this.available) return;
    const items = this.toSend.filter(({ entry, waiter }) => entry.waiters.has(waiter));
    this.toSend = [];
    this.sending = this.sendNow(items)
      .catch((error: unknown) => {
        this.lastError = error instanceof Error ? error.message : String(error);
        // Kept for the poll, which sends again once Redis answers.
        for (const item of items) if (item.entry.waiters.has(item.waiter)) this.toSend.push(item);
      })
      .finally(() => {
        this.sending = null;
      });
    await this.sending;
  }

  private async sendNow(items: { entry: Entry; waiter: Waiter }[]): Promise<void> {
    const { config } = this.options;
    const toAdd = [...new Set(items.map((i) => i.entry).filter((e) => e.state === "new"))];
    // Redis's clock marks what counts as a result for these adds; the shared cache may already have it.
    const lookup = this.client.multi().time();
    if (config.resultTtlMs > 0) for (const entry of toAdd) lookup.get(this.keys.result(entry.job.key));
    const replies = (await lookup.exec()) ?? [];
    const failed = replies.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0];
    const [seconds, micros] = (replies[0]?.[1] ?? ["0", "0"]) as [string, string];
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const hits = new Set<Entry>();
    toAdd.forEach((entry, i) => {
      const outcome = parseOutcome((replies[i + 1]?.[1] as string | null | undefined) ?? null);
      if (outcome === null) return;
      hits.add(entry);
      this.settle(entry, outcome, true);
    });

    const register = items.filter((i) => !hits.has(i.entry) && i.entry.waiters.has(i.waiter));
    const adds = toAdd.filter((e) => !hits.has(e));
    if (register.length === 0) return;
    const pipeline = this.client.pipeline();
    for (const { entry, waiter } of register) {
      (pipeline as unknown as RedisWithScripts).mineditAddCaller(
        this.keys.callers(entry.job.key),
        waiter.call.id,
        waiter.call.deadlineMs,
        CALLERS_SLACK_MS,
      );
    }
    const counts = (await pipeline.exec()) ?? [];
    register.forEach(({ waiter }, i) => {
      const [error, before] = counts[i] ?? [new Error("no reply"), 0];
      if (error !== null) throw error;
      waiter.reused = waiter.reused || Number(before) > 0;
    });
    if (adds.length === 0) return;
    for (const entry of adds) {
      entry.state = "queued";
      entry.sinceMs = nowMs;
      entry.missing = 0;
    }
    try {
      await this.queue.addBulk(
        adds.map((entry) => ({
          name: EXECUTION_JOB,
          data: jobData(entry.job.program, entry.job.tests, entry.job.limits),
          // Workers take the slowest first among what is queued (protocol.ts, jobPriority).
          opts: { jobId: entry.job.key, priority: jobPriority(entry.job.expectedMs) },
        })),
      );
    } catch (error) {
      for (const entry of adds) entry.state = "new";
      throw error;
    }
  }

  /** Answers every waiter of an entry (once) and forgets it. */
  private settle(entry: Entry, outcome: TestOutcome, fromCache: boolean): void {
    if (this.pending.get(entry.job.key) === entry) this.pending.delete(entry.job.key);
    for (const waiter of entry.waiters) {
      waiter.call.jobs.delete(entry.job.key);
      waiter.resolve({ outcome, reused: fromCache || waiter.reused });
    }
    entry.waiters.clear();
  }

  private fail(entry: Entry, error: MineditError): void {
    if (this.pending.get(entry.job.key) === entry) this.pending.delete(entry.job.key);
    for (const waiter of entry.waiters) {
      waiter.call.jobs.delete(entry.job.key);
      waiter.reject(error);
    }
    entry.waiters.clear();
  }

  /** The entry a job event is about, unless the event is of a run that ended before the entry's add. */
  private entryFor(jobId: string, eventId: string): Entry | undefined {
    const entry = this.pending.get(jobId);
    if (entry === undefined || entry.state !== "queued") return undefined;
    const eventMs = Number(eventId.split("-")[0]);
    return Number.isFinite(eventMs) && eventMs < entry.sinceMs ? undefined : entry;
  }

  private onCompleted(jobId: string, returnvalue: unknown, eventId: string): void {
    const entry = this.entryFor(jobId, eventId);
    if (entry === undefined) return;
    const result = parseJobResult(
      typeof returnvalue === "string" ? returnvalue : JSON.stringify(returnvalue),
    );
    if (result === null) {
      this.fail(
        entry,
        new MineditError(ErrorCode.Internal, `job ${jobId}: a worker returned a malformed result`),
      );
    } else if (result.kind === "outcome") {
      this.settle(entry, result.outcome, result.fromCache);
    } else {
      // A worker skipped it (no caller left when it looked): our callers joined too late; add it again.
      this.requeue(entry);
    }
  }

  private onFailed(jobId: string, failedReason: string, eventId: string): void {
    const entry = this.entryFor(jobId, eventId);
    if (entry === undefined) return;
    const reason = /stalled more than allowable limit/.test(failedReason)
      ? `the job lost its worker more than ${this.options.config.maxStalledCount} times (killed, or cut off from Redis)`
      : failedReason;
    this.fail(entry, new MineditError(ErrorCode.Unavailable, `the queue's worker failed: ${reason}`));
  }

  /** Another front withdrew its last caller and removed the job while calls here still want it. */
  private onRemoved(jobId: string, eventId: string): void {
    const entry = this.entryFor(jobId, eventId);
    if (entry !== undefined) this.requeue(entry);
  }

  private requeue(entry: Entry): void {
    if (entry.waiters.size === 0) {
      this.pending.delete(entry.job.key);
      return;
    }
    entry.state = "new";
    entry.missing = 0;
    for (const waiter of entry.waiters) this.toSend.push({ entry, waiter });
    this.scheduleSend();
  }

  /** A call gave up (cancelled, deadline, or failed): its waiters are rejected and it withdraws in Redis. */
  private withdraw(call: CallRecord): void {
    for (const [key, record] of this.calls) if (record === call) this.calls.delete(key);
    const reason = abortError(call.signal);
    const jobIds = [...call.jobs];
    call.jobs.clear();
    for (const jobId of jobIds) {
      const entry = this.pending.get(jobId);
      if (entry === undefined) continue;
      for (const waiter of entry.waiters) {
        if (waiter.call !== call) continue;
        entry.waiters.delete(waiter);
        waiter.reject(reason);
      }
      if (entry.waiters.size === 0) this.pending.delete(jobId);
    }
    if (jobIds.length === 0 || !this.available) return;
    void (async () => {
      const pipeline = this.client.pipeline();
      for (const jobId of jobIds) {
        (pipeline as unknown as RedisWithScripts).mineditRemoveCaller(this.keys.callers(jobId), call.id);
      }
      const remaining = (await pipeline.exec()) ?? [];
      const orphans = jobIds.filter((_, i) => remaining[i]?.[0] === null && Number(remaining[i]?.[1]) === 0);
      // Removes only jobs still waiting: BullMQ keeps a locked (running) one, which its worker stops.
      await Promise.all(orphans.map((jobId) => this.queue.remove(jobId).catch(() => 0)));
    })().catch(() => {});
  }

  private schedulePoll(): void {
    setImmediate(() => this.poll());
  }

  /** Outage accounting, re-sends, and the check that every awaited job still exists. */
  private poll(): void {
    if (this.closed) return;
    const { config } = this.options;
    if (!this.available) {
      this.downSinceMs ??= Date.now();
      if (Date.now() - this.downSinceMs >= config.outageToleranceMs) {
        const error = unavailable(
          config.url,
          `${this.lastError}; unreachable for ${((Date.now() - this.downSinceMs) / 1000).toFixed(1)} s`,
        );
        for (const call of this.waitingCalls()) call.controller.abort(error);
      }
      return;
    }
    this.downSinceMs = null;
    // A call past its deadline (its own, or `jobDeadlineMs` for one without): its jobs are past theirs too.
    // A gRPC call's signal aborts at its deadline anyway; this covers the calls with none.
    for (const call of this.waitingCalls()) {
      if (Date.now() <= call.deadlineMs) continue;
      call.controller.abort(
        new MineditError(
          ErrorCode.DeadlineExceeded,
          call.ownDeadline
            ? "the call's deadline passed before the workers finished its executions"
            : `no worker finished the call's executions within queue.jobDeadlineMs (${config.jobDeadlineMs} ms)`,
        ),
      );
    }
    if (this.toSend.length > 0) this.scheduleSend();
    const queued = [...this.pending.values()].filter((e) => e.state === "queued");
    if (queued.length === 0) return;
    const pipeline = this.client.pipeline();
    for (const entry of queued) pipeline.exists(this.queue.toKey(entry.job.key));
    pipeline
      .exec()
      .then((replies) => {
        queued.forEach((entry, i) => {
          const [error, exists] = replies?.[i] ?? [new Error("no reply"), 0];
          if (error !== null || entry.state !== "queued") return;
          if (Number(exists) === 1) {
            entry.missing = 0;
            return;
          }
          // Gone without an answer: its event may still be on its way, so only the second time.
          entry.missing += 1;
          if (entry.missing >= 2) this.requeue(entry);
        });
      })
      .catch((error: unknown) => {
        this.lastError = error instanceof Error ? error.message : String(error);
      });
  }

  /** Open calls that wait for at least one job. */
  private waitingCalls(): CallRecord[] {
    return [...new Set(this.calls.values())].filter((call) => call.jobs.size > 0);
  }

  /** Stops listening; calls still waiting fail with UNAVAILABLE. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.poller);
    const error = unavailable(this.options.config.url, "the front is shutting down");
    for (const call of new Set(this.calls.values())) call.controller.abort(error);
    await Promise.allSettled([this.events.close(), this.queue.close()]);
    this.client.disconnect();
    this.eventsClient.disconnect();
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new MineditError(ErrorCode.Cancelled, "the call was cancelled");
}
