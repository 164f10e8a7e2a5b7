import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetWriteFile } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMinedit as run, writeSeedTasks } from "./cli-process.js";
import { type Behaviour, taskModel } from "./fake-model.js";
import { type FakeServer, startFakeOpenAI } from "./fake-openai-server.js";

/** Resolves when `condition` holds, checking every 50 ms; rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const journalLines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.endsWith("}"))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

const readJsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let dir: string;
let server: FakeServer;
let taskFile: string;
let config: string;
const BEHAVIOUR: Behaviour[] = ["gold", "rewrite", "corrupted", "gold", "no-code"];
const TASKS = 5;
const N = 2;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "minedit-eval-resume-"));
  const seeded = writeSeedTasks(dir, TASKS);
  ({ taskFile, config } = seeded);
  const tasks = seeded.tasks;
  server = await startFakeOpenAI({
    model: taskModel({
      tasks,
      // One request per sample, seeded 11 + the sample index: the sample index is seed − 11.
      behaviour: (taskId, choice, body) => {
        const sample = choice + (typeof body.seed === "number" ? body.seed - 11 : 0);
        return BEHAVIOUR[
          (tasks.findIndex((t) => t.task_id === taskId) + sample) % BEHAVIOUR.length
        ] as Behaviour;
      },
    }),
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const answeredTotal = () => [...server.answered.values()].reduce((a, b) => a + b, 0);
/** Answered responses per (prompt, seed): one sample each with --one-per-request. */
function answeredPerSample(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of server.requests) {
    if (request.result !== "answered") continue;
    const messages = request.body.messages as { content: string }[];
    const key = `${messages.at(-1)?.content}\u0000${String(request.body.seed)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe("eval run, killed and resumed", () => {
  const out = () => join(dir, "run-a");
  const args = () => [
    "eval",
    "run",
    "--tasks",
    taskFile,
    "--model",
    "fake-model",
    "--base-url",
    server.url,
    "--out",
    out(),
    "--n",
    String(N),
    "--seed",
    "11",
    "--one-per-request",
    "--parallel",
    "2",
    "--timeout-ms",
    "60000",
    "--resamples",
    "200",
    "--concurrency",
    "2",
    "--threads",
    "1",
    "--config",
    config,
  ];

  it("generates nothing twice and scores every sample once finished", { timeout: 120_000 }, async () => {
    const answerFirst = 4;
    server.setFault(() => (answeredTotal() >= answerFirst ? { kind: "hang" } : null));
    const journal = join(out(), "journal.jsonl");
    const killed = await run(args(), (child) => {
      until(() => journalLines(journal).length >= answerFirst, 60_000, "the first answers in the journal")
        .then(() => until(() => server.requests.some((r) => r.result === "hang"), 60_000, "a held request"))
        .then(() => child.kill("SIGKILL"))
        .catch(() => child.kill("SIGKILL"));
    });
    expect(killed.status).toBeNull(); // killed by the signal
    expect(journalLines(journal)).toHaveLength(answerFirst);
    expect(existsSync(join(out(), "samples.jsonl"))).toBe(false);

    server.setFault(undefined);
    const before = server.requests.length;
    const resumed = await run(args());
    expect(resumed.stderr).toContain(`(${answerFirst} already in the journal, 0 failed)`);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(server.requests.length - before).toBe(TASKS * N - answerFirst);
    for (const [key, count] of answeredPerSample()) expect(count, key).toBe(1);
    expect(answeredTotal()).toBe(TASKS * N);

    const samples = readJsonl(join(out(), "samples.jsonl"));
    expect(samples).toHaveLength(TASKS * N);
    expect(samples.filter((s) => s.outcome === "MISSING" || s.outcome === "API_ERROR")).toEqual([]);
    const byBehaviour = (b: Behaviour) =>
      samples.filter(
        (s, i) => BEHAVIOUR[(Math.floor(i / N) + (s.sample as number)) % BEHAVIOUR.length] === b,
      );
    expect(
      byBehaviour("gold").every((s) => s.outcome === "PASSED" && s.excess === 0 && s.added_cc === 0),
    ).toBe(true);
    expect(
      byBehaviour("rewrite").every(
        (s) => s.outcome === "PASSED" && (s.excess as number) > 0 && s.added_cc === 1,
      ),
    ).toBe(true);
    expect(byBehaviour("corrupted").every((s) => s.outcome === "FAILED_TESTS")).toBe(true);
    expect(byBehaviour("no-code").every((s) => s.outcome === "NO_CODE")).toBe(true);
    const report = JSON.parse(readFileSync(join(out(), "report.json"), "utf8"));
    expect(report.v).toBe("minedit-eval-report/1");
    expect(report.runs[0].domains["in-domain"].samples).toBe(TASKS * N);
    expect(resumed.stdout).toContain("| fake-model |");
  });

  it("re-scores the journal with --score-only without asking the endpoint", {
    timeout: 120_000,
  }, async () => {
    const before = server.requests.length;
    const again = await run([
      ...args().slice(0, args().indexOf("--one-per-request")),
      "--score-only",
      "--resamples",
      "200",
      "--config",
      config,
      "--out",
      join(dir, "run-a-rescored"),
      "--journal",
      join(out(), "journal.jsonl"),
    ]);
    expect(again.status, again.stderr).toBe(0);
    expect(server.requests.length).toBe(before);
    const first = readJsonl(join(out(), "samples.jsonl")).map((s) => [
      s.task_id,
      s.sample,
      s.outcome,
      s.excess,
    ]);
    const second = readJsonl(join(dir, "run-a-rescored", "samples.jsonl")).map((s) => [
      s.task_id,
      s.sample,
      s.outcome,
      s.excess,
    ]);
    expect(second).toEqual(first);
  });

  it("scores completions made elsewhere, and compares and reports the runs", {
    timeout: 120_000,
  }, async () => {
    const tasks = readJsonl(taskFile);
    const candidates = join(dir, "candidates.jsonl");
    // Run B: every task repaired with the gold; one task has no completion (MISSING).
    writeFileSync(
      candidates,
      tasks
        .slice(0, TASKS - 1)
        .map((t) =>
          JSON.stringify({
            task_id: t.task_id,
            completions: [`\`\`\`python\n${t.gold}\`\`\``, `\`\`\`python\n${t.gold}\`\`\``],
          }),
        )
        .join("\n"),
    );
    const outB = join(dir, "run-b");
    const b = await run([
      "eval",
      "run",
      "--tasks",
      taskFile,
      "--candidates",
      candidates,
      "--n",
      String(N),
      "--name",
      "gold-model",
      "--out",
      outB,
      "--resamples",
      "200",
      "--config",
      config,
      "--concurrency",
      "2",
      "--threads",
      "1",
    ]);
    expect(b.status, b.stderr).toBe(1); // one task's samples are MISSING
    const samplesB = readJsonl(join(outB, "samples.jsonl"));
    expect(samplesB.filter((s) => s.outcome === "MISSING")).toHaveLength(N);
    const reportB = JSON.parse(readFileSync(join(outB, "report.json"), "utf8"));
    expect(reportB.runs[0].domains["in-domain"].pass_at_1.estimate).toBeCloseTo((TASKS - 1) / TASKS, 10);

    // The same completions as Parquet rows {task_id, completion} (a task's rows in order are its samples).
    const parquet = join(dir, "candidates.parquet");
    const rows = tasks.slice(0, TASKS - 1).flatMap((t) => Array.from({ length: N }, () => t));
    parquetWriteFile({
      filename: parquet,
      columnData: [
        { name: "task_id", data: rows.map((t) => t.task_id as string), type: "STRING" },
        { name: "completion", data: rows.map((t) => `\`\`\`python\n${t.gold}\`\`\``), type: "STRING" },
      ],
    });
    const outP = join(dir, "run-parquet");
    const p = await run([
      "eval",
      "run",
      "--tasks",
      taskFile,
      "--candidates",
      parquet,
      "--n",
      String(N),
      "--out",
      outP,
      "--resamples",
      "200",
      "--config",
      config,
      "--concurrency",
      "2",
      "--threads",
      "1",
    ]);
    expect(p.status, p.stderr).toBe(1);
    const outcomes = (samples: Record<string, unknown>[]) =>
      samples.map((s) => `${s.task_id}#${s.sample}:${s.outcome}`).sort();
    expect(outcomes(readJsonl(join(outP, "samples.jsonl")))).toEqual(outcomes(samplesB));

    const compare = await run([
      "eval",
      "compare",
      out(),
      outB,
      "--out",
      join(dir, "cmp"),
      "--resamples",
      "200",
    ]);
    expect(compare.status, compare.stderr).toBe(0);
    const cmp = JSON.parse(readFileSync(join(dir, "cmp", "compare.json"), "utf8"));
    expect(cmp.v).toBe("minedit-eval-compare/1");
    expect(cmp.paired.tasks).toBe(TASKS);
    expect(existsSync(join(dir, "cmp", "compare.html"))).toBe(true);
    expect(compare.stdout).toContain("McNemar");

    const report = await run([
      "eval",
      "report",
      out(),
      outB,
      "--out",
      join(dir, "both"),
      "--resamples",
      "200",
    ]);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toContain("| gold-model |");
    expect(report.stdout).toContain("| fake-model |");
  });

  it("says what is wrong with bad flags", async () => {
    const missing = await run(["eval", "run", "--tasks", taskFile, "--out", join(dir, "x")]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("missing --model");
    const refused = await run([
      "eval",
      "run",
      "--tasks",
      taskFile,
      "--model",
      "nope",
      "--base-url",
      server.url,
      "--out",
      join(dir, "y"),
      "--config",
      config,
    ]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("refused the request (404)");
    const help = await run(["eval", "run", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Examples:");
  });
});
