/**
 * When to retry a failed generation request, and after how long: capped exponential backoff with full
 * jitter ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015: sleep = random(0, min(cap,
 * base · 2^attempt))), and never sooner than the server asked with `Retry-After` (RFC 9110 §10.2.3:
 * seconds or an HTTP date) or OpenAI's `retry-after-ms`.
 *
 * Retried: 408, 409 (OpenAI's lock timeout), 429, every 5xx, timeouts and connection failures — the
 * failures a later attempt can cure. Not retried: other 4xx (a bad request, key or model fails the same
 * way every time).
 *
 * Pure: no I/O; the random source and the clock are arguments.
 */

/** How to retry. */
export type RetryPolicy = {
  /** Retries after the first attempt (0: none). */
  retries: number;
  /** The first backoff ceiling, in milliseconds; doubles per attempt. */
  baseMs: number;
  /** The largest backoff ceiling, in milliseconds. */
  maxMs: number;
  /** The longest `Retry-After` honoured, in milliseconds; a longer one is waited this long. */
  maxRetryAfterMs: number;
  /**
   * Retries of a connection failure or 5xx while the endpoint has not answered once (absent: `retries`).
   * A dead endpoint — refused connections, an unknown host, a proxy answering 502 — then fails its first
   * requests within seconds instead of sitting through the full backoff, and generate.ts stops the run;
   * once one request succeeded, such failures are transient and get every retry.
   */
  unprovenRetries?: number;
};

/**
 * Defaults: 6 retries, 1 s doubling to 60 s, `Retry-After` honoured up to 10 minutes; 2 retries (at most
 * 1 + 2 s of backoff) for connection failures and 5xx before the endpoint first answered.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 6,
  baseMs: 1000,
  maxMs: 60_000,
  maxRetryAfterMs: 600_000,
  unprovenRetries: 2,
};

/** Whether a failure says the endpoint may be down (no connection, a 5xx) rather than busy or slow. */
export function isEndpointDown(status: number | null, timedOut: boolean): boolean {
  return status === null ? !timedOut : status >= 500;
}

/** Whether a request that failed with HTTP `status` (null: no response — timeout, connection) is retried. */
export function isRetryable(status: number | null): boolean {
  if (status === null) return true;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait the server asked for, in milliseconds, from `retry-after-ms` (a number of milliseconds) or
 * `Retry-After` (delay-seconds, or an HTTP date, read against `nowMs`); null when neither is present or
 * readable. A date in the past is 0.
 */
export function retryAfterMs(
  headers: { retryAfterMs?: string | null; retryAfter?: string | null },
  nowMs: number,
): number | null {
  const ms = headers.retryAfterMs?.trim();
  if (ms !== undefined && ms !== "" && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const value = headers.retryAfter?.trim();
  if (value === undefined || value === "") return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/**
 * How long to wait before retry number `attempt` (0 for the first retry): a uniformly random fraction
 * (`random()` in [0, 1)) of min(maxMs, baseMs · 2^attempt), but at least the server's `Retry-After`
 * (capped at `maxRetryAfterMs`) when it gave one.
 */
export function retryDelayMs(
  attempt: number,
  serverWaitMs: number | null,
  policy: RetryPolicy,
  random: () => number,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  const jittered = random() * ceiling;
  if (serverWaitMs === null) return jittered;
  return Math.max(Math.min(serverWaitMs, policy.maxRetryAfterMs), jittered);
}
