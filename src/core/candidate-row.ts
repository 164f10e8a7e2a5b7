/**
 * Rows of a candidates file: sampled repairs of tasks, to be scored and selected for rSFT and DPO.
 * The shapes sampling tools write, all accepted:
 *
 * - one row per completion: `{"task_id": "t1", "completion": "..."}`;
 * - one row per task with a list: `{"task_id": "t1", "completions": ["...", "..."]}`;
 * - verl's generation output (`verl.trainer.main_generation` keeps the input columns and adds
 *   `responses`, a list of strings), run on a GRPO export: the task id is then found in
 *   `extra_info.task_id` or `reward_model.ground_truth`.
 *
 * - a sample that has no completion: `{"task_id": "t1", "error": "HTTP 500: ..."}` (a request that failed
 *   after its retries; counted, never scored);
 * - the scored samples of an eval run (`samples.jsonl`, rows versioned `minedit-eval-sample/1`,
 *   docs/eval.md): the program the run extracted becomes the completion, in a ```python block (the answer
 *   format the prompts ask for; the run keeps the program, not the raw text); a sample without one is an
 *   empty completion (NO_CODE when scored), except API_ERROR and MISSING samples, which have no completion.
 *
 * A completion is a string, or a list of chat messages (TRL's conversational completions): then the
 * content of its last assistant message is the completion.
 *
 * Pure: no I/O.
 */
import { ErrorCode, MineditError } from "../errors.js";

/** The columns a candidates row is read from; other columns of a Parquet file are not decoded. */
export const CANDIDATE_COLUMNS = [
  "v",
  "outcome",
  "program",
  "error",
  "task_id",
  "extra_info",
  "reward_model",
  "completion",
  "completions",
  "responses",
];

/**
 * The completions of one row and the task they answer; `unavailable` gives, per sample that has no
 * completion, why (`API error`, `missing`).
 */
export type CandidateRow = { taskId: string; completions: string[]; unavailable: string[] };

/** Why a sample has no completion, as summaries count it. */
export const UNAVAILABLE = { apiError: "API error", missing: "missing" } as const;

/** The version field of an eval run's sample rows (src/eval/records.ts `SAMPLE_RECORD_VERSION`). */
export const EVAL_SAMPLE_VERSION = "minedit-eval-sample/1";

/** The file of an eval run directory that holds its samples (src/eval/run-files.ts uses this name). */
export const EVAL_SAMPLES_FILE = "samples.jsonl";

function invalid(message: string, field: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message, { field });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A task id: a non-empty string, or an integer written as a number (read as its decimal string). */
function taskIdValue(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isInteger(value)) return String(value);
  if (typeof value === "bigint") return String(value); // INT64 columns of Parquet input
  return undefined;
}

/**
 * The task id of a row: `task_id`, else `extra_info.task_id`, else `reward_model.ground_truth` (the
 * columns of minedit's verl GRPO export, which verl's generation keeps).
 */
function rowTaskId(row: Record<string, unknown>): string {
  if (Object.hasOwn(row, "task_id")) {
    const id = taskIdValue(row.task_id);
    if (id === undefined)
      throw invalid('field "task_id": expected a non-empty string or an integer', "task_id");
    return id;
  }
  const extra = row.extra_info;
  if (isObject(extra) && extra.task_id !== undefined && extra.task_id !== null) {
    const id = taskIdValue(extra.task_id);
    if (id === undefined) {
      throw invalid('field "extra_info.task_id": expected a non-empty string', "extra_info.task_id");
    }
    return id;
  }
  const rewardModel = row.reward_model;
  if (isObject(rewardModel) && rewardModel.ground_truth !== undefined && rewardModel.ground_truth !== null) {
    const id = taskIdValue(rewardModel.ground_truth);
    if (id === undefined) {
      throw invalid(
        'field "reward_model.ground_truth": expected the task id as a non-empty string',
        "reward_model.ground_truth",
      );
    }
    return id;
  }
  throw invalid(
    'missing field "task_id" (or "extra_info.task_id", or "reward_model.ground_truth")',
    "task_id",
  );
}

/** One completion: a string, or the last assistant message of a list of chat messages. */
function completionText(value: unknown, where: string): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i -= 1) {
      const message = value[i];
      if (isObject(message) && message.role === "assistant") {
        if (typeof message.content !== "string") {
          throw invalid(`field "${where}": the assistant message's content is not a string`, where);
        }
        return message.content;
      }
    }
    throw invalid(`field "${where}": a list of messages without an assistant message`, where);
  }
  throw invalid(`field "${where}": expected a string or a list of chat messages`, where);
}

const COMPLETION_FIELDS = ["completion", "completions", "responses"] as const;

/**
 * Validates one candidates row.
 *
 * @throws MineditError `InvalidArgument` naming the field.
 */
export function parseCandidateRow(row: Record<string, unknown>): CandidateRow {
  const taskId = rowTaskId(row);
  if (row.v === EVAL_SAMPLE_VERSION) return evalSample(taskId, row);
  const present = COMPLETION_FIELDS.filter((name) => Object.hasOwn(row, name));
  if (present.length === 0 && Object.hasOwn(row, "error")) {
    if (typeof row.error !== "string") throw invalid('field "error": expected a string', "error");
    return { taskId, completions: [], unavailable: [UNAVAILABLE.apiError] };
  }
  if (present.length === 0) {
    throw invalid('missing field "completion" (or a list in "completions" or "responses")', "completion");
  }
  if (present.length > 1) {
    throw invalid(
      `give one of ${present.map((n) => `"${n}"`).join(" and ")}, not both`,
      present[1] as string,
    );
  }
  const field = present[0] as (typeof COMPLETION_FIELDS)[number];
  if (field === "completion")
    return { taskId, completions: [completionText(row.completion, field)], unavailable: [] };
  const list = row[field];
  if (!Array.isArray(list)) throw invalid(`field "${field}": expected a list of completions`, field);
  if (list.length === 0) throw invalid(`field "${field}": the list is empty`, field);
  return {
    taskId,
    completions: list.map((item, i) => completionText(item, `${field}[${i}]`)),
    unavailable: [],
  };
}

/** One sample of an eval run (see the module doc). */
function evalSample(taskId: string, row: Record<string, unknown>): CandidateRow {
  const { outcome, program } = row;
  if (typeof outcome !== "string") throw invalid('field "outcome": expected a string', "outcome");
  if (outcome === "API_ERROR") return { taskId, completions: [], unavailable: [UNAVAILABLE.apiError] };
  if (outcome === "MISSING") return { taskId, completions: [], unavailable: [UNAVAILABLE.missing] };
  if (program === null || program === undefined) return { taskId, completions: [""], unavailable: [] };
  if (typeof program !== "string") throw invalid('field "program": expected a string or null', "program");
  const body = program.endsWith("\n") ? program : `${program}\n`;
  return { taskId, completions: [`\`\`\`python\n${body}\`\`\``], unavailable: [] };
}
