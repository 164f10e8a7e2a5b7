/**
 * `--sandbox bwrap|docker` for the commands that run programs and analyzers without a service
 * configuration file (`minedit lint report`, `minedit lint tasks`): the backend's defaults
 * (src/config.ts), images taken from the tags sandbox/docker/build-image.sh gives them.
 */
import type { SandboxConfig } from "../config.js";
import { usageError } from "./failures.js";

const BACKENDS = ["bwrap", "docker"] as const;

/** The help line of the flag, aligned like the other options of the command's help. */
export function sandboxFlagHelp(indent: number): string {
  const pad = " ".repeat(indent);
  return (
    `  --sandbox bwrap|docker\n` +
    `${pad}where the tests and analyzers run (default bwrap); docker: containers of the images\n` +
    `${pad}sandbox/docker/build-image.sh builds (stdlib, cpp, java, lint; docs/sandbox.md#docker)`
  );
}

/** The sandbox configuration `--sandbox VALUE` asks for, or undefined without the flag. */
export async function sandboxConfigOfFlag(value: string | undefined): Promise<SandboxConfig | undefined> {
  if (value === undefined) return undefined;
  if (!(BACKENDS as readonly string[]).includes(value)) {
    throw usageError(`--sandbox: expected bwrap or docker, got ${JSON.stringify(value)}`);
  }
  // The configuration schema (zod) is imported only for the flag: the helps of these commands show no
  // configured default, and loading it would be most of their start-up.
  const { parseConfig } = await import("../config.js");
  return parseConfig({ sandbox: { backend: value } }).sandbox;
}
