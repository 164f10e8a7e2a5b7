/**
 * A rollout row of `minedit score` (core/rollout-row.ts): its fields, the task its `task_id` names, and
 * its output line — which the metrics workers write with `--no-exec` and the main thread when executing,
 * so both must give the same text as the JSON of the documented object.
 */
import { describe, expect, it } from "vitest";
import { REWARD_DEFINITION_VERSION } from "../../src/core/reward.js";
import {
  lookupTask,
  outputLine,
  parseRolloutFields,
  type TaskEntry,
  type TaskLookup,
} from "../../src/core/rollout-row.js";
import { taskKey } from "../../src/core/task-file.js";
import { isMineditError } from "../../src/errors.js";

function rejection(row: Record<string, unknown>, execute = false): string {
  try {
    parseRolloutFields(row, execute);
  } catch (error) {
    if (isMineditError(error)) return error.rawMessage;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("parseRolloutFields", () => {
  it("reads a task_id row and an inline row", () => {
    expect(parseRolloutFields({ id: 1, completion: "x", task_id: "t" }, false)).toEqual({
      id: 1,
      completion: "x",
      taskId: "t",
    });
    expect(parseRolloutFields({ id: "a", completion: "", corrupted: "c", gold: "g" }, false)).toEqual({
      id: "a",
      completion: "",
      inline: { corrupted: "c", gold: "g" },
    });
  });

  it("rejects a row naming its task both ways, or neither, or with a bad field", () => {
    expect(rejection({ id: 1, completion: "x", task_id: "t", gold: "g" })).toMatch(/not both/);
    expect(rejection({ id: 1, completion: "x" })).toMatch(/missing field "task_id"/);
    expect(rejection({ id: 1, completion: "x", corrupted: "c" })).toMatch(/gold/);
    expect(rejection({ completion: "x", task_id: "t" })).toMatch(/id/);
    expect(rejection({ id: 1, completion: 5, task_id: "t" })).toMatch(/completion/);
  });

  it("when executing, a task_id row must not carry tests: they come from the task file", () => {
    const row = { id: 1, completion: "x", task_id: "t", tests: "assert True" };
    expect(parseRolloutFields(row, false).taskId).toBe("t");
    expect(rejection(row, true)).toMatch(/takes its tests from the task file/);
  });
});

describe("lookupTask", () => {
  const entries = new Map<string, TaskEntry<string>>([
    [taskKey("ok"), { kind: "ok", task: "the task", line: 3 }],
    [taskKey(7), { kind: "bad", line: 4, reason: "no gold" }],
    [taskKey("twice"), { kind: "duplicate", lines: [5, 9] }],
  ]);
  const tasks: TaskLookup<string> = { name: "tasks.jsonl", entries };

  it("finds a task with a label naming its line, and says why any other id cannot be scored", () => {
    expect(lookupTask("ok", tasks)).toEqual({ task: "the task", label: 'task "ok" (tasks.jsonl:3)' });
    expect(lookupTask(7, tasks)).toBe("task_id 7 refers to a bad task row (tasks.jsonl:4: no gold)");
    expect(lookupTask("twice", tasks)).toBe(
      'task_id "twice" is ambiguous: defined more than once in tasks.jsonl (lines 5, 9)',
    );
    expect(lookupTask("nope", tasks)).toBe('unknown task_id "nope" (not in tasks.jsonl)');
    expect(lookupTask("ok", undefined)).toBe('task_id "ok" given but no --tasks file');
  });
});

describe("outputLine", () => {
  it("is the JSON of the documented object, keys in order, numbers unrounded", () => {
    const score = {
      verdict: "PASSED" as const,
      reward: 0.1 - 1.0 * 0.0123456789012345,
      detail: 'quote " and \\ and é',
      components: { dModel: 0.2, dGold: 0.1, excess: 0.1, addedCc: -1 },
      execution: { testsPassed: 3, testsTotal: 3, cached: false },
    };
    const line = outputLine({ id: "r1", completion: "x", taskId: 12 }, score);
    expect(line.endsWith("\n")).toBe(true);
    expect(line).toBe(
      `${JSON.stringify({
        id: "r1",
        task_id: 12,
        reward: score.reward,
        verdict: "PASSED",
        d_model: 0.2,
        d_gold: 0.1,
        excess: 0.1,
        added_cc: -1,
        tests_passed: 3,
        tests_total: 3,
        cached: false,
        detail: score.detail,
        reward_version: REWARD_DEFINITION_VERSION,
      })}\n`,
    );
  });

  it("writes nulls for a failure and leaves out what is absent (task_id, the test counts)", () => {
    const line = outputLine(
      { id: 5, completion: "", inline: { corrupted: "c", gold: "g" } },
      { verdict: "NO_CODE", reward: -0.2, detail: "no code", components: null },
    );
    expect(JSON.parse(line)).toEqual({
      id: 5,
      reward: -0.2,
      verdict: "NO_CODE",
      d_model: null,
      d_gold: null,
      excess: null,
      added_cc: null,
      detail: "no code",
      reward_version: REWARD_DEFINITION_VERSION,
    });
  });
});
