/**
 * The sandbox `minedit serve` and `minedit score` execute with, from the config: the bubblewrap backend
 * or the Docker one (`sandbox.backend`), with warm interpreters (warm-python.ts) unless
 * `sandbox.warmInterpreters` is off. A host where the fork
 * servers cannot run still executes, in fresh sandboxes, after saying so through `warn`.
 */
import type { SandboxConfig } from "../config.js";
import { ErrorCode, isMineditError } from "../errors.js";
import { createBwrapSandbox } from "./bwrap.js";
import { DockerSandbox, imageTag } from "./docker.js";
import { DEFAULT_RUNTIME, type RuntimeName } from "./runtimes.js";
import type { Sandbox } from "./sandbox.js";
import { type WarmBase, WarmPythonSandbox } from "./warm-python.js";

const MIB = 1024 * 1024;

/**
 * `runtimes`: the task runtimes whose warm pools start (full) before this resolves, e.g. those of the
 * loaded task store's tasks; others start on their first run. A started pool of a runtime other than the
 * standard library's is reported through `warn`, with each fork server's resident size.
 */
export async function createConfiguredSandbox(
  config: SandboxConfig,
  warn: (message: string) => void,
  runtimes: readonly RuntimeName[] = [DEFAULT_RUNTIME],
): Promise<Sandbox> {
  const images = config.backend === "docker" ? await dockerImages(config, runtimes, warn) : {};
  const fresh = (): Promise<WarmBase> =>
    config.backend === "docker"
      ? DockerSandbox.create({ ...config.docker, images, maxProcesses: config.maxProcesses })
      : createBwrapSandbox({ pythonPath: config.pythonPath });
  const base = await fresh();
  if (!config.warmInterpreters) return base;
  let warm: WarmPythonSandbox;
  try {
    warm = await WarmPythonSandbox.create(base, { slots: config.executionConcurrency, runtimes });
  } catch (error) {
    if (!isMineditError(error) || error.code !== ErrorCode.Unavailable) throw error;
    warn(`warm interpreters unavailable, every execution starts a fresh sandbox: ${error.rawMessage}`);
    return fresh();
  }
  for (const { runtime, servers } of await warm.forkServers()) {
    if (runtime === DEFAULT_RUNTIME || servers.length === 0) continue;
    const rss = servers.map((s) => (s.rssBytes / MIB).toFixed(0)).join(", ");
    const seconds = Math.max(...servers.map((s) => s.preloadMs)) / 1000;
    warn(
      `warm interpreters for runtime "${runtime}": ${servers.length} fork servers, RSS ${rss} MiB ` +
        `(modules preloaded in ${seconds.toFixed(1)} s)`,
    );
  }
  return warm;
}

/**
 * The configured image IDs, with those of `runtimes` that the configuration does not pin taken from the
 * image sandbox/docker/build-image.sh tagged (`minedit-sandbox:NAME`), said through `warn` so the ID can be
 * pinned: a build later under the same tag must not change what runs unnoticed.
 */
async function dockerImages(
  config: SandboxConfig,
  runtimes: readonly RuntimeName[],
  warn: (message: string) => void,
): Promise<Record<RuntimeName, string>> {
  const images: Record<RuntimeName, string> = { ...config.docker.images };
  for (const name of runtimes) {
    if (images[name] !== undefined) continue;
    const id = await DockerSandbox.taggedImage(imageTag(name), config.docker.socketPath);
    if (id === undefined) continue; // refused when its pool starts, with what to build
    images[name] = id;
    warn(`sandbox.docker.images.${name} is not set: using ${imageTag(name)} = ${id} (pin it in the config)`);
  }
  return images;
}
