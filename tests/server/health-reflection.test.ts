/**
 * The standard services next to RewardService, over a real server and client: grpc.health.v1.Health
 * (Check, List, Watch) and server reflection (v1 and v1alpha), which is what grpcurl uses to list and
 * call methods without .proto files.
 */
import { create, fromBinary } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { type ClientReadableStream, Metadata, type MethodDefinition, status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import {
  Health,
  HealthCheckRequestSchema,
  type HealthCheckResponse,
  HealthListRequestSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "../../src/gen/grpc/health/v1/health_pb.js";
import { grpcServiceDefinition } from "../../src/server/service-definition.js";
import {
  callError,
  ReversingFakeScorer,
  startTestServer,
  stopTestServer,
  type TestServer,
  unary,
} from "./harness.js";

const health = grpcServiceDefinition(Health);

let t: TestServer | undefined;
afterEach(async () => {
  await stopTestServer(t);
  t = undefined;
});

function check(service: string) {
  if (t === undefined) throw new Error("no server");
  return unary(t.client, health.check, create(HealthCheckRequestSchema, { service }));
}

function watch(service: string): ClientReadableStream<HealthCheckResponse> {
  if (t === undefined) throw new Error("no server");
  const m = health.watch;
  return t.client.makeServerStreamRequest(
    m.path,
    m.requestSerialize,
    m.responseDeserialize,
    create(HealthCheckRequestSchema, { service }),
    new Metadata(),
    {},
  );
}

describe("grpc.health.v1.Health", () => {
  it("Check reports SERVING for the server and RewardService, NOT_FOUND for others", async () => {
    t = await startTestServer(new ReversingFakeScorer());
    expect((await check("")).status).toBe(ServingStatus.SERVING);
    expect((await check("minedit.v1.RewardService")).status).toBe(ServingStatus.SERVING);
    const error = await callError(check("minedit.v1.Nope"));
    expect(error.code).toBe(status.NOT_FOUND);
    expect(error.details).toBe('unknown service "minedit.v1.Nope"');
  });

  it("List reports every service", async () => {
    t = await startTestServer(new ReversingFakeScorer());
    const list = await unary(t.client, health.list, create(HealthListRequestSchema));
    expect(Object.keys(list.statuses).sort()).toEqual(["", "minedit.v1.RewardService"]);
    expect(list.statuses["minedit.v1.RewardService"]?.status).toBe(ServingStatus.SERVING);
  });

  it("Watch sends the current status, then NOT_SERVING and a clean end when the server closes", async () => {
    t = await startTestServer(new ReversingFakeScorer());
    const stream = watch("minedit.v1.RewardService");
    const seen: ServingStatus[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      stream.on("data", (m: HealthCheckResponse) => seen.push(m.status));
      stream.on("error", reject);
      stream.on("end", resolve);
    });
    const first = await new Promise<HealthCheckResponse>((resolve) => stream.once("data", resolve));
    expect(first.status).toBe(ServingStatus.SERVING);
    // A graceful close must not hang on the open Watch: health ends it.
    await t.server.close();
    await ended;
    expect(seen).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
  });

  it("Watch of an unknown service reports SERVICE_UNKNOWN and stays open", async () => {
    t = await startTestServer(new ReversingFakeScorer());
    const stream = watch("minedit.v1.Nope");
    const first = await new Promise<HealthCheckResponse>((resolve) => stream.once("data", resolve));
    expect(first.status).toBe(ServingStatus.SERVICE_UNKNOWN);
    const cancelled = new Promise<number>((resolve) =>
      stream.on("error", (e: { code: number }) => resolve(e.code)),
    );
    stream.cancel();
    expect(await cancelled).toBe(status.CANCELLED);
  });
});

// ---------------------------------------------------------------------------------------------------
// A minimal reflection client, encoding and decoding reflection.proto's few fields by hand with
// protobuf-es's wire primitives (we generate no code for reflection.proto; the server gets it from
// @grpc/reflection).

/** ServerReflectionRequest with `list_services` (7) or `file_containing_symbol` (4). */
function reflectionRequest(kind: "list" | "symbol", value = ""): Buffer {
  const w = new BinaryWriter();
  w.tag(kind === "list" ? 7 : 4, WireType.LengthDelimited).string(value);
  return Buffer.from(w.finish());
}

/** The length-delimited fields of a message, by field number. */
function fields(bytes: Uint8Array): Map<number, Uint8Array[]> {
  const out = new Map<number, Uint8Array[]>();
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [no, type] = r.tag();
    if (type !== WireType.LengthDelimited) {
      r.skip(type, no);
      continue;
    }
    out.set(no, [...(out.get(no) ?? []), r.bytes()]);
  }
  return out;
}

const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);

function reflectionMethod(version: "v1" | "v1alpha"): MethodDefinition<Buffer, Uint8Array> {
  return {
    path: `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`,
    requestStream: true,
    responseStream: true,
    requestSerialize: (b) => b,
    requestDeserialize: (b) => b,
    responseSerialize: (b) => Buffer.from(b),
    responseDeserialize: (b) => new Uint8Array(b),
  };
}

/** Sends one reflection request and returns the decoded response fields. */
function reflect(version: "v1" | "v1alpha", request: Buffer, metadata = new Metadata()) {
  if (t === undefined) throw new Error("no server");
  const m = reflectionMethod(version);
  const stream = t.client.makeBidiStreamRequest(
    m.path,
    m.requestSerialize,
    m.responseDeserialize,
    metadata,
    {},
  );
  return new Promise<Map<number, Uint8Array[]>>((resolve, reject) => {
    stream.once("data", (bytes: Uint8Array) => {
      resolve(fields(bytes));
      stream.end();
    });
    stream.on("error", reject);
    stream.write(request);
  });
}

async function listServices(version: "v1" | "v1alpha"): Promise<string[]> {
  const response = await reflect(version, reflectionRequest("list"));
  const list = fields(response.get(6)?.[0] ?? new Uint8Array());
  return (list.get(1) ?? []).map((service) => text(fields(service).get(1)?.[0])).sort();
}

// The server registers reflection without loading @grpc/reflection and, on the first call, runs what
// `ReflectionService.addToServer(server: Pick<grpc.Server, 'addService'>)` registers through a stand-in
// server (src/server/reflection.ts). Mirrors grpc/grpc-node at @grpc/reflection@1.0.4 (0ae86b13f0b3):
// packages/grpc-reflection/src/service.ts `addToServer` (v1 then v1alpha) and
// src/implementations/reflection-v1.ts `addToServer` (one bidirectional ServerReflectionInfo; a response
// written per request; the end answered with the end).
describe("server reflection", () => {
  it.each(["v1", "v1alpha"] as const)(
    "%s lists minedit.v1.RewardService and the standard services",
    async (v) => {
      t = await startTestServer(new ReversingFakeScorer());
      const services = await listServices(v);
      expect(services).toContain("minedit.v1.RewardService");
      expect(services).toContain("grpc.health.v1.Health");
    },
  );

  it("answers each request of a stream in order, those sent before the library loaded included", async () => {
    // A new server loads @grpc/reflection on its first reflection call: these arrive before it is ready.
    t = await startTestServer(new ReversingFakeScorer());
    const m = reflectionMethod("v1alpha");
    const stream = t.client.makeBidiStreamRequest(
      m.path,
      m.requestSerialize,
      m.responseDeserialize,
      new Metadata(),
      {},
    );
    const answers: Map<number, Uint8Array[]>[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      stream.on("data", (bytes: Uint8Array) => answers.push(fields(bytes)));
      stream.on("end", resolve);
      stream.on("error", reject);
    });
    stream.write(reflectionRequest("list"));
    stream.write(reflectionRequest("symbol", "minedit.v1.RewardService"));
    stream.write(reflectionRequest("symbol", "no.such.Symbol"));
    stream.end();
    await ended;
    // ServerReflectionResponse: file_descriptor_response 4, list_services_response 6, error_response 7.
    expect(answers.map((fieldsOf) => [...fieldsOf.keys()].filter((no) => no >= 4))).toEqual([[6], [4], [7]]);
  });

  it("serves the descriptor of RewardService, with both methods and their stream flags", async () => {
    t = await startTestServer(new ReversingFakeScorer());
    const response = await reflect("v1", reflectionRequest("symbol", "minedit.v1.RewardService"));
    const descriptors = fields(response.get(4)?.[0] ?? new Uint8Array()).get(1) ?? [];
    const files = descriptors.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
    const file = files.find((f) => f.name === "minedit/v1/reward.proto");
    expect(file?.package).toBe("minedit.v1");
    const service = file?.service.find((s) => s.name === "RewardService");
    expect(service?.method.map((m) => [m.name, m.inputType, m.clientStreaming, m.serverStreaming])).toEqual([
      ["ScoreBatch", ".minedit.v1.ScoreBatchRequest", false, false],
      ["ScoreStream", ".minedit.v1.ScoreStreamRequest", true, true],
    ]);
    // proto3 `optional` survives (reward must be absent, not 0, for INFRA_ERROR).
    const result = file?.messageType.find((m) => m.name === "RolloutResult");
    expect(result?.field.find((f) => f.name === "reward")?.proto3Optional).toBe(true);
  });
});
