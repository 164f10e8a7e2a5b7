/**
 * The service's Prometheus metrics (prom-client), one registry per service (not prom-client's global
 * one, so two services in one process — tests, the demo — never share counters). Names, labels and
 * what each means are listed in docs/service.md ("Metrics"); src/server/metrics-http.ts serves them.
 *
 * Label values are closed sets (verdicts, test styles, gRPC code names, methods): a label taken from the
 * request (a task id, a peer) would let any client grow the registry without bound.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { RolloutInput, RolloutOutput } from "../scoring/rollout.js";
import type { TaskStore } from "../scoring/task-store.js";
import type { ProgramCacheStats } from "../workers/metrics-pool.js";

/** Seconds; rollout executions run from milliseconds (cached, fork server) to a minute (calibrated limit). */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Which endpoint a rollout came through. */
export type Endpoint = "grpc" | "openrlhf";

/** The test style of a rollout's task: a closed label set. */
export type TaskStyle = "unittest" | "assert" | "stdio" | "lint" | "unknown";

/** The style of the task `input` answers (a stored task looked up in `tasks`). */
export function taskStyle(input: RolloutInput, tasks: TaskStore | null): TaskStyle {
  const task = input.task;
  switch (task.kind) {
    case "inline":
      return task.tests.style;
    case "inline_lint":
      return "lint";
    case "stored": {
      const stored = tasks?.get(task.taskId);
      if (stored !== undefined) return stored.tests.style;
      return tasks?.getLint(task.taskId) === undefined ? "unknown" : "lint";
    }
  }
}

export class ServiceMetrics {
  readonly registry = new Registry();

  readonly rollouts = new Counter({
    name: "minedit_rollouts_total",
    help: "Rollouts scored, by endpoint, verdict and the test style of their task.",
    labelNames: ["endpoint", "verdict", "style"] as const,
    registers: [this.registry],
  });
  readonly cacheHits = new Counter({
    name: "minedit_rollout_cache_hits_total",
    help: "Rollouts answered from an identical execution (same call or the result cache) instead of a run.",
    labelNames: ["endpoint"] as const,
    registers: [this.registry],
  });
  readonly rpcs = new Counter({
    name: "minedit_rpcs_total",
    help: "Calls ended, by method and status (gRPC code name; HTTP status for the OpenRLHF endpoint).",
    labelNames: ["method", "code"] as const,
    registers: [this.registry],
  });
  readonly rpcSeconds = new Histogram({
    name: "minedit_rpc_duration_seconds",
    help: "Wall time of a call from its start to its status, by method.",
    labelNames: ["method"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly queueWaitSeconds = new Histogram({
    name: "minedit_queue_wait_seconds",
    help: "Time a rollout waited for an execution slot (timings.queue_ms).",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly executionSeconds = new Histogram({
    name: "minedit_execution_duration_seconds",
    help: "Sandboxed test time of a rollout that ran (not cached; timings.execution_ms).",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly metricsSeconds = new Histogram({
    name: "minedit_metrics_duration_seconds",
    help: "Tokenization and edit-distance time of a rollout in the worker pool (timings.metrics_ms).",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly sandboxStarts = new Counter({
    name: "minedit_sandbox_starts_total",
    help: "Sandboxed runs started (a warm run forks from a fork server; a fresh one starts bubblewrap).",
    labelNames: ["backend"] as const,
    registers: [this.registry],
  });
  readonly sandboxFaults = new Counter({
    name: "minedit_sandbox_faults_total",
    help: "Runs the sandbox could not start or lost (the backend failed, not the program).",
    labelNames: ["backend"] as const,
    registers: [this.registry],
  });
  readonly sandboxReplacements = new Counter({
    name: "minedit_sandbox_replacements_total",
    help: "Runs retried on a fresh sandbox because the sandbox broke an earlier attempt (sandbox.infraRetries).",
    registers: [this.registry],
  });
  readonly forkServerStarts = new Counter({
    name: "minedit_fork_server_starts_total",
    help: "Warm fork servers seen coming up (sampled each second): above the pool size, recycled ones.",
    registers: [this.registry],
  });
  readonly forkServers = new Gauge({
    name: "minedit_fork_servers",
    help: "Live warm fork servers (sampled each second).",
    registers: [this.registry],
  });
  readonly refused = new Counter({
    name: "minedit_overload_refusals_total",
    help: "Calls refused with RESOURCE_EXHAUSTED because server.maxQueuedRollouts was reached.",
    registers: [this.registry],
  });

  /** What the queue gauges read at each scrape (the service's {@link Admission}); null: 0. */
  queue: { depth: number; calls: number } | null = null;
  /** What the program-cache gauges read at each scrape (the metrics pool's workers); null: 0. */
  programCache: (() => ProgramCacheStats) | null = null;

  constructor(options: { processMetrics?: boolean } = {}) {
    /** A gauge that reads its value at each scrape. */
    const gaugeOf = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read());
        },
      });
    gaugeOf(
      "minedit_queue_depth_rollouts",
      "Rollouts admitted and not yet scored, over all calls (bounded by server.maxQueuedRollouts).",
      () => this.queue?.depth ?? 0,
    );
    gaugeOf(
      "minedit_scorer_calls_in_flight",
      "Scorer calls in flight (a ScoreBatch, a ScoreStream message, a coalesced OpenRLHF window).",
      () => this.queue?.calls ?? 0,
    );
    const cache = (field: "entries" | "bytes" | "hits" | "misses") => this.programCache?.()[field] ?? 0;
    gaugeOf(
      "minedit_program_cache_entries",
      "Analyzed programs the metrics workers keep across calls (pool.programCacheBytes).",
      () => cache("entries"),
    );
    gaugeOf(
      "minedit_program_cache_bytes",
      "Estimated bytes of the analyzed programs kept, all workers (bounded per worker by pool.programCacheBytes).",
      () => cache("bytes"),
    );
    new Gauge({
      name: "minedit_program_cache_lookups",
      help: "Programs the metrics workers looked up in their caches so far: hit (not parsed again) or miss.",
      labelNames: ["result"] as const,
      registers: [this.registry],
      collect() {
        this.set({ result: "hit" }, cache("hits"));
        this.set({ result: "miss" }, cache("misses"));
      },
    });
    // process_resident_memory_bytes and friends: what the soak benchmark's RSS curve also reads.
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one scored rollout. */
  recordRollout(endpoint: Endpoint, style: TaskStyle, out: RolloutOutput): void {
    this.rollouts.inc({ endpoint, verdict: out.verdict, style });
    if (out.cached) this.cacheHits.inc({ endpoint });
    this.queueWaitSeconds.observe(out.timings.queueMs / 1000);
    this.metricsSeconds.observe(out.timings.metricsMs / 1000);
    if (!out.cached && out.timings.executionMs > 0)
      this.executionSeconds.observe(out.timings.executionMs / 1000);
  }

  /** Counts one ended call. */
  recordCall(method: string, code: string, seconds: number): void {
    this.rpcs.inc({ method, code });
    this.rpcSeconds.observe({ method }, seconds);
  }

  /** The exposition text and its content type, for `GET /metrics`. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
