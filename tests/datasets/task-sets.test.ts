/**
 * The task sets shipped in datasets/ (built by scripts/build-task-sets.sh with `minedit tasks build`):
 * the in-domain and OOD sets and the demo set. Each loads into the server's task store, its rows are what
 * the builder promises (split, domain, corruption count, the recorded corruptions undo to the gold
 * program), its committed report is the report of the file, and it is up to date with the corruption
 * engine: rebuilding problems with the options recorded in its build log gives the same rows (all of the
 * demo set; one problem of each test style of the larger sets, as each problem's tasks depend only on the
 * seed and the problem).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { revertCorruptions } from "../../src/core/corruption/engine.js";
import { IN_DOMAIN_FAMILIES } from "../../src/core/corruption/in-domain/index.js";
import { OOD_FAMILIES } from "../../src/core/corruption/ood/index.js";
import type { AppliedCorruption } from "../../src/core/corruption/types.js";
import { formatJson, taskSetPaths } from "../../src/io/report-files.js";
import { TaskStore } from "../../src/scoring/task-store.js";
import { type BuildLogEntry, type BuiltTaskRow, reportTaskFile } from "../../src/tasks/task-set.js";

const ROOT = join(import.meta.dirname, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "minedit-task-sets-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "");
const rowsOf = (file: string) => lines(file).map((line) => JSON.parse(line) as BuiltTaskRow);

async function minedit(...args: string[]): Promise<{ status: number; stderr: string }> {
  let stderr = "";
  const sink = (keep: boolean) =>
    new Writable({
      write(chunk, _encoding, done) {
        if (keep) stderr += String(chunk);
        done();
      },
    });
  const status = await main(args, { stdin: Readable.from([]), stdout: sink(false), stderr: sink(true) });
  return { status, stderr };
}

const DEMO_PROBLEMS = readFileSync(join(ROOT, "datasets", "seed", "demo-problems.txt"), "utf8")
  .split("\n")
  .map((line) => line.replace(/#.*/, "").trim())
  .filter((line) => line !== "");

const SETS = [
  {
    name: "in-domain",
    file: join(ROOT, "datasets", "tasks", "in-domain.jsonl"),
    split: "test",
    families: IN_DOMAIN_FAMILIES,
    corruptions: [1, 2],
    rebuild: ["seed/001-merge-bookings", "seed/041-rle-expand", "seed/051-column-sums"],
  },
  {
    name: "ood",
    file: join(ROOT, "datasets", "tasks", "ood.jsonl"),
    split: "ood",
    families: OOD_FAMILIES,
    corruptions: [1, 2],
    rebuild: ["seed/002-rle-compress", "seed/042-parse-duration", "seed/052-text-stats"],
  },
  {
    name: "demo",
    file: join(ROOT, "datasets", "seed", "demo-tasks.jsonl"),
    split: "demo",
    families: IN_DOMAIN_FAMILIES,
    corruptions: [1, 1],
    rebuild: DEMO_PROBLEMS,
  },
] as const;

describe.each(SETS)("$name task set", (set) => {
  const rows = rowsOf(set.file);
  const log = lines(taskSetPaths(set.file).log).map((line) => JSON.parse(line) as BuildLogEntry);

  it("loads into the server's task store", async () => {
    const store = await TaskStore.load([set.file]);
    expect(store.size).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(0);
  });

  it("has rows of its split and family domain whose corruptions undo to the gold program", () => {
    const names = new Set(set.families.map((f) => f.name));
    for (const row of rows) {
      expect(row.task_id).toMatch(new RegExp(`^${row.problem_id}/${set.split}/v\\d+$`));
      expect(row).toMatchObject({ split: set.split, source: "minedit", domain: set.families[0]?.domain });
      expect(row.corruptions.length).toBeGreaterThanOrEqual(set.corruptions[0]);
      expect(row.corruptions.length).toBeLessThanOrEqual(set.corruptions[1]);
      for (const c of row.corruptions) expect(names.has(c.family), c.family).toBe(true);
      expect(revertCorruptions(row.corrupted, row.corruptions as AppliedCorruption[])).toBe(row.gold);
    }
  });

  it("commits the report of the file and its build log", async () => {
    const { report, markdown, bad } = await reportTaskFile(set.file);
    expect(bad).toEqual([]);
    const paths = taskSetPaths(set.file);
    expect(readFileSync(paths.reportMarkdown, "utf8")).toBe(markdown);
    expect(readFileSync(paths.reportJson, "utf8")).toBe(formatJson(report));
    expect(report.all.rejected?.problems).toBe(log.length);
  });

  it("is up to date with the corruption engine", async () => {
    const settings = log[0]?.settings;
    if (settings === undefined) throw new Error("the build log records no options");
    for (const entry of log) expect(entry.settings).toEqual(settings);
    const only = join(scratch, `${set.name}.only`);
    writeFileSync(only, `${set.rebuild.join("\n")}\n`);
    const out = join(scratch, `${set.name}.jsonl`);
    const run = await minedit(
      ...["tasks", "build", "--source", join(ROOT, "datasets", "seed", "problems.jsonl"), "--out", out],
      ...["--only", only, "--families", settings.families.join(","), "--corruptions", settings.corruptions],
      // A log written before mixes existed records none: those sets were drawn as `blocks` draws.
      ...["--mix", settings.mix ?? "blocks"],
      ...["--variants", String(settings.variants), "--candidates", String(settings.candidates)],
      ...["--seed", String(settings.seed), "--split", set.split, "--concurrency", "2"],
    );
    expect(run.status, run.stderr).toBe(0);
    const wanted = new Set(set.rebuild.map((id) => `minedit/${id}`));
    const shipped = lines(set.file).filter((line) =>
      wanted.has((JSON.parse(line) as BuiltTaskRow).problem_id),
    );
    expect(lines(out), "rebuild it: scripts/build-task-sets.sh").toEqual(shipped);
  }, 90_000);
});

describe("the demo set", () => {
  const rows = rowsOf(join(ROOT, "datasets", "seed", "demo-tasks.jsonl"));

  it("has one task with one corruption for each of the 24 demo problems, 8 per test style", () => {
    expect(DEMO_PROBLEMS).toHaveLength(24);
    expect(rows.map((r) => r.problem_id)).toEqual(DEMO_PROBLEMS.map((id) => `minedit/${id}`));
    const styles = rows.map((r) => r.tests.style);
    for (const style of ["unittest", "assert", "stdio"]) {
      expect(styles.filter((s) => s === style)).toHaveLength(8);
    }
    for (const row of rows) expect(row.corruptions).toHaveLength(1);
  });
});
