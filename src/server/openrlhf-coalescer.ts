/**
 * Coalescing OpenRLHF's one-sample requests (OpenRLHF >= 0.9.1 sends hundreds at once): requests that
 * arrive within a short window are scored in ONE scorer call, so identical samples of a GRPO group run
 * once; each request is answered as soon as its own samples are done, and a request whose client hangs up
 * leaves the shared call, which is cancelled only when no request waits for it any more.
 */
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "../scoring/rollout.js";
import type { Sample } from "./openrlhf-protocol.js";

/**
 * The scorer names `rollouts[k]` of its call; here that is sample `local` of one request, whose task id
 * came from `labels[local]` and whose response from `query[local]`.
 */
function inRequestTerms(error: MineditError, local: number): MineditError {
  const match = /^rollouts\[\d+\](.*)$/.exec(error.field ?? "");
  if (match === null || error.field === undefined) return error;
  // `.task_id`, `.task` and `.task.*` (an inline task's runtime, say) came from the label.
  const field = /^\.task(_id|\.|$)/.test(match[1] ?? "") ? `labels[${local}]` : `query[${local}]`;
  const hint =
    error.code === ErrorCode.NotFound
      ? " (the label must be a task id this server serves: the `label` column of `minedit export --format openrlhf`)"
      : "";
  return new MineditError(error.code, `${error.rawMessage.replace(error.field, field)}${hint}`, { field });
}

/** The sample of a coalesced call that a scorer error names (`rollouts[k]...`), if it names one. */
function culpritOf<T>(error: unknown, owners: readonly T[]): T | undefined {
  if (!isMineditError(error)) return undefined;
  const match = /^rollouts\[(\d+)\]/.exec(error.field ?? "");
  return match === null ? undefined : owners[Number(match[1])];
}

/** One request's samples waiting for, or being scored in, a coalesced call. */
type Job = {
  samples: readonly Sample[];
  outputs: (RolloutOutput | undefined)[];
  remaining: number;
  settled: boolean;
  batch: Batch | undefined;
  resolve(outputs: RolloutOutput[]): void;
  reject(error: unknown): void;
  detach(): void;
};
/** One scorer call: `live` requests still wait for it, `undelivered` of its rollouts are not done yet. */
type Batch = { controller: AbortController; live: number; undelivered: number; done: boolean };

/** What one coalesced call scored for requests still waiting: for the per-batch log line and counters. */
export type BatchReport = { requests: number; samples: readonly Sample[]; outputs: readonly RolloutOutput[] };

/**
 * Scores requests' samples in shared scorer calls: a window opens with the first request and closes after
 * `windowMs` or once it holds `maxRollouts` rollouts (a larger request goes alone); 0 ms scores each
 * request alone at once.
 */
export class Coalescer {
  calls = 0;
  private window: Job[] = [];
  private windowRollouts = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly scorer: RolloutScorer,
    private readonly windowMs: number,
    private readonly maxRollouts: number,
    private readonly onBatch: (report: BatchReport) => void,
  ) {}

  /** The scorer's outputs for `samples`, in order; rejects with `signal.reason` once it aborts. */
  score(samples: readonly Sample[], signal: AbortSignal): Promise<RolloutOutput[]> {
    if (samples.length === 0) return Promise.resolve([]);
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const job: Job = {
        samples,
        outputs: samples.map(() => undefined),
        remaining: samples.length,
        settled: false,
        batch: undefined,
        resolve,
        reject,
        detach: () => signal.removeEventListener("abort", onAbort),
      };
      const onAbort = () => this.abandon(job, signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      if (this.windowMs === 0) {
        this.start([job]);
        return;
      }
      if (this.window.length > 0 && this.windowRollouts + samples.length > this.maxRollouts) this.flush();
      this.window.push(job);
      this.windowRollouts += samples.length;
      if (this.windowRollouts >= this.maxRollouts) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  /** Stops the window's timer; the server aborts the requests themselves. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    this.close();
    const jobs = this.window;
    this.window = [];
    this.windowRollouts = 0;
    if (jobs.length > 0) this.start(jobs);
  }

  /** Marks a job settled and, when it was the last one its call works for, cancels that call. */
  private settle(job: Job, reason: unknown): boolean {
    if (job.settled) return false;
    job.settled = true;
    job.detach();
    const batch = job.batch;
    if (batch !== undefined) {
      batch.live -= 1;
      if (batch.live === 0 && batch.undelivered > 0 && !batch.done) batch.controller.abort(reason);
    }
    return true;
  }

  private abandon(job: Job, reason: unknown): void {
    const waiting = this.window.indexOf(job);
    if (waiting >= 0) {
      this.window.splice(waiting, 1);
      this.windowRollouts -= job.samples.length;
      if (this.window.length === 0) this.close();
    }
    if (this.settle(job, reason)) job.reject(reason);
  }

  private fail(job: Job, error: unknown): void {
    if (this.settle(job, error)) job.reject(error);
  }

  private start(jobs: Job[]): void {
    const batch: Batch = {
      controller: new AbortController(),
      live: jobs.length,
      undelivered: 0,
      done: false,
    };
    for (const job of jobs) job.batch = batch;
    void this.run(jobs, batch)
      .catch((error: unknown) => {
        for (const job of jobs) this.fail(job, error);
      })
      .finally(() => {
        batch.done = true;
      });
  }

  private async run(jobs: Job[], batch: Batch): Promise<void> {
    const finished = new MineditError(ErrorCode.Cancelled, "no request waits for this batch any more");
    let active = jobs;
    for (;;) {
      active = active.filter((job) => !job.settled);
      if (active.length === 0) return;
      const owners: { job: Job; local: number }[] = [];
      const inputs: RolloutInput[] = [];
      for (const job of active) {
        job.samples.forEach((sample, local) => {
          owners.push({ job, local });
          inputs.push({
            id: String(inputs.length),
            completion: sample.completion,
            task: sample.task,
            groupId: sample.groupKey,
          });
        });
      }
      this.calls += 1;
      batch.undelivered = inputs.length;
      const delivered: { sample: Sample; output: RolloutOutput }[] = [];
      let yielded = false;
      try {
        for await (const output of this.scorer.score(inputs, undefined, batch.controller.signal)) {
          yielded = true;
          batch.undelivered -= 1;
          const owner = owners[Number(output.id)];
          if (owner === undefined)
            throw new Error(`the scorer returned an unknown rollout id "${output.id}"`);
          const { job, local } = owner;
          if (job.settled || job.outputs[local] !== undefined) continue;
          job.outputs[local] = output;
          delivered.push({ sample: job.samples[local] as Sample, output });
          job.remaining -= 1;
          if (job.remaining === 0 && this.settle(job, finished)) job.resolve(job.outputs as RolloutOutput[]);
        }
      } catch (error) {
        // The scorer validates task references before scoring anything: drop that request, score the rest.
        const culprit = yielded ? undefined : culpritOf(error, owners);
        if (culprit === undefined || !isMineditError(error)) throw error;
        this.fail(culprit.job, inRequestTerms(error, culprit.local));
        continue;
      }
      for (const job of active) {
        this.fail(job, new Error(`the scorer returned no result for ${job.remaining} sample(s)`));
      }
      this.onBatch({
        requests: active.length,
        samples: delivered.map((d) => d.sample),
        outputs: delivered.map((d) => d.output),
      });
      return;
    }
  }
}
