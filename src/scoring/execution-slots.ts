/**
 * The bound on sandboxed runs at once (`sandbox.executionConcurrency`), shared by every call the scorer
 * serves: repair executions and lint analyzer runs alike take a slot.
 *
 * Who gets a freed slot: among the waiters, the one whose deadline-like key `queued at − expected time` is
 * smallest. Waiters that queued together go slowest first, so a step ends near max(slowest execution,
 * total time ÷ slots) rather than with a slow test started last, and this holds across calls: a trainer that
 * sends each sample as its generation ends gets the slow ones started first among whatever is queued. A
 * waiter is overtaken only by newcomers expected to run longer than it has waited, so nobody starves. Ties
 * keep arrival order.
 */
import { ErrorCode, MineditError } from "../errors.js";

type Waiter = { key: number; grant: () => void };

/** Counts free execution slots; waiters drop out of the line when their call is aborted. */
export class Semaphore {
  private readonly waiters: Waiter[] = [];
  constructor(
    private free: number,
    /** Milliseconds on a monotonic clock (a parameter so that tests can order arrivals by hand). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Runs `work` holding a slot; `expectedMs` is how long it is expected to run (0: unknown). */
  async run<T>(signal: AbortSignal, work: () => Promise<T>, expectedMs = 0): Promise<T> {
    const release = await this.acquire(signal, expectedMs);
    try {
      if (signal.aborted) throw new MineditError(ErrorCode.Cancelled, "the call was cancelled");
      return await work();
    } finally {
      release();
    }
  }

  /** A slot, once one is free and this waiter is first in line; resolves to its release. */
  acquire(signal: AbortSignal, expectedMs = 0): Promise<() => void> {
    const release = () => {
      const next = this.waiters.shift();
      if (next !== undefined) next.grant();
      else this.free += 1;
    };
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        key: this.now() - expectedMs,
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      // An aborted waiter leaves the line without taking a slot; its release is a no-op.
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(() => {});
      };
      this.waiters.splice(this.placeOf(waiter.key), 0, waiter);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Where a waiter of `key` joins the line: after every waiter of a key ≤ its own (binary search). */
  private placeOf(key: number): number {
    let low = 0;
    let high = this.waiters.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.waiters[mid] as Waiter).key <= key) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
