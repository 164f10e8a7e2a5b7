/**
 * A redis-server of a benchmark's own (benchmarks/queue/run.mjs, trainer-calls/bigcodebench.mjs --queue):
 * on a free loopback port, without persistence, with the eviction policy BullMQ needs, and a client on it.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";

/** A TCP port nobody listens on right now (127.0.0.1). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts it and resolves once it accepts connections: its process, URL, a client, and `stop()`. */
export async function startRedisServer() {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    // BullMQ needs noeviction: no key of a queue may be evicted.
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--maxmemory-policy",
      "noeviction",
    ],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  await new Promise((resolve, reject) => {
    let text = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready`)));
    child.stdout.on("data", (chunk) => {
      text += chunk;
      if (/Ready to accept connections/.test(text)) resolve();
    });
  });
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url);
  return {
    process: child,
    url,
    client,
    stop() {
      client.disconnect();
      child.kill("SIGTERM");
    },
  };
}
