/**
 * `minedit serve`: runs the gRPC reward service until SIGINT/SIGTERM, then drains (src/cli/stop-signals.ts).
 * The service (gRPC, the metrics pool, the sandbox) is imported once the flags are read, so `--help` does
 * not load it.
 */

import type { RewardConfig } from "../config.js";
import type { StdIo } from "../io/std-io.js";
import type { startService } from "../server/service.js";
import { parseServiceFlags, rewardHelp, SERVICE_FLAGS_HELP, serviceSetup } from "./service-options.js";
import { waitForStopSignal } from "./stop-signals.js";

/**
 * `minedit serve --help`; `reward` is the reward section of `--config` (the defaults without one), so the
 * formula shown is the one the server computes.
 */
export function serveHelp(reward?: RewardConfig): string {
  return `Usage: minedit serve [options]

Serves minedit.v1.RewardService (ScoreBatch, ScoreStream), the gRPC health service and server
reflection. Each rollout's program is extracted from the completion, run against its task's tests in
the bubblewrap sandbox (no network, read-only runtime, private scratch, memory/process/file/output
limits, wall-clock kill) and scored, for a repair task, with the configured reward (a request's
reward_override can change it for that request; lint_refactor tasks use the reward.lint section):
${rewardHelp(reward)}

Options:
${SERVICE_FLAGS_HELP}

Example:
  minedit serve --port 50051 --tasks datasets/seed/demo-tasks.jsonl
  minedit serve --openrlhf-port 5000    # OpenRLHF: --remote_rm_url http://127.0.0.1:5000/get_reward
  minedit serve --queue redis://127.0.0.1:6379    # executions on \`minedit worker --queue ...\` processes
  grpcurl -plaintext -d '{"rollouts":[{"id":"r1","taskId":"seed/001-...","completion":"..."}]}' \\
    127.0.0.1:50051 minedit.v1.RewardService/ScoreBatch
`;
}

export async function runServe(argv: readonly string[], io: StdIo): Promise<number> {
  const values = await parseServiceFlags("serve", argv, io, serveHelp);
  if (typeof values === "number") return values;
  let engine: Awaited<ReturnType<typeof startService>>;
  try {
    const { config, taskFiles, execute } = await serviceSetup(values);
    const service = await import("../server/service.js");
    engine = await service.startService(config, taskFiles, execute);
    const { host } = config.server;
    const { url } = config.queue;
    const queueAt = url === undefined ? "" : (await import("../queue/redis-connection.js")).displayUrl(url);
    const executions =
      engine.sandbox === null
        ? "no execution (--no-exec)"
        : url === undefined
          ? `sandbox ${engine.sandbox.name}`
          : `executions through the queue at ${queueAt}${engine.worker === null ? "" : " (and a worker here)"}`;
    io.stderr.write(
      `minedit serve: listening on ${host}:${engine.server.port} — ${engine.tasks.size} tasks, ` +
        `${executions}, ${config.pool.threads} metrics threads. Ctrl-C stops.\n`,
    );

    if (engine.openrlhf !== null) {
      const scheme = config.server.tls === undefined ? "http" : "https";
      io.stderr.write(
        `minedit serve: OpenRLHF reward endpoint on ${scheme}://${host}:${engine.openrlhf.port}/get_reward\n`,
      );
    }
    if (engine.metricsServer !== null) {
      io.stderr.write(
        `minedit serve: Prometheus metrics on http://${host}:${engine.metricsServer.port}/metrics\n`,
      );
    }
  } catch (error) {
    io.stderr.write(`minedit serve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const signal = await waitForStopSignal();
  io.stderr.write(`minedit serve: ${signal}: draining (a second signal exits at once)\n`);
  await engine.close();
  io.stderr.write("minedit serve: stopped\n");
  return 0;
}
