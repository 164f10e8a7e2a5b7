/**
 * The one error type of minedit, modelled on connect-es `ConnectError` + `Code`: a closed set of codes,
 * so every layer can decide what a failure means without parsing messages, and the gRPC status mapping
 * (a later concern, in exactly one place) is a total function over this enum.
 *
 * What a candidate program did (wrong answer, timeout, crash) is never an error: it is a verdict, i.e.
 * data in the response. A `MineditError` means the *request* or the *service* is at fault.
 */

/**
 * Error codes. The string values are the Connect protocol's wire names, so they read well in logs and
 * survive structured clone (workers return `{ code, message }` as plain data).
 */
export enum ErrorCode {
  /** The caller sent something malformed; `details.field` names the offending field. */
  InvalidArgument = "invalid_argument",
  /** A referenced entity (task, split, dataset row) does not exist. */
  NotFound = "not_found",
  /** A queue or quota is full; the caller may retry later. */
  ResourceExhausted = "resource_exhausted",
  /** The caller's deadline passed before the work finished. */
  DeadlineExceeded = "deadline_exceeded",
  /** The caller cancelled the request. */
  Cancelled = "canceled",
  /** A dependency (sandbox backend, worker pool) is temporarily unusable. */
  Unavailable = "unavailable",
  /** A bug or broken invariant inside minedit. */
  Internal = "internal",
  /** The request is well-formed but the system is not in a state to serve it (e.g. a reward variant needs
   *  a component the caller did not supply). */
  FailedPrecondition = "failed_precondition",
}

const ERROR_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));

/** Optional structured details carried with an error. */
export type MineditErrorDetails = {
  /** Dotted path of the offending input field, e.g. `reward.lambdaEdit`. */
  field?: string;
  /** For `ResourceExhausted` from an overloaded server: how long the caller should wait before retrying. */
  retryAfterMs?: number;
};

/**
 * An error with a code from {@link ErrorCode}. `message` is prefixed with the code (`[invalid_argument]
 * ...`) like connect-es, so a bare `String(err)` in a log is still informative; `rawMessage` is the text
 * without the prefix, which is what goes on the wire.
 */
export class MineditError extends Error {
  override readonly name = "MineditError";
  readonly code: ErrorCode;
  readonly rawMessage: string;
  // `declare`: with ES2022 class fields a plain declaration would create the key as `undefined`;
  // the key exists only when a field was given.
  declare readonly field?: string;
  declare readonly retryAfterMs?: number;

  constructor(code: ErrorCode, message: string, details?: MineditErrorDetails) {
    super(`[${code}] ${message}`);
    this.code = code;
    this.rawMessage = message;
    if (details?.field !== undefined) {
      this.field = details.field;
    }
    if (details?.retryAfterMs !== undefined) {
      this.retryAfterMs = details.retryAfterMs;
    }
    // Keep `instanceof` working when the class is compiled to an ES5-style constructor.
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * True for a {@link MineditError}. Like connect-es's `ConnectError` check it also accepts a look-alike
 * (an `Error` named `MineditError` with a known code), because a second copy of this module in the same
 * process would defeat `instanceof`.
 */
export function isMineditError(e: unknown): e is MineditError {
  if (e instanceof MineditError) {
    return true;
  }
  if (!(e instanceof Error) || e.name !== "MineditError") {
    return false;
  }
  const code: unknown = (e as { code?: unknown }).code;
  return typeof code === "string" && ERROR_CODES.has(code);
}

/** Exit code of a command stopped by Ctrl-C (128 + SIGINT, as shells report it); what it finished is kept. */
export const EXIT_INTERRUPTED = 130;
