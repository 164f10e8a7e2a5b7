/**
 * The service's structured log (pino): one JSON object per line on stderr, at `server.logLevel`.
 *
 * What is logged where (docs/service.md, "Logs"): one `info` line per call (src/server/call-observer.ts),
 * a `warn` line per INFRA_ERROR rollout with its id (src/server/observed-scorer.ts), the lifecycle
 * (`minedit serve`). Program text — completions, tests — only at `debug`: trainers send their policy's
 * output, which a log shipper should not collect by default.
 */
import { type DestinationStream, type Logger, pino } from "pino";
import type { ServerConfig } from "../config.js";

export type { Logger };

/**
 * A logger at `level`, writing to `destination` (default: stderr, synchronously, so the lines written
 * just before `process.exit` are not lost).
 */
export function createLogger(level: ServerConfig["logLevel"], destination?: DestinationStream): Logger {
  return pino(
    { level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** A logger that drops everything (library callers and tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
