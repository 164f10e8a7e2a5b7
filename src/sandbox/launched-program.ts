/**
 * A long-lived program started in a sandbox of its own and driven over a private control channel: what a
 * `ForkServerHost` (fork-server.ts: bwrap.ts, docker.ts) hands back for a fork server.
 */
import type { Readable, Writable } from "node:stream";
import type { ExecutionLimits } from "./sandbox.js";

/** A program started by bwrap.ts `launch` (or a Docker container's fork server, docker.ts). */
export type LaunchedProgram = {
  /**
   * The program's control channel, private between it and the caller: what the caller writes
   * (`controlIn`) and reads (`controlOut`). Never the program's fds 0 and 1 under bwrap (see launch).
   */
  controlIn: Writable;
  controlOut: Readable;
  /** The extra pipes asked for, in order (the program's fds right after the files'). */
  outputs: Readable[];
  /**
   * Resolves when the sandbox is gone; `started` says whether bwrap had started the program; `outside`,
   * why it ended when neither this side nor the program ended it (Docker: the daemon went away, the
   * container was killed): a run in it is an infrastructure fault.
   */
  exited: Promise<{ code: number | null; signal: string | null; started: boolean; outside?: string }>;
  /** What the program and bwrap wrote to stderr so far (capped). */
  stderr(): string;
  /** Kills the whole sandbox. */
  kill(): void;
  /**
   * Where the sandbox has a cgroup of its own (whole-run-bounds.ts): bounds its next run as a whole
   * (before the run is sent), and counts the processes the kernel killed in it for want of memory.
   */
  runBounds?: { limitNextRun(limits: ExecutionLimits): void; oomKills(): number };
};
