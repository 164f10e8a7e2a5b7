/**
 * `minedit serve` as the end-to-end benchmarks start it (run.mjs, bigcodebench.mjs): the built CLI in a
 * child process, its stderr read to the end (a full pipe would block it; run.mjs reports its warnings),
 * ready once it prints "listening on HOST:PORT".
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client, credentials } from "@grpc/grpc-js";

/**
 * Spawns `minedit serve ARGS` from the repository at `root` and resolves once it listens, with a client
 * on it; rejects with its stderr when it exits first or does not listen within `timeoutMs` (then it is
 * stopped).
 */
export async function startServe(root, args, timeoutMs) {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, "bin", "minedit.js"), "serve", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (\S+):(\d+)/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(`${match[1]}:${match[2]}`);
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited (${code}):\n${stderr}`)));
  });
  return {
    child,
    address,
    client: new Client(address, credentials.createInsecure()),
    startup: (performance.now() - started) / 1000,
    stderr: () => stderr,
  };
}

/** Closes the client and stops the server (SIGTERM), once it has exited. */
export async function stopServe(server) {
  server.client.close();
  server.child.kill("SIGTERM");
  await new Promise((resolve) => server.child.once("exit", resolve));
}
