/**
 * A {@link Sandbox} that counts what the one it wraps does, for the service's metrics: runs started, runs
 * the backend failed (rejections: the sandbox, not the program, broke), and runs retried on its `fresh()`
 * sandbox after such a fault. The sandbox code itself stays free of metrics.
 *
 * Fork servers live inside the warm backend, which reports only its live servers: they are sampled once a
 * second, and a server not seen before counts as a start — so one that came and went between two samples
 * is missed (docs/service.md says so).
 */
import { ErrorCode, isMineditError } from "../errors.js";
import type { ExecutionRequest, ExecutionResult, Sandbox } from "../sandbox/sandbox.js";
import { WarmPythonSandbox } from "../sandbox/warm-python.js";
import type { ServiceMetrics } from "./metrics.js";

const FORK_SERVER_SAMPLE_MS = 1000;

class MeteredSandbox implements Sandbox {
  readonly name: string;
  private readonly sampler: NodeJS.Timeout | null;

  constructor(
    private readonly inner: Sandbox,
    private readonly metrics: ServiceMetrics,
    private readonly replacement: boolean,
  ) {
    this.name = inner.name;
    this.sampler =
      !replacement && inner instanceof WarmPythonSandbox ? sampleForkServers(inner, metrics) : null;
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    const backend = this.inner.name;
    this.metrics.sandboxStarts.inc({ backend });
    if (this.replacement) this.metrics.sandboxReplacements.inc();
    try {
      return await this.inner.run(request);
    } catch (error) {
      if (isMineditError(error) && error.code === ErrorCode.Unavailable)
        this.metrics.sandboxFaults.inc({ backend });
      throw error;
    }
  }

  fresh(): Sandbox {
    const fresh = this.inner.fresh?.() ?? this.inner;
    return new MeteredSandbox(fresh, this.metrics, true);
  }

  async close(): Promise<void> {
    if (this.sampler !== null) clearInterval(this.sampler);
    await this.inner.close();
  }
}

function sampleForkServers(sandbox: WarmPythonSandbox, metrics: ServiceMetrics): NodeJS.Timeout {
  // A server's info object is its own, made when it came up: identity tells a new server from an old one.
  let seen = new WeakSet<object>();
  const sample = async (): Promise<void> => {
    const next = new WeakSet<object>();
    let live = 0;
    for (const { servers } of await sandbox.forkServers()) {
      for (const info of servers) {
        live += 1;
        next.add(info);
        if (!seen.has(info)) metrics.forkServerStarts.inc();
      }
    }
    seen = next;
    metrics.forkServers.set(live);
  };
  void sample().catch(() => {});
  const timer = setInterval(() => void sample().catch(() => {}), FORK_SERVER_SAMPLE_MS);
  timer.unref();
  return timer;
}

/** `sandbox`, counted in `metrics`. */
export function meteredSandbox(sandbox: Sandbox, metrics: ServiceMetrics): Sandbox {
  return new MeteredSandbox(sandbox, metrics, false);
}
