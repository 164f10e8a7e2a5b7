/**
 * Round trips of `minedit export` for the kinds that need no sampling (sft, grpo) in every format: the
 * shipped demo tasks are exported, and what was written is read back with a real reader per format —
 * JSON Lines parsed line by line, the dataset card's YAML header parsed with the `yaml` package,
 * dataset_info.json parsed as JSON, Parquet read with hyparquet, checking the column types (a list of
 * structs, struct fields, int64) and not only the values.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  asyncBufferFromFile,
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
  type SchemaTree,
} from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { promptId } from "../../src/core/prompt/message.js";
import { promptMessages, pythonBlock, SYSTEM_PROMPT } from "../../src/core/prompt/repair-prompt.js";
import {
  DEMO_TASKS,
  type DemoTask,
  demoTasks,
  exportCli,
  exportKind,
  readJsonl,
  tempDir,
  writeJsonl,
} from "./helpers.js";

const TASKS = demoTasks();
const BY_ID = new Map(TASKS.map((t) => [t.task_id, t]));
const SPLITS = ["--splits", "train=0.5,test=0.5", "--seed", "1"];

let out: ReturnType<typeof tempDir>;
beforeAll(() => {
  out = tempDir("export-formats");
});
afterAll(() => out.remove());

type Manifest = { files: { split: string; path: string; rows: number }[]; summary: Record<string, unknown> };
const manifestOf = (dir: string, name: string) =>
  JSON.parse(readFileSync(join(dir, name, "minedit-export.json"), "utf8")) as Manifest;

/** Every row of every file of an export, with the split its file is. */
function jsonlRows(dir: string, name: string): { split: string; row: Record<string, unknown> }[] {
  return manifestOf(dir, name).files.flatMap((f) =>
    readJsonl(join(dir, f.path)).map((row) => ({ split: f.split, row })),
  );
}

function expectPaperPrompt(prompt: unknown, task: DemoTask): void {
  expect(prompt).toEqual(promptMessages(task.statement, task.corrupted, "generic"));
}

describe("hf (TRL JSONL + dataset card)", () => {
  it("writes SFT prompt-completion rows and a card whose YAML configs point at them", async () => {
    const run = await exportKind("sft", "hf", "--tasks", DEMO_TASKS, "--out", out.path, ...SPLITS);
    expect(run.stderr).toContain("tasks: 24 read, 24 used, 0 left out as OOD, 0 bad");
    expect(run.status).toBe(0);

    const readme = readFileSync(join(out.path, "README.md"), "utf8");
    const header = /^---\n([\s\S]*?)\n---\n/.exec(readme);
    expect(header).not.toBeNull();
    const card = parseYaml(header?.[1] ?? "") as {
      configs: { config_name: string; data_files: { split: string; path: string }[] }[];
    };
    expect(card.configs).toEqual([
      {
        config_name: "sft",
        data_files: [
          { split: "train", path: "sft/train.jsonl" },
          { split: "test", path: "sft/test.jsonl" },
        ],
      },
    ]);

    const rows = jsonlRows(out.path, "sft");
    expect(rows.map((r) => r.row.task_id).sort()).toEqual(TASKS.map((t) => t.task_id).sort());
    for (const { split, row } of rows) {
      const task = BY_ID.get(row.task_id as string) as DemoTask;
      expectPaperPrompt(row.prompt, task);
      expect(row.completion).toEqual([{ role: "assistant", content: pythonBlock(task.gold) }]);
      expect(row.prompt_id).toBe(promptId(row.prompt as never));
      expect(row.split).toBe(split);
      expect(row.problem_id).toBe(task.problem_id);
      expect(row.task_split).toBe("demo");
      expect(Array.isArray(row.families) && row.families.length > 0).toBe(true);
    }
    const manifest = manifestOf(out.path, "sft");
    expect(manifest.files.map((f) => f.rows).reduce((a, b) => a + b)).toBe(24);
    expect(manifest.files.every((f) => f.rows > 0)).toBe(true);
  });

  it("adds a second config for a second export into the same directory (standard GRPO prompts)", async () => {
    const run = await exportKind(
      "grpo",
      "hf",
      "--style",
      "standard",
      "--name",
      "grpo-text",
      "--tasks",
      DEMO_TASKS,
      "--out",
      out.path,
      ...SPLITS,
    );
    expect(run.status).toBe(0);
    const readme = readFileSync(join(out.path, "README.md"), "utf8");
    const card = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(readme)?.[1] ?? "") as {
      configs: { config_name: string }[];
    };
    expect(card.configs.map((c) => c.config_name)).toEqual(["grpo-text", "sft"]);
    for (const { row } of jsonlRows(out.path, "grpo-text")) {
      const task = BY_ID.get(row.task_id as string) as DemoTask;
      const [system, user] = promptMessages(task.statement, task.corrupted, "generic");
      expect(row.prompt).toBe(`${system?.content}\n\n${user?.content}`);
      expect(Object.keys(row)).not.toContain("completion");
    }
    // Same tasks, same seed: the same split per task as the sft export.
    const sftSplit = new Map(jsonlRows(out.path, "sft").map(({ row }) => [row.task_id, row.split]));
    for (const { row } of jsonlRows(out.path, "grpo-text")) expect(row.split).toBe(sftSplit.get(row.task_id));
  });

  it("refuses to overwrite a README.md it did not write", async () => {
    const foreign = tempDir("export-foreign");
    try {
      writeFileSync(join(foreign.path, "README.md"), "# my dataset\n");
      const run = await exportKind("sft", "hf", "--tasks", DEMO_TASKS, "--out", foreign.path);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain("was not written by minedit export");
      expect(readFileSync(join(foreign.path, "README.md"), "utf8")).toBe("# my dataset\n");
      expect(readdirSync(foreign.path)).toEqual(["README.md"]);
    } finally {
      foreign.remove();
    }
  });
});

describe("llamafactory (dataset_info.json + sharegpt or alpaca rows)", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeAll(() => {
    dir = tempDir("export-lf");
    // Someone else's dataset in the same dataset_info.json must survive.
    writeFileSync(
      join(dir.path, "dataset_info.json"),
      JSON.stringify({ alpaca_en_demo: { file_name: "alpaca_en_demo.json" } }),
    );
  });
  afterAll(() => dir.remove());

  it("registers sharegpt SFT rows with OpenAI-style tags and the system column", async () => {
    const run = await exportKind("sft", "llamafactory", "--tasks", DEMO_TASKS, "--out", dir.path, ...SPLITS);
    expect(run.status).toBe(0);
    const info = JSON.parse(readFileSync(join(dir.path, "dataset_info.json"), "utf8")) as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(info).sort()).toEqual(["alpaca_en_demo", "minedit_sft_test", "minedit_sft_train"]);
    expect(info.minedit_sft_train).toEqual({
      file_name: "sft/train.jsonl",
      formatting: "sharegpt",
      columns: { messages: "messages", system: "system" },
      tags: { role_tag: "role", content_tag: "content", user_tag: "user", assistant_tag: "assistant" },
    });
    for (const entry of Object.values(info).slice(1))
      expect(existsSync(join(dir.path, entry.file_name as string))).toBe(true);
    for (const { row } of jsonlRows(dir.path, "sft")) {
      const task = BY_ID.get(row.task_id as string) as DemoTask;
      const user = promptMessages(task.statement, task.corrupted, "generic")[1];
      expect(row.messages).toEqual([user, { role: "assistant", content: pythonBlock(task.gold) }]);
      expect(row.system).toBe(SYSTEM_PROMPT);
    }
  });

  it("writes alpaca rows with instruction/input/output/system", async () => {
    const run = await exportKind(
      "sft",
      "llamafactory",
      "--style",
      "alpaca",
      "--name",
      "sft-alpaca",
      "--prompt",
      "explicit",
      "--tasks",
      DEMO_TASKS,
      "--out",
      dir.path,
    );
    expect(run.status).toBe(0);
    const info = JSON.parse(readFileSync(join(dir.path, "dataset_info.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(info["minedit_sft-alpaca_train"]).toEqual({
      file_name: "sft-alpaca/train.jsonl",
      columns: { prompt: "instruction", query: "input", response: "output", system: "system" },
    });
    const [first] = readJsonl(join(dir.path, "sft-alpaca", "train.jsonl"));
    const task = BY_ID.get(first?.task_id as string) as DemoTask;
    expect(first).toMatchObject({
      instruction: promptMessages(task.statement, task.corrupted, "explicit")[1]?.content,
      input: "",
      output: pythonBlock(task.gold),
      system: SYSTEM_PROMPT,
      prompt_style: "explicit",
    });
  });

  it("re-running replaces the export: a split no longer produced loses its file and its entry", async () => {
    const before = readFileSync(join(dir.path, "sft", "train.jsonl"));
    const run = await exportKind("sft", "llamafactory", "--tasks", DEMO_TASKS, "--out", dir.path);
    expect(run.status).toBe(0);
    expect(readdirSync(join(dir.path, "sft")).sort()).toEqual(["minedit-export.json", "train.jsonl"]);
    const info = JSON.parse(readFileSync(join(dir.path, "dataset_info.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(Object.keys(info).sort()).toEqual([
      "alpaca_en_demo",
      "minedit_sft-alpaca_train",
      "minedit_sft_train",
    ]);
    expect(readJsonl(join(dir.path, "sft", "train.jsonl"))).toHaveLength(24);
    expect(before.length).toBeGreaterThan(0);
    // Re-running the same export gives the same bytes, and leaves no temporary file behind.
    const again = readFileSync(join(dir.path, "sft", "train.jsonl"));
    expect((await exportKind("sft", "llamafactory", "--tasks", DEMO_TASKS, "--out", dir.path)).status).toBe(
      0,
    );
    expect(readFileSync(join(dir.path, "sft", "train.jsonl")).equals(again)).toBe(true);
    expect(readdirSync(join(dir.path, "sft")).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });
});

/** The schema tree of a column, as `name: TYPE` lines (group children indented), for exact comparison. */
function describeColumn(node: SchemaTree, depth = 0): string[] {
  const e = node.element;
  const type = [e.repetition_type, e.type, e.converted_type].filter((x) => x !== undefined).join(" ");
  return [
    `${"  ".repeat(depth)}${e.name}: ${type}`,
    ...node.children.flatMap((c) => describeColumn(c, depth + 1)),
  ];
}

const STRING = "OPTIONAL BYTE_ARRAY UTF8";
const MESSAGES = (name: string) => [
  `${name}: OPTIONAL LIST`,
  "  list: REPEATED",
  "    element: OPTIONAL",
  `      role: ${STRING}`,
  `      content: ${STRING}`,
];
const EXTRA_INFO = [
  "extra_info: OPTIONAL",
  `  task_id: ${STRING}`,
  `  problem_id: ${STRING}`,
  `  prompt_id: ${STRING}`,
  `  split: ${STRING}`,
  "  index: OPTIONAL INT64",
  `  task_split: ${STRING}`,
  `  source: ${STRING}`,
  `  prompt_style: ${STRING}`,
  "  families: OPTIONAL LIST",
  "    list: REPEATED",
  `      element: ${STRING}`,
];

async function readParquet(path: string) {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  const columns = parquetSchema(metadata).children;
  return {
    types: Object.fromEntries(columns.map((c) => [c.element.name, describeColumn(c)])),
    rows: (await parquetReadObjects({ file, metadata })) as Record<string, unknown>[],
  };
}

describe("verl (Parquet with nested columns)", () => {
  it("writes GRPO rows: prompt as list<struct<role, content>>, reward_model and extra_info as structs", async () => {
    const run = await exportKind("grpo", "verl", "--tasks", DEMO_TASKS, "--out", out.path, ...SPLITS);
    expect(run.status).toBe(0);
    const seen: string[] = [];
    for (const file of manifestOf(out.path, "grpo").files) {
      const { types, rows } = await readParquet(join(out.path, file.path));
      expect(types).toEqual({
        data_source: [`data_source: ${STRING}`],
        prompt: MESSAGES("prompt"),
        ability: [`ability: ${STRING}`],
        reward_model: ["reward_model: OPTIONAL", `  style: ${STRING}`, `  ground_truth: ${STRING}`],
        extra_info: EXTRA_INFO,
      });
      expect(rows).toHaveLength(file.rows);
      rows.forEach((row, index) => {
        const extra = row.extra_info as Record<string, unknown>;
        const task = BY_ID.get(extra.task_id as string) as DemoTask;
        seen.push(task.task_id);
        expect(row.data_source).toBe("minedit");
        expect(row.ability).toBe("code");
        expectPaperPrompt(row.prompt, task);
        expect(row.reward_model).toEqual({ style: "rule", ground_truth: task.task_id });
        expect(extra).toMatchObject({
          problem_id: task.problem_id,
          prompt_id: promptId(row.prompt as never),
          split: file.split,
          index: BigInt(index),
          task_split: "demo",
          prompt_style: "generic",
        });
        expect(extra.families).toEqual((task.corruptions as { family: string }[]).map((c) => c.family));
      });
    }
    expect(seen.sort()).toEqual(TASKS.map((t) => t.task_id).sort());
  });

  it("writes SFT rows as multi-turn messages (system, user, assistant)", async () => {
    const run = await exportKind(
      "sft",
      "verl",
      "--name",
      "sft-verl",
      "--tasks",
      DEMO_TASKS,
      "--out",
      out.path,
    );
    expect(run.status).toBe(0);
    const { types, rows } = await readParquet(join(out.path, "sft-verl", "train.parquet"));
    expect(types.messages).toEqual(MESSAGES("messages"));
    expect(types.extra_info).toEqual(EXTRA_INFO);
    expect(rows).toHaveLength(24);
    for (const row of rows) {
      const task = BY_ID.get((row.extra_info as { task_id: string }).task_id) as DemoTask;
      expect(row.messages).toEqual([
        ...promptMessages(task.statement, task.corrupted, "generic"),
        { role: "assistant", content: pythonBlock(task.gold) },
      ]);
    }
  });
});

describe("openrlhf (input/label, input/output keys)", () => {
  it("writes GRPO rows whose label is the task id", async () => {
    const run = await exportKind(
      "grpo",
      "openrlhf",
      "--name",
      "grpo-orl",
      "--tasks",
      DEMO_TASKS,
      "--out",
      out.path,
    );
    expect(run.status).toBe(0);
    const rows = readJsonl(join(out.path, "grpo-orl", "train.jsonl"));
    expect(rows).toHaveLength(24);
    for (const row of rows) {
      const task = BY_ID.get(row.label as string) as DemoTask;
      expectPaperPrompt(row.input, task);
      expect(row.task_id).toBe(task.task_id);
    }
  });

  it("writes SFT rows as input/output message lists, or strings in the standard style", async () => {
    expect(
      (await exportKind("sft", "openrlhf", "--name", "sft-orl", "--tasks", DEMO_TASKS, "--out", out.path))
        .status,
    ).toBe(0);
    expect(
      (
        await exportKind(
          "sft",
          "openrlhf",
          "--style",
          "standard",
          "--name",
          "sft-orl-text",
          "--tasks",
          DEMO_TASKS,
          "--out",
          out.path,
        )
      ).status,
    ).toBe(0);
    const [chat] = readJsonl(join(out.path, "sft-orl", "train.jsonl"));
    const [text] = readJsonl(join(out.path, "sft-orl-text", "train.jsonl"));
    const task = BY_ID.get(chat?.task_id as string) as DemoTask;
    expectPaperPrompt(chat?.input, task);
    expect(chat?.output).toEqual([{ role: "assistant", content: pythonBlock(task.gold) }]);
    expect(text?.task_id).toBe(task.task_id);
    expect(typeof text?.input).toBe("string");
    expect(text?.output).toBe(pythonBlock(task.gold));
  });
});

describe("usage errors write nothing", () => {
  it.each([
    [["--kind", "dpo", "--format", "verl", "--candidates", "c.jsonl"], "does not hold dpo data"],
    [["--kind", "grpo", "--format", "llamafactory"], "does not hold grpo data"],
    [["--kind", "sft", "--format", "hf", "--candidates", "c.jsonl"], "only used by --kind rsft and dpo"],
    [["--kind", "rsft", "--format", "hf"], "needs --candidates"],
    [
      ["--kind", "sft", "--format", "hf", "--style", "sharegpt"],
      "--style: expected conversational, standard",
    ],
    [["--kind", "sft", "--format", "hf", "--splits", "train=0.9,test=0.2"], "sum to 1"],
    [["--kind", "sft", "--format", "hf", "--name", "../x"], "--name"],
    [["--kind", "sft", "--format", "xml"], "--format: expected hf, llamafactory, verl, openrlhf"],
  ])("%j → %s", async (args, message) => {
    const dir = tempDir("export-usage");
    try {
      const run = await exportCli([...args, "--tasks", DEMO_TASKS, "--out", join(dir.path, "out")]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(message);
      expect(existsSync(join(dir.path, "out"))).toBe(false);
    } finally {
      dir.remove();
    }
  });

  it("reports a missing task file as a usage error", async () => {
    const run = await exportKind("sft", "hf", "--tasks", "/nonexistent/tasks.jsonl", "--out", out.path);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--tasks: cannot read /nonexistent/tasks.jsonl: no such file");
  });
});

describe("bad task rows", () => {
  it("are reported with their line numbers, skipped and counted; the other tasks are exported", async () => {
    const dir = tempDir("export-bad-tasks");
    try {
      const [a, b, c] = TASKS as [DemoTask, DemoTask, DemoTask];
      const file = join(dir.path, "tasks.jsonl");
      const { statement: _drop, ...noStatement } = b;
      writeJsonl(file, [
        a,
        "{not json",
        noStatement,
        "",
        { ...c, task_id: `${c.task_id}-broken`, gold: "def f(:\n" },
        a,
        c,
        [1, 2],
      ]);
      const run = await exportKind("grpo", "openrlhf", "--tasks", file, "--out", join(dir.path, "out"));
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`${file}:2: invalid JSON`);
      expect(run.stderr).toContain(`${file}:3: statement: missing field`);
      expect(run.stderr).toContain(
        `${file}:5: task "${c.task_id}-broken": the task's gold program is not valid Python`,
      );
      expect(run.stderr).toContain(
        `${file}:6: duplicate task_id "${a.task_id}" (first at ${file}:1): skipped`,
      );
      expect(run.stderr).toContain(`${file}:8: expected a JSON object, got array`);
      expect(run.stderr).toContain("tasks: 5 read, 2 used, 0 left out as OOD, 5 bad");
      expect(run.stderr).toContain(
        "bad rows: 5 skipped (unreadable task row 2, invalid task row 1, duplicate task_id 1, " +
          "task program is not Python 3.11 1)",
      );
      const rows = readJsonl(join(dir.path, "out", "grpo", "train.jsonl"));
      expect(rows.map((r) => r.task_id)).toEqual([a.task_id, c.task_id]);
      const manifest = manifestOf(join(dir.path, "out"), "grpo");
      expect(manifest.summary).toMatchObject({ tasks: { read: 5, used: 2, bad: 5 } });
    } finally {
      dir.remove();
    }
  });
});
