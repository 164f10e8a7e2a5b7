/**
 * A {@link Sandbox} that adds up the CPU time its runs report: what a caller that only sees a runner's
 * verdict (the task gate timing a gold program, a benchmark summing a step's CPU) uses to learn the CPU
 * time of everything it ran. `cpuTimeMs` is null when some run did not report one (a backend that does
 * not measure it).
 */
import type { ExecutionRequest, ExecutionResult, Sandbox } from "./sandbox.js";

export class CpuMeter implements Sandbox {
  readonly name: string;
  private total = 0;
  private unmeasured = false;

  constructor(private readonly inner: Sandbox) {
    this.name = inner.name;
  }

  /** CPU milliseconds of every run so far, or null when one did not report it. */
  get cpuTimeMs(): number | null {
    return this.unmeasured ? null : this.total;
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    const result = await this.inner.run(request);
    if (result.cpuTimeMs === undefined) this.unmeasured = true;
    else this.total += result.cpuTimeMs;
    return result;
  }

  /** Closes nothing: the meter does not own the sandbox it measures. */
  async close(): Promise<void> {}
}
