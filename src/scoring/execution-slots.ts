/**
 * The bound on sandboxed runs at once (`sandbox.executionConcurrency`), shared by every call the scorer
 * serves: repair executions and lint analyzer runs alike take a slot, in arrival order.
 */
import { ErrorCode, MineditError } from "../errors.js";

/** Counts free execution slots; waiters are served in order and drop out when their call is aborted. */
export class Semaphore {
  private readonly waiters: (() => void)[] = [];
  constructor(private free: number) {}

  /** Runs `work` holding a slot. */
  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(signal);
    try {
      if (signal.aborted) throw new MineditError(ErrorCode.Cancelled, "the call was cancelled");
      return await work();
    } finally {
      release();
    }
  }

  acquire(signal: AbortSignal): Promise<() => void> {
    const release = () => {
      const next = this.waiters.shift();
      if (next !== undefined) next();
      else this.free += 1;
    };
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(release);
      };
      // An aborted waiter leaves the line without taking a slot; its release is a no-op.
      const onAbort = () => {
        const at = this.waiters.indexOf(grant);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(() => {});
      };
      this.waiters.push(grant);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
