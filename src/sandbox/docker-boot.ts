/**
 * The request and result of one fresh run in a container of its own (docker.ts `run`), as
 * sandbox/python/docker-boot.py reads and reports them: a JSON header in argv, the files' and stdin's
 * bytes on the container's stdin, the program's status as the container's (128 + N for a signal N).
 */
import { constants as osConstants } from "node:os";
import { stderrShowsOutOfMemory } from "./out-of-memory.js";
import { pythonSource } from "./python-source.js";
import { checkRelativePath } from "./request-checks.js";
import type { ExecutionRequest, ExecutionResult } from "./sandbox.js";

export const DOCKER_BOOT_SOURCE = pythonSource("docker-boot.py");

/** The boot's exit status when its set-up failed before the program ran. */
const SETUP_FAILED = 125;

export function bootRequest(request: ExecutionRequest): { header: string; body: Buffer } {
  const files = Object.entries(request.files).map(([path, text]) => {
    checkRelativePath(path);
    return [path, Buffer.from(text, "utf8")] as const;
  });
  const stdin = Buffer.from(request.stdin ?? "", "utf8");
  const { memoryBytes, maxProcesses, maxFileBytes, cpuTimeMs } = request.limits;
  const header = JSON.stringify({
    files: files.map(([path, bytes]) => [path, bytes.length]),
    stdin: stdin.length,
    argv: request.argv,
    limits: {
      memory: memoryBytes,
      nproc: maxProcesses,
      fsize: maxFileBytes,
      // Whole seconds of the main process, as the bwrap backend's fresh runs (prlimit --cpu).
      ...(cpuTimeMs === undefined ? {} : { cpu_s: Math.ceil(cpuTimeMs / 1000) }),
    },
  });
  return { header, body: Buffer.concat([...files.map(([, bytes]) => bytes), stdin]) };
}

function signalName(signal: number): string | null {
  for (const [name, value] of Object.entries(osConstants.signals)) {
    if (value === signal) return name;
  }
  return null;
}

export type BootEnd = {
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** This side killed the container (output cap, wall limit or cancellation). */
  killed: boolean;
  timedOut: boolean;
  cancelled: boolean;
  wallTimeMs: number;
  cpuLimited: boolean;
};

/** Whether the boot failed before the program ran (the sandbox's fault, not the program's). */
export function bootFailed(status: number | null, stderr: string): boolean {
  return status === SETUP_FAILED && stderr.includes("docker-boot:");
}

/** The run's result from the container's status (`null`: killed before it reported one). */
export function bootResult(status: number | null, end: BootEnd): ExecutionResult {
  let exitCode = end.killed ? null : status;
  let signal: string | null = end.killed ? "SIGKILL" : null;
  if (exitCode !== null && exitCode > 128 && exitCode < 128 + 65) {
    signal = signalName(exitCode - 128);
    if (signal !== null) exitCode = null;
  }
  const cpuKilled = end.cpuLimited && signal === "SIGXCPU" && !end.timedOut && !end.cancelled;
  return {
    exitCode,
    signal,
    stdout: end.stdout,
    stderr: end.stderr,
    timedOut: (end.timedOut || cpuKilled) && !end.cancelled,
    ...(cpuKilled ? { cpuLimitExceeded: true } : {}),
    memoryExceeded: exitCode !== 0 && !end.killed && stderrShowsOutOfMemory(end.stderr),
    outputTruncated: end.truncated,
    wallTimeMs: end.wallTimeMs,
    cancelled: end.cancelled,
  };
}
