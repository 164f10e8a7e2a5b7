/**
 * Bearer-token auth and TLS over a real server and client. The TLS certificate is a throwaway
 * self-signed one made with the system's openssl for this test run.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { credentials, Metadata, status } from "@grpc/grpc-js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode, isMineditError } from "../../src/errors.js";
import { Health, HealthCheckRequestSchema } from "../../src/gen/grpc/health/v1/health_pb.js";
import { startServer } from "../../src/server/server.js";
import { grpcServiceDefinition } from "../../src/server/service-definition.js";
import {
  callError,
  ReversingFakeScorer,
  scoreBatch,
  selfSignedCertificate,
  startTestServer,
  stopTestServer,
  storedRollout,
  type TestServer,
  testConfig,
  unary,
} from "./harness.js";

let t: TestServer | undefined;
afterEach(async () => {
  await stopTestServer(t);
  t = undefined;
});

function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set("authorization", token);
  return metadata;
}

describe("bearer token auth", () => {
  const request = { rollouts: [storedRollout("a")] };

  it("rejects a missing, malformed or wrong token with UNAUTHENTICATED and accepts the right one", async () => {
    const scorer = new ReversingFakeScorer();
    t = await startTestServer(scorer, { authToken: "s3cret-token" });

    const missing = await callError(scoreBatch(t.client, request));
    expect(missing.code).toBe(status.UNAUTHENTICATED);
    expect(missing.details).toContain("missing bearer token");

    const malformed = await callError(scoreBatch(t.client, request, { metadata: bearer("s3cret-token") }));
    expect(malformed.code).toBe(status.UNAUTHENTICATED);
    expect(malformed.details).toContain("expected `Bearer <token>`");

    const wrong = await callError(scoreBatch(t.client, request, { metadata: bearer("Bearer s3cret-tokeN") }));
    expect(wrong.code).toBe(status.UNAUTHENTICATED);
    expect(wrong.details).toBe("invalid bearer token");
    expect(scorer.calls).toHaveLength(0);

    const ok = await scoreBatch(t.client, request, { metadata: bearer("Bearer s3cret-token") });
    expect(ok.results.map((r) => r.id)).toEqual(["a"]);
    // The scheme is case-insensitive (RFC 7235).
    await scoreBatch(t.client, request, { metadata: bearer("bearer s3cret-token") });
    expect(scorer.calls).toHaveLength(2);
  });

  it("leaves health checks open to probes without a token", async () => {
    t = await startTestServer(new ReversingFakeScorer(), { authToken: "s3cret-token" });
    const health = grpcServiceDefinition(Health);
    const response = await unary(t.client, health.check, create(HealthCheckRequestSchema, { service: "" }));
    expect(response.status).toBe(1); // SERVING
  });

  it("guards reflection too", async () => {
    t = await startTestServer(new ReversingFakeScorer(), { authToken: "s3cret-token" });
    const client = t.client;
    const stream = client.makeBidiStreamRequest(
      "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      (b: Buffer) => b,
      (b: Buffer) => b,
      new Metadata(),
      {},
    );
    const code = new Promise<number>((resolve) => {
      stream.on("data", () => resolve(-1));
      stream.on("error", (e: { code: number }) => resolve(e.code));
    });
    // list_services request: field 7, empty string.
    stream.write(Buffer.from([0x3a, 0x00]));
    expect(await code).toBe(status.UNAUTHENTICATED);
  });
});

describe("TLS", () => {
  let dir = "";
  let certFile = "";
  let keyFile = "";

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "minedit-tls-"));
    ({ certFile, keyFile } = selfSignedCertificate(dir));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves over TLS to a client that trusts the certificate, with a token on top", async () => {
    const ca = readFileSync(certFile);
    t = await startTestServer(
      new ReversingFakeScorer(),
      { tls: { certFile, keyFile }, authToken: "tok" },
      credentials.createSsl(ca),
      // The certificate names "localhost"; we dial 127.0.0.1 to avoid depending on how localhost resolves.
      { "grpc.ssl_target_name_override": "localhost" },
    );
    const ok = await scoreBatch(
      t.client,
      { rollouts: [storedRollout("a")] },
      { metadata: bearer("Bearer tok") },
    );
    expect(ok.results.map((r) => r.id)).toEqual(["a"]);
  });

  it("does not answer a plaintext client", async () => {
    t = await startTestServer(new ReversingFakeScorer(), { tls: { certFile, keyFile } });
    const error = await callError(
      scoreBatch(t.client, { rollouts: [storedRollout("a")] }, { call: { deadline: Date.now() + 2000 } }),
    );
    expect([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]).toContain(error.code);
  });

  it("refuses to start with a certificate that is not one", async () => {
    try {
      await startServer({
        config: testConfig({ tls: { certFile: keyFile, keyFile: certFile } }),
        scorer: new ReversingFakeScorer(),
      });
      expect.unreachable("startServer should have failed");
    } catch (error) {
      expect(isMineditError(error) && error.code).toBe(ErrorCode.InvalidArgument);
      expect(isMineditError(error) && error.field).toBe("server.tls");
    }
  });

  it("refuses to start when a TLS file cannot be read, naming the config field", async () => {
    try {
      await startServer({
        config: testConfig({ tls: { certFile: join(dir, "nope.pem"), keyFile } }),
        scorer: new ReversingFakeScorer(),
      });
      expect.unreachable("startServer should have failed");
    } catch (error) {
      expect(isMineditError(error) && error.code).toBe(ErrorCode.InvalidArgument);
      expect(isMineditError(error) && error.field).toBe("server.tls.certFile");
    }
  });
});

describe("startServer", () => {
  it("fails with UNAVAILABLE when the port is taken", async () => {
    t = await startTestServer(new ReversingFakeScorer());
    try {
      const second = await startServer({
        config: testConfig({ port: t.server.port }),
        scorer: new ReversingFakeScorer(),
      });
      await second.close();
      expect.unreachable("the second server should not have bound");
    } catch (error) {
      expect(isMineditError(error) && error.code).toBe(ErrorCode.Unavailable);
      expect(String(error)).toContain(`127.0.0.1:${t.server.port}`);
    }
  });
});
