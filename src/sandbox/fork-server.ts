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
import { type LaunchedProgram, stderrShowsOutOfMemory } from "./bwrap.js";
import { RunDeadline } from "./run-deadline.js";
import type { Runtime, RuntimeName } from "./runtimes.js";
import type { ExecutionRequest, ExecutionResult } from "./sandbox.js";

/** How long the fork server may take to start and import its modules (a runtime's take a few seconds). */
const START_TIMEOUT_MS = 60_000;
/**
 * The fork server enforces the wall limit itself and reports; this side kills the whole sandbox only if
 * no report came this long after the limit (the fork server was stopped or is stuck in its clean-up).
 */
const BACKSTOP_GRACE_MS = 1_000;
const FRAME_HEADER_BYTES = 5;

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

type Frame = { kind: string; payload: Buffer };

/** Splits the fork server's stdout into frames: 1 byte kind, 4 bytes big-endian length, payload. */
class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(stream: Readable, onFrame: (frame: Frame) => void) {
    stream.on("data", (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      while (this.buffer.length >= FRAME_HEADER_BYTES) {
        const size = this.buffer.readUInt32BE(1);
        if (this.buffer.length < FRAME_HEADER_BYTES + size) break;
        const kind = String.fromCharCode(this.buffer[0] as number);
        const payload = this.buffer.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + size);
        this.buffer = this.buffer.subarray(FRAME_HEADER_BYTES + size);
        onFrame({ kind, payload });
      }
    });
  }
}

/** The request as the fork server reads it: a JSON header, then the files' and stdin's bytes. */
function encodeRequest(request: ExecutionRequest): Buffer {
  const files = Object.entries(request.files).map(
    ([path, text]) => [path, Buffer.from(text, "utf8")] as const,
  );
  const stdin = Buffer.from(request.stdin ?? "", "utf8");
  const { wallTimeMs, cpuTimeMs, idleTimeMs, memoryBytes, maxProcesses, maxFileBytes } = request.limits;
  const header = Buffer.from(
    JSON.stringify({
      files: files.map(([path, bytes]) => [path, bytes.length]),
      argv: request.argv,
      stdin: stdin.length,
      limits: {
        wall_ms: wallTimeMs,
        memory: memoryBytes,
        nproc: maxProcesses,
        fsize: maxFileBytes,
        ...(cpuTimeMs === undefined ? {} : { cpu_ms: cpuTimeMs }),
        ...(idleTimeMs === undefined ? {} : { idle_ms: idleTimeMs }),
      },
    }),
    "utf8",
  );
  const headerSize = Buffer.alloc(4);
  headerSize.writeUInt32BE(header.length);
  return frame("Q", Buffer.concat([headerSize, header, ...files.map(([, bytes]) => bytes), stdin]));
}

function frame(kind: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.write(kind, 0, "latin1");
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** The end-of-run marker's length in bytes (see the fork server). */
const MARKER_BYTES = 32;

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
  report: Record<string, unknown> | null;
  /** Finishes the run when the report and both streams' markers are in. */
  check: () => void;
  /**
   * Finishes the run; `null`: the sandbox died or was killed first (`outside`: not by this side nor by
   * the program, see LaunchedProgram.exited).
   */
  end: (report: Record<string, unknown> | null, outside?: string) => void;
};

/**
 * A sandbox backend that can host fork servers (bwrap.ts, docker.ts): it starts sandbox/python/forkserver.py
 * with `settings` in a sandbox of its own with `runtime`'s libraries, hands it the harness source and the
 * output channels its way, and returns the running program (its stdin and stdout the control channel,
 * `outputs` the runs' stdout and stderr).
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

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export class ForkServer {
  private execution: Execution | null = null;
  private dead = false;
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
    const settings = JSON.stringify({ preload, runtime: runtime.preload, dirs: runtime.scratchDirs });
    const program = base.launchForkServer(source, harness, settings, runtime);
    const server = new ForkServer(program);
    const [out, err] = program.outputs as [Readable, Readable];
    out.on("data", (chunk: Buffer) => server.onOutput("out", chunk));
    err.on("data", (chunk: Buffer) => server.onOutput("err", chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        program.kill();
        reject(unavailable(`did not start within ${START_TIMEOUT_MS} ms: ${program.stderr().trim()}`));
      }, START_TIMEOUT_MS);
      new FrameReader(program.stdout, (frame) => {
        if (frame.kind === "R") {
          clearTimeout(timer);
          const ready = JSON.parse(frame.payload.toString("utf8")) as Record<string, unknown>;
          server.info = {
            rssBytes: num(ready.rss),
            vmBytes: num(ready.vm),
            creditBytes: num(ready.credit),
            preloadMs: Math.round(num(ready.preload_ms)),
          };
          resolve();
        } else {
          server.onFrame(frame);
        }
      });
      void program.exited.then(({ code, signal, outside }) => {
        clearTimeout(timer);
        server.onExit(outside);
        reject(
          unavailable(`exited during start-up (code ${code}, signal ${signal}): ${program.stderr().trim()}`),
        );
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
   * started (the caller may retry on another server).
   */
  execute(request: ExecutionRequest): Promise<ExecutionResult> {
    if (this.dead) return Promise.reject(unavailable("the sandbox is gone"));
    if (this.execution !== null) return Promise.reject(unavailable("already running a program"));
    const begun = performance.now();
    const { wallTimeMs, maxOutputBytes } = request.limits;
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
          if (report === null || typeof report.marker !== "string") return;
          const marker = Buffer.from(report.marker, "hex");
          if (execution.out.endsWith(marker) && execution.err.endsWith(marker)) execution.end(report);
        },
        end: (report, outside) => {
          if (this.execution !== execution) return;
          this.execution = null;
          deadline.dispose();
          const { timedOut, cancelled } = deadline;
          const wallTime = Math.round(performance.now() - begun);
          if (report === null && outside !== undefined && !cancelled) {
            reject(unavailable(`the sandbox ended from outside during the run: ${outside}`));
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
          const exitCode = typeof report?.exit === "number" ? report.exit : null;
          const signal =
            report === null
              ? "SIGKILL"
              : signalName(typeof report.signal === "number" ? report.signal : null);
          const stderr = execution.err.text(keptErr);
          const killed = report === null || report.timed_out === true || truncated;
          resolve({
            exitCode,
            signal,
            stdout: execution.out.text(keptOut),
            stderr,
            timedOut: (timedOut || report?.timed_out === true) && !cancelled,
            ...(report?.cpu_exceeded === true && !cancelled ? { cpuLimitExceeded: true } : {}),
            ...(report?.idle_exceeded === true && !cancelled ? { idleLimitExceeded: true } : {}),
            memoryExceeded: exitCode !== 0 && !killed && stderrShowsOutOfMemory(stderr),
            outputTruncated: truncated,
            wallTimeMs: wallTime,
            // The fork server's getrusage once the run's every process was reaped (absent: it died).
            ...(typeof report?.cpu_ms === "number" ? { cpuTimeMs: Math.round(report.cpu_ms) } : {}),
            ...(typeof report?.idle_ms === "number" ? { idleTimeMs: Math.round(report.idle_ms) } : {}),
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
      this.program.stdin.write(encodeRequest(request));
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
      this.program.stdin.write(frame("K", Buffer.alloc(0)));
    }
    execution.check();
  }

  private onFrame(frame: Frame): void {
    const execution = this.execution;
    if (execution === null) return;
    switch (frame.kind) {
      case "C": {
        // The run's own output channel (Docker: an exec whose pipes the fork server takes over).
        const { socket } = JSON.parse(frame.payload.toString("utf8")) as { socket?: unknown };
        if (this.program.connect === undefined || typeof socket !== "string") {
          this.kill();
          break;
        }
        this.program.connect(socket);
        break;
      }
      case "S":
        execution.started = true;
        break;
      case "X": {
        const report = JSON.parse(frame.payload.toString("utf8")) as Record<string, unknown>;
        // An unclean sandbox is not reused: the fork server exits after this report.
        if (report.clean !== true) this.dead = true;
        execution.report = report;
        execution.check();
        break;
      }
      default:
        this.kill();
    }
  }

  private onExit(outside?: string): void {
    this.dead = true;
    this.execution?.end(null, outside);
  }
}
