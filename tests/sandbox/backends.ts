/**
 * The ways minedit executes Python, for test suites that must hold for all of them: the bwrap backend with
 * a fresh sandbox and interpreter per run and with warm interpreters (fork servers,
 * src/sandbox/warm-python.ts), and the Docker backend with warm interpreters (src/sandbox/docker.ts: a
 * container per slot; its fresh containers, 1–3 s each with the vfs storage driver, are
 * tested in docker.test.ts). The Docker suites need a running dockerd and the images of the runtimes they
 * use: stdlib, and the cpp, java and lint toolchains for the runner and lint suites
 * (scripts/ensure-docker.sh, which test.sh runs, provides them); MINEDIT_TEST_DOCKER=0 leaves them out,
 * and says so.
 */
import { spawnSync } from "node:child_process";
import { createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import { DockerSandbox, imageTag } from "../../src/sandbox/docker.js";
import type { RuntimeName } from "../../src/sandbox/runtimes.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { WarmPythonSandbox } from "../../src/sandbox/warm-python.js";

export async function createWarmSandbox(slots = 2): Promise<WarmPythonSandbox> {
  return WarmPythonSandbox.create(await createBwrapSandbox(), { slots });
}

/** Whether the Docker backend's suites run (they do unless MINEDIT_TEST_DOCKER=0). */
export const DOCKER_TESTS = process.env.MINEDIT_TEST_DOCKER !== "0";
/** Why the Docker suites are skipped (the skip reporter lists it), or undefined when they run. */
export const DOCKER_SKIP_REASON = DOCKER_TESTS
  ? undefined
  : "MINEDIT_TEST_DOCKER=0: the Docker backend's suites are left out";
if (DOCKER_SKIP_REASON !== undefined) console.warn(DOCKER_SKIP_REASON);
/**
 * `MINEDIT_TEST_OCI_RUNTIME=runsc` runs every Docker suite under that OCI runtime (gVisor) instead of the
 * daemon's default; the gVisor suite in docker.test.ts runs under runsc either way.
 */
const TEST_OCI_RUNTIME = process.env.MINEDIT_TEST_OCI_RUNTIME || undefined;
if (DOCKER_TESTS && TEST_OCI_RUNTIME !== undefined) {
  console.warn(`MINEDIT_TEST_OCI_RUNTIME=${TEST_OCI_RUNTIME}: the Docker suites run under it`);
}

/**
 * The ID of runtime `name`'s image (MINEDIT_DOCKER_IMAGE_<NAME>, else the one tagged minedit-sandbox:NAME),
 * or an error saying how to get it.
 */
export function dockerImage(name: RuntimeName): string {
  const fromEnv = process.env[`MINEDIT_DOCKER_IMAGE_${name.toUpperCase()}`];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const inspect = spawnSync("docker", ["image", "inspect", "-f", "{{.Id}}", imageTag(name)], {
    encoding: "utf8",
  });
  if (inspect.status !== 0) {
    throw new Error(
      `no ${imageTag(name)} image (${(inspect.stderr ?? inspect.error?.message ?? "").trim()}): ` +
        "run `bash scripts/ensure-docker.sh` (starts dockerd, builds it), or MINEDIT_TEST_DOCKER=0 to leave Docker out",
    );
  }
  return inspect.stdout.trim();
}

/** The ID of the stdlib image. */
export const dockerStdlibImage = () => dockerImage("stdlib");

/** A Docker sandbox with the images of stdlib and `runtimes` (e.g. the toolchains a suite needs). */
export function createDockerSandbox(
  options: { ociRuntime?: string; runtimes?: readonly RuntimeName[] } = {},
): Promise<DockerSandbox> {
  const { runtimes = [], ...rest } = options;
  const images = Object.fromEntries(["stdlib", ...runtimes].map((name) => [name, dockerImage(name)]));
  return DockerSandbox.create({
    images,
    containerMemoryBytes: 2 * 1024 ** 3,
    cpusPerContainer: 1,
    maxProcesses: 64,
    ...(TEST_OCI_RUNTIME === undefined ? {} : { ociRuntime: TEST_OCI_RUNTIME }),
    ...rest,
  });
}

export async function createWarmDockerSandbox(
  slots = 2,
  runtimes: readonly RuntimeName[] = [],
): Promise<WarmPythonSandbox> {
  return WarmPythonSandbox.create(await createDockerSandbox({ runtimes }), { slots });
}

/**
 * [name, create, whether the backend can run the bigcodebench runtime]: bwrap can where its Debian
 * packages are installed (scripts/ensure-system.sh installs them); Docker only with a bigcodebench image
 * (sandbox/docker/build-image.sh), which is not built for the tests. Either way the default runtime sees
 * the standard library alone (runtime-libraries.ts).
 */
export const BACKENDS: readonly (readonly [string, () => Promise<Sandbox>, boolean])[] = [
  ["fresh sandbox per run", () => createBwrapSandbox(), true],
  ["warm interpreters", () => createWarmSandbox(), true],
  ...(DOCKER_TESTS ? ([["docker, warm interpreters", () => createWarmDockerSandbox(), false]] as const) : []),
];

/**
 * Python that sets `others`: the processes a program sees besides itself and its ancestors (the sandbox's
 * init, the harness, with warm interpreters the fork server) — leftovers of an earlier run would be there.
 */
export const OTHER_PROCESSES = `import os
def parent(pid):
    stat = open(f'/proc/{pid}/stat', 'rb').read()
    return int(stat[stat.rindex(b')') + 2:].split()[1])
line, pid = {os.getpid()}, os.getpid()
while pid > 1:
    pid = parent(pid)
    line.add(pid)
others = sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) not in line)`;

/**
 * Where the C++ and Java runners' suites run: a fresh bwrap sandbox per run, and Docker with warm
 * interpreters (the driver in a fork server of the cpp or java image's container).
 */
export const RUNNER_BACKENDS: readonly (readonly [string, () => Promise<Sandbox>])[] = [
  ["bwrap, fresh sandbox per run", () => createBwrapSandbox()],
  ...(DOCKER_TESTS
    ? ([["docker, warm interpreters", () => createWarmDockerSandbox(1, ["cpp", "java"])]] as const)
    : []),
];

/**
 * Where the analyzers' suites run: a fresh bwrap sandbox per run, and a fresh container of the lint image
 * per run (the analyzers' commands are not Python, so no fork server runs them).
 */
export const LINT_BACKENDS: readonly (readonly [string, () => Promise<Sandbox>])[] = [
  ["bwrap", () => createBwrapSandbox()],
  ...(DOCKER_TESTS ? ([["docker", () => createDockerSandbox({ runtimes: ["lint"] })]] as const) : []),
];
