/**
 * Whether the gVisor suites can run on this machine, and if not, the concrete reason (the skip reporter
 * lists it). scripts/ensure-docker.sh installs Debian's runsc and registers it with dockerd; what is left to
 * go wrong is the host itself (a kernel or container setup gVisor refuses), and then the reason is what
 * runsc printed when asked to start a container, not "not installed".
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { imageTag } from "../../src/sandbox/docker.js";
import { DOCKER_SKIP_REASON } from "./backends.js";

/** The last lines of a command's stderr, for a reason that fits on a line or two. */
const tail = (text: string) => text.trim().split("\n").slice(-3).join(" / ");

function gvisorProblem(): string | undefined {
  if (DOCKER_SKIP_REASON !== undefined) return DOCKER_SKIP_REASON;
  const info = spawnSync("docker", ["info", "--format", "{{json .Runtimes}}"], { encoding: "utf8" });
  if (info.error !== undefined || info.status !== 0)
    return `docker info failed, so gVisor cannot be checked: ${info.error?.message ?? tail(info.stderr)}`;
  if (!info.stdout.includes('"runsc"')) {
    return existsSync("/usr/bin/runsc")
      ? "the Docker daemon has no runsc runtime: it was started before runsc was installed (restart it with scripts/ensure-docker.sh)"
      : "gVisor's runsc is not installed: scripts/ensure-docker.sh installs Debian's runsc (as root)";
  }
  // Registered: ask it to start a container, which is what fails on a host gVisor cannot run on.
  const run = spawnSync(
    "docker",
    ["run", "--rm", "--pull=never", "--runtime=runsc", "--network=none", imageTag("stdlib"), "true"],
    { encoding: "utf8", timeout: 120_000 },
  );
  if (run.error !== undefined || run.status !== 0)
    return `gVisor (runsc) cannot start a container on this machine: ${run.error?.message ?? tail(run.stderr)}`;
  return undefined;
}

/** Why the gVisor suites are skipped on this machine, or undefined when they run. */
export const GVISOR_SKIP_REASON = gvisorProblem();
