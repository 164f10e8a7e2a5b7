/**
 * driver.py as the trainer-calls benchmarks run it (run.mjs on the seed tasks, bigcodebench.mjs on
 * BigCodeBench): Debian's /usr/bin/python3 with python3-grpcio, the trainer's side of a step.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const PYTHON = "/usr/bin/python3";

/**
 * Runs driver.py once in `mode` with `args`; resolves to its JSON report. Asynchronous: a server under
 * test may run in this process, and a synchronous spawn would stop it from answering.
 */
export function drive(mode, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [join(HERE, "driver.py"), mode, ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", PYTHONDONTWRITEBYTECODE: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0) reject(new Error(`driver.py ${mode} failed (exit ${status}):\n${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}
