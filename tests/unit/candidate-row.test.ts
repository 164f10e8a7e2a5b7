// The candidate row shapes export and eval read (src/core/candidate-row.ts): besides completions, a sample
// that failed at the API, and the rows of an eval run's samples.jsonl. Expected values written by hand.
import { describe, expect, it } from "vitest";
import { DEFAULT_END_OF_TURN_MARKERS } from "../../src/config.js";
import { parseCandidateRow } from "../../src/core/candidate-row.js";
import { extractProgram } from "../../src/core/extract-program.js";
import { SAMPLE_RECORD_VERSION } from "../../src/eval/records.js";

const sample = (fields: Record<string, unknown>) => ({
  v: SAMPLE_RECORD_VERSION,
  task_id: "t1",
  sample: 0,
  ...fields,
});

describe("candidate rows", () => {
  it("reads a completion, a list and a failed sample", () => {
    expect(parseCandidateRow({ task_id: "t1", completion: "x = 1" })).toEqual({
      taskId: "t1",
      completions: ["x = 1"],
      unavailable: [],
    });
    expect(parseCandidateRow({ task_id: 7, completions: ["a", "b"] })).toEqual({
      taskId: "7",
      completions: ["a", "b"],
      unavailable: [],
    });
    expect(parseCandidateRow({ task_id: "t1", error: "500: upstream failed" })).toEqual({
      taskId: "t1",
      completions: [],
      unavailable: ["API error"],
    });
    expect(() => parseCandidateRow({ task_id: "t1", error: 500 })).toThrow(
      'field "error": expected a string',
    );
    expect(() => parseCandidateRow({ task_id: "t1" })).toThrow('missing field "completion"');
  });

  it("reads an eval run's samples: the program in a python block; API errors and missing samples have none", () => {
    const program = "def f(x):\n    return x + 1\n";
    const row = parseCandidateRow(sample({ outcome: "PASSED", program }));
    expect(row).toEqual({
      taskId: "t1",
      completions: ["```python\ndef f(x):\n    return x + 1\n```"],
      unavailable: [],
    });
    // The block gives the program back exactly, as the scorer extracts it.
    expect(extractProgram(row.completions[0] as string, DEFAULT_END_OF_TURN_MARKERS)).toEqual({
      kind: "code",
      program,
    });
    // A program without a final newline gets one before the closing fence.
    expect(parseCandidateRow(sample({ outcome: "FAILED_TESTS", program: "x = 1" })).completions).toEqual([
      "```python\nx = 1\n```",
    ]);
    expect(parseCandidateRow(sample({ outcome: "NO_CODE", program: null })).completions).toEqual([""]);
    expect(parseCandidateRow(sample({ outcome: "API_ERROR", program: null }))).toEqual({
      taskId: "t1",
      completions: [],
      unavailable: ["API error"],
    });
    expect(parseCandidateRow(sample({ outcome: "MISSING", program: null })).unavailable).toEqual(["missing"]);
    expect(() => parseCandidateRow(sample({ program: "x" }))).toThrow('field "outcome"');
  });
});
