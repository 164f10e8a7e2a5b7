/**
 * The running part of `minedit worker` (worker.ts reads the flags): the sandbox, the BullMQ queue worker
 * and the optional gRPC health server, until SIGINT/SIGTERM, then the drain.
 */
import { Server, ServerCredentials } from "@grpc/grpc-js";
import type { Config } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import type { StdIo } from "../io/std-io.js";
import { startQueueWorker } from "../queue/queue-worker.js";
import { displayUrl } from "../queue/redis-connection.js";
import { createConfiguredSandbox } from "../sandbox/create.js";
import { HealthService, ServingStatus } from "../server/health.js";
import { grpcServerServiceDefinition } from "../server/service-definition.js";
import { EXIT } from "./failures.js";

/** A gRPC server with only the health service, on `host:port`. */
async function startHealthServer(
  host: string,
  port: number,
): Promise<{ port: number; health: HealthService; close(): Promise<void> }> {
  const server = new Server();
  const health = new HealthService();
  server.addService(grpcServerServiceDefinition(Health), health.handlers);
  const address = host.includes(":") && !host.startsWith("[") ? `[${host}]:${port}` : `${host}:${port}`;
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, boundPort) =>
      error === null
        ? resolve(boundPort)
        : reject(new MineditError(ErrorCode.Unavailable, `cannot listen on ${address}: ${error.message}`)),
    ),
  );
  return {
    port: bound,
    health,
    close: () =>
      new Promise<void>((resolve) => {
        health.shutdown();
        server.tryShutdown(() => resolve());
      }),
  };
}

/**
 * Runs the queue worker of the validated `config` (its queue at `url`, health on `healthPort` when given)
 * until SIGINT/SIGTERM, drains it and returns the exit code.
 */
export async function runQueueWorker(
  config: Config,
  url: string,
  healthPort: number | undefined,
  io: StdIo,
): Promise<number> {
  const log = (line: string) => io.stderr.write(`minedit worker: ${line}\n`);
  let sandbox: Awaited<ReturnType<typeof createConfiguredSandbox>>;
  let healthServer: Awaited<ReturnType<typeof startHealthServer>> | null = null;
  try {
    sandbox = await createConfiguredSandbox(config.sandbox, config.limits.tests, log);
  } catch (error) {
    io.stderr.write(`minedit worker: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.usage;
  }
  const worker = startQueueWorker({
    config: { ...config.queue, url },
    sandbox,
    slots: config.sandbox.executionConcurrency,
    infraRetries: config.sandbox.infraRetries,
    log,
  });
  try {
    if (healthPort !== undefined) {
      healthServer = await startHealthServer(config.server.host, healthPort);
      healthServer.health.setStatus("", ServingStatus.SERVING);
      log(`health on ${config.server.host}:${healthServer.port}`);
    }
  } catch (error) {
    io.stderr.write(`minedit worker: ${error instanceof Error ? error.message : String(error)}\n`);
    await worker.close();
    await sandbox.close();
    return EXIT.usage;
  }
  log(
    `running: queue "${config.queue.name}" at ${displayUrl(url)}, ${config.sandbox.executionConcurrency} slots, ` +
      `sandbox ${sandbox.name}. Ctrl-C (SIGTERM) drains and stops.`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log("draining: no new jobs; waiting for the running ones");
  healthServer?.health.setStatus("", ServingStatus.NOT_SERVING);
  await worker.close();
  await sandbox.close();
  await healthServer?.close();
  log(
    `stopped (${worker.stats.runs} runs, ${worker.stats.cacheHits} cache hits, ${worker.stats.skipped} skipped)`,
  );
  return EXIT.ok;
}
