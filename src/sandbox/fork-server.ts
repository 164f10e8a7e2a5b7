/**
 * One warm interpreter slot: a long-lived bwrap sandbox running `sandbox/python/forkserver.py`, which
 * executes `python3 -s …` requests one at a time by fork() from an interpreter that has already started
 * and imported the harness's modules, and cleans the sandbox after each (see the fork server's docstring
 * for the protocol and for what makes each execution see a fresh sandbox).
 *
 * This side never trusts the fork server for the verdict-relevant facts it can check itself: programs
 * write their stdout and stderr straight to pipes read here (a candidate that kills the fork server
 * cannot take back the harness's records), the output limit is counted here, the wall limit is enforced
 * here too (a fork server stopped or killed by a candidate cannot stretch a run), and a sandbox that dies
 * during a run is killed and replaced, never reused. The fork server's own report only adds precision
 * (exit status, a timeout it enforced first) and the run's CPU and idle time, which only it can measure:
 * with `limits.cpuTimeMs` the CPU time is the time limit (it enforces it, and `limits.idleTimeMs` when
 * set) and the wall limit a backstop.
 */
import { constants as osConstants } from "node:os";
import type { Readable } from "node:stream";
import { ErrorCode, MineditError } from "../errors.js";
import {
  type EndReport,
  encodeRequest,
  type Frame,
  FrameReader,
  MARKER_BYTES,
  ProtocolViolation,
  parseEnd,
  parseReady,
  parseStarted,
  STOP_FRAME,
} from "./fork-server-protocol.js";
import { HARNESS_BYTECODE_FILE, HARNESS_LOADER } from "./harness-source.js";
import type { LaunchedProgram } from "./launched-program.js";
import { stderrShowsOutOfMemory } from "./out-of-memory.js";
import { RunDeadline } from "./run-deadline.js";
import type { Runtime, RuntimeName } from "./runtimes.js";
import type { ExecutionRequest, ExecutionResult } from "./sandbox.js";
import { SCRATCH_INODES, SHM_INODES } from "./whole-run-bounds.js";

/** How long the fork server may take to start and import its modules (a runtime's take a few seconds). */
const START_TIMEOUT_MS = 60_000;
/**
 * The fork server enforces the wall limit itself and reports; this side kills the whole sandbox only if
 * no report came this long after the limit (the fork server was stopped or is stuck in its clean-up).
 */
const BACKSTOP_GRACE_MS = 1_000;

function unavailable(message: string): MineditError {
  return new MineditError(ErrorCode.Unavailable, `fork server: ${message}`);
}

function signalName(signal: number | null): string | null {
  if (signal === null) return null;
  for (const [name, value] of Object.entries(osConstants.signals)) {
    if (value === signal) return name;
  }
  return `signal ${signal}`;
}

/**
 * One output stream of the current run: its first bytes (as many as the run may keep, plus room for the
 * marker) and the last bytes seen, where the fork server's end-of-run marker appears.
 */
class StreamCapture {
  private readonly chunks: Buffer[] = [];
  private stored = 0;
  /** Bytes received, the marker included once it came. */
  received = 0;
  private tail: Buffer = Buffer.alloc(0);

  constructor(private readonly keep: number) {}

  add(chunk: Buffer): void {
    const room = this.keep - this.stored;
    if (room > 0) {
      const kept = chunk.subarray(0, room);
      this.chunks.push(kept);
      this.stored += kept.length;
    }
    this.received += chunk.length;
    this.tail = Buffer.concat([this.tail, chunk]).subarray(-MARKER_BYTES);
  }

  endsWith(marker: Buffer): boolean {
    return this.tail.equals(marker);
  }

  /** The program's first `limit` bytes; `markerCame` says whether the last MARKER_BYTES are the marker's. */
  programBytes(markerCame: boolean): number {
    return this.received - (markerCame ? MARKER_BYTES : 0);
  }

  text(length: number): string {
    return Buffer.concat(this.chunks).subarray(0, length).toString("utf8");
  }
}

/** What the current execution is collecting. */
type Execution = {
  out: StreamCapture;
  err: StreamCapture;
  /** A stop request was sent (the program wrote more than the cap). */
  stopSent: boolean;
  started: boolean;
  report: EndReport | null;
  /** Finishes the run when the report and both streams' markers are in. */
  check: () => void;
  /**
   * Finishes the run; `null`: the sandbox died or was killed first, `outside` says why when neither this
   * side nor the program ended it (see LaunchedProgram.exited) or the fork server broke the protocol.
   */
  end: (report: EndReport | null, outside?: string) => void;
};

/**
 * A sandbox backend that can host fork servers (bwrap.ts, docker.ts): it starts sandbox/python/forkserver.py
 * with `settings` in a sandbox of its own with `runtime`'s libraries, hands it the harness source and the
 * output channels its way, and returns the running program (its control channel out of every candidate's
 * reach, `outputs` the runs' stdout and stderr).
 */
export interface ForkServerHost {
  launchForkServer(source: string, harness: string, settings: string, runtime: Runtime): LaunchedProgram;
  /** The runtime `name`, checked to be usable on this backend (`FailedPrecondition` when it is not). */
  runtime(name: RuntimeName): Promise<Runtime>;
}

/** What a fork server reported when it came up (sizes in bytes, after its imports). */
export type ForkServerInfo = {
  /** Resident set size: what this server holds in memory (its children share it copy-on-write). */
  rssBytes: number;
  /** Virtual size. */
  vmBytes: number;
  /** Address space the runtime's preloaded modules take, added to each run's memory limit. */
  creditBytes: number;
  /** How long importing the runtime's modules took. */
  preloadMs: number;
};

/**
 * One fork server: its sandbox, the run it is executing, and the protocol's state. Every byte it sends is
 * checked (fork-server-protocol.ts): a frame it never sends, or one out of order — a second ready, a start
 * or an end with no run, an end before the start — breaks the sandbox: it is killed, the run in it (if
 * any) is an infrastructure fault, and the pool starts a new one. Nothing the sandbox sends can throw here.
 */
export class ForkServer {
  private execution: Execution | null = null;
  private dead = false;
  private ready = false;
  private readonly reader = new FrameReader();
  /** Settles start(): resolved by the ready frame, rejected by anything that ends the server first. */
  private settleStart: ((error?: MineditError) => void) | null = null;
  /** Filled in from the ready frame. */
  info: ForkServerInfo = { rssBytes: 0, vmBytes: 0, creditBytes: 0, preloadMs: 0 };

  private constructor(private readonly program: LaunchedProgram) {}

  /**
   * Starts a fork server in its own sandbox of `base` with `runtime`'s mounts and environment, with
   * `harness` (the harness source, for its `_run_as_main`), then `preload` and the runtime's own preload
   * list imported. Rejects with `MineditError(Unavailable)` when it does not come up, with what it printed.
   */
  static async start(
    base: ForkServerHost,
    source: string,
    harness: string,
    preload: readonly string[],
    runtime: Runtime,
  ): Promise<ForkServer> {
    const settings = JSON.stringify({
      preload,
      runtime: runtime.preload,
      dirs: runtime.scratchDirs,
      inodes: SCRATCH_INODES + SHM_INODES,
      loader: HARNESS_LOADER,
    });
    const program = base.launchForkServer(source, harness, settings, runtime);
    const server = new ForkServer(program);
    const [out, err] = program.outputs as [Readable, Readable];
    out.on("data", (chunk: Buffer) => server.onOutput("out", chunk));
    err.on("data", (chunk: Buffer) => server.onOutput("err", chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        server.kill();
        settle(unavailable(`did not start within ${START_TIMEOUT_MS} ms: ${program.stderr().trim()}`));
      }, START_TIMEOUT_MS);
      const settle = (error?: MineditError) => {
        clearTimeout(timer);
        server.settleStart = null;
        if (error === undefined) resolve();
        else reject(error);
      };
      server.settleStart = settle;
      program.controlOut.on("data", (chunk: Buffer) => server.onControl(chunk));
      void program.exited.then(({ code, signal, outside }) => {
        server.settleStart?.(
          unavailable(`exited during start-up (code ${code}, signal ${signal}): ${program.stderr().trim()}`),
        );
        server.onExit(outside);
      });
    });
    return server;
  }

  /** False once the sandbox has died or been killed; a dead server is never reused. */
  get alive(): boolean {
    return !this.dead;
  }

  kill(): void {
    this.dead = true;
    this.program.kill();
  }

  /**
   * Runs one `python3 -s …` request (one at a time per server). Resolves with what the program did;
   * rejects with `MineditError(Unavailable)` when the server was or became unusable before the program
   * started (the caller may retry on another server), or broke the protocol during the run.
   */
  execute(request: ExecutionRequest): Promise<ExecutionResult> {
    if (this.dead) return Promise.reject(unavailable("the sandbox is gone"));
    if (this.execution !== null) return Promise.reject(unavailable("already running a program"));
    const begun = performance.now();
    const { wallTimeMs, maxOutputBytes } = request.limits;
    // The sandbox's cgroup, where it has one: the run's whole budget, and the kernel's kills counted.
    const bounds = this.program.runBounds;
    let oomKillsBefore = 0;
    try {
      bounds?.limitNextRun(request.limits);
      oomKillsBefore = bounds?.oomKills() ?? 0;
    } catch (error) {
      this.kill();
      return Promise.reject(unavailable(`cannot limit the run's cgroup: ${(error as Error).message}`));
    }
    return new Promise<ExecutionResult>((resolve, reject) => {
      const deadline = new RunDeadline(wallTimeMs + BACKSTOP_GRACE_MS, request.signal, () => this.kill());
      const keep = maxOutputBytes + MARKER_BYTES;
      const execution: Execution = {
        out: new StreamCapture(keep),
        err: new StreamCapture(keep),
        stopSent: false,
        started: false,
        report: null,
        check: () => {
          const report = execution.report;
          if (report === null) return;
          if (execution.out.endsWith(report.marker) && execution.err.endsWith(report.marker))
            execution.end(report);
        },
        end: (report, outside) => {
          if (this.execution !== execution) return;
          this.execution = null;
          deadline.dispose();
          const { timedOut, cancelled } = deadline;
          const wallTime = Math.round(performance.now() - begun);
          if (report === null && outside !== undefined && !cancelled) {
            reject(unavailable(outside));
            return;
          }
          if (report === null && !execution.started && !cancelled && !timedOut) {
            reject(
              unavailable(`the sandbox died before the program started: ${this.program.stderr().trim()}`),
            );
            return;
          }
          // As the plain backend: both streams share the cap (stdout's bytes first here: the order the
          // bytes were written across the two pipes is not known).
          const outBytes = execution.out.programBytes(report !== null);
          const errBytes = execution.err.programBytes(report !== null);
          const truncated = outBytes + errBytes > maxOutputBytes;
          const keptOut = Math.min(outBytes, maxOutputBytes);
          const keptErr = Math.min(errBytes, maxOutputBytes - keptOut);
          const exitCode = report?.exit ?? null;
          const signal = report === null ? "SIGKILL" : signalName(report.signal);
          const stderr = execution.err.text(keptErr);
          const killed = report === null || report.timedOut || truncated;
          // Past the run's whole memory (the cgroup) the kernel kills a process of it: out of memory.
          const oomKilled = (bounds?.oomKills() ?? 0) > oomKillsBefore;
          resolve({
            exitCode,
            signal,
            stdout: execution.out.text(keptOut),
            stderr,
            timedOut: (timedOut || report?.timedOut === true) && !cancelled,
            ...(report?.cpuExceeded === true && !cancelled ? { cpuLimitExceeded: true } : {}),
            ...(report?.idleExceeded === true && !cancelled ? { idleLimitExceeded: true } : {}),
            memoryExceeded:
              (exitCode !== 0 && !killed && stderrShowsOutOfMemory(stderr)) || (oomKilled && !cancelled),
            outputTruncated: truncated,
            wallTimeMs: wallTime,
            // The fork server's getrusage once the run's every process was reaped (absent: it died).
            ...(report?.cpuMs != null ? { cpuTimeMs: Math.round(report.cpuMs) } : {}),
            ...(report?.idleMs != null ? { idleTimeMs: Math.round(report.idleMs) } : {}),
            cancelled,
          });
        },
      };
      this.execution = execution;
      this.maxOutputBytes = maxOutputBytes;
      if (request.signal?.aborted) {
        deadline.cancel();
        return;
      }
      this.program.controlIn.write(encodeRequest(withoutHarnessBytecode(request)));
    });
  }

  /** The current run's output cap. */
  private maxOutputBytes = 0;

  private onOutput(stream: "out" | "err", chunk: Buffer): void {
    const execution = this.execution;
    if (execution === null) return;
    execution[stream].add(chunk);
    // More than the cap plus both markers is certainly the program's: stop it now rather than at the
    // deadline. (A stop request that arrives after the run ended is ignored by the fork server.)
    const received = execution.out.received + execution.err.received;
    if (!execution.stopSent && received > this.maxOutputBytes + 2 * MARKER_BYTES) {
      execution.stopSent = true;
      this.program.controlIn.write(STOP_FRAME);
    }
    execution.check();
  }

  private onControl(chunk: Buffer): void {
    if (this.dead) return;
    const frames = this.reader.push(chunk);
    if (frames instanceof ProtocolViolation) {
      this.broken(frames);
      return;
    }
    for (const frame of frames) {
      const violation = this.onFrame(frame);
      if (violation !== null) {
        this.broken(violation);
        return;
      }
    }
  }

  /** One frame, in the protocol's order: R once; then, only while a run lasts, S, then X. */
  private onFrame(frame: Frame): ProtocolViolation | null {
    if (!this.ready) {
      if (frame.kind !== "R") return new ProtocolViolation(`a ${describe(frame)} before the ready report`);
      const ready = parseReady(frame);
      if (ready instanceof ProtocolViolation) return ready;
      this.ready = true;
      this.info = {
        rssBytes: ready.rss,
        vmBytes: ready.vm,
        creditBytes: ready.credit,
        preloadMs: Math.round(ready.preloadMs),
      };
      this.settleStart?.();
      return null;
    }
    const execution = this.execution;
    if (execution === null || execution.report !== null) {
      return new ProtocolViolation(`a ${describe(frame)} with no run going on`);
    }
    if (frame.kind === "S" && !execution.started) {
      const violation = parseStarted(frame);
      if (violation !== null) return violation;
      execution.started = true;
      return null;
    }
    if (frame.kind === "X" && execution.started) {
      const report = parseEnd(frame);
      if (report instanceof ProtocolViolation) return report;
      // An unclean sandbox is not reused: the fork server exits after this report.
      if (!report.clean) this.dead = true;
      execution.report = report;
      execution.check();
      return null;
    }
    return new ProtocolViolation(`a ${describe(frame)} out of order`);
  }

  /**
   * The fork server sent what it never sends: whatever is in that sandbox is not to be trusted. It is
   * killed; a start or run waiting on it fails with `Unavailable` (INFRA_ERROR for that run only, on a
   * fresh sandbox next time), never with an exception in this process.
   */
  private broken(violation: ProtocolViolation): void {
    const reason = `broke the protocol: ${violation.reason}`;
    this.kill();
    this.settleStart?.(unavailable(reason));
    this.execution?.end(null, reason);
  }

  private onExit(outside?: string): void {
    this.dead = true;
    this.execution?.end(
      null,
      outside === undefined ? undefined : `the sandbox ended from outside during the run: ${outside}`,
    );
  }
}

function describe(frame: Frame): string {
  const kind = /^[A-Z]$/.test(frame.kind) ? frame.kind : `0x${frame.kind.charCodeAt(0).toString(16)}`;
  return `${kind} frame`;
}

/**
 * `request` as the fork server needs it: a run of exactly {@link HARNESS_LOADER} executes the server's
 * own compiled harness (forkserver.py, "The harness"), never the bytecode file the loader would read,
 * so that file (~270 kB of base64) is not sent, copied into the request's mapping and written to the
 * scratch on every run: ~2.5 ms of the server's CPU and ~70 page faults of the fork server's a run
 * (benchmarks/README.md, "End to end"). Any other request goes as it is.
 */
export function withoutHarnessBytecode(request: ExecutionRequest): ExecutionRequest {
  if (request.argv[3] !== HARNESS_LOADER || !Object.hasOwn(request.files, HARNESS_BYTECODE_FILE))
    return request;
  const { [HARNESS_BYTECODE_FILE]: _bytecode, ...files } = request.files;
  return { ...request, files };
}
