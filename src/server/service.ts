/**
 * The service `minedit serve` runs: a scoring engine (src/scoring/scoring-engine.ts) with the gRPC server
 * in front of it and, when `server.openrlhfPort` is set, OpenRLHF's HTTP reward endpoint. The CLI, the
 * demo and the end-to-end tests all start the service through here.
 */
import type { Config } from "../config.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { startScoringEngine } from "../scoring/scoring-engine.js";
import type { TaskStore } from "../scoring/task-store.js";
import { type RunningHttpServer, startOpenRlhfServer } from "./openrlhf-http.js";
import { type RunningServer, startServer } from "./server.js";

export type Service = {
  server: RunningServer;
  /** OpenRLHF's HTTP reward endpoint; null unless `server.openrlhfPort` is set. */
  openrlhf: RunningHttpServer | null;
  tasks: TaskStore;
  /** null when started with `execute: false`. */
  sandbox: Sandbox | null;
  close(): Promise<void>;
};

/**
 * Starts the service. `taskFiles` are the JSONL task files to serve (the caller resolves defaults);
 * `execute: false` scores without running tests (every program that parses passes).
 */
export async function startService(
  config: Config,
  taskFiles: readonly string[],
  execute: boolean,
): Promise<Service> {
  const engine = await startScoringEngine(config, taskFiles, execute);
  try {
    const server = await startServer({ config: config.server, scorer: engine.scorer });
    const { openrlhfPort } = config.server;
    const openrlhf =
      openrlhfPort === undefined
        ? null
        : await startOpenRlhfServer({
            config: { ...config.server, openrlhfPort },
            scorer: engine.scorer,
            failureReward: config.reward.failureReward,
          }).catch(async (error: unknown) => {
            await server.close();
            throw error;
          });
    return {
      server,
      openrlhf,
      tasks: engine.tasks,
      sandbox: engine.sandbox,
      async close() {
        await Promise.all([server.close(), openrlhf?.close()]);
        await engine.close();
      },
    };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
