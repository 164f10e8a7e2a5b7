/**
 * The standard gRPC health service (`grpc.health.v1.Health`: Check, List, Watch), implemented on the
 * protobuf-es types generated from proto/grpc/health/v1/health.proto, so that Kubernetes gRPC probes,
 * grpc_health_probe and grpcurl can ask whether the server is serving.
 *
 * Why not the `grpc-health-check` package: it loads its own .proto through proto-loader at run time and
 * its status map is keyed by plain strings; this module is as small, uses the same code generation as the
 * rest of the wire contract, and lets `close()` end Watch streams (which would otherwise hold a graceful
 * shutdown open forever).
 *
 * The empty service name is the server as a whole. Health checks are exempt from token auth (probes do
 * not carry tokens), which is why this service reveals nothing but serving status.
 */
import { create } from "@bufbuild/protobuf";
import type {
  handleServerStreamingCall,
  handleUnaryCall,
  ServerUnaryCall,
  ServerWritableStream,
  sendUnaryData,
} from "@grpc/grpc-js";
import { ErrorCode, MineditError } from "../errors.js";
import {
  type HealthCheckRequest,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  type HealthListRequest,
  type HealthListResponse,
  HealthListResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "../gen/grpc/health/v1/health_pb.js";
import type { Decoded } from "./service-definition.js";
import { toGrpcStatus } from "./status.js";

export { ServingStatus };

/** The gRPC spec caps List at 100 services; more is RESOURCE_EXHAUSTED. */
const LIST_LIMIT = 100;

export type HealthHandlers = {
  check: handleUnaryCall<Decoded<HealthCheckRequest>, HealthCheckResponse>;
  list: handleUnaryCall<Decoded<HealthListRequest>, HealthListResponse>;
  watch: handleServerStreamingCall<Decoded<HealthCheckRequest>, HealthCheckResponse>;
};

type Watcher = {
  service: string;
  call: ServerWritableStream<Decoded<HealthCheckRequest>, HealthCheckResponse>;
};

function statusResponse(status: ServingStatus): HealthCheckResponse {
  return create(HealthCheckResponseSchema, { status });
}

/** Serving status per service, and the handlers that report it. */
export class HealthService {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Set<Watcher>();
  private closed = false;

  /** Handlers for `server.addService(healthServiceDefinition, health.handlers)`. */
  readonly handlers: HealthHandlers = {
    check: (call, callback) => this.check(call, callback),
    list: (_call, callback) => this.list(callback),
    watch: (call) => this.watch(call),
  };

  /** Sets a service's status (`""` for the whole server) and tells its watchers when it changed. */
  setStatus(service: string, status: ServingStatus): void {
    if (this.closed || this.statuses.get(service) === status) return;
    this.statuses.set(service, status);
    for (const watcher of this.watchers) {
      if (watcher.service === service) watcher.call.write(statusResponse(status));
    }
  }

  /**
   * For shutdown: every service becomes NOT_SERVING (sent to watchers), then every Watch call ends with
   * OK, as the gRPC spec expects of a server going away (clients reconnect elsewhere). Later
   * `setStatus` calls are ignored.
   */
  shutdown(): void {
    for (const service of this.statuses.keys()) this.setStatus(service, ServingStatus.NOT_SERVING);
    this.closed = true;
    for (const watcher of this.watchers) watcher.call.end();
    this.watchers.clear();
  }

  private check(
    call: ServerUnaryCall<Decoded<HealthCheckRequest>, HealthCheckResponse>,
    callback: sendUnaryData<HealthCheckResponse>,
  ): void {
    try {
      const service = requireRequest(call.request).service;
      const status = this.statuses.get(service);
      if (status === undefined) {
        throw new MineditError(ErrorCode.NotFound, `unknown service ${JSON.stringify(service)}`, {
          field: "service",
        });
      }
      callback(null, statusResponse(status));
    } catch (error) {
      callback(toGrpcStatus(error));
    }
  }

  private list(callback: sendUnaryData<HealthListResponse>): void {
    if (this.statuses.size > LIST_LIMIT) {
      callback(
        toGrpcStatus(new MineditError(ErrorCode.ResourceExhausted, `more than ${LIST_LIMIT} services`)),
      );
      return;
    }
    const statuses: Record<string, HealthCheckResponse> = {};
    for (const [service, status] of this.statuses) statuses[service] = statusResponse(status);
    callback(null, create(HealthListResponseSchema, { statuses }));
  }

  private watch(call: ServerWritableStream<Decoded<HealthCheckRequest>, HealthCheckResponse>): void {
    let service: string;
    try {
      service = requireRequest(call.request).service;
    } catch (error) {
      call.emit("error", toGrpcStatus(error));
      return;
    }
    if (this.closed) {
      call.write(statusResponse(ServingStatus.NOT_SERVING));
      call.end();
      return;
    }
    const watcher: Watcher = { service, call };
    this.watchers.add(watcher);
    call.on("cancelled", () => this.watchers.delete(watcher));
    call.write(statusResponse(this.statuses.get(service) ?? ServingStatus.SERVICE_UNKNOWN));
  }
}

function requireRequest<T>(decoded: Decoded<T>): T {
  if (!decoded.ok) {
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `request is not a valid health request: ${decoded.error}`,
    );
  }
  return decoded.message;
}
