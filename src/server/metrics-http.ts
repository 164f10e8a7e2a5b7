/**
 * Prometheus's scrape endpoint: `GET /metrics` on `server.host:server.metricsPort`, plain HTTP.
 *
 * Why a port of its own rather than a path on the OpenRLHF endpoint: it exists whether or not that
 * endpoint does, a scraper needs no reward-server token, and a NetworkPolicy can open it alone. It reveals
 * counts and latencies only (metrics.ts keeps request data out of label values).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrorCode, MineditError } from "../errors.js";
import type { ServiceMetrics } from "./metrics.js";

export type RunningMetricsServer = {
  /** The bound port (the OS's pick for port 0). */
  port: number;
  close(): Promise<void>;
};

/** Serves `metrics` and resolves once listening; `Unavailable` when the address cannot be bound. */
export async function startMetricsServer(
  metrics: ServiceMetrics,
  host: string,
  port: number,
): Promise<RunningMetricsServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("GET /metrics\n");
      return;
    }
    try {
      const { contentType, text } = await metrics.exposition();
      res.writeHead(200, { "content-type": contentType }).end(req.method === "HEAD" ? undefined : text);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(`${String(error)}\n`);
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  const bound = await new Promise<number>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new MineditError(
          ErrorCode.Unavailable,
          `cannot listen on ${host}:${port} (server.metricsPort): ${error.message}`,
        ),
      ),
    );
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
  let closing: Promise<void> | undefined;
  return {
    port: bound,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
