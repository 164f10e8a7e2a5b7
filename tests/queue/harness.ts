/**
 * Real parts for the queue tests: a `redis-server` of our own on a free loopback port (no persistence, so
 * a restart loses everything, the hardest case), and the built CLI (`bin/minedit.js serve --queue` fronts
 * and `worker`s) as separate processes, each started and killed by the test. The CLI runs from dist/,
 * built once before any test file by the global setup (tests/setup/build-dist.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import { Client, credentials } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { type Rollout, RolloutSchema } from "../../src/gen/minedit/v1/reward_pb.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "bin", "minedit.js");

/** A TCP port nobody listens on right now (127.0.0.1). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Waits for `pattern` in a child's stderr (or stdout); rejects if it exits first or after `timeoutMs`. */
function waitForLine(child: ChildProcess, pattern: RegExp, output: () => string, timeoutMs: number) {
  return new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    const check = () => {
      const match = pattern.exec(output());
      if (match !== null) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`exited (${code ?? signal}) before ${pattern}:\n${output()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr?.off("data", check);
      child.stdout?.off("data", check);
      child.off("exit", onExit);
    };
    child.stderr?.on("data", check);
    child.stdout?.on("data", check);
    child.once("exit", onExit);
    check();
  });
}

/** A child process with its output kept, and a way to stop it for good. */
export class Proc {
  output = "";
  readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(command: string, args: string[]) {
    this.child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    this.child.stdout?.setEncoding("utf8");
    this.child.stderr?.setEncoding("utf8");
    this.child.stdout?.on("data", (chunk: string) => {
      this.output += chunk;
    });
    this.child.stderr?.on("data", (chunk: string) => {
      this.output += chunk;
    });
    this.exited = new Promise((resolve) => this.child.once("exit", () => resolve()));
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
    return waitForLine(this.child, pattern, () => this.output, timeoutMs);
  }

  /** Sends `signal` and waits for the exit (SIGKILL after `graceMs`). */
  async stop(signal: NodeJS.Signals = "SIGTERM", graceMs = 20_000): Promise<void> {
    if (!this.alive) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Our own redis-server on 127.0.0.1:`port`, with no persistence (a restart starts empty). */
export class RedisProcess {
  private proc: Proc | null = null;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.proc = new Proc("redis-server", [
      "--port",
      String(this.port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      // BullMQ needs it: no key of a queue may be evicted.
      "--maxmemory-policy",
      "noeviction",
    ]);
    await this.proc.waitFor(/Ready to accept connections/, 15_000);
  }

  /** Kills it (SIGKILL: nothing is saved or flushed) and waits for the exit. */
  async kill(): Promise<void> {
    await this.proc?.stop("SIGKILL");
    this.proc = null;
  }
}

/** A front: `minedit serve --queue` on a free port; resolves once it listens. */
export async function startFront(redisUrl: string, configFile: string, extra: string[] = []): Promise<Front> {
  const proc = new Proc(process.execPath, [
    CLI,
    "serve",
    "--port",
    "0",
    "--queue",
    redisUrl,
    "--config",
    configFile,
    ...extra,
  ]);
  const match = await proc.waitFor(/listening on (\S+):(\d+)/);
  const address = `${match[1]}:${match[2]}`;
  const openrlhf = extra.includes("--openrlhf-port")
    ? (await proc.waitFor(/OpenRLHF reward endpoint on (\S+)/))[1]
    : undefined;
  return { proc, address, client: new Client(address, credentials.createInsecure()), openrlhf };
}

export type Front = { proc: Proc; address: string; client: Client; openrlhf: string | undefined };

/** A worker: `minedit worker --queue` with `slots`; resolves once it runs. */
export async function startWorker(redisUrl: string, configFile: string, slots = 1): Promise<Proc> {
  const proc = new Proc(process.execPath, [
    CLI,
    "worker",
    "--queue",
    redisUrl,
    "--config",
    configFile,
    "--slots",
    String(slots),
  ]);
  await proc.waitFor(/running: queue/);
  return proc;
}

/** A Redis client for the test's own looks at the queue (stats, lists). */
export function inspector(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 100 });
  client.on("error", () => {});
  return client;
}

/** The workers' counters in the queue's stats hash. */
export async function stats(redis: Redis): Promise<{ runs: number; cacheHits: number; skipped: number }> {
  const raw = await redis.hgetall("minedit:executions:mx:stats");
  return {
    runs: Number(raw.runs ?? 0),
    cacheHits: Number(raw.cacheHits ?? 0),
    skipped: Number(raw.skipped ?? 0),
  };
}

/** Polls `condition` every 50 ms until it holds; fails after `timeoutMs` saying `what`. */
export async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const CHECK = "def check(candidate):\n    assert candidate(1) == 2\n";

/**
 * A rollout of an inline task whose program sleeps `sleepS` and then passes; `variant` makes the
 * normalized program (and so the job) distinct.
 */
export function sleepyRollout(id: string, variant: number, sleepS: number): Rollout {
  const program = `import time\n\ndef f(x):\n    time.sleep(${sleepS})\n    return x + 1 + ${variant} - ${variant}\n`;
  return create(RolloutSchema, {
    id,
    completion: `\`\`\`python\n${program}\`\`\``,
    taskRef: {
      case: "task",
      value: {
        corrupted: "def f(x):\n    return x\n",
        gold: "def f(x):\n    return x + 1\n",
        entryPoint: "f",
        tests: { style: { case: "assert", value: { code: CHECK } } },
      },
    },
  });
}
