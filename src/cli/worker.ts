/**
 * `minedit worker --queue redis://HOST:PORT`: runs the executions that `minedit serve --queue` fronts hand
 * to the queue, in this machine's sandbox, until SIGINT/SIGTERM, then drains (no new job; the running ones
 * finish). With `--health-port` it also serves `grpc.health.v1.Health` there, for Kubernetes probes:
 * SERVING while it takes jobs, NOT_SERVING while it drains. This module reads the flags; the worker
 * itself (BullMQ, the sandbox, gRPC) is worker-run.ts, imported only once they are valid.
 */
import { parseArgs } from "node:util";
import type { Config } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { StdIo } from "../io/std-io.js";
import { EXIT } from "./failures.js";

const FLAGS = {
  config: { type: "string" },
  queue: { type: "string" },
  slots: { type: "string" },
  "no-warm": { type: "boolean" },
  host: { type: "string" },
  "health-port": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export function workerHelp(): string {
  return `Usage: minedit worker --queue redis://HOST:PORT [options]

Takes execution jobs from the BullMQ queue that \`minedit serve --queue\` fronts fill (one job per distinct
task × normalized program × limits × runtime × reward version) and runs each against its task's tests in
the bubblewrap sandbox, --slots at a time. Deterministic outcomes go to the shared result cache in Redis.
A worker that dies loses nothing: its jobs' locks expire and the other workers run them. SIGTERM drains:
no new job is taken, the running ones finish, then it exits. See docs/deploy.md.

Options:
  --queue redis://HOST:PORT  the queue's Redis (rediss:// for TLS; config queue.url)
  --config FILE.json         configuration object; its "sandbox" and "queue" sections apply
  --slots N                  jobs run at once (default: sandbox.executionConcurrency = available cores)
  --no-warm                  a fresh sandbox and interpreter for every execution (default: warm interpreters)
  --health-port N            serve grpc.health.v1.Health on this port (0: a free one; default: none)
  --host HOST                interface of the health port (default: server.host, 127.0.0.1)
  -h, --help                 this help

Example:
  minedit worker --queue redis://127.0.0.1:6379 --slots 4
  minedit worker --queue redis://redis-master:6379 --host 0.0.0.0 --health-port 50052
`;
}

function positiveInteger(flag: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `--${flag}: expected an integer ≥ ${min}, got "${text}"`,
    );
  }
  return value;
}

export async function runWorker(argv: readonly string[], io: StdIo): Promise<number> {
  let values: { [K in keyof typeof FLAGS]?: (typeof FLAGS)[K]["type"] extends "string" ? string : boolean };
  try {
    values = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: false }).values;
  } catch (error) {
    io.stderr.write(`minedit worker: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.usage;
  }
  if (values.help === true) {
    io.stdout.write(workerHelp());
    return EXIT.ok;
  }
  let config: Config;
  let url: string;
  let healthPort: number | undefined;
  try {
    // The configuration schema (zod) once the flags are parsed: the help shows no configured default.
    const { serviceConfig } = await import("./service-options.js");
    config = await serviceConfig({
      ...(values.config === undefined ? {} : { config: values.config }),
      ...(values.queue === undefined ? {} : { queue: values.queue }),
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(values["no-warm"] === true ? { "no-warm": true } : {}),
    });
    if (values.slots !== undefined) {
      const slots = positiveInteger("slots", values.slots, 1);
      config = { ...config, sandbox: { ...config.sandbox, executionConcurrency: slots } };
    }
    if (config.queue.url === undefined) {
      throw new MineditError(ErrorCode.InvalidArgument, "--queue redis://HOST:PORT is required");
    }
    url = config.queue.url;
    if (values["health-port"] !== undefined)
      healthPort = positiveInteger("health-port", values["health-port"], 0);
  } catch (error) {
    io.stderr.write(`minedit worker: ${error instanceof Error ? error.message : String(error)}\n`);
    io.stderr.write("Run `minedit worker --help` for usage.\n");
    return EXIT.usage;
  }
  const { runQueueWorker } = await import("./worker-run.js");
  return runQueueWorker(config, url, healthPort, io);
}
