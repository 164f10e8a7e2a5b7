import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ProcessResult, runMinedit as run, writeSeedTasks } from "./cli-process.js";
import { taskModel } from "./fake-model.js";
import { type FakeServer, startFakeOpenAI } from "./fake-openai-server.js";

const TASKS = 3;

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

let dir: string;
let server: FakeServer;
let taskFile: string;
let config: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "minedit-eval-behaviour-"));
  const seeded = writeSeedTasks(dir, TASKS);
  ({ taskFile, config } = seeded);
  const tasks = seeded.tasks;
  server = await startFakeOpenAI({
    apiKey: "sk-test",
    model: taskModel({ tasks, behaviour: () => "gold" }),
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => server.setFault(undefined));

const base = (baseUrl: string, out: string, extra: string[] = []) => [
  "eval",
  "run",
  "--tasks",
  taskFile,
  "--model",
  "fake-model",
  "--base-url",
  baseUrl,
  "--out",
  out,
  "--resamples",
  "100",
  "--concurrency",
  "2",
  "--threads",
  "1",
  ...extra,
];

function runWithKey(args: string[], key = "sk-test"): Promise<ProcessResult> {
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = key;
  try {
    return run(args);
  } finally {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
  }
}

/** The lines of stderr that are an error of `eval run` (not progress or gate notes). */
const errorLines = (stderr: string) =>
  stderr.split("\n").filter((l) => /unreachable|cannot reach|refused the request/.test(l));

describe("eval run against a dead or failing endpoint", () => {
  it("stops within seconds on a closed port: one error naming the endpoint and ECONNREFUSED, exit 2, no report", {
    timeout: 60_000,
  }, async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const out = join(dir, "dead");
    const result = await runWithKey([...base(url, out), "--config", config]);
    expect(result.status, result.stderr).toBe(2);
    expect(result.seconds).toBeLessThan(20);
    const errors = errorLines(result.stderr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(url);
    expect(errors[0]).toContain("ECONNREFUSED");
    expect(existsSync(join(out, "report.md"))).toBe(false);
    expect(existsSync(join(out, "report.json"))).toBe(false);
    expect(result.stdout).toBe("");
  });

  it("stops within seconds when every request is a 500: the cause named, exit 2, no report", {
    timeout: 60_000,
  }, async () => {
    server.setFault(() => ({ kind: "error", status: 500 }));
    const out = join(dir, "five-hundred");
    const result = await runWithKey([...base(server.url, out), "--config", config]);
    expect(result.status, result.stderr).toBe(2);
    // The default policy's full backoff would take minutes (6 retries up to 60 s): here two short retries.
    expect(result.seconds).toBeLessThan(30);
    const errors = errorLines(result.stderr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(server.url);
    expect(errors[0]).toContain("HTTP 500");
    expect(existsSync(join(out, "report.md"))).toBe(false);
  });

  it("stops on a refused key (401) with the endpoint and the status", { timeout: 60_000 }, async () => {
    const out = join(dir, "wrong-key");
    const result = await runWithKey([...base(server.url, out), "--config", config], "sk-wrong");
    expect(result.status, result.stderr).toBe(2);
    const errors = errorLines(result.stderr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(server.url);
    expect(errors[0]).toContain("401");
    expect(existsSync(join(out, "report.md"))).toBe(false);
  });

  it("retries a few 429s as before and counts them in the summary, with Pass@1 and its interval", {
    timeout: 120_000,
  }, async () => {
    // The first attempt of every task's request is rate-limited once (its prompt seen for the first time).
    const seen = new Set<string>();
    server.setFault((_, body) => {
      const key = JSON.stringify(body.messages);
      if (seen.has(key)) return null;
      seen.add(key);
      return { kind: "rate-limit", retryAfterMs: "50" };
    });
    const out = join(dir, "rate-limited");
    const result = await runWithKey([...base(server.url, out), "--config", config]);
    expect(result.status, result.stderr).toBe(0);
    // Hand count: one 429 per task, TASKS tasks.
    expect(result.stdout).toContain(`Generation retried ${TASKS} requests: 429 ×${TASKS}.`);
    expect(result.stderr).toContain(`retried ${TASKS} requests: 429 ×${TASKS}`);
    // Every task repaired by the gold: Pass@1 1.000 with the degenerate interval [1.000, 1.000].
    expect(result.stdout).toContain(`Overall Pass@1 over ${TASKS} repair task(s): 1.000 [1.000, 1.000]`);
    const manifest = JSON.parse(readFileSync(join(out, "run.json"), "utf8"));
    expect(manifest.generation.retries).toEqual({ "HTTP 429": TASKS });
  });
});

describe("run names", () => {
  it("names a run by model, prompt and reasoning; refuses two runs of one name; --score-only --name renames", {
    timeout: 180_000,
  }, async () => {
    const plain = join(dir, "plain");
    const first = await runWithKey([...base(server.url, plain), "--config", config]);
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(plain, "run.json"), "utf8")).name).toBe("fake-model");

    const explicit = join(dir, "explicit-high");
    const args = [...base(server.url, explicit), "--prompt", "explicit", "--reasoning-effort", "high"];
    const second = await runWithKey([...args, "--config", config]);
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(explicit, "run.json"), "utf8")).name).toBe(
      "fake-model · explicit · high",
    );

    // Same name twice: a third run of the plain settings elsewhere.
    const twin = join(dir, "twin");
    const third = await runWithKey([...base(server.url, twin), "--config", config]);
    expect(third.status, third.stderr).toBe(0);
    for (const command of [
      ["eval", "report", plain, twin, "--out", join(dir, "table")],
      ["eval", "compare", plain, twin, "--out", join(dir, "cmp")],
    ]) {
      const refused = await run(command);
      expect(refused.status, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('are both named "fake-model"');
      expect(refused.stderr).toContain("--score-only --name NEW --out DIR");
    }
    expect(existsSync(join(dir, "table", "report.md"))).toBe(false);

    // The advice works: re-score the twin under a new name, from its own journal, without a request.
    const before = server.requests.length;
    const renamed = await runWithKey([
      ...base(server.url, twin),
      "--score-only",
      "--name",
      "fake-model (again)",
      "--config",
      config,
    ]);
    expect(renamed.status, renamed.stderr).toBe(0);
    expect(server.requests.filter((r) => r.index >= before)).toEqual([]);
    expect(JSON.parse(readFileSync(join(twin, "run.json"), "utf8")).name).toBe("fake-model (again)");
    const report = await run(["eval", "report", plain, twin, "--out", join(dir, "table")]);
    expect(report.status, report.stderr).toBe(0);
    expect(readFileSync(join(dir, "table", "report.md"), "utf8")).toContain("fake-model (again)");
  });

  it("keeps the ground-truth gate's cache inside --out and says so", { timeout: 120_000 }, async () => {
    const out = join(dir, "own-gate");
    const result = await runWithKey(base(server.url, out));
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(join(out, "gate-cache"))).toBe(true);
    expect(result.stderr).toContain(join(out, "gate-cache"));
  });
});
