/**
 * The fork server's control protocol read as hostile input (src/sandbox/fork-server-protocol.ts and the
 * ForkServer that uses it): whatever bytes come out of a sandbox — malformed, out of order, oversized,
 * random — cost at most that sandbox (killed, the run in it an infrastructure fault) and never an
 * exception in the scoring process. A fuzz test drives a real ForkServer over in-memory streams with
 * thousands of seeded random byte sequences, and targeted cases pin each rule.
 */
import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { seededRandom } from "../../src/core/corruption/engine.js";
import { ErrorCode, isMineditError } from "../../src/errors.js";
import { ForkServer, type ForkServerHost } from "../../src/sandbox/fork-server.js";
import {
  encodeFrame,
  FrameReader,
  MARKER_BYTES,
  MAX_REPLY_BYTES,
  ProtocolViolation,
  parseEnd,
  parseReady,
  parseStarted,
} from "../../src/sandbox/fork-server-protocol.js";
import type { LaunchedProgram } from "../../src/sandbox/launched-program.js";
import { runtimeNamed } from "../../src/sandbox/runtimes.js";
import { DEFAULT_LIMITS, type ExecutionResult } from "../../src/sandbox/sandbox.js";

const json = (kind: string, value: unknown) => encodeFrame(kind, Buffer.from(JSON.stringify(value), "utf8"));
const READY = json("R", { pid: 2, python: "3.11.2", rss: 1, vm: 2, credit: 0, preload_ms: 3 });
const STARTED = json("S", { pid: 7 });
const MARKER = Buffer.alloc(MARKER_BYTES, 0xab);
const end = (fields: Record<string, unknown> = {}) =>
  json("X", {
    exit: 0,
    signal: null,
    timed_out: false,
    cpu_exceeded: false,
    idle_exceeded: false,
    wall_ms: 5,
    cpu_ms: 4,
    idle_ms: 0,
    clean: true,
    problem: "",
    marker: MARKER.toString("hex"),
    ...fields,
  });

/** A fork server's sandbox in memory: what the server side writes, and a way to answer as the sandbox. */
function fakeSandbox() {
  const controlIn = new PassThrough();
  const controlOut = new PassThrough();
  const outputs = [new PassThrough(), new PassThrough()];
  let killed = 0;
  let exit: (value: { code: number | null; signal: string | null; started: boolean }) => void = () => {};
  const exited = new Promise<{ code: number | null; signal: string | null; started: boolean }>((resolve) => {
    exit = resolve;
  });
  const written: Buffer[] = [];
  controlIn.on("data", (chunk: Buffer) => written.push(chunk));
  const program: LaunchedProgram = {
    controlIn,
    controlOut,
    outputs,
    exited,
    stderr: () => "",
    kill: () => {
      killed++;
      exit({ code: null, signal: "SIGKILL", started: true });
    },
  };
  const host: ForkServerHost = {
    launchForkServer: () => program,
    runtime: async (name) => runtimeNamed(name),
  };
  return {
    host,
    send: (bytes: Buffer) => controlOut.write(bytes),
    output: (stream: 0 | 1, bytes: Buffer) => (outputs[stream] as PassThrough).write(bytes),
    killed: () => killed,
    written,
  };
}

const start = (host: ForkServerHost) =>
  ForkServer.start(host, "source", "harness", [], runtimeNamed("stdlib"));
const REQUEST = {
  files: {},
  argv: ["python3", "-s", "-c", "pass"],
  limits: { ...DEFAULT_LIMITS, wallTimeMs: 60_000 },
};
/** Lets the streams deliver what was written. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

async function readyServer() {
  const sandbox = fakeSandbox();
  const started = start(sandbox.host);
  sandbox.send(READY);
  return { sandbox, server: await started };
}

function expectUnavailable(error: unknown, fragment: string): void {
  expect(isMineditError(error) && error.code === ErrorCode.Unavailable, String(error)).toBe(true);
  expect(String(error)).toContain(fragment);
}

describe("the frame reader", () => {
  test("the same frames however the bytes are cut", () => {
    const random = seededRandom("frames");
    const stream = Buffer.concat([READY, STARTED, end(), encodeFrame("S", Buffer.alloc(0))]);
    for (let round = 0; round < 200; round++) {
      const reader = new FrameReader();
      const frames = [];
      for (let at = 0; at < stream.length; ) {
        const size = 1 + Math.floor(random() * 40);
        const got = reader.push(stream.subarray(at, at + size));
        expect(got).not.toBeInstanceOf(ProtocolViolation);
        frames.push(...(got as { kind: string; payload: Buffer }[]));
        at += size;
      }
      expect(frames.map((f) => f.kind).join("")).toBe("RSXS");
      expect(frames[2]?.payload.equals(end().subarray(5))).toBe(true);
    }
  });

  test("a frame longer than the fork server ever sends is a violation, and stays one", () => {
    const reader = new FrameReader();
    const header = Buffer.alloc(5);
    header.write("X", 0, "latin1");
    header.writeUInt32BE(MAX_REPLY_BYTES + 1, 1);
    expect(reader.push(header)).toBeInstanceOf(ProtocolViolation);
    expect(reader.push(READY)).toBeInstanceOf(ProtocolViolation);
  });
});

describe("the reports' shapes", () => {
  const frame = (kind: string, text: string) => ({ kind, payload: Buffer.from(text, "utf8") });

  test("well-formed reports parse", () => {
    expect(parseReady(frame("R", READY.subarray(5).toString()))).toEqual({
      rss: 1,
      vm: 2,
      credit: 0,
      preloadMs: 3,
    });
    expect(parseStarted(frame("S", '{"pid": 7}'))).toBeNull();
    const report = parseEnd(frame("X", end({ exit: null, signal: 9, cpu_ms: null }).subarray(5).toString()));
    expect(report).toMatchObject({ exit: null, signal: 9, cpuMs: null, clean: true });
  });

  test.each([
    ["not JSON", "{"],
    ["an array", "[1]"],
    ["null", "null"],
    ["a string", '"x"'],
    [
      "no marker",
      JSON.stringify({
        exit: 0,
        signal: null,
        timed_out: false,
        cpu_exceeded: false,
        idle_exceeded: false,
        clean: true,
      }),
    ],
  ])("an end report that is %s is a violation", (_what, text) => {
    expect(parseEnd(frame("X", text))).toBeInstanceOf(ProtocolViolation);
  });

  test.each([
    ["a short marker", { marker: "ab" }],
    ["an upper-case marker", { marker: MARKER.toString("hex").toUpperCase() }],
    ["a marker that is not hex", { marker: "z".repeat(64) }],
    ["a fractional exit", { exit: 0.5 }],
    ["a string signal", { signal: "9" }],
    ["a clean flag that is not boolean", { clean: 1 }],
    ["a negative CPU time", { cpu_ms: -1 }],
    ["an infinite-looking CPU time", { cpu_ms: "1e999" }],
    ["a problem that is not text", { problem: 3 }],
  ])("an end report with %s is a violation", (_what, fields) => {
    expect(parseEnd(frame("X", end(fields).subarray(5).toString()))).toBeInstanceOf(ProtocolViolation);
  });

  test("ready and start reports without their fields are violations", () => {
    expect(parseReady(frame("R", '{"rss": 1}'))).toBeInstanceOf(ProtocolViolation);
    expect(parseReady(frame("R", '{"rss": -1, "vm": 1, "credit": 0, "preload_ms": 0}'))).toBeInstanceOf(
      ProtocolViolation,
    );
    expect(parseStarted(frame("S", "{}"))).toBeInstanceOf(ProtocolViolation);
    expect(parseStarted(frame("S", '{"pid": 0}'))).toBeInstanceOf(ProtocolViolation);
  });
});

describe("a fork server that breaks the protocol costs its sandbox, nothing else", () => {
  test("a well-behaved exchange runs the program", async () => {
    const { sandbox, server } = await readyServer();
    const run = server.execute(REQUEST);
    await flush();
    expect(Buffer.concat(sandbox.written).subarray(0, 1).toString()).toBe("Q");
    sandbox.send(STARTED);
    sandbox.output(0, Buffer.concat([Buffer.from("hello"), MARKER]));
    sandbox.output(1, MARKER);
    sandbox.send(end());
    const result: ExecutionResult = await run;
    expect(result).toMatchObject({ exitCode: 0, stdout: "hello", stderr: "", cpuTimeMs: 4 });
    expect(server.alive).toBe(true);
    expect(sandbox.killed()).toBe(0);
  });

  test("garbage before the ready report: the start fails, the sandbox is killed", async () => {
    const sandbox = fakeSandbox();
    const started = start(sandbox.host);
    sandbox.send(encodeFrame("R", Buffer.from("{not json")));
    await expect(started).rejects.toSatisfy((e) => {
      expectUnavailable(e, "broke the protocol");
      return true;
    });
    expect(sandbox.killed()).toBe(1);
  });

  test.each([
    ["a second ready report", () => READY],
    ["a start report with no run", () => STARTED],
    ["an end report with no run", () => end()],
    ["a frame of an unknown kind", () => encodeFrame("Z", Buffer.alloc(0))],
    ["a stop frame (only the server sends those)", () => encodeFrame("K", Buffer.alloc(0))],
  ])("between runs, %s: the server is dead, the next run is not attempted there", async (_what, bytes) => {
    const { sandbox, server } = await readyServer();
    sandbox.send(bytes());
    await flush();
    expect(server.alive).toBe(false);
    expect(sandbox.killed()).toBe(1);
    await expect(server.execute(REQUEST)).rejects.toSatisfy((e) => {
      expectUnavailable(e, "gone");
      return true;
    });
  });

  test.each([
    ["an end report before the start", [() => end()]],
    ["a second start report", [() => STARTED, () => STARTED]],
    ["an end report that is not JSON", [() => STARTED, () => encodeFrame("X", Buffer.from("]["))]],
    ["an end report without its marker", [() => STARTED, () => end({ marker: undefined })]],
    ["an end report after the end report", [() => STARTED, () => end(), () => end()]],
    ["a ready report during the run", [() => STARTED, () => READY]],
    ["an oversized frame", [() => STARTED, () => Buffer.from([0x58, 0xff, 0xff, 0xff, 0xff])]],
  ])(
    "during a run, %s: that run is an infrastructure fault, the sandbox is killed",
    async (_what, frames) => {
      const { sandbox, server } = await readyServer();
      const run = server.execute(REQUEST);
      for (const bytes of frames) sandbox.send(bytes());
      await expect(run).rejects.toSatisfy((e) => {
        expectUnavailable(e, "broke the protocol");
        return true;
      });
      expect(server.alive).toBe(false);
      expect(sandbox.killed()).toBeGreaterThanOrEqual(1);
    },
  );

  test("fuzz: 3,000 random replies never throw; each run ends as a result or as Unavailable", async () => {
    const random = seededRandom("fork-server-fuzz");
    const pieces = [
      READY,
      STARTED,
      end(),
      end({ clean: false, problem: "x" }),
      encodeFrame("X", Buffer.from("{")),
    ];
    const unhandled: unknown[] = [];
    const onError = (e: unknown) => unhandled.push(e);
    process.on("uncaughtException", onError);
    process.on("unhandledRejection", onError);
    let results = 0;
    let faults = 0;
    try {
      for (let round = 0; round < 3_000; round++) {
        const { sandbox, server } = await readyServer();
        // Settled into a value at once: the test's own pending rejection must not count as unhandled.
        const run = server.execute({ ...REQUEST, limits: { ...REQUEST.limits, wallTimeMs: 200 } }).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
        // A random mix of valid frames, cut frames, random bytes and random frame headers.
        const parts: Buffer[] = [];
        for (let n = 1 + Math.floor(random() * 5); n > 0; n--) {
          const choice = random();
          if (choice < 0.35) parts.push(pieces[Math.floor(random() * pieces.length)] as Buffer);
          else if (choice < 0.55) {
            const piece = pieces[Math.floor(random() * pieces.length)] as Buffer;
            parts.push(piece.subarray(0, Math.floor(random() * piece.length)));
          } else if (choice < 0.8) {
            parts.push(
              Buffer.from(
                Array.from({ length: Math.floor(random() * 24) }, () => Math.floor(random() * 256)),
              ),
            );
          } else {
            const body = Buffer.from(
              Array.from({ length: Math.floor(random() * 16) }, () => Math.floor(random() * 256)),
            );
            parts.push(encodeFrame(String.fromCharCode(Math.floor(random() * 128)), body));
          }
        }
        for (const part of parts) sandbox.send(part);
        sandbox.output(0, MARKER);
        sandbox.output(1, MARKER);
        await flush();
        // Whatever the bytes did, the run settles: by its report, by a violation, or at its deadline.
        if (server.alive && sandbox.killed() === 0) server.kill();
        const outcome = await run;
        if ("result" in outcome) results++;
        else {
          const { error } = outcome;
          expect(isMineditError(error) && error.code === ErrorCode.Unavailable, String(error)).toBe(true);
          faults++;
        }
      }
    } finally {
      process.off("uncaughtException", onError);
      process.off("unhandledRejection", onError);
    }
    expect(unhandled).toEqual([]);
    expect(results + faults).toBe(3_000);
    // Both outcomes occur (the generator is not degenerate).
    expect(results).toBeGreaterThan(0);
    expect(faults).toBeGreaterThan(0);
  });
});
