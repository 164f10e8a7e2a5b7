/**
 * The gRPC server: RewardService (scoring through an injected {@link RolloutScorer}), the standard
 * health service and server reflection, on one port, plaintext or TLS, optionally behind a bearer token
 * (docs/design.md).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createSecureContext } from "node:tls";
import {
  type Metadata,
  ResponderBuilder,
  Server,
  ServerCredentials,
  ServerInterceptingCall,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
  ServerListenerBuilder,
} from "@grpc/grpc-js";
import type { ServerConfig } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import { file_grpc_health_v1_health, Health } from "../gen/grpc/health/v1/health_pb.js";
import { file_minedit_v1_reward, RewardService } from "../gen/minedit/v1/reward_pb.js";
import type { RolloutScorer } from "../scoring/rollout.js";
import { HealthService, ServingStatus } from "./health.js";
import { readPem } from "./pem.js";
import { addReflection } from "./reflection.js";
import { type InternalErrorContext, rewardServiceHandlers } from "./reward-service.js";
import { grpcServerServiceDefinition } from "./service-definition.js";
import { unauthenticatedStatus } from "./status.js";

export type StartServerOptions = {
  /** The `server` section of the config (host, port, limits, TLS, auth token). */
  config: ServerConfig;
  scorer: RolloutScorer;
  /**
   * Receives every unexpected (non-`MineditError`) error a call ended with; the client only saw
   * `INTERNAL` and `context.ref`. Default: one line on stderr with the stack.
   */
  onInternalError?: (error: unknown, context: InternalErrorContext) => void;
  /** How long `close()` lets in-flight calls finish before cancelling them, in ms (default 10 000). */
  shutdownGraceMs?: number;
  /** Interceptors that run before the token check (and so see the calls it refuses): the call observer. */
  interceptors?: readonly ServerInterceptor[];
};

export type RunningServer = {
  /** The bound port (the OS's pick when the config asked for port 0). */
  port: number;
  /**
   * Turns health NOT_SERVING (ending Watch calls) while the server goes on answering: the first step of a
   * drain, so load balancers stop sending calls before the port closes.
   */
  stopServing(): void;
  /**
   * Stops the server: health turns NOT_SERVING, new calls are refused, in-flight calls get
   * `shutdownGraceMs` to finish and are then cancelled (which aborts their scorers). Idempotent.
   */
  close(): Promise<void>;
};

/** The fully-qualified name health checks use for the reward service. */
export const REWARD_SERVICE_NAME = RewardService.typeName;

const HEALTH_PATH_PREFIX = `/${Health.typeName}/`;

function defaultOnInternalError(error: unknown, context: InternalErrorContext): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`minedit server: internal error in ${context.method} (ref ${context.ref}): ${text}\n`);
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * A grpc-js interceptor that ends every call without `authorization: Bearer <token>` with
 * UNAUTHENTICATED before any handler runs. Health checks are exempt: probes carry no token, and health
 * reveals nothing else. Comparing SHA-256 digests with `timingSafeEqual` keeps the comparison
 * constant-time whatever the token lengths.
 */
function bearerTokenInterceptor(token: string): ServerInterceptor {
  const expected = sha256(token);
  const check = (metadata: Metadata): string | undefined => {
    const values = metadata.get("authorization");
    if (values.length === 0) return "missing bearer token: send metadata `authorization: Bearer <token>`";
    const value = values.length === 1 ? values[0] : undefined;
    const match = typeof value === "string" ? /^Bearer +(\S+) *$/i.exec(value) : null;
    const given = match?.[1];
    if (given === undefined) return "malformed authorization metadata: expected `Bearer <token>`";
    return timingSafeEqual(sha256(given), expected) ? undefined : "invalid bearer token";
  };
  return (methodDescriptor, call: ServerInterceptingCallInterface) => {
    if (methodDescriptor.path.startsWith(HEALTH_PATH_PREFIX)) return new ServerInterceptingCall(call);
    const listener = new ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const problem = check(metadata);
        if (problem === undefined) next(metadata);
        else call.sendStatus(unauthenticatedStatus(problem));
      })
      .build();
    return new ServerInterceptingCall(
      call,
      new ResponderBuilder().withStart((next) => next(listener)).build(),
    );
  };
}

async function credentials(config: ServerConfig): Promise<ServerCredentials> {
  if (config.tls === undefined) return ServerCredentials.createInsecure();
  const [cert, key] = await Promise.all([
    readPem(config.tls.certFile, "server.tls.certFile"),
    readPem(config.tls.keyFile, "server.tls.keyFile"),
  ]);
  // Check the pair now, so a bad file is a config error naming the field rather than a bind failure.
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MineditError(ErrorCode.InvalidArgument, `server.tls: unusable certificate or key: ${reason}`, {
      field: "server.tls",
    });
  }
  return ServerCredentials.createSsl(null, [{ cert_chain: cert, private_key: key }], false);
}

/** `host:port`, bracketing an IPv6 literal. */
function bindAddress(host: string, port: number): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Starts the server and resolves once it listens on `config.host:config.port`.
 *
 * @throws MineditError `InvalidArgument` (field `server.tls.certFile` / `keyFile` / `tls`) when a TLS file
 *   cannot be read or the certificate and key are unusable, `Unavailable` when the address cannot be
 *   bound (e.g. the port is taken).
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config, scorer } = options;
  const creds = await credentials(config);
  const server = new Server({
    "grpc.max_receive_message_length": config.maxReceiveMessageBytes,
    // GOAWAY after this age (grpc-js adds jitter; calls in flight finish), so clients re-resolve and
    // spread over a scaled-out deployment's replicas.
    ...(config.maxConnectionAgeMs === undefined
      ? {}
      : { "grpc.max_connection_age_ms": config.maxConnectionAgeMs }),
    interceptors: [
      ...(options.interceptors ?? []),
      ...(config.authToken === undefined ? [] : [bearerTokenInterceptor(config.authToken)]),
    ],
  });

  server.addService(
    grpcServerServiceDefinition(RewardService),
    rewardServiceHandlers({
      scorer,
      maxBatchRollouts: config.maxBatchRollouts,
      onInternalError: options.onInternalError ?? defaultOnInternalError,
    }),
  );
  const health = new HealthService();
  server.addService(grpcServerServiceDefinition(Health), health.handlers);
  addReflection(server, [file_minedit_v1_reward, file_grpc_health_v1_health]);

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(bindAddress(config.host, config.port), creds, (error, boundPort) => {
      if (error === null) {
        resolve(boundPort);
        return;
      }
      server.forceShutdown();
      reject(
        new MineditError(
          ErrorCode.Unavailable,
          `cannot listen on ${bindAddress(config.host, config.port)}: ${error.message}`,
        ),
      );
    });
  });
  health.setStatus("", ServingStatus.SERVING);
  health.setStatus(REWARD_SERVICE_NAME, ServingStatus.SERVING);

  const graceMs = options.shutdownGraceMs ?? 10_000;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      health.shutdown();
      const timer = setTimeout(() => {
        // Cancels every in-flight call: their "cancelled" events abort the scorers' signals.
        server.forceShutdown();
        resolve();
      }, graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return closing;
  };
  return { port, stopServing: () => health.shutdown(), close };
}
