/**
 * The generation client against a protocol-faithful OpenAI-compatible server started here on
 * 127.0.0.1:0, through the real `openai` client: chat and completions, `n`, usage, reasoning_content,
 * `finish_reason: "length"`, 429 with Retry-After (and retry-after-ms), 500, slow responses past the
 * timeout, fatal refusals; and the generation loop's journal: nothing asked twice, errors asked again.
 *
 * The client is the `openai` package we pin (6.49.0). What src/generation/endpoint.ts relies on was read in
 * openai/openai-node at tag v6.49.0 (commit 04671d278ef1531692ae31a870251eec90f3c2d2): the `maxRetries` and
 * `timeout` client options (src/client.ts), and `APIError.status` / `.headers`, `APIConnectionError` and
 * `APIConnectionTimeoutError` (src/core/error.ts). The newest release, v7.5.0 (main at
 * 7b7d6ca71130d37ec09792c50056b47861f2eccf), has the same options and error classes.
 */
import { getEventListeners } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { EvalTask } from "../../src/eval/eval-task.js";
import { isRetryable, retryAfterMs, retryDelayMs } from "../../src/generation/backoff.js";
import { Endpoint } from "../../src/generation/endpoint.js";
import { generateSamples } from "../../src/generation/generate.js";
import { Journal } from "../../src/generation/journal.js";
import { type GenerationTarget, sampleKey } from "../../src/generation/sampling.js";
import { type FakeServer, startFakeOpenAI } from "./fake-openai-server.js";

const FAST_RETRY = { retries: 3, baseMs: 5, maxMs: 20, maxRetryAfterMs: 5000 };

let server: FakeServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "minedit-eval-endpoint-"));
  server = await startFakeOpenAI({
    apiKey: "sk-test",
    model: ({ api, prompt, choice }) =>
      prompt.includes("think")
        ? { text: "```python\nx = 1\n```", reasoning: "let me think" }
        : { text: `${api} answer ${choice} to: ${prompt.slice(0, 20)} one two three four five six` },
  });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => server.setFault(undefined));

function endpoint(api: "chat" | "completions" = "chat", timeoutMs = 5000, params = {}): Endpoint {
  const target: GenerationTarget = { endpoint: server.url, model: "fake-model", api, params };
  return new Endpoint({ target, apiKey: "sk-test", timeoutMs, retry: FAST_RETRY });
}

const chat = (content: string) => ({ kind: "chat" as const, messages: [{ role: "user" as const, content }] });

describe("the endpoint client", () => {
  it("asks the chat API for n samples and keeps usage, finish reasons and reasoning_content", async () => {
    const outcome = await endpoint().request(chat("hello"), 3, 7, new AbortController().signal);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.choices.map((c) => c.text.slice(0, 13))).toEqual([
      "chat answer 0",
      "chat answer 1",
      "chat answer 2",
    ]);
    expect(outcome.choices.every((c) => c.finishReason === "stop" && c.reasoning === null)).toBe(true);
    expect(outcome.usage?.promptTokens).toBe(1);
    expect(outcome.usage?.completionTokens).toBeGreaterThan(0);
    expect(outcome.attempts).toBe(1);
    const body = server.requests.at(-1)?.body ?? {};
    expect(body).toMatchObject({
      model: "fake-model",
      n: 3,
      seed: 7,
      messages: [{ role: "user", content: "hello" }],
    });

    const reasoning = await endpoint().request(
      chat("think first"),
      1,
      undefined,
      new AbortController().signal,
    );
    expect(reasoning.ok && reasoning.choices[0]?.reasoning).toBe("let me think");
    expect(server.requests.at(-1)?.body.n).toBeUndefined(); // n = 1 is the default, not sent
  });

  it("asks the completions API with the prompt text, and reports a max_tokens stop as length", async () => {
    const outcome = await endpoint("completions", 5000, { max_tokens: 3, temperature: 0 }).request(
      { kind: "text", text: "complete me" },
      1,
      undefined,
      new AbortController().signal,
    );
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.choices[0]?.text).toBe("completions answer 0");
    expect(outcome.choices[0]?.finishReason).toBe("length");
    expect(server.requests.at(-1)).toMatchObject({
      path: "/v1/completions",
      body: { prompt: "complete me", max_tokens: 3, temperature: 0 },
    });
  });

  it("waits at least Retry-After after a 429, then succeeds", async () => {
    const first = server.requests.length;
    server.setFault((index) => (index === first ? { kind: "rate-limit", retryAfter: "1" } : null));
    const outcome = await endpoint().request(
      chat("rate limited"),
      1,
      undefined,
      new AbortController().signal,
    );
    expect(outcome.ok && outcome.attempts).toBe(2);
    const [limited, retried] = server.requests.slice(first);
    expect(limited?.result).toBe("429");
    expect(retried?.result).toBe("answered");
    expect((retried?.receivedAt ?? 0) - (limited?.receivedAt ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it("honours retry-after-ms too, and retries 500s until they stop", async () => {
    const first = server.requests.length;
    server.setFault((index) =>
      index === first
        ? { kind: "rate-limit", retryAfterMs: "300" }
        : index === first + 1
          ? { kind: "error", status: 500 }
          : null,
    );
    const outcome = await endpoint().request(chat("flaky"), 1, undefined, new AbortController().signal);
    expect(outcome.ok && outcome.attempts).toBe(3);
    const [limited, failed] = server.requests.slice(first);
    expect((failed?.receivedAt ?? 0) - (limited?.receivedAt ?? 0)).toBeGreaterThanOrEqual(290);
  });

  it("gives up after its retries with the last error, without throwing", async () => {
    server.setFault(() => ({ kind: "error", status: 503 }));
    const before = server.requests.length;
    const outcome = await endpoint().request(chat("down"), 1, undefined, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, attempts: 4, error: { status: 503 } });
    expect(server.requests.length - before).toBe(4);
  });

  it("times out a slow response and retries it", async () => {
    const first = server.requests.length;
    server.setFault((index) => (index === first ? { kind: "slow", delayMs: 1500 } : null));
    const outcome = await endpoint("chat", 300).request(
      chat("slow"),
      1,
      undefined,
      new AbortController().signal,
    );
    expect(outcome.ok && outcome.attempts).toBe(2);
  });

  it("retries a 5xx only `unprovenRetries` times until the endpoint first answered, then every time", async () => {
    const policy = { ...FAST_RETRY, retries: 5, unprovenRetries: 1 };
    const fresh = new Endpoint({
      target: { endpoint: server.url, model: "fake-model", api: "chat", params: {} },
      apiKey: "sk-test",
      timeoutMs: 5000,
      retry: policy,
    });
    server.setFault(() => ({ kind: "error", status: 502 }));
    const before = server.requests.length;
    const early = await fresh.request(chat("dead?"), 1, undefined, new AbortController().signal);
    // 1 attempt + 1 retry, and the outcome says the endpoint looks down.
    expect(early).toMatchObject({ ok: false, attempts: 2, cause: "HTTP 502", down: true });
    expect(server.requests.length - before).toBe(2);
    server.setFault(undefined);
    expect((await fresh.request(chat("alive"), 1, undefined, new AbortController().signal)).ok).toBe(true);
    server.setFault(() => ({ kind: "error", status: 502 }));
    const later = await fresh.request(chat("flaky"), 1, undefined, new AbortController().signal);
    expect(later).toMatchObject({ ok: false, attempts: 6 });
  });

  it("stops the run on a refused key or an unknown model", async () => {
    const wrongKey = new Endpoint({
      target: { endpoint: server.url, model: "fake-model", api: "chat", params: {} },
      apiKey: "sk-wrong",
      timeoutMs: 5000,
      retry: FAST_RETRY,
    });
    await expect(wrongKey.request(chat("x"), 1, undefined, new AbortController().signal)).rejects.toThrow(
      /refused the request \(401\): .*a wrong or missing API key/,
    );
    const unknown = new Endpoint({
      target: { endpoint: server.url, model: "no-such-model", api: "chat", params: {} },
      apiKey: "sk-test",
      timeoutMs: 5000,
      retry: FAST_RETRY,
    });
    await expect(unknown.request(chat("x"), 1, undefined, new AbortController().signal)).rejects.toThrow(
      /\(404\): .*a wrong --base-url or --model/,
    );
  });

  it("leaves no abort listener behind on the run's signal, however many requests and retries", async () => {
    const run = new AbortController();
    const start = server.requests.length;
    server.setFault((index) => ((index - start) % 2 === 0 ? { kind: "error", status: 500 } : null));
    const client = endpoint();
    for (let i = 0; i < 12; i += 1) {
      const outcome = await client.request(chat(`listener ${i}`), 1, undefined, run.signal);
      expect(outcome.ok && outcome.attempts).toBe(2);
    }
    // The openai client never removes the listener it adds to a request's signal: 24 attempts would
    // have left 24 on the run's signal (and Node's MaxListenersExceededWarning).
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });
});

describe("the backoff policy", () => {
  it("retries what a later attempt can cure", () => {
    expect([408, 409, 429, 500, 502, 503, null].every(isRetryable)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryable)).toBe(false);
  });

  it("reads Retry-After as seconds or a date, and retry-after-ms first", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs({ retryAfter: "2" }, now)).toBe(2000);
    expect(retryAfterMs({ retryAfter: "Wed, 01 Jan 2025 00:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterMs({ retryAfter: "2", retryAfterMs: "150" }, now)).toBe(150);
    expect(retryAfterMs({ retryAfter: "soon" }, now)).toBeNull();
  });

  it("is capped, jittered, and never shorter than the server's wait (capped too)", () => {
    const policy = { retries: 6, baseMs: 1000, maxMs: 8000, maxRetryAfterMs: 30_000 };
    expect(retryDelayMs(0, null, policy, () => 0.5)).toBe(500);
    expect(retryDelayMs(2, null, policy, () => 0.5)).toBe(2000);
    expect(retryDelayMs(10, null, policy, () => 0.999)).toBeLessThan(8000);
    expect(retryDelayMs(0, 5000, policy, () => 0.5)).toBe(5000);
    expect(retryDelayMs(0, 120_000, policy, () => 0.5)).toBe(30_000);
  });
});

describe("generation into the journal", () => {
  const task = (id: string): EvalTask => ({
    taskId: id,
    kind: "repair",
    problemId: id,
    domain: "in-domain",
    families: [],
    messages: [{ role: "user", content: `prompt of ${id}` }],
    corrupted: "",
    gold: "",
    language: "python",
  });
  const target = (): GenerationTarget => ({
    endpoint: server.url,
    model: "fake-model",
    api: "chat",
    params: { seed: 3 },
  });

  it("asks each missing sample once, records errors, and asks only those again", async () => {
    const path = join(dir, "journal.jsonl");
    const tasks = [task("a"), task("b"), task("c")];
    let journal = await Journal.open(path);
    server.setFault((_, body) =>
      (body.messages as { content: string }[])[0]?.content === "prompt of b"
        ? { kind: "error", status: 500 }
        : null,
    );
    const first = await generateSamples({
      tasks,
      samples: 2,
      target: target(),
      endpoint: new Endpoint({
        target: target(),
        apiKey: "sk-test",
        timeoutMs: 5000,
        retry: { ...FAST_RETRY, retries: 1 },
      }),
      journal,
      parallel: 2,
      onePerRequest: false,
      signal: new AbortController().signal,
    });
    expect(first).toMatchObject({ reused: 0, asked: 6, generated: 4, failed: 2, requests: 3 });
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.status === "ok")).toHaveLength(4);
    expect(lines.find((l) => l.status === "error")).toMatchObject({
      task_id: "b",
      error: { status: 500 },
      attempts: 2,
    });
    const ok = lines.find((l) => l.task_id === "a" && l.sample === 1);
    expect(ok).toMatchObject({
      request_samples: 2,
      truncated: false,
      finish_reason: "stop",
      api: "chat",
      model: "fake-model",
    });
    expect(ok.key).toBe(sampleKey(target(), { kind: "chat", messages: tasks[0]?.messages ?? [] }, 1));

    server.setFault(undefined);
    const before = server.requests.length;
    journal = await Journal.open(path);
    const second = await generateSamples({
      tasks,
      samples: 3,
      target: target(),
      endpoint: new Endpoint({ target: target(), apiKey: "sk-test", timeoutMs: 5000, retry: FAST_RETRY }),
      journal,
      parallel: 2,
      onePerRequest: true,
      signal: new AbortController().signal,
    });
    // a and c: only sample 2 is new; b: all three (its errors are asked again).
    expect(second).toMatchObject({ reused: 4, asked: 5, generated: 5, failed: 0, requests: 5 });
    const seeds = server.requests
      .slice(before)
      .map((r) => [(r.body.messages as { content: string }[])[0]?.content, r.body.seed]);
    expect(seeds).toEqual(
      expect.arrayContaining([
        ["prompt of a", 5],
        ["prompt of b", 3],
        ["prompt of b", 4],
        ["prompt of b", 5],
        ["prompt of c", 5],
      ]),
    );
    const reopened = await Journal.open(path);
    expect([...reopened.state.entries.values()].filter((e) => e.status === "ok")).toHaveLength(9);
  });

  it("stops when the first requests all fail with the endpoint down (only those failures journalled, to be asked again)", async () => {
    const path = join(dir, "journal-dead.jsonl");
    const journal = await Journal.open(path);
    server.setFault(() => ({ kind: "error", status: 503 }));
    const retried: string[] = [];
    const run = generateSamples({
      tasks: [task("d1"), task("d2"), task("d3"), task("d4"), task("d5")],
      samples: 1,
      target: target(),
      endpoint: new Endpoint({
        target: target(),
        apiKey: "sk-test",
        timeoutMs: 5000,
        retry: { ...FAST_RETRY, unprovenRetries: 1 },
        onRetry: (cause) => retried.push(cause),
      }),
      journal,
      parallel: 1,
      onePerRequest: false,
      signal: new AbortController().signal,
    });
    await expect(run).rejects.toThrow(
      /is unreachable or failing \(HTTP 503\): the first 3 request\(s\) all failed/,
    );
    // Three requests (DEAD_ENDPOINT_REQUESTS) of two attempts each; one retry each, all for the 503.
    expect(retried).toEqual(["HTTP 503", "HTTP 503", "HTTP 503"]);
    expect(
      readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.includes('"status":"error"')).length,
    ).toBe(2);
  });

  it("drops a torn last line when reopened, so the next append starts a line of its own", async () => {
    const path = join(dir, "torn.jsonl");
    const journal = await Journal.open(path);
    await generateSamples({
      tasks: [task("t")],
      samples: 1,
      target: target(),
      endpoint: new Endpoint({ target: target(), apiKey: "sk-test", timeoutMs: 5000, retry: FAST_RETRY }),
      journal,
      parallel: 1,
      onePerRequest: false,
      signal: new AbortController().signal,
    });
    const { appendFileSync } = await import("node:fs");
    appendFileSync(path, '{"v":1,"key":"abc","task_id":');
    const reopened = await Journal.open(path);
    expect(reopened.state.repaired).toBe(true);
    expect(reopened.state.badLines).toEqual([]);
    expect(readFileSync(path, "utf8").endsWith("}\n")).toBe(true);
  });
});
