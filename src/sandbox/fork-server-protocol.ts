/**
 * The wire protocol between fork-server.ts and sandbox/python/forkserver.py (whose docstring is the
 * reference): frames of 1 byte kind, 4 bytes big-endian length, payload. This side sends `Q` (run) and `K`
 * (stop); the fork server answers `R` (ready) once, then `S` (started) and `X` (end) for each `Q`.
 *
 * Everything here reads bytes that come out of a sandbox, so nothing here trusts them: a frame that is
 * too long, of an unknown kind, not JSON, not the shape its kind has, or out of order is a
 * {@link ProtocolViolation} — the caller treats the sandbox as broken (kills it, the run in it becomes an
 * infrastructure fault) and never lets it become an exception in the scoring process. Pure: no I/O, so
 * tests/unit/fork-server-protocol.test.ts fuzzes it.
 */
import type { ExecutionRequest } from "./sandbox.js";

const FRAME_HEADER_BYTES = 5;
/**
 * The largest frame the fork server sends. Its frames are a few hundred bytes of JSON (the end report is
 * the longest: a clean-up problem is one short sentence), so anything near this is not the fork server.
 */
export const MAX_REPLY_BYTES = 64 * 1024;
/** The end-of-run marker's length in bytes (see the fork server): its hex is in the end report. */
export const MARKER_BYTES = 32;

/** What the fork server sent that it never sends: the sandbox is not to be trusted any more. */
export class ProtocolViolation {
  constructor(readonly reason: string) {}
}

export type Frame = { kind: string; payload: Buffer };

/**
 * Splits the fork server's replies into frames. `push` takes the next chunk and returns the frames it
 * completed, or a {@link ProtocolViolation} for a frame longer than {@link MAX_REPLY_BYTES} (after which
 * the reader is stuck: everything later is the same violation).
 */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private violation: ProtocolViolation | null = null;

  push(chunk: Buffer): Frame[] | ProtocolViolation {
    if (this.violation !== null) return this.violation;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const frames: Frame[] = [];
    while (this.buffer.length >= FRAME_HEADER_BYTES) {
      const size = this.buffer.readUInt32BE(1);
      if (size > MAX_REPLY_BYTES) {
        this.violation = new ProtocolViolation(`a frame of ${size} bytes (at most ${MAX_REPLY_BYTES})`);
        this.buffer = Buffer.alloc(0);
        return this.violation;
      }
      if (this.buffer.length < FRAME_HEADER_BYTES + size) break;
      const kind = String.fromCharCode(this.buffer[0] as number);
      frames.push({
        kind,
        payload: Buffer.from(this.buffer.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + size)),
      });
      this.buffer = this.buffer.subarray(FRAME_HEADER_BYTES + size);
    }
    return frames;
  }
}

/** What the fork server reports when it has come up (`R`). */
export type ReadyReport = { rss: number; vm: number; credit: number; preloadMs: number };

/** What the fork server reports once a run's processes are gone and the sandbox cleaned (`X`). */
export type EndReport = {
  exit: number | null;
  signal: number | null;
  timedOut: boolean;
  cpuExceeded: boolean;
  idleExceeded: boolean;
  cpuMs: number | null;
  idleMs: number | null;
  /** False: the sandbox could not be made clean again (`problem` says why); it is not reused. */
  clean: boolean;
  problem: string;
  /** The end-of-run marker that ends both output streams. */
  marker: Buffer;
};

function jsonObject(frame: Frame): Record<string, unknown> | ProtocolViolation {
  let value: unknown;
  try {
    value = JSON.parse(frame.payload.toString("utf8"));
  } catch {
    return new ProtocolViolation(`a ${frame.kind} frame that is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return new ProtocolViolation(`a ${frame.kind} frame that is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

export function parseReady(frame: Frame): ReadyReport | ProtocolViolation {
  const o = jsonObject(frame);
  if (o instanceof ProtocolViolation) return o;
  const { rss, vm, credit, preload_ms } = o;
  if (!isCount(rss) || !isCount(vm) || !isCount(credit) || !isCount(preload_ms)) {
    return new ProtocolViolation("a ready report without its sizes");
  }
  return { rss, vm, credit, preloadMs: preload_ms };
}

export function parseStarted(frame: Frame): ProtocolViolation | null {
  const o = jsonObject(frame);
  if (o instanceof ProtocolViolation) return o;
  return isInt(o.pid) && o.pid > 0 ? null : new ProtocolViolation("a start report without a pid");
}

export function parseEnd(frame: Frame): EndReport | ProtocolViolation {
  const o = jsonObject(frame);
  if (o instanceof ProtocolViolation) return o;
  const bad = (what: string) => new ProtocolViolation(`an end report with ${what}`);
  if (typeof o.marker !== "string" || !/^[0-9a-f]+$/.test(o.marker) || o.marker.length !== 2 * MARKER_BYTES) {
    return bad("no marker");
  }
  if (!(o.exit === null || isInt(o.exit)) || !(o.signal === null || isInt(o.signal))) {
    return bad("no exit status");
  }
  for (const flag of ["timed_out", "cpu_exceeded", "idle_exceeded", "clean"] as const) {
    if (typeof o[flag] !== "boolean") return bad(`no ${flag}`);
  }
  for (const time of ["cpu_ms", "idle_ms"] as const) {
    if (!(o[time] === null || o[time] === undefined || isCount(o[time]))) return bad(`a bad ${time}`);
  }
  if (!(o.problem === undefined || typeof o.problem === "string")) return bad("a bad problem");
  return {
    exit: o.exit,
    signal: o.signal,
    timedOut: o.timed_out === true,
    cpuExceeded: o.cpu_exceeded === true,
    idleExceeded: o.idle_exceeded === true,
    cpuMs: isCount(o.cpu_ms) ? o.cpu_ms : null,
    idleMs: isCount(o.idle_ms) ? o.idle_ms : null,
    clean: o.clean === true,
    problem: typeof o.problem === "string" ? o.problem : "",
    marker: Buffer.from(o.marker, "hex"),
  };
}

export function encodeFrame(kind: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.write(kind, 0, "latin1");
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** The request as the fork server reads it (`Q`): a JSON header, then the files' and stdin's bytes. */
export function encodeRequest(request: ExecutionRequest): Buffer {
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
  return encodeFrame("Q", Buffer.concat([headerSize, header, ...files.map(([, bytes]) => bytes), stdin]));
}

/** The stop request (`K`): the running program wrote more than the server keeps. */
export const STOP_FRAME = encodeFrame("K", Buffer.alloc(0));
