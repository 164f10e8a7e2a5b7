/**
 * rSFT and DPO end to end: hand-written completions of three demo tasks (the gold repair, the gold with a
 * docstring added, a renamed variable, a rewrite, the corrupted program unchanged, prose without code)
 * are scored by `minedit export` with the server's engine — tests run in the real bubblewrap sandbox —
 * and the selected rows are checked against what the paper's recipe must pick. The distances written
 * with the rows are checked against CPython 3.11 (tests/oracle/edit_distance_oracle.py), the rewards
 * against the formula. Also: the three candidate shapes (per completion, per task list, verl's Parquet
 * generation output), --per-task, OOD tasks and bad candidate rows.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import { fileWriter, ParquetWriter } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promptMessages } from "../../src/core/prompt/repair-prompt.js";
import { verlSchema } from "../../src/export/format-verl.js";
import {
  type DemoTask,
  demoTask,
  exportKind,
  fenced,
  pythonDistances,
  readJsonl,
  tempDir,
  writeJsonl,
} from "./helpers.js";

const CELSIUS = demoTask("minedit/seed/050-celsius-table/demo/v1");
const STATS = demoTask("minedit/seed/052-text-stats/demo/v1");
const INSERT = demoTask("minedit/seed/049-insert-position/demo/v1");

// Passing repairs of CELSIUS, from the smallest to the largest edit of the gold program.
const C_GOLD = CELSIUS.gold;
const C_DOCSTRING = CELSIUS.gold.replace(
  "def celsius_table(start, stop, step=10):\n",
  'def celsius_table(start, stop, step=10):\n    """Rows of (celsius, fahrenheit)."""\n',
);
const C_RENAME = CELSIUS.gold.replaceAll("rows", "table");
const C_REWRITE = `def celsius_table(start, stop, step=10):
    if step == 0:
        raise ValueError("step cannot be zero")
    if (stop - start) * step < 0:
        return []
    end = stop + (1 if step > 0 else -1)
    return [(c, round(c * 9 / 5 + 32, 1)) for c in range(start, end, step)]
`;

/** Candidate completions per task, in input order, with what each is. */
const CANDIDATES: Record<string, [string, string][]> = {
  [CELSIUS.task_id]: [
    ["rename", fenced(C_RENAME)],
    ["corrupted", fenced(CELSIUS.corrupted)],
    ["rewrite", fenced(C_REWRITE)],
    ["gold", fenced(C_GOLD)],
    ["prose", "The bug is the sign of 32; flip it."],
    ["docstring", fenced(C_DOCSTRING)],
  ],
  [STATS.task_id]: [
    ["corrupted", fenced(STATS.corrupted)],
    ["gold", STATS.gold], // no fence: the whole completion is the program
  ],
  [INSERT.task_id]: [
    ["corrupted", fenced(INSERT.corrupted)],
    ["prose", "I am not sure."],
  ],
};

const nameOf = new Map(
  Object.values(CANDIDATES)
    .flat()
    .map(([name, completion]) => [completion, name]),
);

let dir: ReturnType<typeof tempDir>;
let tasksFile: string;
let perCompletion: string;
beforeAll(() => {
  dir = tempDir("export-candidates");
  tasksFile = join(dir.path, "tasks.jsonl");
  writeJsonl(tasksFile, [CELSIUS, STATS, INSERT]);
  perCompletion = join(dir.path, "candidates.jsonl");
  writeJsonl(
    perCompletion,
    Object.entries(CANDIDATES).flatMap(([task_id, list]) =>
      list.map(([, completion]) => ({ task_id, completion })),
    ),
  );
});
afterAll(() => dir.remove());

/** d(M, G), d(M, C) and d(G, C) of CELSIUS's passing candidates, by CPython. */
function celsiusOracle(programs: string[]): { distance: number; excess: number }[] {
  const pairs: [string, string][] = programs.flatMap((p) => [
    [p, C_GOLD] as [string, string],
    [p, CELSIUS.corrupted] as [string, string],
  ]);
  const [dGold] = pythonDistances([[C_GOLD, CELSIUS.corrupted]]);
  const d = pythonDistances(pairs);
  return programs.map((_, i) => ({
    distance: d[2 * i] as number,
    excess: (d[2 * i + 1] as number) - (dGold as number),
  }));
}

function run(kind: string, format: string, candidates: string, ...extra: string[]) {
  return exportKind(
    kind,
    format,
    "--tasks",
    tasksFile,
    "--candidates",
    candidates,
    "--out",
    join(dir.path, "out"),
    "--concurrency",
    "2",
    ...extra,
  );
}

describe("rSFT", () => {
  it("keeps the 3 passing candidates closest to the reference repair, with their scores", async () => {
    const result = await run("rsft", "hf", perCompletion);
    expect(result.stderr).toContain(
      "candidates: 10 in 10 rows; 10 scored (PASSED 5, FAILED_TESTS 3, UNPARSABLE 2)",
    );
    expect(result.stderr).toContain(
      "rows: 4 from 2 tasks (1 with 3 passing, 1 with fewer); 1 task without a row (no passing candidate 1)",
    );
    expect(result.status).toBe(0);
    const rows = readJsonl(join(dir.path, "out", "rsft", "train.jsonl"));
    const celsius = rows.filter((r) => r.task_id === CELSIUS.task_id);
    expect(
      celsius.map((r) => nameOf.get((r.completion as { content: string }[])[0]?.content as string)),
    ).toEqual(["gold", "docstring", "rename"]);
    const oracle = celsiusOracle([C_GOLD, C_DOCSTRING, C_RENAME]);
    celsius.forEach((row, rank) => {
      const { distance, excess } = oracle[rank] as { distance: number; excess: number };
      expect(row).toMatchObject({ rank, verdict: "PASSED", distance, excess, reward: 0.1 - excess });
      expect(row.tests_passed).toBe(row.tests_total);
      expect(row.prompt).toEqual(promptMessages(CELSIUS.statement, CELSIUS.corrupted, "generic"));
    });
    expect(oracle[1]?.distance).toBeGreaterThan(0);
    const stats = rows.filter((r) => r.task_id === STATS.task_id);
    expect(stats.map((r) => (r.completion as { content: string }[])[0]?.content)).toEqual([STATS.gold]);
  });

  it("scores at most --per-task candidates per task and counts the rest as skipped", async () => {
    const result = await run("rsft", "openrlhf", perCompletion, "--per-task", "2", "--keep", "5");
    expect(result.stderr).toContain("6 scored");
    expect(result.stderr).toContain("skipped: 4 over --per-task 2");
    // Of CELSIUS's first two candidates (rename, corrupted) only the rename passes.
    const rows = readJsonl(join(dir.path, "out", "rsft", "train.jsonl"));
    expect(
      rows
        .filter((r) => r.task_id === CELSIUS.task_id)
        .map((r) => (r.output as { content: string }[])[0]?.content),
    ).toEqual([fenced(C_RENAME)]);
  });
});

describe("DPO", () => {
  it("pairs the smallest-edit passing candidate with the largest-edit one (LlamaFactory ranking)", async () => {
    // One row per task with a list of completions.
    const perTask = join(dir.path, "per-task.jsonl");
    writeJsonl(
      perTask,
      Object.entries(CANDIDATES).map(([task_id, list]) => ({ task_id, completions: list.map(([, c]) => c) })),
    );
    const result = await run("dpo", "llamafactory", perTask);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain(
      "pairs: 1 from 1 task; 2 tasks without a valid pair (only one passing candidate 1, no passing candidate 1)",
    );
    const info = JSON.parse(readFileSync(join(dir.path, "out", "dataset_info.json"), "utf8"));
    expect(info.minedit_dpo_train).toMatchObject({ formatting: "sharegpt", ranking: true });
    expect(info.minedit_dpo_train.columns).toEqual({
      messages: "messages",
      chosen: "chosen",
      rejected: "rejected",
      system: "system",
    });
    const [pair] = readJsonl(join(dir.path, "out", "dpo", "train.jsonl"));
    expect(pair?.chosen).toEqual({ role: "assistant", content: fenced(C_GOLD) });
    expect(pair?.rejected).toEqual({ role: "assistant", content: fenced(C_REWRITE) });
    const [gold, rewrite] = celsiusOracle([C_GOLD, C_REWRITE]);
    expect(pair).toMatchObject({
      task_id: CELSIUS.task_id,
      chosen_verdict: "PASSED",
      chosen_distance: gold?.distance,
      chosen_excess: gold?.excess,
      chosen_reward: 0.1 - (gold?.excess as number),
      rejected_verdict: "PASSED",
      rejected_distance: rewrite?.distance,
      rejected_excess: rewrite?.excess,
      rejected_reward: 0.1 - (rewrite?.excess as number),
    });
    expect(rewrite?.distance).toBeGreaterThan(0.2);
  });

  it("takes a failing candidate as rejected, from verl's Parquet generation output", async () => {
    // A GRPO verl export of the tasks, plus the `responses` column verl's generation adds.
    const grpo = await exportKind("grpo", "verl", "--tasks", tasksFile, "--out", join(dir.path, "verl"));
    expect(grpo.status).toBe(0);
    const prompts = await parquetReadObjects({
      file: await asyncBufferFromFile(join(dir.path, "verl", "grpo", "train.parquet")),
    });
    const schema = verlSchema("grpo");
    const root = schema[0] as { num_children: number };
    schema[0] = { ...schema[0], name: "schema", num_children: root.num_children + 1 };
    schema.push(
      { name: "responses", repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
      { name: "list", repetition_type: "REPEATED", num_children: 1 },
      { name: "element", repetition_type: "OPTIONAL", type: "BYTE_ARRAY", converted_type: "UTF8" },
    );
    const generation = join(dir.path, "generation.parquet");
    const writer = new ParquetWriter({ writer: fileWriter(generation), schema });
    const column = (name: string) => prompts.map((row) => (row as Record<string, unknown>)[name]);
    writer.write({
      columnData: [
        ...["data_source", "prompt", "ability", "reward_model", "extra_info"].map((name) => ({
          name,
          data: column(name),
        })),
        {
          name: "responses",
          data: prompts.map((row) =>
            (CANDIDATES[(row as { extra_info: { task_id: string } }).extra_info.task_id] ?? []).map(
              ([, c]) => c,
            ),
          ),
        },
      ],
    });
    writer.finish();

    const result = await run("dpo", "openrlhf", generation, "--rejected", "failing");
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("candidates: 10 in 3 rows");
    expect(result.stderr).toContain(
      "pairs: 2 from 2 tasks; 1 task without a valid pair (no passing candidate 1)",
    );
    const pairs = new Map(readJsonl(join(dir.path, "out", "dpo", "train.jsonl")).map((r) => [r.task_id, r]));
    const content = (side: unknown) => (side as { content: string }[])[0]?.content;
    expect(content(pairs.get(CELSIUS.task_id)?.chosen)).toBe(fenced(C_GOLD));
    // The first failing candidate in input order: the unchanged corrupted program.
    expect(content(pairs.get(CELSIUS.task_id)?.rejected)).toBe(fenced(CELSIUS.corrupted));
    expect(pairs.get(CELSIUS.task_id)).toMatchObject({
      rejected_verdict: "FAILED_TESTS",
      rejected_reward: -0.2,
    });
    expect(content(pairs.get(STATS.task_id)?.chosen)).toBe(STATS.gold);
    expect(pairs.get(STATS.task_id)).toMatchObject({
      prompt: promptMessages(STATS.statement, STATS.corrupted, "generic"),
    });
  });
});

describe("candidate rows", () => {
  it("reports bad rows with their line numbers, counts them, and leaves OOD tasks out", async () => {
    const oodTask: DemoTask = { ...INSERT, split: "ood" };
    const tasks = join(dir.path, "tasks-ood.jsonl");
    writeJsonl(tasks, [CELSIUS, oodTask, { ...STATS, tests: { style: "unknown" } }]);
    const file = join(dir.path, "bad.jsonl");
    writeJsonl(file, [
      { task_id: CELSIUS.task_id, completion: fenced(C_GOLD) },
      "{oops",
      { task_id: CELSIUS.task_id },
      { task_id: "no/such/task", completion: "x" },
      { task_id: INSERT.task_id, completion: fenced(INSERT.gold) },
      { task_id: STATS.task_id, completion: STATS.gold },
      { task_id: CELSIUS.task_id, completions: [] },
      { task_id: CELSIUS.task_id, completion: [{ role: "assistant", content: fenced(C_RENAME) }] },
    ]);
    const result = await exportKind(
      "rsft",
      "hf",
      "--tasks",
      tasks,
      "--candidates",
      file,
      "--out",
      join(dir.path, "out-bad"),
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${tasks}:3: tests.style: `);
    expect(result.stderr).toContain(`${file}:2: invalid JSON`);
    expect(result.stderr).toContain(
      `${file}:3: missing field "completion" (or a list in "completions" or "responses")`,
    );
    expect(result.stderr).toContain(`${file}:4: unknown task_id "no/such/task" (not in the task file)`);
    expect(result.stderr).toContain(
      `${file}:6: task_id "${STATS.task_id}" refers to a bad task row (${tasks}:3: tests.style: `,
    );
    expect(result.stderr).toContain(`${file}:7: field "completions": the list is empty`);
    expect(result.stderr).toContain("tasks: 3 read, 1 used, 1 left out as OOD, 1 bad");
    expect(result.stderr).toContain("candidates: 5 in 5 rows; 2 scored (PASSED 2)");
    expect(result.stderr).toContain("skipped: 1 for OOD tasks");
    expect(result.stderr).toContain(
      "bad rows: 6 skipped (invalid task row 1, unreadable candidate row 1, invalid candidate row 2, unknown task_id 1, task row was bad 1)",
    );
    const rows = readJsonl(join(dir.path, "out-bad", "rsft", "train.jsonl"));
    expect(rows.map((r) => (r.completion as { content: string }[])[0]?.content)).toEqual([
      fenced(C_GOLD),
      fenced(C_RENAME),
    ]);
  });
});
