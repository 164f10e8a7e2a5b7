/**
 * The lifecycle of `minedit serve` as a separate process (node bin/minedit.js serve, the real sandbox and
 * demo tasks), signalled as an orchestrator would: SIGTERM drains (health NOT_SERVING, new calls
 * UNAVAILABLE, the call in flight finishes, exit 0); past `server.drainTimeoutMs` the call in flight ends
 * with UNAVAILABLE; a second signal exits at once; start-up refuses a missing runtime, naming the fix.
 *
 * A call is made slow by its program (it sleeps at import, then defines the gold), not by the test.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { Client, credentials, status } from "@grpc/grpc-js";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_TASK_FILE } from "../../src/cli/service-options.js";
import {
  Health,
  HealthCheckRequestSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "../../src/gen/grpc/health/v1/health_pb.js";
import { Verdict } from "../../src/gen/minedit/v1/reward_pb.js";
import { grpcServiceDefinition } from "../../src/server/service-definition.js";
import { callError, deferred, scoreBatch, unary } from "./harness.js";

const ROOT = new URL("../..", import.meta.url).pathname;
const health = grpcServiceDefinition(Health);
type TaskRow = { task_id: string; gold: string; tests: { style: string } };
const task = readFileSync(DEFAULT_TASK_FILE, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as TaskRow)
  .find((t) => t.tests.style === "unittest") as TaskRow;
const slowRollout = (id: string, seconds: number) => ({
  id,
  completion: `\`\`\`python\nimport time\ntime.sleep(${seconds})\n${task.gold}\`\`\``,
  taskRef: { case: "taskId" as const, value: task.task_id },
});

let dir: string;
// dist/ (the CLI these tests spawn) is built once by the global setup (tests/setup/build-dist.ts).
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "minedit-lifecycle-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Child = {
  process: ChildProcess;
  client: Client;
  /** stderr so far. */
  stderr(): string;
  /** Resolves when stderr contains `pattern`. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
};
const children: Child[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    child.client.close();
    if (child.process.exitCode === null) child.process.kill("SIGKILL");
  }
});

async function serve(server: Record<string, unknown>): Promise<Child> {
  const configFile = join(dir, `config-${children.length}.json`);
  writeFileSync(
    configFile,
    JSON.stringify({
      server: { port: 0, ...server },
      pool: { threads: 1 },
      sandbox: { wallTimeMs: 60_000, executionConcurrency: 2 },
      tasks: { gate: false },
    }),
  );
  const child = spawn(
    process.execPath,
    ["bin/minedit.js", "serve", "--config", configFile, "--log-level", "debug"],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
  );
  let text = "";
  const watchers: { pattern: RegExp; resolve(m: RegExpMatchArray): void }[] = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    text += chunk;
    for (const w of [...watchers]) {
      const m = text.match(w.pattern);
      if (m !== null) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>(
    (resolve) => child.on("exit", (code, signal) => resolve({ code, signal, atMs: performance.now() })),
  );
  const waitFor = (pattern: RegExp): Promise<RegExpMatchArray> => {
    const m = text.match(pattern);
    if (m !== null) return Promise.resolve(m);
    const d = deferred<RegExpMatchArray>();
    watchers.push({ pattern, resolve: d.resolve });
    return Promise.race([
      d.promise,
      exited.then(({ code }) => {
        throw new Error(`minedit serve exited (${code}) before ${pattern}:\n${text}`);
      }),
    ]);
  };
  const [, port] = await waitFor(/listening on 127\.0\.0\.1:(\d+)/);
  const result: Child = {
    process: child,
    client: new Client(`127.0.0.1:${port}`, credentials.createInsecure()),
    stderr: () => text,
    waitFor,
    exited,
  };
  children.push(result);
  return result;
}

const healthOf = (client: Client) =>
  unary(client, health.check, create(HealthCheckRequestSchema, { service: "" })).then((r) => r.status);
/** The in-flight marker: the debug line the server logs when a rollout reaches the scorer. */
const scoring = (id: string) => new RegExp(`"rollout":"${id}".*"msg":"rollout"`);

describe("SIGTERM", () => {
  test("drains: health NOT_SERVING, new calls UNAVAILABLE, the call in flight finishes, exit 0", async () => {
    const child = await serve({ drainTimeoutMs: 60_000 });
    expect(await healthOf(child.client)).toBe(ServingStatus.SERVING);
    const slow = scoreBatch(child.client, { rollouts: [slowRollout("slow", 3)] });
    await child.waitFor(scoring("slow"));
    child.process.kill("SIGTERM");
    await child.waitFor(/SIGTERM: draining/);

    expect(await healthOf(child.client)).toBe(ServingStatus.NOT_SERVING);
    const refused = await callError(scoreBatch(child.client, { rollouts: [slowRollout("late", 0)] }));
    expect(refused.code).toBe(status.UNAVAILABLE);
    expect(refused.details).toMatch(/shutting down/);

    const response = await slow;
    expect(response.results[0]).toMatchObject({ id: "slow", verdict: Verdict.PASSED });
    const exit = await child.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(child.stderr()).toMatch(/minedit serve: stopped/);
    // One JSON line per call: the slow one OK, the refused one UNAVAILABLE.
    const calls = child
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "call" && line.method === "ScoreBatch");
    expect(calls.map((c) => c.code).sort()).toEqual(["OK", "UNAVAILABLE"]);
  }, 120_000);

  test("past the drain timeout the call in flight ends with UNAVAILABLE, and the process still exits 0", async () => {
    const child = await serve({ drainTimeoutMs: 300 });
    const slow = scoreBatch(child.client, { rollouts: [slowRollout("stuck", 30)] });
    await child.waitFor(scoring("stuck"));
    const signalled = performance.now();
    child.process.kill("SIGTERM");
    const error = await callError(slow);
    expect(error.code).toBe(status.UNAVAILABLE);
    expect(error.details).toMatch(/drain timeout/);
    const exit = await child.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    // Bounded by the drain timeout, not by the 30 s program: its sandbox was torn down.
    expect(exit.atMs - signalled).toBeLessThan(15_000);
  }, 120_000);

  test("a second signal exits at once, without waiting for the drain", async () => {
    const child = await serve({ drainTimeoutMs: 60_000 });
    const slow = scoreBatch(child.client, { rollouts: [slowRollout("held", 30)] }).catch((e: unknown) => e);
    await child.waitFor(scoring("held"));
    child.process.kill("SIGTERM");
    await child.waitFor(/SIGTERM: draining/);
    const second = performance.now();
    child.process.kill("SIGINT");
    const exit = await child.exited;
    expect(exit.code).toBe(130);
    expect(exit.atMs - second).toBeLessThan(5_000);
    expect(child.stderr()).toMatch(/second SIGINT: exiting now/);
    await slow;
  }, 120_000);
});

describe("start-up", () => {
  test("refuses a missing runtime with the fix, exit 2", () => {
    const configFile = join(dir, "missing-python.json");
    writeFileSync(configFile, JSON.stringify({ sandbox: { pythonPath: "/nonexistent/python3" } }));
    const run = spawnSync(
      process.execPath,
      ["bin/minedit.js", "serve", "--port", "0", "--config", configFile],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /interpreter \/nonexistent\/python3 is missing \(Debian: apt-get install -y python3\)/,
    );
  }, 90_000);
});
