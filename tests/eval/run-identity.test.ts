/**
 * The pieces behind a run's identity and its progress, without the CLI: default run names (model,
 * prompt, reasoning), the refusal of two runs with one name, the retry counts of the progress line, the
 * ground-truth gate's progress through the scoring engine, and the reachability probe of an endpoint on
 * a closed loopback port and on the fake server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { isMineditError } from "../../src/errors.js";
import { assertDistinctRunNames, defaultCandidatesRunName, defaultRunName } from "../../src/eval/run-name.js";
import { DEFAULT_RETRY_POLICY } from "../../src/generation/backoff.js";
import { Endpoint } from "../../src/generation/endpoint.js";
import { formatRetries, StageProgress } from "../../src/generation/stage-progress.js";
import { startScoringEngine } from "../../src/scoring/scoring-engine.js";
import { type FakeServer, startFakeOpenAI } from "./fake-openai-server.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("default run names", () => {
  it("carry the model, a non-default prompt and the reasoning setting, and nothing that is default", () => {
    expect(defaultRunName("qwen3-14b", "generic", {})).toBe("qwen3-14b");
    expect(defaultRunName("qwen3-14b", "explicit", { reasoning_effort: "high" })).toBe(
      "qwen3-14b · explicit · high",
    );
    expect(defaultRunName("m", "generic", { extra: { reasoning_effort: "low" } })).toBe("m · low");
    expect(defaultRunName("m", "generic", { extra: { reasoning: { effort: "medium" } } })).toBe("m · medium");
    expect(
      defaultRunName("m", "explicit", { extra: { chat_template_kwargs: { enable_thinking: false } } }),
    ).toBe("m · explicit · no thinking");
    // Sampling settings that are not reasoning do not enter the name.
    expect(defaultRunName("m", "generic", { temperature: 0, seed: 3, extra: { top_k: 20 } })).toBe("m");
    expect(defaultCandidatesRunName("out/verl-gen.parquet", "generic")).toBe("verl-gen.parquet");
    expect(defaultCandidatesRunName("verl-gen.parquet", "explicit")).toBe("verl-gen.parquet · explicit");
  });

  it("are refused when two runs share one, naming both directories and how to rename", () => {
    expect(() =>
      assertDistinctRunNames([
        { name: "a", dir: "runs/a" },
        { name: "b", dir: "runs/b" },
      ]),
    ).not.toThrow();
    let caught: unknown;
    try {
      assertDistinctRunNames([
        { name: "m", dir: "runs/x" },
        { name: "b", dir: "runs/b" },
        { name: "m", dir: "runs/y" },
      ]);
    } catch (error) {
      caught = error;
    }
    expect(isMineditError(caught)).toBe(true);
    const message = (caught as Error).message;
    expect(message).toContain('runs/x and runs/y are both named "m"');
    expect(message).toContain("--name NEW");
    expect(message).toContain("--score-only --name NEW --out DIR");
  });
});

describe("progress", () => {
  it("counts retries by cause, the most frequent first, an HTTP status as its number", () => {
    const retries = new Map([
      ["HTTP 500", 2],
      ["HTTP 429", 10],
    ]);
    expect(formatRetries(retries)).toBe("retried 12 requests: 429 ×10, 500 ×2");
    expect(formatRetries(new Map([["ECONNRESET", 1]]))).toBe("retried 1 requests: ECONNRESET ×1");
    expect(formatRetries(new Map())).toBe("");
  });

  it("shows the retries in the generation's progress line", () => {
    let clock = 0;
    const written: string[] = [];
    const stream = { isTTY: false, write: (text: string) => written.push(text) };
    const progress = new StageProgress(stream as never, "generating", "samples", () => clock);
    clock = 6000;
    progress.update({ done: 3, total: 10, tokens: 600, errors: 0, retries: new Map([["HTTP 429", 4]]) });
    expect(written.join("")).toContain("3/10 samples, 100 tok/s, retried 4 times: 429 ×4");
  });

  it("reports the ground-truth gate's progress task by task", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "minedit-eval-gate-progress-"));
    try {
      const rows = readFileSync(join(ROOT, "datasets", "tasks", "in-domain.jsonl"), "utf8")
        .split("\n")
        .slice(0, 3);
      const file = join(dir, "tasks.jsonl");
      writeFileSync(file, `${rows.join("\n")}\n`);
      const config = parseConfig({ pool: { threads: 1 }, tasks: { gateCacheDir: join(dir, "gate") } });
      const seen: [number, number][] = [];
      const engine = await startScoringEngine(config, [file], true, {
        log: () => {},
        onGateProgress: (done, total) => seen.push([done, total]),
      });
      await engine.close();
      expect(seen).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the endpoint's reachability probe", () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeOpenAI({ model: () => ({ text: "x" }) });
  });
  afterAll(async () => {
    await server.close();
  });

  const endpointAt = (url: string) =>
    new Endpoint({
      target: { endpoint: url, model: "fake-model", api: "chat", params: {} },
      apiKey: "k",
      timeoutMs: 5000,
      retry: DEFAULT_RETRY_POLICY,
    });

  it("fails at once on a closed port, naming the endpoint and ECONNREFUSED", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const address = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const url = `http://127.0.0.1:${address.port}/v1`;
    const started = performance.now();
    await expect(endpointAt(url).probe(5000)).rejects.toThrow(
      new RegExp(`cannot reach ${url.replaceAll(".", "\\.")} \\(ECONNREFUSED\\)`),
    );
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("passes a server that answers", async () => {
    await expect(endpointAt(server.url).probe(5000)).resolves.toBeUndefined();
  });
});
