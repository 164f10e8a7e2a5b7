/**
 * Connections to the queue's Redis: ioredis clients (the driver BullMQ 5 ships with) made from the
 * `queue.url`, and how the URL is shown in messages (without its password).
 */
import { Redis, type RedisOptions } from "ioredis";
import { ErrorCode, MineditError } from "../errors.js";

/** The URL as it may be logged: the password, if any, replaced by `***`. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "(invalid Redis URL)";
  }
}

/**
 * Reconnects every 0.1 s at first, backing off to 2 s: a restarted Redis is found again within 2 s.
 * ioredis never gives up (a `null` would end the client for good).
 */
function retryStrategy(times: number): number {
  return Math.min(100 * 2 ** Math.min(times, 5), 2000);
}

/**
 * A client for commands that must fail at once while Redis is unreachable (no offline queue, one retry per
 * request): the front's Queue and its own commands, so a call gets UNAVAILABLE instead of waiting.
 */
export function commandClient(url: string, name: string): Redis {
  return withErrorsLogged(
    new Redis(url, {
      connectionName: name,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy,
    } satisfies RedisOptions),
  );
}

/**
 * A client for BullMQ's blocking reads (QueueEvents, Worker): commands wait through reconnections, as
 * BullMQ requires (`maxRetriesPerRequest: null`).
 */
export function blockingClient(url: string, name: string): Redis {
  return withErrorsLogged(
    new Redis(url, {
      connectionName: name,
      maxRetriesPerRequest: null,
      retryStrategy,
    } satisfies RedisOptions),
  );
}

/** ioredis emits `error` on every failed (re)connection; unhandled, that would end the process. */
function withErrorsLogged(client: Redis): Redis {
  client.on("error", () => {});
  return client;
}

/** The message of a call refused because Redis is unreachable. */
export function unavailable(url: string, reason: string): MineditError {
  return new MineditError(
    ErrorCode.Unavailable,
    `the job queue is unreachable: Redis at ${displayUrl(url)}${reason === "" ? "" : ` (${reason})`}; ` +
      "executions cannot be handed to workers — retry when it is back",
  );
}
