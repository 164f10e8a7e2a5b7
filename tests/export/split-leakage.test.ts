/**
 * Splits are made by problem, never by row (docs/export.md): a task file with several variants (tasks) per
 * problem is exported into three splits, and no problem may appear in two of them; held-out (OOD) tasks
 * stay out of the export unless --include-ood. Checked on the JSONL rows and on verl's Parquet
 * `extra_info.problem_id`, and across two exports with the same seed.
 */
import { join } from "node:path";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoTask, demoTasks, exportKind, readJsonl, tempDir, writeJsonl } from "./helpers.js";

const VARIANTS = 3;
const SPLITS = ["--splits", "train=0.5,validation=0.25,test=0.25", "--seed", "11"];

let dir: ReturnType<typeof tempDir>;
let tasksFile: string;
const tasks: DemoTask[] = [];

beforeAll(() => {
  dir = tempDir("export-splits");
  const demo = demoTasks();
  // Three tasks per problem (interleaved, as a task builder writes them: variant by variant) ...
  for (let v = 1; v <= VARIANTS; v += 1) {
    for (const task of demo) tasks.push({ ...task, task_id: `${task.problem_id}/v${v}`, split: "train" });
  }
  // ... and held-out tasks of other problems.
  for (const task of demo.slice(0, 4)) {
    tasks.push({
      ...task,
      task_id: `ood/${task.problem_id}`,
      problem_id: `ood/${task.problem_id}`,
      split: "ood",
    });
  }
  tasksFile = join(dir.path, "tasks.jsonl");
  writeJsonl(tasksFile, tasks);
});
afterAll(() => dir.remove());

/** problem_id → the set of splits its rows are in. */
function splitsByProblem(rows: { problem: string; split: string }[]): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const { problem, split } of rows) map.set(problem, (map.get(problem) ?? new Set()).add(split));
  return map;
}

async function jsonlExport(name: string, ...extra: string[]) {
  const run = await exportKind(
    "sft",
    "hf",
    "--name",
    name,
    "--tasks",
    tasksFile,
    "--out",
    join(dir.path, "out"),
    ...SPLITS,
    ...extra,
  );
  expect(run.status).toBe(0);
  const rows = ["train", "validation", "test"].flatMap((split) =>
    readJsonl(join(dir.path, "out", name, `${split}.jsonl`)).map((row) => ({
      problem: row.problem_id as string,
      split,
      row,
    })),
  );
  return { run, rows };
}

describe("splits by problem", () => {
  it("never puts two variants of one problem in different splits, and leaves OOD tasks out", async () => {
    const { run, rows } = await jsonlExport("sft");
    expect(run.stderr).toContain("tasks: 76 read, 72 used, 4 left out as OOD, 0 bad");
    expect(rows).toHaveLength(72);
    expect(rows.every(({ row }) => row.task_split !== "ood")).toBe(true);
    const bySplit = splitsByProblem(rows);
    expect(bySplit.size).toBe(24);
    for (const [problem, splits] of bySplit) {
      expect([problem, splits.size]).toEqual([problem, 1]);
      expect(rows.filter((r) => r.problem === problem)).toHaveLength(VARIANTS);
    }
    // Every split got problems (24 problems over 0.5/0.25/0.25).
    expect(new Set(rows.map((r) => r.split))).toEqual(new Set(["train", "validation", "test"]));
    for (const { split, row } of rows) expect(row.split).toBe(split);
  });

  it("includes OOD tasks with --include-ood, still split by problem", async () => {
    const { run, rows } = await jsonlExport("sft-with-ood", "--include-ood");
    expect(run.stderr).toContain("tasks: 76 read, 76 used, 0 left out as OOD, 0 bad");
    expect(rows.filter(({ row }) => row.task_split === "ood")).toHaveLength(4);
    for (const splits of splitsByProblem(rows).values()) expect(splits.size).toBe(1);
  });

  it("places problems the same way in verl Parquet with the same seed", async () => {
    const run = await exportKind(
      "grpo",
      "verl",
      "--tasks",
      tasksFile,
      "--out",
      join(dir.path, "out"),
      ...SPLITS,
    );
    expect(run.status).toBe(0);
    const parquetRows: { problem: string; split: string }[] = [];
    for (const split of ["train", "validation", "test"]) {
      const file = await asyncBufferFromFile(join(dir.path, "out", "grpo", `${split}.parquet`));
      for (const row of await parquetReadObjects({ file, columns: ["extra_info"] })) {
        const extra = (row as { extra_info: { problem_id: string; split: string } }).extra_info;
        expect(extra.split).toBe(split);
        parquetRows.push({ problem: extra.problem_id, split });
      }
    }
    expect(parquetRows).toHaveLength(72);
    const verl = splitsByProblem(parquetRows);
    const { rows } = await jsonlExport("sft");
    for (const [problem, splits] of splitsByProblem(rows)) expect(verl.get(problem)).toEqual(splits);
  });
});
