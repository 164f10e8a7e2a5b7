/**
 * Metrics and logs of the real service (startService: bubblewrap sandbox, the demo tasks, the executing
 * scorer, the grpc-js server and the OpenRLHF endpoint on 127.0.0.1:0), scraped over HTTP from
 * `server.metricsPort` and captured from the pino logger, with a real grpc-js client.
 */
import { readFileSync } from "node:fs";
import { Client, credentials, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_TASK_FILE } from "../../src/cli/service-options.js";
import { parseConfig } from "../../src/config.js";
import { Verdict } from "../../src/gen/minedit/v1/reward_pb.js";
import { createLogger } from "../../src/server/logger.js";
import { type Service, startService } from "../../src/server/service.js";
import { callError, scoreBatch } from "./harness.js";

type TaskRow = { task_id: string; gold: string; corrupted: string; tests: { style: string } };
const tasks = readFileSync(DEFAULT_TASK_FILE, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as TaskRow);
const unittestTask = tasks.find((t) => t.tests.style === "unittest") as TaskRow;
const fence = (code: string) => `\`\`\`python\n${code}\`\`\``;
// Must never appear in an info-level log: it is only in the programs sent.
const SECRET = "PROGRAM_TEXT_MARKER_7f3a";

type LogLine = Record<string, unknown> & { msg: string; level: number };

function capture(level: "info" | "debug") {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const logger = createLogger(level, {
    write(text: string) {
      raw.push(text);
      lines.push(JSON.parse(text) as LogLine);
    },
  });
  return { logger, lines, raw };
}

/** The value of one sample of the exposition text (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

let service: Service;
let client: Client;
const log = capture("info");

async function scrape(): Promise<string> {
  const port = service.metricsServer?.port;
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  return response.text();
}

beforeAll(async () => {
  const config = parseConfig({
    server: { port: 0, metricsPort: 0, openrlhfPort: 0, openrlhfCoalesceMs: 0 },
    pool: { threads: 1 },
    sandbox: { wallTimeMs: 5000, executionConcurrency: 2 },
  });
  service = await startService(config, [DEFAULT_TASK_FILE], true, () => {}, log.logger);
  client = new Client(`127.0.0.1:${service.server.port}`, credentials.createInsecure());
}, 300_000);

afterAll(async () => {
  client?.close();
  await service?.close();
});

describe("metrics", () => {
  test("rollouts by verdict and style, RPCs by method and status, cache hits, sandbox starts, histograms", async () => {
    const before = await scrape();
    const ref = { case: "taskId" as const, value: unittestTask.task_id };
    const rollouts = [
      { id: "gold", completion: fence(`${unittestTask.gold}\n# ${SECRET}\n`), taskRef: ref },
      { id: "again", completion: fence(`${unittestTask.gold}\n# ${SECRET}\n`), taskRef: ref },
      { id: "bad", completion: `${unittestTask.corrupted}\n# ${SECRET} 2\n`, taskRef: ref },
    ];
    const response = await scoreBatch(client, { rollouts });
    expect(response.results.map((r) => r.verdict)).toEqual([
      Verdict.PASSED,
      Verdict.PASSED,
      Verdict.FAILED_TESTS,
    ]);
    const refused = await callError(
      scoreBatch(client, { rollouts: [{ id: "", completion: "x", taskRef: ref }] }),
    );
    expect(refused.code).toBe(status.INVALID_ARGUMENT);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    const rollout = { endpoint: "grpc", style: "unittest" };
    expect(delta("minedit_rollouts_total", { ...rollout, verdict: "PASSED" })).toBe(2);
    expect(delta("minedit_rollouts_total", { ...rollout, verdict: "FAILED_TESTS" })).toBe(1);
    expect(delta("minedit_rpcs_total", { method: "ScoreBatch", code: "OK" })).toBe(1);
    expect(delta("minedit_rpcs_total", { method: "ScoreBatch", code: "INVALID_ARGUMENT" })).toBe(1);
    // The two identical programs ran once: the second is a cache hit.
    expect(delta("minedit_rollout_cache_hits_total", { endpoint: "grpc" })).toBeGreaterThanOrEqual(1);
    expect(delta("minedit_sandbox_starts_total")).toBeGreaterThanOrEqual(2);
    for (const histogram of [
      "minedit_rpc_duration_seconds",
      "minedit_execution_duration_seconds",
      "minedit_metrics_duration_seconds",
      "minedit_queue_wait_seconds",
    ]) {
      expect(after).toContain(`# TYPE ${histogram} histogram`);
      expect(after).toMatch(new RegExp(`^${histogram}_bucket\\{.*le="\\+Inf"`, "m"));
    }
    expect(delta("minedit_execution_duration_seconds_count")).toBeGreaterThanOrEqual(2);
    expect(after).toContain("minedit_queue_depth_rollouts 0");
    expect(after).toContain("process_resident_memory_bytes");
    expect(sample(after, "minedit_fork_servers")).toBeGreaterThanOrEqual(0);
    // The batch's two distinct programs were analyzed and kept; the same batch again parses neither.
    expect(delta("minedit_program_cache_lookups", { result: "miss" })).toBe(2);
    expect(delta("minedit_program_cache_entries")).toBe(2);
    expect(delta("minedit_program_cache_bytes")).toBeGreaterThan(0);
    await scoreBatch(client, { rollouts });
    const third = await scrape();
    expect(
      sample(third, "minedit_program_cache_lookups", { result: "hit" }) -
        sample(after, "minedit_program_cache_lookups", { result: "hit" }),
    ).toBe(2);
    expect(sample(third, "minedit_program_cache_lookups", { result: "miss" })).toBe(
      sample(after, "minedit_program_cache_lookups", { result: "miss" }),
    );
    expect(await (await fetch(`http://127.0.0.1:${service.metricsServer?.port}/other`)).status).toBe(404);
  });

  test("the OpenRLHF endpoint's requests and rollouts are counted too", async () => {
    const before = await scrape();
    const prompt = "Repair:\n";
    const response = await fetch(`http://127.0.0.1:${service.openrlhf?.port}/get_reward`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: [`${prompt}${fence(unittestTask.gold)}`],
        prompts: [prompt],
        labels: [unittestTask.task_id],
      }),
    });
    expect(response.status).toBe(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta("minedit_rpcs_total", { method: "openrlhf/get_reward", code: "200" })).toBe(1);
    expect(
      delta("minedit_rollouts_total", { endpoint: "openrlhf", verdict: "PASSED", style: "unittest" }),
    ).toBe(1);
  });
});

describe("logs", () => {
  test("one JSON line per call with its rollout count, verdict counts and latency; no program text at info", async () => {
    const start = log.lines.length;
    const ref = { case: "taskId" as const, value: unittestTask.task_id };
    await scoreBatch(client, {
      rollouts: [
        { id: "l1", completion: fence(`${unittestTask.gold}\n# ${SECRET} l1\n`), taskRef: ref },
        { id: "l2", completion: `${unittestTask.corrupted}\n# ${SECRET} l2\n`, taskRef: ref },
      ],
    });
    const calls = log.lines.slice(start).filter((line) => line.msg === "call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      level: 30,
      method: "ScoreBatch",
      code: "OK",
      rollouts: 2,
      verdicts: { PASSED: 1, FAILED_TESTS: 1 },
    });
    expect(calls[0]?.latencyMs).toBeGreaterThan(0);
    expect(typeof calls[0]?.time).toBe("string");
    expect(log.raw.join("")).not.toContain(SECRET);
  });

  test("at debug the completions are logged; a failed call's line carries its code", async () => {
    const debug = capture("debug");
    const config = parseConfig({ server: { port: 0 }, pool: { threads: 1 }, tasks: { gate: false } });
    const quiet = await startService(config, [DEFAULT_TASK_FILE], false, () => {}, debug.logger);
    const other = new Client(`127.0.0.1:${quiet.server.port}`, credentials.createInsecure());
    try {
      const ref = { case: "taskId" as const, value: unittestTask.task_id };
      await scoreBatch(other, { rollouts: [{ id: "d1", completion: `# ${SECRET}\n`, taskRef: ref }] });
      const missing = { case: "taskId" as const, value: "no/such-task" };
      await callError(scoreBatch(other, { rollouts: [{ id: "d2", completion: "x", taskRef: missing }] }));
    } finally {
      other.close();
      await quiet.close();
    }
    expect(debug.lines.find((l) => l.msg === "rollout" && l.rollout === "d1")?.completion).toContain(SECRET);
    const calls = debug.lines.filter((l) => l.msg === "call" && l.method === "ScoreBatch");
    expect(calls.map((l) => l.code)).toEqual(["OK", "NOT_FOUND"]);
    expect(calls[1]?.details).toContain("no/such-task");
  });
});
