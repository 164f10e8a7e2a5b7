/**
 * The ways minedit executes Python, for test suites that must hold for all of them: the bwrap backend with
 * a fresh sandbox and interpreter per run and with warm interpreters (fork servers,
 * src/sandbox/warm-python.ts), and the Docker backend with warm interpreters (src/sandbox/docker.ts: a
 * container per slot; its fresh containers, 1–3 s each with the vfs storage driver, are
 * tested in docker.test.ts). The Docker suites need a running dockerd and the stdlib image
 * (scripts/ensure-docker.sh, which test.sh runs, provides both); MINEDIT_TEST_DOCKER=0 leaves them out,
 * and says so.
 */
import { spawnSync } from "node:child_process";
import { createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import { DockerSandbox } from "../../src/sandbox/docker.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { WarmPythonSandbox } from "../../src/sandbox/warm-python.js";

export async function createWarmSandbox(slots = 2): Promise<WarmPythonSandbox> {
  return WarmPythonSandbox.create(await createBwrapSandbox(), { slots });
}

/** Whether the Docker backend's suites run (they do unless MINEDIT_TEST_DOCKER=0). */
export const DOCKER_TESTS = process.env.MINEDIT_TEST_DOCKER !== "0";
if (!DOCKER_TESTS) console.warn("MINEDIT_TEST_DOCKER=0: the Docker backend's suites are left out");

/** The tag scripts/ensure-docker.sh builds the standard library's image under. */
export const DOCKER_STDLIB_TAG = "minedit-sandbox:stdlib";

/** The ID of the stdlib image (MINEDIT_DOCKER_IMAGE_STDLIB, else the tag's), or an error saying how to get it. */
export function dockerStdlibImage(): string {
  const fromEnv = process.env.MINEDIT_DOCKER_IMAGE_STDLIB;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const inspect = spawnSync("docker", ["image", "inspect", "-f", "{{.Id}}", DOCKER_STDLIB_TAG], {
    encoding: "utf8",
  });
  if (inspect.status !== 0) {
    throw new Error(
      `no ${DOCKER_STDLIB_TAG} image (${(inspect.stderr ?? inspect.error?.message ?? "").trim()}): ` +
        "run `bash scripts/ensure-docker.sh` (starts dockerd, builds it), or MINEDIT_TEST_DOCKER=0 to leave Docker out",
    );
  }
  return inspect.stdout.trim();
}

export function createDockerSandbox(options: { ociRuntime?: string } = {}): Promise<DockerSandbox> {
  return DockerSandbox.create({
    images: { stdlib: dockerStdlibImage() },
    containerMemoryBytes: 2 * 1024 ** 3,
    cpusPerContainer: 1,
    maxProcesses: 64,
    ...options,
  });
}

export async function createWarmDockerSandbox(slots = 2): Promise<WarmPythonSandbox> {
  return WarmPythonSandbox.create(await createDockerSandbox(), { slots });
}

/**
 * [name, create, whether the default runtime sees the host's Python libraries]: bwrap binds the host's
 * /usr, where numpy, pandas and Jinja2 may be installed; the Docker stdlib image has the standard library
 * only (its bigcodebench image, sandbox/docker/build-image.sh, is not built for the tests).
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
