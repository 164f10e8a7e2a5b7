/**
 * Preference data from a model endpoint in one command (`export --kind rsft|dpo --generate`), and from an
 * eval run's samples (`--candidates RUN`). The endpoint is a local OpenAI-compatible HTTP server
 * (tests/eval/fake-openai-server.ts) answering the shipped in-domain tasks the same way every time: sample
 * 0 the gold repair, sample 1 a passing rewrite (a guard added: a larger edit), sample 2 the corrupted
 * program unchanged (fails), sample 3 a reasoning model's answer (a corrupted draft inside <think>, the
 * gold after it). What the paper's recipe must pick follows by hand: rSFT keeps gold, reasoning, rewrite
 * (d(M, G) = 0, 0, > 0; ties in sample order); DPO pairs gold (chosen) with the rewrite (rejected).
 * Faults are the server's: a 429 with Retry-After and a 500 (retried), a task whose requests always fail
 * (API errors, counted per reason), and a SIGKILLed export that resumes without asking a finished
 * request again. The rows are read back with the readers the format tests use (JSONL, dataset_info.json,
 * Parquet through hyparquet).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promptId } from "../../src/core/prompt/message.js";
import { promptMessages } from "../../src/core/prompt/repair-prompt.js";
import { runMinedit, writeSeedTasks } from "../eval/cli-process.js";
import { answer, type Behaviour, type KnownTask, rewrite, taskModel } from "../eval/fake-model.js";
import { type FakeServer, type Fault, startFakeOpenAI } from "../eval/fake-openai-server.js";
import { exportCli, exportKind, readJsonl, tempDir } from "./helpers.js";

const BEHAVIOUR: Behaviour[] = ["gold", "rewrite", "corrupted", "reasoning"];
const SAMPLES = BEHAVIOUR.length;
const TASK_COUNT = 3;

type SeedTask = KnownTask & { statement: string };

let dir: ReturnType<typeof tempDir>;
let server: FakeServer;
let taskFile: string;
let tasks: SeedTask[];
/** The task whose requests fail, while set. */
let failing: string | null = null;

const fence = (program: string) => `\`\`\`python\n${program.endsWith("\n") ? program : `${program}\n`}\`\`\``;

beforeAll(async () => {
  dir = tempDir("export-generate");
  const seeded = writeSeedTasks(dir.path, TASK_COUNT);
  taskFile = seeded.taskFile;
  tasks = seeded.tasks as SeedTask[];
  server = await startFakeOpenAI({
    // One request per task asks for all its samples with n: choice i is sample i.
    model: taskModel({ tasks, behaviour: (_task, choice) => BEHAVIOUR[choice] as Behaviour }),
  });
});

afterAll(async () => {
  await server?.close();
  dir?.remove();
});

/** Requests fail with 500 for the failing task; `extra` decides for the others. */
function faults(
  extra: (index: number) => Fault = () => null,
): (index: number, body: Record<string, unknown>) => Fault {
  return (index, body) => {
    const messages = body.messages as { content: string }[] | undefined;
    const task = tasks.find((t) => failing !== null && t.task_id === failing);
    if (task !== undefined && messages?.at(-1)?.content.includes(task.corrupted.trimEnd()))
      return { kind: "error", status: 500 };
    return extra(index);
  };
}

const endpointArgs = () => [
  "--generate",
  "--base-url",
  server.url,
  "--model",
  "fake-model",
  "--samples",
  String(SAMPLES),
];

/** The user prompt of a task's rows, as the export writes it (the generic prompt). */
const userPrompt = (task: SeedTask) => promptMessages(task.statement, task.corrupted, "generic");

/** What the model answered for a sample, without the reasoning block (what a row's response must be). */
function response(task: SeedTask, behaviour: Behaviour): string {
  const text = answer(behaviour, task).text;
  const end = text.lastIndexOf("</think>");
  return end === -1 ? text : text.slice(end + "</think>".length).trimStart();
}

/** `minedit export --kind KIND --format FORMAT --tasks TASKS --generate ... ARGS`, in-process. */
const generated = (kind: string, format: string, ...args: string[]) =>
  exportKind(kind, format, "--tasks", taskFile, ...endpointArgs(), ...args);

const answeredTotal = () => [...server.answered.values()].reduce((a, b) => a + b, 0);

describe("export --generate: one command from an endpoint to rSFT and DPO data", () => {
  it("samples, scores and selects: rSFT keeps the three closest passing answers, DPO pairs gold with the rewrite", async () => {
    server.setFault(faults());
    const before = answeredTotal();
    const rsft = await generated("rsft", "hf", "--out", join(dir.path, "hf"));
    expect(rsft.status, rsft.stderr).toBe(0);
    // One request per task with n = 4 (the API's n): every prompt answered once.
    expect(answeredTotal() - before).toBe(TASK_COUNT);
    const rows = readJsonl(join(dir.path, "hf", "rsft", "train.jsonl"));
    expect(rows).toHaveLength(TASK_COUNT * 3);
    for (const task of tasks) {
      const mine = rows.filter((r) => r.task_id === task.task_id);
      expect(mine.map((r) => r.rank)).toEqual([0, 1, 2]);
      const assistant = (r: Record<string, unknown>) => (r.completion as { content: string }[])[0]?.content;
      expect(mine.map(assistant)).toEqual([
        response(task, "gold"),
        response(task, "reasoning"),
        response(task, "rewrite"),
      ]);
      expect(mine[0]?.prompt_id).toBe(promptId(userPrompt(task)));
      // The reasoning sample's row keeps the answer, not the corrupted draft inside <think>.
      expect(assistant(mine[1] as Record<string, unknown>)).not.toContain("<think>");
    }
    expect(rsft.stderr).toContain(
      `generated: ${TASK_COUNT * SAMPLES} of ${TASK_COUNT * SAMPLES} sample(s) asked in ${TASK_COUNT} requests`,
    );
    expect(rsft.stderr).toContain(
      `rows: ${TASK_COUNT * 3} from ${TASK_COUNT} tasks (${TASK_COUNT} with 3 passing, 0 with fewer)`,
    );
    expect(rsft.stderr).toContain(`PASSED ${TASK_COUNT * 3}, FAILED_TESTS ${TASK_COUNT}`);

    // DPO from the same journal: nothing is asked again.
    const asked = answeredTotal();
    const dpo = await generated(
      "dpo",
      "hf",
      "--journal",
      join(dir.path, "hf", ".journal", "rsft.jsonl"),
      "--out",
      join(dir.path, "hf"),
    );
    expect(dpo.status, dpo.stderr).toBe(0);
    expect(answeredTotal()).toBe(asked);
    expect(dpo.stderr).toContain(
      `generated: 0 of 0 sample(s) asked in 0 requests (${TASK_COUNT * SAMPLES} already in the journal`,
    );
    const pairs = readJsonl(join(dir.path, "hf", "dpo", "train.jsonl"));
    expect(pairs).toHaveLength(TASK_COUNT);
    for (const task of tasks) {
      const pair = pairs.find((p) => p.task_id === task.task_id) as Record<string, unknown>;
      const content = (side: unknown) => (side as { content: string }[])[0]?.content;
      expect(content(pair.chosen)).toBe(response(task, "gold"));
      expect(content(pair.rejected)).toBe(response(task, "rewrite"));
      expect(content(pair.rejected)).toContain(
        rewrite(task.gold)
          .split("\n")
          .find((l) => l.includes("raise ValueError")),
      );
    }
  });

  it("writes the same selection in every format that holds it, read back by each format's reader", async () => {
    server.setFault(faults());
    const journal = join(dir.path, "shared-journal.jsonl");
    const before = answeredTotal();
    const formats: [string, string][] = [
      ["rsft", "llamafactory"],
      ["rsft", "verl"],
      ["rsft", "openrlhf"],
      ["dpo", "llamafactory"],
      ["dpo", "openrlhf"],
    ];
    for (const [kind, format] of formats) {
      const run = await generated(kind, format, "--journal", journal, "--out", join(dir.path, format));
      expect(run.status, `${kind} ${format}: ${run.stderr}`).toBe(0);
    }
    // The first export asked; the others found every sample in the shared journal.
    expect(answeredTotal() - before).toBe(TASK_COUNT);
    const gold = (task: SeedTask) => response(task, "gold");

    const info = JSON.parse(readFileSync(join(dir.path, "llamafactory", "dataset_info.json"), "utf8"));
    expect(info.minedit_dpo_train).toMatchObject({ formatting: "sharegpt", ranking: true });
    const lfPairs = readJsonl(join(dir.path, "llamafactory", "dpo", "train.jsonl"));
    expect(lfPairs.map((p) => (p.chosen as { content: string }).content).sort()).toEqual(
      tasks.map(gold).sort(),
    );
    const lfRsft = readJsonl(join(dir.path, "llamafactory", "rsft", "train.jsonl"));
    expect(lfRsft).toHaveLength(TASK_COUNT * 3);

    const orPairs = readJsonl(join(dir.path, "openrlhf", "dpo", "train.jsonl"));
    for (const task of tasks) {
      const pair = orPairs.find((p) => p.task_id === task.task_id) as Record<string, unknown>;
      const content = (side: unknown) => (side as { content: string }[]).at(-1)?.content;
      expect(content(pair.chosen)).toBe(gold(task));
      expect(content(pair.rejected)).toBe(response(task, "rewrite"));
    }

    const parquet = join(dir.path, "verl", "rsft", "train.parquet");
    const verlRows = (await parquetReadObjects({ file: await asyncBufferFromFile(parquet) })) as Record<
      string,
      unknown
    >[];
    expect(verlRows).toHaveLength(TASK_COUNT * 3);
    for (const task of tasks) {
      const mine = verlRows.filter((r) => (r.extra_info as { task_id: string }).task_id === task.task_id);
      const answers = mine.map((r) => (r.messages as { role: string; content: string }[]).at(-1)?.content);
      expect(answers).toEqual([gold(task), response(task, "reasoning"), response(task, "rewrite")]);
    }
  });

  it("retries a 429 and a 500; a task whose requests keep failing is counted as API errors and asked again next time", async () => {
    const journal = join(dir.path, "fault-journal.jsonl");
    let base = -1;
    failing = tasks[1]?.task_id ?? null;
    server.setFault(
      faults((index) => {
        if (base === -1) base = index;
        if (index === base) return { kind: "rate-limit", retryAfter: "0" };
        if (index === base + 1) return { kind: "error", status: 500 };
        return null;
      }),
    );
    const first = await generated(
      "dpo",
      "hf",
      "--retries",
      "2",
      "--parallel",
      "1",
      "--journal",
      journal,
      "--out",
      join(dir.path, "faults"),
    );
    // Exported, but incomplete: exit 1, and the summary says why the failing task has no pair.
    expect(first.status, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/retried \d+ requests: .*429 ×1/);
    expect(first.stderr).toMatch(/500 ×\d+/);
    expect(first.stderr).toContain(`without a completion: API error ${SAMPLES}`);
    expect(first.stderr).toContain(`no completion (API error ${SAMPLES}) 1`);
    expect(first.stderr).toContain(`pairs: ${TASK_COUNT - 1} from ${TASK_COUNT - 1} tasks`);
    expect(readJsonl(join(dir.path, "faults", "dpo", "train.jsonl"))).toHaveLength(TASK_COUNT - 1);

    // The endpoint recovered: only the failed task is asked, and every task gets its pair.
    failing = null;
    server.setFault(faults());
    const before = answeredTotal();
    const second = await generated("dpo", "hf", "--journal", journal, "--out", join(dir.path, "faults"));
    expect(second.status, second.stderr).toBe(0);
    expect(answeredTotal() - before).toBe(1);
    expect(readJsonl(join(dir.path, "faults", "dpo", "train.jsonl"))).toHaveLength(TASK_COUNT);
  });

  it("resumes after SIGKILL without asking a finished request again", async () => {
    // One request per sample, slowed down, so the kill lands mid-generation.
    const journal = join(dir.path, "kill-journal.jsonl");
    const out = join(dir.path, "kill");
    server.setFault(faults(() => ({ kind: "slow", delayMs: 150 })));
    const args = [
      "export",
      "--kind",
      "rsft",
      "--format",
      "openrlhf",
      "--tasks",
      taskFile,
      ...endpointArgs(),
      "--one-per-request",
      "--parallel",
      "1",
      "--sampling-seed",
      "11",
      "--journal",
      journal,
      "--out",
      out,
      "--threads",
      "1",
    ];
    const perSample = () => {
      const counts = new Map<string, number>();
      for (const r of server.requests) {
        if (r.result !== "answered" || r.body.seed === undefined) continue;
        const key = `${(r.body.messages as { content: string }[]).at(-1)?.content}\u0000${String(r.body.seed)}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return counts;
    };
    const lines = () =>
      existsSync(journal)
        ? readFileSync(journal, "utf8")
            .split("\n")
            .filter((l) => l.endsWith("}")).length
        : 0;
    const killed = await runMinedit(args, (child) => {
      const timer = setInterval(() => {
        if (lines() >= 5) {
          clearInterval(timer);
          child.kill("SIGKILL");
        }
      }, 20);
      child.once("close", () => clearInterval(timer));
    });
    expect(killed.status).toBeNull();
    expect(existsSync(join(out, "rsft", "train.jsonl"))).toBe(false);
    const done = lines();
    expect(done).toBeGreaterThanOrEqual(5);
    expect(done).toBeLessThan(TASK_COUNT * SAMPLES);

    server.setFault(faults());
    const resumed = await runMinedit(args);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`(${done} already in the journal, 0 failed)`);
    // Every sample was answered exactly once over both runs.
    const counts = perSample();
    expect(counts.size).toBe(TASK_COUNT * SAMPLES);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(readJsonl(join(out, "rsft", "train.jsonl"))).toHaveLength(TASK_COUNT * 3);
  });

  it("refuses what cannot work, before anything runs", async () => {
    const out = join(dir.path, "refused");
    const cases: [string[], RegExp][] = [
      [
        ["--kind", "sft", "--format", "hf", "--tasks", taskFile, ...endpointArgs()],
        /--generate samples rsft\/dpo candidates/,
      ],
      [
        ["--kind", "dpo", "--format", "hf", "--tasks", taskFile, ...endpointArgs(), "--candidates", taskFile],
        /not both/,
      ],
      [
        [
          "--kind",
          "dpo",
          "--format",
          "hf",
          "--tasks",
          taskFile,
          "--candidates",
          taskFile,
          "--temperature",
          "1",
        ],
        /--temperature is for --generate/,
      ],
      [
        ["--kind", "dpo", "--format", "hf", "--tasks", taskFile, ...endpointArgs(), "--per-task", "2"],
        /drop --per-task/,
      ],
      [
        ["--kind", "dpo", "--format", "hf", "--tasks", taskFile, "--generate", "--base-url", server.url],
        /missing --model/,
      ],
      [
        [
          "--kind",
          "dpo",
          "--format",
          "hf",
          "--tasks",
          taskFile,
          "--generate",
          "--model",
          "m",
          "--base-url",
          "http://127.0.0.1:9/v1",
          "--retries",
          "0",
        ],
        /127\.0\.0\.1:9/,
      ],
      [["--kind", "dpo", "--format", "hf", "--tasks", taskFile, "--candidates", dir.path], /not an eval run/],
    ];
    for (const [args, message] of cases) {
      const run = await exportCli([...args, "--out", out]);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    expect(existsSync(out)).toBe(false);
  });
});

describe("export --candidates RUN: an eval run's samples", () => {
  it("takes each sample's program as a candidate; API errors are counted, not scored", async () => {
    failing = tasks[2]?.task_id ?? null;
    server.setFault(faults());
    const config = join(dir.path, "config.json");
    const run = join(dir.path, "eval-run");
    const evalRun = await runMinedit([
      "eval",
      "run",
      "--tasks",
      taskFile,
      "--model",
      "fake-model",
      "--base-url",
      server.url,
      "--n",
      String(SAMPLES),
      "--retries",
      "0",
      "--config",
      config,
      "--threads",
      "1",
      "--out",
      run,
    ]);
    failing = null;
    expect(evalRun.status, evalRun.stderr).toBe(1); // the failing task's samples are API_ERROR
    for (const candidates of [run, join(run, "samples.jsonl")]) {
      const exported = await exportKind(
        "dpo",
        "hf",
        "--tasks",
        taskFile,
        "--candidates",
        candidates,
        "--out",
        join(dir.path, "from-run"),
      );
      expect(exported.status, exported.stderr).toBe(1);
      expect(exported.stderr).toContain(`without a completion: API error ${SAMPLES}`);
      expect(exported.stderr).toContain(`no completion (API error ${SAMPLES}) 1`);
      const pairs = readJsonl(join(dir.path, "from-run", "dpo", "train.jsonl"));
      expect(pairs.map((p) => p.task_id).sort()).toEqual([tasks[0]?.task_id, tasks[1]?.task_id].sort());
      for (const pair of pairs) {
        const task = tasks.find((t) => t.task_id === pair.task_id) as SeedTask;
        const content = (side: unknown) => (side as { content: string }[])[0]?.content;
        expect(content(pair.chosen)).toBe(fence(task.gold));
        expect(content(pair.rejected)).toBe(fence(rewrite(task.gold)));
      }
    }
  });
});
