/**
 * The sandbox `minedit serve` and `minedit score` execute with, from the config: the bubblewrap backend
 * or the Docker one (`sandbox.backend`), with warm interpreters (warm-python.ts) unless
 * `sandbox.warmInterpreters` is off. A host where the fork
 * servers cannot run still executes, in fresh sandboxes, after saying so through `warn`.
 * {@link createBackendSandbox} is the backend alone, a fresh sandbox per run (the lint jobs' analyzers).
 */
import { DEFAULT_LIMITS_CONFIG, type SandboxConfig } from "../config.js";
import { ErrorCode, isMineditError } from "../errors.js";
import { type BwrapOptions, createBwrapSandbox } from "./bwrap.js";
import { DEFAULT_RUNTIME, hostRuntimeProblem, RUNTIME_NAMES, type RuntimeName } from "./runtimes.js";
import type { ExecutionLimits, Sandbox } from "./sandbox.js";
import { type WarmBase, WarmPythonSandbox } from "./warm-python.js";

const MIB = 1024 * 1024;

/** What of a run's limits the backend must know before any run: a Docker fork server's pids limit. */
type StandingLimits = Pick<ExecutionLimits, "maxProcesses">;

export type ConfiguredSandboxOptions = {
  /** The runtimes whose warm pools start before the sandbox is returned (default: the standard library's). */
  runtimes?: readonly RuntimeName[];
  /** When the warm pools' other fork servers start: WarmPythonOptions.fillAfter. */
  fillAfter?: Promise<unknown>;
  /** The bwrap binary (tests: one that cannot start a sandbox). Default: the system's. */
  bwrapPath?: string;
};

/**
 * `testLimits`: the limits the test runs will have (the `limits.tests` profile, or a command's own).
 * `options.runtimes`: the task runtimes whose warm pools start before this resolves, e.g. those of the
 * loaded task store's tasks; others start on their first run. A started pool of a runtime other than the
 * standard library's is reported through `warn`, with each fork server's resident size.
 */
export async function createConfiguredSandbox(
  config: SandboxConfig,
  testLimits: StandingLimits,
  warn: (message: string) => void,
  options: ConfiguredSandboxOptions = {},
): Promise<Sandbox> {
  const { runtimes = [DEFAULT_RUNTIME], bwrapPath, fillAfter } = options;
  const images = config.backend === "docker" ? await dockerImages(config, warn) : {};
  const host = bwrapPath === undefined ? {} : { bwrapPath };
  const fresh = (): Promise<WarmBase> => backend(config, testLimits, images, warn, host);
  if (!config.warmInterpreters) return fresh();
  // The pool's first fork server goes through the same launcher and interpreter as the bwrap
  // backend's start-up probe, so it is the probe: running both would put two sandbox starts, not one,
  // before `serve` listens.
  const base = await backend(config, testLimits, images, warn, { ...host, probe: false });
  let warm: WarmPythonSandbox;
  try {
    warm = await WarmPythonSandbox.create(base, {
      slots: config.executionConcurrency,
      runtimes,
      ...(fillAfter === undefined ? {} : { fillAfter }),
    });
  } catch (error) {
    if (!isMineditError(error) || error.code !== ErrorCode.Unavailable) throw error;
    // A fresh sandbox probes: where no sandbox runs at all, that error (bwrap's own message) is the one.
    const plain = await fresh();
    warn(`warm interpreters unavailable, every execution starts a fresh sandbox: ${error.rawMessage}`);
    return plain;
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
 * Why runtime NAME cannot run on the configured backend, a sentence beginning `runtime "NAME"`, or null:
 * under bwrap, what the host's interpreter does not find; under Docker, whether an image is pinned or
 * tagged for it. The task store asks it at load, so a task nothing can run is refused then, not at its
 * first rollout.
 */
export function runtimeProblem(config: SandboxConfig): (name: RuntimeName) => Promise<string | null> {
  if (config.backend !== "docker") return (name) => hostRuntimeProblem(name, config.pythonPath);
  return async (name) =>
    (await dockerImageOf(config, name)) === undefined ? (await docker()).noImageMessage(name) : null;
}

/** Runtime NAME's image: pinned in the configuration, else the one tagged `minedit-sandbox:NAME`, else none. */
async function dockerImageOf(
  config: SandboxConfig,
  name: RuntimeName,
): Promise<{ id: string; pinned: boolean } | undefined> {
  const pinned = config.docker.images[name];
  if (pinned !== undefined) return { id: pinned, pinned: true };
  const { DockerSandbox, imageTag } = await docker();
  const tagged = await DockerSandbox.taggedImage(imageTag(name), config.docker.socketPath);
  return tagged === undefined ? undefined : { id: tagged, pinned: false };
}

/** The configured backend alone: a new sandbox (bwrap) or container (Docker) for every run. */
export async function createBackendSandbox(
  config: SandboxConfig,
  warn: (message: string) => void,
): Promise<Sandbox> {
  // No fork servers here (each run starts its own sandbox with its request's limits): the standing
  // limits are never used, so the test defaults do.
  const images = config.backend === "docker" ? await dockerImages(config, warn) : {};
  return backend(config, DEFAULT_LIMITS_CONFIG.tests, images, warn);
}

/**
 * The Docker backend's module, imported on first use: its client (dockerode) takes longer to load than
 * everything else a bwrap `score` or `serve` starts with, and most never use it.
 */
function docker(): Promise<typeof import("./docker.js")> {
  return import("./docker.js");
}

async function backend(
  config: SandboxConfig,
  testLimits: StandingLimits,
  images: Record<RuntimeName, string>,
  warn: (message: string) => void,
  bwrap: Pick<BwrapOptions, "bwrapPath" | "probe"> = {},
): Promise<WarmBase> {
  if (config.backend !== "docker")
    return createBwrapSandbox({ pythonPath: config.pythonPath, warn, ...bwrap });
  const { DockerSandbox } = await docker();
  return DockerSandbox.create({ ...config.docker, images, maxProcesses: testLimits.maxProcesses });
}

/**
 * The configured image IDs, with those of the runtimes that the configuration does not pin taken from the
 * image sandbox/docker/build-image.sh tagged (`minedit-sandbox:NAME`), said through `warn` so the ID can be
 * pinned: a build later under the same tag must not change what runs unnoticed. Every runtime's, not only
 * those of the loaded tasks: the C++ and Java runners and the analyzers ask for theirs on first use.
 */
async function dockerImages(
  config: SandboxConfig,
  warn: (message: string) => void,
): Promise<Record<RuntimeName, string>> {
  const images: Record<RuntimeName, string> = {};
  const tagged: string[] = [];
  for (const name of RUNTIME_NAMES) {
    const image = await dockerImageOf(config, name);
    if (image === undefined) continue; // refused when a run asks for it, with what to build
    images[name] = image.id;
    if (!image.pinned) tagged.push(`${name} = ${(await docker()).imageTag(name)} (${image.id})`);
  }
  if (tagged.length > 0) {
    warn(
      `sandbox.docker.images does not pin ${tagged.join(", ")}: using the tagged images (pin their IDs in the config)`,
    );
  }
  return images;
}
