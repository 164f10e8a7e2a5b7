/** Synthetic task and sample records for the eval tests that need no sandbox. */
import {
  SAMPLE_RECORD_VERSION,
  type SampleRecord,
  TASK_RECORD_VERSION,
  type TaskRecord,
} from "../../src/eval/records.js";

export function taskRecord(id: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    v: TASK_RECORD_VERSION,
    task_id: id,
    problem_id: id,
    kind: "repair",
    domain: "in-domain",
    families: ["comparison_operators"],
    language: "python",
    corrupted: "def f(x):\n    return x < 1\n",
    gold: "def f(x):\n    return x <= 1\n",
    excluded: null,
    ...overrides,
  };
}

export function sampleRecord(
  taskId: string,
  sample: number,
  passed: boolean,
  overrides: Partial<SampleRecord> = {},
): SampleRecord {
  return {
    v: SAMPLE_RECORD_VERSION,
    task_id: taskId,
    sample,
    outcome: passed ? "PASSED" : "FAILED_TESTS",
    passed,
    truncated: false,
    finish_reason: "stop",
    d_model: passed ? 0.1 : 0,
    d_gold: 0.1,
    excess: passed ? 0 : -0.1,
    added_cc: passed ? 0 : null,
    added_cc_sonar: passed ? 0 : null,
    token_edits: passed ? 1 : 0,
    tests_passed: passed ? 3 : 1,
    tests_total: 3,
    detail: "",
    program: "def f(x):\n    return x <= 1\n",
    lint: null,
    usage: null,
    request_samples: 1,
    latency_ms: null,
    ...overrides,
  };
}
