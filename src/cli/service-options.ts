/**
 * Options shared by the commands that run the service (`serve`, `demo`): the config file, the flags
 * that override it, and the shipped default task file.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Config, parseConfig } from "../config.js";
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
  "auth-token": { type: "string" },
  "openrlhf-port": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export const SERVICE_FLAGS_HELP = `  --config FILE.json   configuration object ({"server": {...}, "sandbox": {...}, "reward": {...}, "pool": {...}, "tasks": {...}})
  --host HOST          interface to bind (default 127.0.0.1)
  --port N             TCP port (serve default 50051; 0 picks a free port)
  --tasks FILE         a JSONL task file to serve (repeatable; default: the shipped demo tasks)
  --threads N          metrics worker threads (default: available parallelism)
  --auth-token TOKEN   require "authorization: Bearer TOKEN" on every call except health checks
  --openrlhf-port N    also answer OpenRLHF's remote reward protocol (POST /get_reward) on port N (0: a free one)
  --no-exec            do not run tests: every program that parses counts as passing
  --no-warm            start a fresh sandbox and interpreter for every execution (slower, same results;
                       default: warm interpreters, one fork server per concurrent execution)
  -h, --help           this help`;

export type ServiceFlagValues = {
  config?: string;
  host?: string;
  port?: string;
  tasks?: string[];
  threads?: string;
  "no-exec"?: boolean;
  "no-warm"?: boolean;
  "auth-token"?: string;
  "openrlhf-port"?: string;
};

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
  if (values["openrlhf-port"] !== undefined)
    section("server").openrlhfPort = integer("openrlhf-port", values["openrlhf-port"]);
  if (values.threads !== undefined) section("pool").threads = integer("threads", values.threads);
  if (values.tasks !== undefined) section("tasks").files = values.tasks;
  return parseConfig(raw);
}

export function taskFiles(config: Config): string[] {
  return config.tasks.files.length > 0 ? config.tasks.files : [DEFAULT_TASK_FILE];
}

/**
 * Parses a service command's flags. Returns the values, or the exit code when the command is already
 * answered (`--help`: 0 after printing `help`; a bad flag: 2 after saying why).
 */
export function parseServiceFlags(
  command: string,
  argv: readonly string[],
  io: StdIo,
  help: () => string,
): ServiceFlagValues | number {
  let values: ServiceFlagValues & { help?: boolean };
  try {
    values = parseArgs({ args: [...argv], options: SERVICE_FLAGS, allowPositionals: false }).values;
  } catch (error) {
    io.stderr.write(`minedit ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  if (values.help === true) {
    io.stdout.write(help());
    return 0;
  }
  return values;
}
