/**
 * Options shared by the commands that run the service (`serve`, `demo`): the config file, the flags
 * that override it, the shipped default task file, and the reward formula their help texts show.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type Config,
  parseConfig,
  type RewardConfig,
  RewardConfigSchema,
  type RewardVariant,
} from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { StdIo } from "../io/std-io.js";

/** The demo task set shipped in the repository (24 seed problems, one corrupted variant each). */
export const DEFAULT_TASK_FILE = fileURLToPath(
  new URL("../../datasets/seed/demo-tasks.jsonl", import.meta.url),
);

export const SERVICE_FLAGS = {
  config: { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  tasks: { type: "string", multiple: true },
  threads: { type: "string" },
  "no-exec": { type: "boolean" },
  "no-warm": { type: "boolean" },
  sandbox: { type: "string" },
  "auth-token": { type: "string" },
  "openrlhf-port": { type: "string" },
  "metrics-port": { type: "string" },
  "log-level": { type: "string" },
  queue: { type: "string" },
  worker: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export const SERVICE_FLAGS_HELP = `  --config FILE.json   configuration object ({"server": {...}, "sandbox": {...}, "reward": {...}, "pool": {...}, "tasks": {...}})
  --host HOST          interface to bind (default 127.0.0.1)
  --port N             TCP port (serve default 50051; 0 picks a free port)
  --tasks FILE         a JSONL task file to serve (repeatable; default: the shipped demo tasks)
  --threads N          metrics worker threads (default: available parallelism)
  --auth-token TOKEN   require "authorization: Bearer TOKEN" on every call except health checks
  --openrlhf-port N    also answer OpenRLHF's remote reward protocol (POST /get_reward) on port N (0: a free one)
  --metrics-port N     serve Prometheus metrics (GET /metrics) on port N (0: a free one; docs/service.md)
  --log-level LEVEL    JSON log lines on stderr from LEVEL up: trace debug info warn error fatal silent
                       (default info; program text only at debug)
  --no-exec            do not run tests: every program that parses counts as passing
  --no-warm            start a fresh sandbox and interpreter for every execution (slower, same results;
                       default: warm interpreters, one fork server per concurrent execution)
  --sandbox bwrap|docker
                       where candidates run (default bwrap: bubblewrap, nothing to start); docker: one
                       hardened container per execution slot through the Docker daemon, images from
                       sandbox/docker/build-image.sh pinned in sandbox.docker.images (docs/sandbox.md#docker)
  --queue redis://HOST:PORT
                       hand each distinct execution to the workers of this BullMQ queue (\`minedit worker\`)
                       instead of running it here; metrics and rewards stay here (docs/deploy.md)
  --worker             with --queue: also run a queue worker in this process
  -h, --help           this help`;

export type ServiceFlagValues = {
  config?: string;
  host?: string;
  port?: string;
  tasks?: string[];
  threads?: string;
  "no-exec"?: boolean;
  "no-warm"?: boolean;
  sandbox?: string;
  "auth-token"?: string;
  "openrlhf-port"?: string;
  "metrics-port"?: string;
  "log-level"?: string;
  queue?: string;
  worker?: boolean;
};

/** The reward section without a config file. */
const DEFAULT_REWARD: RewardConfig = RewardConfigSchema.parse({});

/** A number as the formula shows it: a Unicode minus, and a decimal point even for integers (1 → 1.0). */
function shown(value: number): string {
  return (Number.isInteger(value) ? value.toFixed(1) : String(value)).replace(/^-/, "−");
}

/**
 * The repair reward as `reward` computes it (src/core/reward.ts, per variant), with the configured
 * numbers, followed by what its symbols mean; two-space indented lines for a help text. The help must
 * show the reward the server will really pay, so it is rendered from the effective configuration.
 */
export function rewardHelp(reward: RewardConfig = DEFAULT_REWARD): string {
  const excess = `${shown(reward.lambdaEdit)}·(d(M,C) − d(G,C))`;
  const passing: Record<RewardVariant, string> = {
    full: `${shown(reward.lambdaExec)} − ${excess}`,
    correctness_only: shown(reward.lambdaExec),
    edit_only: `−${excess}`,
    edit_plus_cc: `${shown(reward.lambdaExec)} − ${excess} − ${shown(reward.lambdaCc)}·max(0, CC(M) − CC(G))`,
  };
  const clauses = [
    `M = the rollout's program, C = the corrupted program, G = the gold repair`,
    "d = token Levenshtein distance / the longer token count, over the normalized programs" +
      (reward.scope === "function_body"
        ? "\n   from the first function's body on (scope function_body)"
        : ""),
  ];
  if (reward.variant === "edit_plus_cc") clauses.push("CC = cognitive complexity (SonarSource's rules)");
  clauses.push("no reward at all, so that the trainer masks the sample, when the sandbox itself fails");
  return (
    `  reward = ${passing[reward.variant]} if the tests pass, else ${shown(reward.failureReward)}\n` +
    `  (variant "${reward.variant}"; ${clauses.join(";\n   ")})`
  );
}

function integer(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value))
    throw new MineditError(ErrorCode.InvalidArgument, `--${flag}: expected an integer, got "${text}"`);
  return value;
}

/** The config file (if any) with the flags on top, validated; errors name the field. */
export async function serviceConfig(
  values: ServiceFlagValues,
  defaults: { port?: number } = {},
): Promise<Config> {
  let raw: Record<string, Record<string, unknown>> = {};
  if (values.config !== undefined) {
    try {
      raw = JSON.parse(await readFile(values.config, "utf8")) as typeof raw;
    } catch (error) {
      throw new MineditError(
        ErrorCode.InvalidArgument,
        `--config ${values.config}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const section = (name: string): Record<string, unknown> => {
    raw[name] = { ...(raw[name] ?? {}) };
    return raw[name] as Record<string, unknown>;
  };
  if (defaults.port !== undefined && raw.server?.port === undefined) section("server").port = defaults.port;
  if (values.host !== undefined) section("server").host = values.host;
  if (values.port !== undefined) section("server").port = integer("port", values.port);
  if (values["auth-token"] !== undefined) section("server").authToken = values["auth-token"];
  if (values["no-warm"] === true) section("sandbox").warmInterpreters = false;
  if (values.sandbox !== undefined) section("sandbox").backend = values.sandbox;
  if (values["openrlhf-port"] !== undefined)
    section("server").openrlhfPort = integer("openrlhf-port", values["openrlhf-port"]);
  if (values["metrics-port"] !== undefined)
    section("server").metricsPort = integer("metrics-port", values["metrics-port"]);
  if (values["log-level"] !== undefined) section("server").logLevel = values["log-level"];
  if (values.threads !== undefined) section("pool").threads = integer("threads", values.threads);
  if (values.tasks !== undefined) section("tasks").files = values.tasks;
  if (values.queue !== undefined) section("queue").url = values.queue;
  if (values.worker === true) section("queue").worker = true;
  const config = parseConfig(raw);
  if (config.queue.worker && config.queue.url === undefined) {
    throw new MineditError(ErrorCode.InvalidArgument, "--worker needs --queue redis://HOST:PORT", {
      field: "queue.worker",
    });
  }
  return config;
}

export function taskFiles(config: Config): string[] {
  return config.tasks.files.length > 0 ? config.tasks.files : [DEFAULT_TASK_FILE];
}

/** What `serve` and `demo` start: the validated config, its task files, and whether rollouts run. */
export type ServiceSetup = { config: Config; taskFiles: string[]; execute: boolean };

/** {@link serviceConfig}, the task files it names (the demo set when none) and `--no-exec` turned around. */
export async function serviceSetup(
  values: ServiceFlagValues,
  defaults: { port?: number } = {},
): Promise<ServiceSetup> {
  const config = await serviceConfig(values, defaults);
  return { config, taskFiles: taskFiles(config), execute: values["no-exec"] !== true };
}

/**
 * Parses a service command's flags. Returns the values, or the exit code when the command is already
 * answered (`--help`: 0 after printing `help`; a bad flag, or with `--help` a bad `--config` file: 2
 * after saying why). `help` gets the reward section of the `--config` file when one is given (the
 * other flags do not touch the reward), so that it can show the formula that file configures.
 */
export async function parseServiceFlags(
  command: string,
  argv: readonly string[],
  io: StdIo,
  help: (reward?: RewardConfig) => string,
): Promise<ServiceFlagValues | number> {
  let values: ServiceFlagValues & { help?: boolean };
  try {
    values = parseArgs({ args: [...argv], options: SERVICE_FLAGS, allowPositionals: false }).values;
  } catch (error) {
    io.stderr.write(`minedit ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  if (values.help === true) {
    let reward: RewardConfig | undefined;
    if (values.config !== undefined) {
      try {
        reward = (await serviceConfig({ config: values.config })).reward;
      } catch (error) {
        io.stderr.write(`minedit ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
        return 2;
      }
    }
    io.stdout.write(help(reward));
    return 0;
  }
  return values;
}
