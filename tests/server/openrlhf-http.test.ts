/**
 * The OpenRLHF HTTP endpoint's own behaviour (request parsing, INFRA_ERROR masking, limits, aborts,
 * TLS) on a real node:http server, with the clearly named FAKE scorers of the gRPC server tests standing
 * in for the engine. The endpoint against the real engine is in tests/clients/python-client.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { serviceConfig } from "../../src/cli/service-options.js";
import { parseConfig, type ServerConfig, ServerConfigSchema } from "../../src/config.js";
import { ErrorCode, isMineditError } from "../../src/errors.js";
import type { RolloutScorer } from "../../src/scoring/rollout.js";
import { type RunningHttpServer, startOpenRlhfServer } from "../../src/server/openrlhf-http.js";
import { ReversingFakeScorer, SignalWaitingFakeScorer, selfSignedCertificate } from "./harness.js";

let running: RunningHttpServer | undefined;

async function start(scorer: RolloutScorer, overrides: Partial<ServerConfig> = {}): Promise<string> {
  const config = ServerConfigSchema.parse({ port: 0, maxBatchRollouts: 8, ...overrides });
  running = await startOpenRlhfServer({ config: { ...config, openrlhfPort: 0 }, scorer });
  return `http://127.0.0.1:${running.port}/get_reward`;
}

afterEach(async () => {
  await running?.close();
  running = undefined;
});

const PROMPT = "<s>[INST] repair [/INST]";
const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });

describe("OpenRLHF endpoint", () => {
  test("rewards in request order; an INFRA_ERROR takes the mean of its task's scored samples", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer);
    // The fake scorer reads the verdict from the completion: PASSED 0.1, FAILED_TESTS -0.2, INFRA null.
    const completions = [
      "verdict:PASSED",
      "verdict:FAILED_TESTS",
      "verdict:INFRA_ERROR",
      "verdict:INFRA_ERROR",
    ];
    const response = await post(url, {
      query: completions.map((c) => `BOS${PROMPT}${c}`),
      prompts: completions.map(() => PROMPT),
      labels: ["task/a", "task/a", "task/a", 7],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      rewards: number[];
      scores: number[];
      extra_logs: Record<string, number[]>;
      verdicts: string[];
    };
    expect(body.rewards[0]).toBe(0.1);
    expect(body.rewards[1]).toBe(-0.2);
    expect(body.rewards[2]).toBeCloseTo((0.1 - 0.2) / 2, 12);
    expect(body.rewards[3]).toBe(0); // no scored sample of task 7 in the request
    expect(body.scores).toEqual([1, 0, 0.5, 0]);
    expect(body.extra_logs.infra_error).toEqual([0, 0, 1, 1]);
    expect(body.extra_logs.excess).toEqual([0, 0, 0, 0]);
    expect(body.verdicts).toEqual(["PASSED", "FAILED_TESTS", "INFRA_ERROR", "INFRA_ERROR"]);
    // The response is what follows the prompt; the label is the stored task id; one scorer call.
    expect(scorer.calls).toHaveLength(1);
    expect(scorer.calls[0]?.rollouts.map((r) => [r.completion, r.task])).toEqual([
      ["verdict:PASSED", { kind: "stored", taskId: "task/a" }],
      ["verdict:FAILED_TESTS", { kind: "stored", taskId: "task/a" }],
      ["verdict:INFRA_ERROR", { kind: "stored", taskId: "task/a" }],
      ["verdict:INFRA_ERROR", { kind: "stored", taskId: "7" }],
    ]);
  });

  test("a body over server.maxReceiveMessageBytes and a batch over maxBatchRollouts are 413", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer, { maxReceiveMessageBytes: 1024 });
    const big = await post(url, { query: ["x".repeat(4096)], prompts: [""], labels: ["t"] });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe("resource_exhausted");
    const many = Array.from({ length: 9 }, () => "q");
    const tooMany = await post(url, { query: many, prompts: many.map(() => ""), labels: many });
    expect(tooMany.status).toBe(413);
    expect(((await tooMany.json()) as { error: { message: string } }).error.message).toMatch(/limit of 8/);
    expect(scorer.calls).toHaveLength(0);
  });

  test("a client that hangs up stops the request's scoring", async () => {
    const scorer = new SignalWaitingFakeScorer();
    const url = await start(scorer);
    const controller = new AbortController();
    const pending = fetch(url, {
      method: "POST",
      body: JSON.stringify({ query: ["p x"], prompts: ["p"], labels: ["t"] }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await scorer.started.promise;
    controller.abort();
    const reason = await scorer.aborted.promise;
    expect(isMineditError(reason) && reason.code).toBe(ErrorCode.Cancelled);
    await pending;
  });

  test("close() aborts requests in flight", async () => {
    const scorer = new SignalWaitingFakeScorer();
    const url = await start(scorer);
    const pending = post(url, { query: ["p x"], prompts: ["p"], labels: ["t"] }).catch((e: unknown) => e);
    await scorer.started.promise;
    await running?.close();
    running = undefined;
    expect(isMineditError(await scorer.aborted.promise)).toBe(true);
    await pending;
  });

  test("a taken port is Unavailable naming server.openrlhfPort", async () => {
    await start(new ReversingFakeScorer());
    const config = ServerConfigSchema.parse({});
    const error = await startOpenRlhfServer({
      config: { ...config, openrlhfPort: running?.port ?? 0 },
      scorer: new ReversingFakeScorer(),
    }).catch((e: unknown) => e);
    expect(isMineditError(error) && error.code).toBe(ErrorCode.Unavailable);
    expect(String(error)).toMatch(/server\.openrlhfPort/);
  });
});

describe("configuration", () => {
  test("off by default; `server.openrlhfPort` or `--openrlhf-port` turns it on; bad ports are refused", async () => {
    expect(parseConfig({}).server.openrlhfPort).toBeUndefined();
    expect(parseConfig({ server: { openrlhfPort: 5000 } }).server.openrlhfPort).toBe(5000);
    expect((await serviceConfig({ "openrlhf-port": "0" })).server.openrlhfPort).toBe(0);
    expect(() => parseConfig({ server: { openrlhfPort: 70000 } })).toThrow(/server\.openrlhfPort/);
    await expect(serviceConfig({ "openrlhf-port": "x" })).rejects.toThrow(
      /--openrlhf-port: expected an integer/,
    );
  });
});

describe("OpenRLHF endpoint over TLS", () => {
  let dir = "";
  let certFile = "";
  let keyFile = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "minedit-openrlhf-tls-"));
    ({ certFile, keyFile } = selfSignedCertificate(dir));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("serves HTTPS with the gRPC server's certificate when server.tls is set", async () => {
    await start(new ReversingFakeScorer(), { tls: { certFile, keyFile } });
    const body = JSON.stringify({ query: ["p verdict:PASSED"], prompts: ["p"], labels: ["t"] });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: "127.0.0.1",
          port: running?.port,
          path: "/get_reward",
          method: "POST",
          ca: readFileSync(certFile),
        },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.text) as { rewards: number[] }).rewards).toEqual([0.1]);
  });
});
