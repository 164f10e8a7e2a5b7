/**
 * The containers of the Docker backend (docker.ts), as plain data: what `POST /containers/create` is sent.
 * Pure, so the hardening is checked offline (tests/sandbox/docker-spec.test.ts) and the adapter stays thin.
 *
 * Every container is hardened the same way (docs/sandbox.md#docker): no network, a read-only root with
 * size-capped tmpfs scratch (/tmp, /dev/shm), memory = memory + swap, a process limit, a CPU quota, no
 * capabilities, no-new-privileges, the sandbox's syscall filter as its seccomp profile (syscall-filter.ts),
 * private IPC, a non-root user, no log kept by the daemon, and labels that let a later server find (and
 * reap) what a crashed one left behind.
 */
import type { ContainerCreateOptions } from "dockerode";
import { SANDBOX_ENV, SCRATCH, SHM_BYTES } from "./sandbox-env.js";
import { SCRATCH_INODES, SHM_INODES } from "./whole-run-bounds.js";

/** Label on every container of this backend; its value is the owner (see {@link ownerLabel}). */
export const OWNER_LABEL = "minedit.sandbox.owner";
/** Label: "fork-server" (a slot's long-lived container) or "run" (one fresh run). */
export const ROLE_LABEL = "minedit.sandbox.role";
/** The uid and gid programs run as: nobody, as in the bwrap sandbox. */
export const SANDBOX_USER = "65534:65534";

/** `host:pid` of this server process: a container whose owner pid is gone on this host is an orphan. */
export function ownerLabel(hostname: string, pid: number): string {
  return `${hostname}:${pid}`;
}

/** The orphan test of the reaper: owned by a process of this host that no longer runs. */
export function isOrphan(
  owner: string | undefined,
  hostname: string,
  alive: (pid: number) => boolean,
): boolean {
  if (owner === undefined) return false;
  const at = owner.lastIndexOf(":");
  if (at <= 0 || owner.slice(0, at) !== hostname) return false;
  const pid = Number(owner.slice(at + 1));
  return Number.isSafeInteger(pid) && pid > 0 && !alive(pid);
}

export type ContainerSpec = {
  image: string;
  cmd: string[];
  role: "fork-server" | "run";
  owner: string;
  /** The runtime's own variables (runtimes.ts), added to the sandbox's. */
  env: Readonly<Record<string, string>>;
  /** Host directories bound read-only inside (a runtime's data). */
  binds: readonly { source: string; target: string }[];
  /** cgroup memory limit of the whole container; swap is not allowed on top. */
  memoryBytes: number;
  /** cgroup pids limit: processes and threads alive at once, the container's own included. */
  pidsLimit: number;
  /** CPU quota, in CPUs (1 = one core's worth of time). */
  cpus: number;
  scratchBytes: number;
  /** The OCI runtime: "runsc" for gVisor, undefined for the daemon's default (runc). */
  ociRuntime?: string | undefined;
  /**
   * The seccomp profile, as JSON text (syscall-filter.ts `dockerSeccompProfile`): the daemon takes the
   * profile's content in `SecurityOpt` (`seccomp=<json>`; the docker CLI reads a profile file and sends
   * its content the same way), and puts it in place of its default one.
   */
  seccompProfile: string;
};

export function containerOptions(spec: ContainerSpec): ContainerCreateOptions {
  // `exec` said outright: Docker adds `noexec` to a tmpfs otherwise, and the C++ runner runs the binary it
  // compiled into the scratch (bwrap's scratch and /dev/shm allow it too: verdicts must not differ).
  // `nr_inodes` as bwrap's scratch mounts (whole-run-bounds.ts): a run cannot fill kernel memory with empty
  // files, nor leave a scratch that takes seconds to empty.
  const tmpfs = (bytes: number, inodes: number) =>
    `rw,exec,nosuid,nodev,size=${bytes},nr_inodes=${inodes},mode=1777`;
  return {
    Image: spec.image,
    Cmd: spec.cmd,
    User: SANDBOX_USER,
    WorkingDir: SCRATCH,
    Hostname: "sandbox",
    // The same environment as the bwrap sandbox (sandbox-env.ts): verdicts must not depend on the backend.
    Env: Object.entries({ ...SANDBOX_ENV, ...spec.env }).map(([key, value]) => `${key}=${value}`),
    Labels: { [OWNER_LABEL]: spec.owner, [ROLE_LABEL]: spec.role },
    // The control channel (fork server) or the request (fresh run) comes on stdin; no terminal, so
    // stdout and stderr arrive multiplexed and apart.
    OpenStdin: true,
    StdinOnce: false,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: "none",
      ReadonlyRootfs: true,
      Tmpfs: {
        [SCRATCH]: tmpfs(spec.scratchBytes, SCRATCH_INODES),
        "/dev/shm": tmpfs(SHM_BYTES, SHM_INODES),
      },
      Binds: spec.binds.map(({ source, target }) => `${source}:${target}:ro`),
      Memory: spec.memoryBytes,
      MemorySwap: spec.memoryBytes,
      PidsLimit: spec.pidsLimit,
      NanoCpus: Math.round(spec.cpus * 1e9),
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges", `seccomp=${spec.seccompProfile}`],
      IpcMode: "private",
      // The program's output is read from the attach stream; the daemon keeps none of it.
      LogConfig: { Type: "none", Config: {} },
      // The fork server (or the boot) is the container's init; Docker's would hide it from kill(-1).
      Init: false,
      ...(spec.ociRuntime === undefined ? {} : { Runtime: spec.ociRuntime }),
    },
  };
}
