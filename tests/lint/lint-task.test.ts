/**
 * The lint task row (src/scoring/lint-task.ts): the fixture rows parse, rows round-trip through
 * `lintTaskRow`, the task store tells lint rows from repair rows, and bad rows name their field.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { isLintTaskRow, lintTaskRow, parseLintTask } from "../../src/scoring/lint-task.js";
import { TaskStore } from "../../src/scoring/task-store.js";

const FIXTURE = new URL("../fixtures/lint/tasks.jsonl", import.meta.url).pathname;
const rows = readFileSync(FIXTURE, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("lint task rows", () => {
  test("the fixture rows parse and round-trip", () => {
    for (const row of rows) {
      expect(isLintTaskRow(row)).toBe(true);
      const task = parseLintTask(row);
      expect(task.kind).toBe("lint_refactor");
      expect(task.alerts.length).toBeGreaterThan(0);
      expect(lintTaskRow(task)).toEqual(row);
    }
    const python = parseLintTask(rows.find((r) => r.language === "python"));
    expect(python.tests.style).toBe("stdio");
    expect(python.alerts.map((a) => a.ruleId).sort()).toEqual(["C0114", "C0116", "C0200", "W0611"]);
  });

  test("bad rows name the field", () => {
    const base = rows[1] as Record<string, unknown>;
    expect(() => parseLintTask({ ...base, language: "rust" })).toThrow(/\] language: /);
    expect(() => parseLintTask({ ...base, original: "  \n" })).toThrow(/\] original: must not be empty/);
    expect(() => parseLintTask({ ...base, tests: { style: "assert", code: "x" } })).toThrow(
      /tests\.style: cpp tasks need stdio tests/,
    );
    expect(() => parseLintTask({ ...base, alerts: [{ ruleId: "x" }] })).toThrow(/\] alerts\.0\./);
    expect(() =>
      parseLintTask({ ...rows[0], tests: { style: "assert", code: "def check(f): pass" }, entry_point: "" }),
    ).toThrow(/entry_point/);
    expect(isLintTaskRow({ task_id: "r", corrupted: "", gold: "" })).toBe(false);
  });

  test("the task store loads both kinds, unique ids across them", async () => {
    const store = await TaskStore.load([FIXTURE]);
    expect(store.lintSize).toBe(3);
    expect(store.size).toBe(0);
    expect(store.getLint("lint/cpp/sum")?.language).toBe("cpp");
    expect(store.get("lint/cpp/sum")).toBeUndefined();
    await expect(TaskStore.load([FIXTURE, FIXTURE])).rejects.toThrow(
      /:1: duplicate task_id "lint\/python\/sum"/,
    );
  });
});
