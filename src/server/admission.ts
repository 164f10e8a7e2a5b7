/**
 * Admission control in front of the scorer, shared by both endpoints (gRPC and OpenRLHF's HTTP): a bound
 * on rollouts admitted and not yet scored (`server.maxQueuedRollouts`), and the drain `minedit serve`
 * does on SIGTERM.
 *
 * Why a bound on rollouts rather than on calls: what a queued call costs (its decoded request, its results
 * waiting for a slot) grows with its rollouts, and a flood of small calls and one huge batch are the same
 * danger. Beyond the bound a call is refused at once with `RESOURCE_EXHAUSTED` and a retry hint instead of
 * waiting in memory: the trainer backs off, the server's memory stays flat (benchmarks/soak/).
 *
 * Draining: new calls are refused with `UNAVAILABLE` (a client retries on another replica), calls in flight
 * go on until {@link Admission.cancelAll} ends them with `UNAVAILABLE` too.
 */
import type { RewardOverride } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "../scoring/rollout.js";

export type AdmissionOptions = {
  /** Most rollouts in flight over all calls; a call arriving when none is in flight is always admitted. */
  maxQueuedRollouts: number;
  /** The wait an overloaded server asks for before a retry, in ms. */
  retryAfterMs: number;
  /** Called for each call refused for overload (the metrics count them). */
  onRefused?: () => void;
};

type Admitted = { cancel: AbortController };

export class Admission implements RolloutScorer {
  private queued = 0;
  private readonly active = new Set<Admitted>();
  private readonly idleWaiters: (() => void)[] = [];
  private draining = false;
  /** Calls refused for overload since start. */
  refused = 0;

  constructor(
    private readonly inner: RolloutScorer,
    private readonly options: AdmissionOptions,
  ) {}

  /** Rollouts admitted and not yet scored (the queue depth). */
  get depth(): number {
    return this.queued;
  }

  /** Scorer calls in flight. */
  get calls(): number {
    return this.active.size;
  }

  /** From now on every new call is refused with `UNAVAILABLE`; calls in flight go on. */
  drain(): void {
    this.draining = true;
  }

  /** Ends every call in flight with `UNAVAILABLE` (their scorers' signals abort, stopping their sandboxes). */
  cancelAll(): void {
    for (const admitted of this.active) {
      admitted.cancel.abort(
        new MineditError(
          ErrorCode.Unavailable,
          "the server is shutting down and the drain timeout (server.drainTimeoutMs) passed; retry elsewhere",
        ),
      );
    }
  }

  /** Resolves true once no call is in flight, or false when `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.active.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const at = this.idleWaiters.indexOf(done);
        if (at >= 0) this.idleWaiters.splice(at, 1);
        resolve(false);
      }, timeoutMs);
      this.idleWaiters.push(done);
    });
  }

  async *score(
    rollouts: RolloutInput[],
    rewardOverride: RewardOverride | undefined,
    signal: AbortSignal,
    deadlineMs?: number,
  ): AsyncIterable<RolloutOutput> {
    if (this.draining) {
      throw new MineditError(ErrorCode.Unavailable, "the server is shutting down; retry elsewhere");
    }
    const count = rollouts.length;
    if (this.queued > 0 && this.queued + count > this.options.maxQueuedRollouts) {
      this.refused += 1;
      this.options.onRefused?.();
      const { retryAfterMs } = this.options;
      throw new MineditError(
        ErrorCode.ResourceExhausted,
        `the server is overloaded: ${this.queued} rollouts queued, ${count} more would pass ` +
          `server.maxQueuedRollouts (${this.options.maxQueuedRollouts}); retry in ${retryAfterMs} ms`,
        { retryAfterMs },
      );
    }
    let pending = count;
    this.queued += count;
    const admitted: Admitted = { cancel: new AbortController() };
    this.active.add(admitted);
    const cancelled = admitted.cancel.signal;
    // Rejects with the cancel reason, so a scorer blocked on a slow run does not hold the drain.
    const onCancel = new Promise<never>((_resolve, reject) => {
      cancelled.addEventListener("abort", () => reject(cancelled.reason), { once: true });
    });
    onCancel.catch(() => {});
    const iterator = this.inner
      .score(rollouts, rewardOverride, AbortSignal.any([signal, cancelled]), deadlineMs)
      [Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), onCancel]);
        if (next.done === true) return;
        if (pending > 0) {
          pending -= 1;
          this.queued -= 1;
        }
        yield next.value;
      }
    } finally {
      if (cancelled.aborted) void iterator.return?.().catch(() => {});
      this.queued -= pending;
      this.active.delete(admitted);
      if (this.active.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }
}
