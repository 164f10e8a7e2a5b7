/**
 * The files of a run directory that later commands read back (`eval report`, `eval compare`), with their
 * schemas: the run manifest `run.json`, the task snapshot `tasks.jsonl` (every task of the run with the
 * programs the viewer shows, and why it was excluded, if it was) and the scored samples `samples.jsonl`
 * (one line per task × sample index, every task of the denominator present). docs/eval.md documents each
 * field; a reader refuses a file of another version.
 *
 * Pure: no I/O.
 */
import { z } from "zod";
import { EVAL_SAMPLE_VERSION } from "../core/candidate-row.js";
import { PROMPT_STYLES } from "../core/prompt/repair-prompt.js";
import { VERDICTS } from "../core/reward.js";

/** Versions of the run files, in every line / at the top of every file. */
export const RUN_FILE_VERSION = "minedit-eval-run/1";
export const TASK_RECORD_VERSION = "minedit-eval-task/1";
export const SAMPLE_RECORD_VERSION = EVAL_SAMPLE_VERSION;

/**
 * What became of a sample: a scoring verdict (src/core/reward.ts), `API_ERROR` (the endpoint failed
 * after its retries) or `MISSING` (no completion: not generated yet, or absent from a candidates file).
 * Every one except `PASSED` counts as not passing; all of them are in the denominator.
 */
export const OUTCOMES = [...VERDICTS, "API_ERROR", "MISSING"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const TaskRecordSchema = z.object({
  v: z.literal(TASK_RECORD_VERSION),
  task_id: z.string().min(1),
  problem_id: z.string().min(1),
  kind: z.enum(["repair", "lint", "generation"]),
  domain: z.string(),
  families: z.array(z.string()),
  language: z.string(),
  corrupted: z.string(),
  gold: z.string(),
  /** Why the task is not in the denominator (the ground-truth gate refused it, or its suite could not run it); null: it is. */
  excluded: z.string().nullable(),
});
export type TaskRecord = z.output<typeof TaskRecordSchema>;

export const SampleRecordSchema = z.object({
  v: z.literal(SAMPLE_RECORD_VERSION),
  task_id: z.string().min(1),
  sample: z.number().int().min(0),
  outcome: z.enum(OUTCOMES),
  passed: z.boolean(),
  /** The completion stopped at max_tokens (`finish_reason: "length"`). */
  truncated: z.boolean(),
  finish_reason: z.string().nullable(),
  /** d(M, C), d(G, C) and e(M) = d(M, C) − d(G, C) in the run's scope; null without a program (and for generation problems). */
  d_model: z.number().nullable(),
  d_gold: z.number().nullable(),
  excess: z.number().nullable(),
  /** CC(M) − CC(G), the paper's visitor (`paper` variant); null without a program. */
  added_cc: z.number().nullable(),
  /** The same with SonarSource's rules (what the reward's `edit_plus_cc` uses). */
  added_cc_sonar: z.number().nullable(),
  /** Levenshtein(tokens(M), tokens(C)): raw token edits, not normalized (the paper's Table 6). */
  token_edits: z.number().int().nullable(),
  tests_passed: z.number().int(),
  tests_total: z.number().int(),
  detail: z.string(),
  /** M as extracted from the completion; null without one. */
  program: z.string().nullable(),
  /** Lint tasks: the counts behind LintEval's metrics; null otherwise or when the revision was not analyzed. */
  lint: z
    .object({
      alerts_original: z.number().int(),
      alerts_fixed: z.number().int(),
      alerts_new: z.number().int(),
      diff_lines: z.number().int(),
      d_edit: z.number(),
    })
    .nullable(),
  usage: z
    .object({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      reasoning_tokens: z.number().nullable(),
    })
    .nullable(),
  /** Samples the usage is shared by (one request asked for them together). */
  request_samples: z.number().int().min(1),
  latency_ms: z.number().nullable(),
});
export type SampleRecord = z.output<typeof SampleRecordSchema>;

export const RunManifestSchema = z.object({
  v: z.literal(RUN_FILE_VERSION),
  /** The run's name in reports (`--name`, default: the model). */
  name: z.string(),
  /** `generate` (an endpoint), `candidates` (a completions file) or `journal` (re-scored). */
  source: z.enum(["generate", "candidates", "journal"]),
  model: z.string().nullable(),
  endpoint: z.string().nullable(),
  api: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  prompt: z.enum(PROMPT_STYLES),
  samples: z.number().int().min(1),
  task_files: z.array(z.object({ path: z.string(), sha256: z.string() })),
  retention: z.array(z.string()),
  scope: z.string(),
  reward_version: z.string(),
  minedit_version: z.string(),
  created: z.string(),
  /** Wall-clock seconds of the stages of the last `eval run` in this directory. */
  seconds: z.object({ generate: z.number(), score: z.number(), total: z.number() }),
  generation: z
    .object({
      reused: z.number(),
      asked: z.number(),
      generated: z.number(),
      failed: z.number(),
      requests: z.number(),
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      /** Retries of this run's requests by cause ("HTTP 429", "ECONNRESET", "timeout"); absent in older runs. */
      retries: z.record(z.string(), z.number()).optional(),
    })
    .nullable(),
});
export type RunManifest = z.output<typeof RunManifestSchema>;
