/**
 * What bounds a bwrap sandbox as a whole, beyond the per-process rlimits that `prlimit` and the fork
 * server set (docs/sandbox.md, "What each backend bounds"):
 *
 * - **memory and processes**: a cgroup per sandbox (run-cgroup.ts): resident memory of all its processes
 *   together, their scratch files included, and the number of its processes;
 * - **scratch inodes**: /tmp and /dev/shm are tmpfs mounts with `nr_inodes`, made in a private mount
 *   namespace of the sandbox's own (sandbox/bwrap-enter.sh), since bwrap's own `--tmpfs` takes a size but
 *   no inode count: without one a run can make ~0.6 M empty files in 8 s (~0.5 GB of kernel memory) and
 *   leave a scratch that takes seconds to empty.
 *
 * Both need root (or a delegated cgroup subtree): they are tried once, when the backend is made, with a
 * real sandbox-less launch of the entering script; what does not work here is said once through `warn`,
 * naming what is then not bounded, and the sandbox runs with per-process limits alone (and the fork
 * servers' own inode check, sandbox/python/forkserver.py).
 */
import { execFile } from "node:child_process";
import { accessSync, constants, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunCgroup, RunCgroups } from "./run-cgroup.js";
import type { ExecutionLimits } from "./sandbox.js";

/** Files and directories a run may have in its scratch (/tmp) at once. */
export const SCRATCH_INODES = 16_384;
/** Files and directories in /dev/shm at once (POSIX shared memory and semaphores). */
export const SHM_INODES = 1_024;
/** Processes a sandbox's cgroup holds beyond a run's own limit: bwrap's two, the fork server. */
const PIDS_SLACK = 8;
/** Empty groups of finished sandboxes kept for the next ones (a step's fresh runs at once, about). */
const IDLE_GROUPS = 16;
/** Memory a sandbox's cgroup holds beyond what its run may use: bwrap, prlimit, the kernel's own. */
const MEMORY_SLACK_BYTES = 64 * 1024 * 1024;

const ENTER_SCRIPT = fileURLToPath(new URL("../../sandbox/bwrap-enter.sh", import.meta.url));
/** The host directory whose tmp/ and shm/ the sandboxes' own tmpfs mounts cover (each in its namespace). */
const MOUNT_DIR = "/run/minedit-scratch";

export type WholeRunBoundsOptions = {
  scratchBytes: number;
  shmBytes: number;
  /** The host uid and gid the sandbox runs as: its scratch mounts belong to them. */
  uid: number;
  gid: number;
  warn: (message: string) => void;
};

export class WholeRunBounds {
  /** Groups of finished sandboxes, empty, kept for the next ones. */
  private readonly idle: RunCgroup[] = [];
  private closed = false;

  private constructor(
    private readonly cgroups: RunCgroups | null,
    private readonly mounts: { scratch: string; shm: string } | null,
    private readonly options: WholeRunBoundsOptions,
  ) {}

  /** Nothing beyond per-process limits (minedit does not run as root), said through `warn` with why. */
  static none(options: WholeRunBoundsOptions, why: string): WholeRunBounds {
    options.warn(
      notBounded("memory, processes and scratch inodes", why, `${PER_PROCESS}; ${FORK_SERVER_CHECK}`),
    );
    return new WholeRunBounds(null, null, options);
  }

  /**
   * As root: whatever of the cgroups and the scratch mounts works on this host. The two trials are
   * launches of their own, side by side.
   */
  static async open(options: WholeRunBoundsOptions): Promise<WholeRunBounds> {
    const mode = `mode=0755,uid=${options.uid},gid=${options.gid},nosuid,nodev`;
    const wanted = {
      scratch: `size=${options.scratchBytes},nr_inodes=${SCRATCH_INODES},${mode}`,
      shm: `size=${options.shmBytes},nr_inodes=${SHM_INODES},${mode}`,
    };
    const missing = ["unshare", "mount"].filter(
      (tool) => !executable(`/usr/bin/${tool}`) && !executable(`/bin/${tool}`),
    );
    const mountTrial = async (): Promise<string | null> => {
      if (missing.length > 0) return `no ${missing.join(" or ")} (util-linux, mount)`;
      try {
        for (const dir of ["tmp", "shm"]) mkdirSync(join(MOUNT_DIR, dir), { recursive: true, mode: 0o755 });
      } catch (error) {
        return `cannot make ${MOUNT_DIR} (${(error as Error).message})`;
      }
      return tryEnter("-", wanted);
    };
    const opened = RunCgroups.open();
    const cgroupTrial = async (): Promise<string | null> => {
      if (!(opened instanceof RunCgroups)) return null;
      const probe = opened.create({ memoryBytes: 256 * 1024 * 1024, maxProcesses: 16 });
      try {
        return await tryEnter(probe.procsFiles.join(":"), null);
      } finally {
        probe.remove();
      }
    };
    const [mountProblem, cgroupProblem] = await Promise.all([mountTrial(), cgroupTrial()]);
    const mounts = mountProblem === null ? wanted : null;
    if (mountProblem !== null) {
      options.warn(
        notBounded(
          "scratch inodes",
          `no scratch mounts: ${mountProblem}`,
          `${FORK_SERVER_CHECK}; a fresh sandbox's scratch is bounded by its size only`,
        ),
      );
    }
    let cgroups: RunCgroups | null = null;
    if (opened instanceof RunCgroups) {
      if (cgroupProblem === null) cgroups = opened;
      else {
        opened.close();
        options.warn(
          notBounded("memory and processes", `cannot enter a cgroup: ${cgroupProblem}`, PER_PROCESS),
        );
      }
    } else options.warn(notBounded("memory and processes", opened.unavailable, PER_PROCESS));
    return new WholeRunBounds(cgroups, mounts, options);
  }

  /** Whether /tmp and /dev/shm are the sandbox's own capped mounts (else bwrap's --tmpfs, size only). */
  get mountsScratch(): boolean {
    return this.mounts !== null;
  }

  /** bwrap's arguments that make /dev/shm and /tmp (after `--dev /dev`). */
  scratchArgs(): string[] {
    if (this.mounts !== null) {
      return ["--bind", join(MOUNT_DIR, "shm"), "/dev/shm", "--bind", join(MOUNT_DIR, "tmp"), "/tmp"];
    }
    return [
      "--size",
      String(this.options.shmBytes),
      "--tmpfs",
      "/dev/shm",
      "--size",
      String(this.options.scratchBytes),
      "--tmpfs",
      "/tmp",
    ];
  }

  /**
   * A cgroup for one sandbox whose run has `limits` (null: none here): one a finished sandbox left empty
   * (see {@link release}), else a new one. Making a memory cgroup and removing it costs ~20 ms of kernel
   * time, a quarter of a fresh sandbox's run.
   */
  group(limits: ExecutionLimits): RunCgroup | null {
    if (this.cgroups === null) return null;
    const { memoryBytes, maxProcesses } = this.groupLimits(limits);
    const reused = this.idle.pop();
    if (reused !== undefined) {
      reused.setMemory(memoryBytes);
      reused.setProcesses(maxProcesses);
      return reused;
    }
    return this.cgroups.create({ memoryBytes, maxProcesses });
  }

  /**
   * Takes back a sandbox's group once the sandbox is gone: kept for the next one when no process is left
   * in it nor charged to it (RunCgroup.empty; up to a few), else removed (and, if the kernel is still
   * tearing the last of them down, tried again a little later, then left to the next start's clean-up).
   */
  release(group: RunCgroup): void {
    if (!this.closed && this.idle.length < IDLE_GROUPS && group.empty()) {
      this.idle.push(group);
      return;
    }
    removeGroup(group);
  }

  /**
   * Sets `group`'s limits for the next run of a long-lived sandbox (a fork server's): its run's budget on
   * top of what the sandbox holds now (the server and its preloaded modules, idle between runs).
   */
  limitNextRun(group: RunCgroup, limits: ExecutionLimits): void {
    const { memoryBytes, maxProcesses } = this.groupLimits(limits);
    group.setMemory(group.memoryBytes() + memoryBytes);
    group.setProcesses(maxProcesses);
  }

  /** The command prefix that puts a sandbox in `group` and its own scratch mounts, before `launcher`. */
  prefix(group: RunCgroup | null, launcher: readonly string[]): string[] {
    if (group === null && this.mounts === null) return [...launcher];
    return enterCommand(group === null ? "-" : group.procsFiles.join(":"), this.mounts, launcher);
  }

  /** Removes this process's cgroups (every sandbox's group released before). */
  close(): void {
    this.closed = true;
    for (const group of this.idle.splice(0)) removeGroup(group);
    this.cgroups?.close();
  }

  /**
   * A run's whole budget: the address space one process may take (a run with one process is bounded as
   * before), its scratch and /dev/shm filled, and slack; processes as the run's limit, plus bwrap's.
   */
  private groupLimits(limits: ExecutionLimits): { memoryBytes: number; maxProcesses: number } {
    const { scratchBytes, shmBytes } = this.options;
    return {
      memoryBytes: limits.memoryBytes + scratchBytes + shmBytes + MEMORY_SLACK_BYTES,
      maxProcesses: limits.maxProcesses + PIDS_SLACK,
    };
  }
}

/**
 * Removes a sandbox's cgroup once its processes are gone. bwrap has exited by then, but the kernel may
 * still be tearing the last of them down: a few tries, spaced out, then it is left to the next start.
 */
function removeGroup(group: RunCgroup, tries = 5): void {
  if (group.remove() || tries <= 1) return;
  setTimeout(() => removeGroup(group, tries - 1), 100).unref();
}

function enterCommand(
  procs: string,
  mounts: { scratch: string; shm: string } | null,
  command: readonly string[],
): string[] {
  return [
    "/bin/sh",
    ENTER_SCRIPT,
    procs,
    mounts === null ? "-" : MOUNT_DIR,
    mounts?.scratch ?? "-",
    mounts?.shm ?? "-",
    "--",
    ...command,
  ];
}

/** Runs the entering script with `true` as the command: null when it works, else what it said. */
function tryEnter(procs: string, mounts: { scratch: string; shm: string } | null): Promise<string | null> {
  const [command, ...args] = enterCommand(procs, mounts, ["/bin/true"]);
  return new Promise((resolve) => {
    execFile(command as string, args, { encoding: "utf8", timeout: 10_000 }, (error, _stdout, stderr) => {
      if (error === null) return resolve(null);
      resolve((stderr || error.message || `exit ${error.code}`).trim().split("\n")[0] ?? "");
    });
  });
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const PER_PROCESS =
  "each process keeps its own limits (address space, processes), so a run's processes may hold " +
  "up to maxProcesses × memoryBytes together";
const FORK_SERVER_CHECK = `a fork server stops a run whose scratch passes ${SCRATCH_INODES} files at its next look (every 250 ms)`;

function notBounded(what: string, why: string, instead: string): string {
  return `sandbox: the ${what} of a run are not bounded as a whole (${why}): ${instead}`;
}
