/**
 * THE one place where errors become gRPC statuses (CONTRIBUTING.md#house-rules, "Errors"). Handlers, the health service and
 * the auth interceptor never build a status themselves: they throw or pass a {@link MineditError} (or
 * call {@link unauthenticatedStatus}) and this module decides the code, the message and the metadata.
 *
 * - A `MineditError` keeps its message (written for the caller) and maps its code one-to-one; its
 *   offending field, when known, also travels in the trailing metadata `minedit-field`, and its code in
 *   `minedit-error-code`, so clients can react without parsing text.
 * - Anything else is a bug: it becomes `INTERNAL` with a generic message and a short reference, never the
 *   raw message or stack (which may leak internals); the caller logs the error under the same reference.
 */
import { randomUUID } from "node:crypto";
import { status as GrpcStatus, Metadata, type StatusObject } from "@grpc/grpc-js";
import { ErrorCode, isMineditError } from "../errors.js";

/** gRPC code of every {@link ErrorCode}. A `Record` over the enum, so a new code fails to compile here. */
const GRPC_CODE: Readonly<Record<ErrorCode, GrpcStatus>> = {
  [ErrorCode.InvalidArgument]: GrpcStatus.INVALID_ARGUMENT,
  [ErrorCode.NotFound]: GrpcStatus.NOT_FOUND,
  [ErrorCode.ResourceExhausted]: GrpcStatus.RESOURCE_EXHAUSTED,
  [ErrorCode.DeadlineExceeded]: GrpcStatus.DEADLINE_EXCEEDED,
  [ErrorCode.Cancelled]: GrpcStatus.CANCELLED,
  [ErrorCode.Unavailable]: GrpcStatus.UNAVAILABLE,
  [ErrorCode.Internal]: GrpcStatus.INTERNAL,
  [ErrorCode.FailedPrecondition]: GrpcStatus.FAILED_PRECONDITION,
};

/** Trailing-metadata key carrying the {@link ErrorCode} of a failed call. */
export const ERROR_CODE_METADATA_KEY = "minedit-error-code";
/** Trailing-metadata key carrying the offending request field (`rollouts[3].completion`), when known. */
export const FIELD_METADATA_KEY = "minedit-field";
/**
 * Trailing-metadata key of an overloaded server's retry hint, in milliseconds: gRPC's own server pushback
 * (gRFC A6), which grpc clients with a retry policy honour; others can read it.
 */
export const RETRY_PUSHBACK_METADATA_KEY = "grpc-retry-pushback-ms";

/** The gRPC status code for an {@link ErrorCode}. */
export function grpcCode(code: ErrorCode): GrpcStatus {
  return GRPC_CODE[code];
}

/** A status to end a call with, in the shape grpc-js accepts from handlers, streams and interceptors. */
export type GrpcErrorStatus = StatusObject & {
  /** Set when the error was not a `MineditError`: the reference quoted in `details`, for the log line. */
  internalRef?: string;
};

/**
 * The gRPC status for any thrown value. Total: never throws, never leaks a non-`MineditError` message.
 */
export function toGrpcStatus(error: unknown): GrpcErrorStatus {
  const metadata = new Metadata();
  if (isMineditError(error)) {
    metadata.set(ERROR_CODE_METADATA_KEY, error.code);
    if (error.field !== undefined) metadata.set(FIELD_METADATA_KEY, error.field);
    if (error.retryAfterMs !== undefined) {
      metadata.set(RETRY_PUSHBACK_METADATA_KEY, String(Math.ceil(error.retryAfterMs)));
    }
    return { code: grpcCode(error.code), details: error.rawMessage, metadata };
  }
  const internalRef = randomUUID().slice(0, 8);
  metadata.set(ERROR_CODE_METADATA_KEY, ErrorCode.Internal);
  return {
    code: GrpcStatus.INTERNAL,
    details: `internal error (ref ${internalRef}); the server logged the details`,
    metadata,
    internalRef,
  };
}

/**
 * `UNAUTHENTICATED`, for the bearer-token check. {@link ErrorCode} has no code for it (authentication
 * happens before any minedit code runs, in a grpc-js interceptor), so it is built here directly, still
 * in this one module.
 */
export function unauthenticatedStatus(details: string): StatusObject {
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_METADATA_KEY, "unauthenticated");
  return { code: GrpcStatus.UNAUTHENTICATED, details, metadata };
}
