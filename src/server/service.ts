/**
 * The service `minedit serve` runs: a scoring engine (src/scoring/scoring-engine.ts) with the gRPC server
 * in front of it and, when `server.openrlhfPort` is set, OpenRLHF's HTTP reward endpoint. The CLI, the
 * demo and the end-to-end tests all start the service through here.
 *
 * With `queue.url` the endpoints score through the queue's scorer (src/queue/queue-scorer.ts): repair
 * executions go to BullMQ workers, and with `queue.worker` this process runs one of them too.
 */
import type { Config } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { QueueRolloutScorer } from "../queue/queue-scorer.js";
import type { RunningQueueWorker } from "../queue/queue-worker.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { TaskStore } from "../scoring/task-store.js";
import type { Admission } from "./admission.js";
import type { Logger } from "./logger.js";
import type { ServiceMetrics } from "./metrics.js";
import type { RunningMetricsServer } from "./metrics-http.js";
import type { RunningHttpServer } from "./openrlhf-http.js";
import type { RunningServer } from "./server.js";

export type Service = {
  server: RunningServer;
  /** OpenRLHF's HTTP reward endpoint; null unless `server.openrlhfPort` is set. */
  openrlhf: RunningHttpServer | null;
  tasks: TaskStore;
  /** null when started with `execute: false`. */
  sandbox: Sandbox | null;
  /** The queue's scorer, when `queue.url` is set; null otherwise (executions run in this process). */
  queue: QueueRolloutScorer | null;
  /** The queue worker this process runs (`queue.worker`), or null. */
  worker: RunningQueueWorker | null;
  metrics: ServiceMetrics;
  /** The Prometheus endpoint; null unless `server.metricsPort` is set. */
  metricsServer: RunningMetricsServer | null;
  /** The bound on queued rollouts both endpoints share, and the drain. */
  admission: Admission;
  /**
   * Drains and stops (docs/service.md, "Signals"): health NOT_SERVING, new calls refused with UNAVAILABLE,
   * calls in flight get `server.drainTimeoutMs` to finish and are then ended with UNAVAILABLE; then the
   * endpoints, the queue, the sandboxes and the worker pool are torn down. Idempotent.
   */
  close(): Promise<void>;
};

/**
 * Starts the service. `taskFiles` are the JSONL task files to serve (the caller resolves defaults);
 * `execute: false` scores without running tests (every program that parses passes). `logger`: the JSON
 * log (default: stderr at `server.logLevel`).
 */
export async function startService(
  config: Config,
  taskFiles: readonly string[],
  execute: boolean,
  log: (line: string) => void = (line) => process.stderr.write(`minedit: ${line}\n`),
  logger?: Logger,
): Promise<Service> {
  const queueUrl = config.queue.url;
  if (queueUrl !== undefined && !execute) {
    throw new MineditError(
      ErrorCode.InvalidArgument,
      "queue.url: without execution (--no-exec) there is nothing to hand to the queue's workers",
      { field: "queue.url" },
    );
  }
  // The warm pools' other fork servers and the metrics pool's other threads start once the endpoints
  // listen: on a small machine they would take the CPU the start-up needs (0.6 s of it on 2 cores). Calls
  // before then start the fork servers they need.
  let listening = () => {};
  const listened = new Promise<void>((resolve) => {
    listening = resolve;
  });
  // Start-up is mostly this thread loading modules. The metrics pool's first worker starts before any of
  // the engine's are loaded, so that its own start (Node's worker bootstrap, the analysis modules) runs
  // on another core meanwhile; the endpoints' modules are only loaded when asked for.
  const { MetricsPool } = await import("../workers/metrics-pool.js");
  const pool = new MetricsPool(config.pool.threads, {
    programCacheBytes: config.pool.programCacheBytes,
    scoreMemoEntries: config.pool.scoreMemoEntries,
    fillAfter: listened,
  });
  const [{ startScoringEngine }, { ServiceMetrics }, { meteredSandbox }, { observedScorer }, { Admission }] =
    await Promise.all([
      import("../scoring/scoring-engine.js"),
      import("./metrics.js"),
      import("./metered-sandbox.js"),
      import("./observed-scorer.js"),
      import("./admission.js"),
    ]).catch(async (error: unknown) => {
      await pool.close();
      throw error;
    });
  // gRPC's modules (grpc-js, the generated descriptors, the handlers) take a few hundred milliseconds of
  // this thread to load, while the engine's start mostly waits on other threads and processes (the
  // metrics workers, the sandbox's probe and fork servers): loaded meanwhile, not after.
  const grpcModules = Promise.all([import("./server.js"), import("./call-observer.js")]);
  grpcModules.catch(() => {}); // awaited below; a failure is reported there
  const metrics = new ServiceMetrics();
  const engine = await startScoringEngine(config, taskFiles, execute, {
    log,
    wrapSandbox: (sandbox) => meteredSandbox(sandbox, metrics),
    fillPoolsAfter: listened,
    pool,
  });
  let queue: QueueRolloutScorer | null = null;
  let worker: RunningQueueWorker | null = null;
  try {
    if (queueUrl !== undefined) {
      // BullMQ and its Redis client are imported only by a service that uses them: loading them would
      // cost every other `serve` about 0.3 s of start-up on 2 cores.
      const [{ QueueRolloutScorer }, { startQueueWorker }] = await Promise.all([
        import("../queue/queue-scorer.js"),
        import("../queue/queue-worker.js"),
      ]);
      queue = QueueRolloutScorer.connect(engine.scorer, { ...config.queue, url: queueUrl }, log);
      // Serving starts either way; the first calls should not be refused only because Redis is a
      // handshake away.
      if (!(await queue.front.waitUntilReady(5000))) {
        log(`the queue's Redis does not answer yet; calls get UNAVAILABLE until it does`);
      }
      if (config.queue.worker && engine.sandbox !== null) {
        worker = startQueueWorker({
          config: { ...config.queue, url: queueUrl },
          sandbox: engine.sandbox,
          slots: config.sandbox.executionConcurrency,
          infraRetries: config.sandbox.infraRetries,
          log,
        });
      }
    }
    const admission = new Admission(queue ?? engine.scorer, {
      maxQueuedRollouts: config.server.maxQueuedRollouts,
      retryAfterMs: config.server.overloadRetryAfterMs,
      onRefused: () => metrics.refused.inc(),
    });
    metrics.queue = admission;
    metrics.programCache = () => engine.pool.programCache();
    const serviceLogger = logger ?? (await import("./logger.js")).createLogger(config.server.logLevel);
    const observed = (endpoint: "grpc" | "openrlhf") =>
      observedScorer(admission, {
        endpoint,
        metrics,
        logger: serviceLogger,
        tasks: engine.tasks,
        callLines: endpoint === "openrlhf",
      });
    const [{ startServer }, { callObserver }] = await grpcModules;
    const server = await startServer({
      config: config.server,
      scorer: observed("grpc"),
      interceptors: [callObserver(metrics, serviceLogger)],
      // The drain (close() below) has already waited for the calls in flight; what is left is idle.
      shutdownGraceMs: 1000,
    });
    const { openrlhfPort } = config.server;
    const openrlhf =
      openrlhfPort === undefined
        ? null
        : await (await import("./openrlhf-http.js"))
            .startOpenRlhfServer({
              config: { ...config.server, openrlhfPort },
              scorer: observed("openrlhf"),
              failureReward: config.reward.failureReward,
              onResponse: (status, seconds) =>
                metrics.recordCall("openrlhf/get_reward", String(status), seconds),
            })
            .catch(async (error: unknown) => {
              await server.close();
              throw error;
            });
    const { metricsPort } = config.server;
    const metricsServer =
      metricsPort === undefined
        ? null
        : await (await import("./metrics-http.js"))
            .startMetricsServer(metrics, config.server.host, metricsPort)
            .catch(async (error: unknown) => {
              await Promise.all([server.close(), openrlhf?.close()]);
              throw error;
            });
    listening();
    let closing: Promise<void> | undefined;
    const drainAndClose = async (): Promise<void> => {
      const { drainTimeoutMs } = config.server;
      server.stopServing();
      admission.drain();
      if (admission.calls > 0) serviceLogger.info({ inFlight: admission.calls, drainTimeoutMs }, "draining");
      if (!(await admission.idle(drainTimeoutMs))) {
        serviceLogger.warn(
          { inFlight: admission.calls, drainTimeoutMs },
          "drain timeout: ending the calls in flight with UNAVAILABLE",
        );
        admission.cancelAll();
        await admission.idle(5000);
      }
      await Promise.all([server.close(), openrlhf?.close(), metricsServer?.close()]);
      // The front first (its waiting calls are over), then the worker drains its running jobs.
      await queue?.close();
      await worker?.close();
      await engine.close();
    };
    return {
      server,
      openrlhf,
      tasks: engine.tasks,
      sandbox: engine.sandbox,
      queue,
      worker,
      metrics,
      metricsServer,
      admission,
      close() {
        closing ??= drainAndClose();
        return closing;
      },
    };
  } catch (error) {
    await queue?.close();
    await worker?.close();
    await engine.close();
    throw error;
  }
}
