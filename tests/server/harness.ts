/**
 * Test harness for the gRPC server tests: a real server on 127.0.0.1:0, a real grpc-js client built from
 * the same protobuf-es service definitions, and clearly named FAKE scorers. The fakes stand in for the
 * engine only here, where the server layer is under test; the real scorer is tested on its own.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { create } from "@bufbuild/protobuf";
import {
  type CallOptions,
  type ChannelCredentials,
  Client,
  type ClientDuplexStream,
  credentials,
  Metadata,
  type MethodDefinition,
  type ServiceError,
} from "@grpc/grpc-js";
import type { RewardOverride } from "../../src/config.js";
import { type ServerConfig, ServerConfigSchema } from "../../src/config.js";
import type { Verdict } from "../../src/core/reward.js";
import {
  RewardService,
  type Rollout,
  RolloutSchema,
  ScoreBatchRequestSchema,
  type ScoreBatchResponse,
  type ScoreStreamRequest,
  type ScoreStreamResponse,
} from "../../src/gen/minedit/v1/reward_pb.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "../../src/scoring/rollout.js";
import { type RunningServer, startServer } from "../../src/server/server.js";
import { grpcServiceDefinition } from "../../src/server/service-definition.js";

export const rewardClientDefinition = grpcServiceDefinition(RewardService);

/** One scorer call as a fake saw it. */
export type ScoreCall = {
  rollouts: RolloutInput[];
  override: RewardOverride | undefined;
  signal: AbortSignal;
};

/** A deterministic result for a rollout: PASSED with reward 0.1, or what `verdictOf` says. */
export function fakeOutput(input: RolloutInput, verdict: Verdict = "PASSED"): RolloutOutput {
  return {
    id: input.id,
    groupId: input.groupId,
    verdict,
    reward: verdict === "INFRA_ERROR" ? null : verdict === "PASSED" ? 0.1 : -0.2,
    components: verdict === "PASSED" ? { dModel: 0.25, dGold: 0.25, excess: 0 } : null,
    testsPassed: verdict === "PASSED" ? 3 : 0,
    testsTotal: 3,
    timings: { queueMs: 1.5, metricsMs: 2.25, executionMs: 10, totalMs: 13.75 },
    cached: false,
    detail: `fake:${input.completion}`,
    rewardVersion: "fake-reward/1",
  };
}

/**
 * FAKE scorer: yields a {@link fakeOutput} for every rollout, in REVERSE request order (so tests see
 * that ScoreBatch restores request order). A completion starting with `verdict:` picks the verdict.
 * Records every call.
 */
export class ReversingFakeScorer implements RolloutScorer {
  readonly calls: ScoreCall[] = [];
  async *score(
    rollouts: RolloutInput[],
    override: RewardOverride | undefined,
    signal: AbortSignal,
  ): AsyncIterable<RolloutOutput> {
    this.calls.push({ rollouts, override, signal });
    for (const input of [...rollouts].reverse()) {
      const m = /^verdict:([A-Z_]+)/.exec(input.completion);
      yield fakeOutput(input, (m?.[1] ?? "PASSED") as Verdict);
    }
  }
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * FAKE scorer whose results are released by the test: `release(id)` lets rollout `id` finish. Shows
 * that streamed results leave as soon as each is done, whatever the others are doing.
 */
export class GatedFakeScorer implements RolloutScorer {
  private readonly gates = new Map<string, ReturnType<typeof deferred<void>>>();
  readonly calls: ScoreCall[] = [];
  readonly started = deferred<void>();

  private gate(id: string): ReturnType<typeof deferred<void>> {
    let gate = this.gates.get(id);
    if (gate === undefined) {
      gate = deferred<void>();
      this.gates.set(id, gate);
    }
    return gate;
  }

  release(id: string): void {
    this.gate(id).resolve();
  }

  async *score(
    rollouts: RolloutInput[],
    override: RewardOverride | undefined,
    signal: AbortSignal,
  ): AsyncIterable<RolloutOutput> {
    this.calls.push({ rollouts, override, signal });
    this.started.resolve();
    // Yield each rollout when its gate opens, in the order the gates open.
    const pending = new Map(rollouts.map((r) => [r.id, this.gate(r.id).promise.then(() => r)]));
    while (pending.size > 0) {
      const done = await Promise.race(pending.values());
      pending.delete(done.id);
      yield fakeOutput(done);
    }
  }
}

/**
 * FAKE scorer that never finishes on its own: it waits for its signal to abort and records the reason,
 * standing in for a scorer whose sandboxes run until stopped.
 */
export class SignalWaitingFakeScorer implements RolloutScorer {
  readonly started = deferred<void>();
  readonly aborted = deferred<unknown>();
  async *score(_rollouts: RolloutInput[], _o: RewardOverride | undefined, signal: AbortSignal) {
    this.started.resolve();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    this.aborted.resolve(signal.reason);
    yield* [] as RolloutOutput[];
  }
}

/** A server config for tests: loopback, OS-chosen port, small batch limit unless overridden. */
export function testConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  return ServerConfigSchema.parse({ host: "127.0.0.1", port: 0, maxBatchRollouts: 8, ...overrides });
}

export type TestServer = {
  server: RunningServer;
  client: Client;
  address: string;
  internalErrors: unknown[];
};

/** Starts a real server with `scorer` and a real client connected to it. */
export async function startTestServer(
  scorer: RolloutScorer,
  config: Partial<ServerConfig> = {},
  clientCredentials: ChannelCredentials = credentials.createInsecure(),
  clientOptions: Record<string, unknown> = {},
): Promise<TestServer> {
  const internalErrors: unknown[] = [];
  const server = await startServer({
    config: testConfig(config),
    scorer,
    onInternalError: (error) => internalErrors.push(error),
    shutdownGraceMs: 2000,
  });
  const address = `127.0.0.1:${server.port}`;
  const client = new Client(address, clientCredentials, clientOptions);
  return { server, client, address, internalErrors };
}

export async function stopTestServer(t: TestServer | undefined): Promise<void> {
  if (t === undefined) return;
  t.client.close();
  await t.server.close();
}

/** Calls a unary method; resolves with the response or rejects with the ServiceError. */
export type UnaryOptions = {
  metadata?: Metadata;
  call?: CallOptions;
  onCall?: (call: { cancel(): void }) => void;
};

export function unary<Req, Res>(
  client: Client,
  method: MethodDefinition<Req, Res>,
  request: Req,
  options: UnaryOptions = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const call = client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      options.metadata ?? new Metadata(),
      options.call ?? {},
      (error, response) => {
        if (error !== null) reject(error);
        else if (response === undefined) reject(new Error("no response"));
        else resolve(response);
      },
    );
    options.onCall?.(call);
  });
}

export function scoreBatch(
  client: Client,
  request: MessageInitShape<typeof ScoreBatchRequestSchema>,
  options: UnaryOptions = {},
): Promise<ScoreBatchResponse> {
  return unary(client, rewardClientDefinition.scoreBatch, create(ScoreBatchRequestSchema, request), options);
}

export function scoreStream(
  client: Client,
  options: { metadata?: Metadata; call?: CallOptions } = {},
): ClientDuplexStream<ScoreStreamRequest, ScoreStreamResponse> {
  const m = rewardClientDefinition.scoreStream;
  return client.makeBidiStreamRequest(
    m.path,
    m.requestSerialize,
    m.responseDeserialize,
    options.metadata ?? new Metadata(),
    options.call ?? {},
  );
}

/** Collects a bidi stream's responses until it ends; rejects with the ServiceError if it fails. */
export function collect<Req, T>(stream: ClientDuplexStream<Req, T>): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const out: T[] = [];
    stream.on("data", (m: T) => out.push(m));
    stream.on("error", reject);
    stream.on("end", () => resolve(out));
  });
}

/** Awaits a rejected call and returns its ServiceError. */
export async function callError(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error("expected the call to fail, it succeeded");
}

/** A rollout against a stored task. */
export function storedRollout(
  id: string,
  completion = `print(${JSON.stringify(id)})`,
  taskId = "t1",
): Rollout {
  return create(RolloutSchema, { id, completion, taskRef: { case: "taskId", value: taskId } });
}

/**
 * A throwaway self-signed certificate for 127.0.0.1 / localhost, made with the system's openssl in
 * `dir`: `cert.pem` (also the CA a client trusts) and `key.pem`.
 */
export function selfSignedCertificate(dir: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyFile,
      "-out",
      certFile,
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ],
    { stdio: "ignore" },
  );
  return { certFile, keyFile };
}
