/**
 * Scoring an evaluation's samples the way the reward server scores rollouts: every completion through the
 * scoring engine's {@link ExecutingRolloutScorer} (metrics in the pool, the task's tests in the sandbox
 * with its gate-calibrated limits), so an evaluation verdict is exactly the verdict training was rewarded
 * with. Then, on this thread, what the reward does not compute but the paper reports: added cognitive
 * complexity with the paper's visitor (the scorer's `addedCc` is SonarSource's) and raw token edits.
 *
 * The denominator is every task × sample index 0…n−1 of the tasks the gate served: a sample without a
 * completion is `MISSING`, one whose request failed `API_ERROR`; neither is sent to the scorer, and both
 * count as not passing. Tasks the gate refused are not scored at all (the report lists them).
 *
 * `NO_CODE` is decided as the over-editing paper decided it: a repair task's answer from which the
 * paper's extractor (src/core/paper-extract.ts) takes no code — prose only, an empty block, a ```` ```py ````
 * fence — is `NO_CODE` and not sent to the scorer. minedit's own extractor would take such prose whole and
 * the scorer would call it `UNPARSABLE`; both fail, but the paper's outcome counts say `NO_CODE`. Every
 * other answer keeps minedit's extraction and verdict. The end-of-turn markers minedit strips first are
 * stripped here too: they are a trainer's decoding artefact, not part of the answer.
 */
import type { RewardConfig } from "../config.js";
import { tokenLevenshtein } from "../core/distance.js";
import { extractProgram, stripEndOfTurn } from "../core/extract-program.js";
import { unifiedDiffLineCount } from "../core/lint/metrics.js";
import { analyzeProgram, programTokens } from "../core/normalize.js";
import { paperExtractCode } from "../core/paper-extract.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import type { RolloutInput, RolloutOutput } from "../scoring/rollout.js";
import type { EvalTask } from "./eval-task.js";
import { type Outcome, SAMPLE_RECORD_VERSION, type SampleRecord } from "./records.js";

/** The completion of one sample, or why there is none. */
export type SampleInput =
  | {
      status: "ok";
      completion: string;
      truncated: boolean;
      finishReason: string | null;
      usage: SampleRecord["usage"];
      requestSamples: number;
      latencyMs: number | null;
    }
  | { status: "api_error"; message: string; latencyMs: number | null };

/** Completions by task id, then by sample index. */
export type SampleInputs = ReadonlyMap<string, ReadonlyMap<number, SampleInput>>;

export type ScoreSamplesOptions = {
  scorer: {
    score(rollouts: RolloutInput[], override: undefined, signal: AbortSignal): AsyncIterable<RolloutOutput>;
  };
  /** The tasks to score (refused ones are skipped). */
  tasks: readonly EvalTask[];
  refused: ReadonlyMap<string, string>;
  inputs: SampleInputs;
  samples: number;
  reward: RewardConfig;
  signal: AbortSignal;
  /** Rollouts per scorer call. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
};

type Pending = { task: EvalTask; sample: number; input: Extract<SampleInput, { status: "ok" }> };

/** Per task, what the extra metrics reuse: tokens(C) in the scope and CC(G) with the paper's visitor. */
type TaskBasis = { corruptedTokens: string[] | null; goldPaperCc: number | null };

/** Scores every sample of the served tasks; records in task order, then sample order. */
export async function scoreSamples(options: ScoreSamplesOptions): Promise<SampleRecord[]> {
  await loadPythonGrammar();
  const records: SampleRecord[] = [];
  const pending: Pending[] = [];
  const slots: number[] = [];
  for (const task of options.tasks) {
    if (options.refused.has(task.taskId)) continue;
    const byIndex = options.inputs.get(task.taskId);
    for (let sample = 0; sample < options.samples; sample += 1) {
      const input = byIndex?.get(sample);
      if (input?.status === "ok" && paperFindsNoCode(task, input.completion, options.reward)) {
        records.push(noCodeRecord(task.taskId, sample, input));
      } else if (input?.status === "ok") {
        slots.push(records.length);
        records.push(emptyRecord(task.taskId, sample, "MISSING", ""));
        pending.push({ task, sample, input });
      } else if (input?.status === "api_error") {
        records.push({
          ...emptyRecord(task.taskId, sample, "API_ERROR", input.message),
          latency_ms: input.latencyMs,
        });
      } else {
        records.push(emptyRecord(task.taskId, sample, "MISSING", "no completion for this sample"));
      }
    }
  }
  const bases = new Map<string, TaskBasis>();
  const batchSize = options.batchSize ?? 256;
  let done = 0;
  options.onProgress?.(0, pending.length);
  for (let start = 0; start < pending.length; start += batchSize) {
    const batch = pending.slice(start, start + batchSize);
    const rollouts: RolloutInput[] = batch.map((item, i) => ({
      id: String(i),
      completion: item.input.completion,
      groupId: item.task.taskId,
      task: { kind: "stored", taskId: item.task.taskId },
    }));
    const outputs: (RolloutOutput | undefined)[] = new Array(batch.length);
    for await (const output of options.scorer.score(rollouts, undefined, options.signal)) {
      outputs[Number(output.id)] = output;
      done += 1;
      options.onProgress?.(done, pending.length);
    }
    batch.forEach((item, i) => {
      const output = outputs[i];
      if (output === undefined)
        throw new Error(`internal error: no score for ${item.task.taskId}#${item.sample}`);
      let basis = bases.get(item.task.taskId);
      if (basis === undefined) {
        basis = taskBasis(item.task, options.reward);
        bases.set(item.task.taskId, basis);
      }
      records[slots[start + i] as number] = sampleRecord(item, output, basis, options.reward);
    });
  }
  return records;
}

function emptyRecord(taskId: string, sample: number, outcome: Outcome, detail: string): SampleRecord {
  return {
    v: SAMPLE_RECORD_VERSION,
    task_id: taskId,
    sample,
    outcome,
    passed: false,
    truncated: false,
    finish_reason: null,
    d_model: null,
    d_gold: null,
    excess: null,
    added_cc: null,
    added_cc_sonar: null,
    token_edits: null,
    tests_passed: 0,
    tests_total: 0,
    detail,
    program: null,
    lint: null,
    usage: null,
    request_samples: 1,
    latency_ms: null,
  };
}

/**
 * Whether the paper's extractor takes no code from a repair task's answer (see the module doc). Lint tasks
 * (other languages, other prompts) and the retention suites (their benchmarks' own conventions) keep
 * minedit's extraction.
 */
function paperFindsNoCode(task: EvalTask, completion: string, reward: RewardConfig): boolean {
  return (
    task.kind === "repair" && paperExtractCode(stripEndOfTurn(completion, reward.endOfTurnMarkers)) === ""
  );
}

function noCodeRecord(taskId: string, sample: number, input: Pending["input"]): SampleRecord {
  return {
    ...emptyRecord(
      taskId,
      sample,
      "NO_CODE",
      "no code by the paper's rule: the answer is not a Python program and has no ```python block",
    ),
    truncated: input.truncated,
    finish_reason: input.finishReason,
    usage: input.usage,
    request_samples: input.requestSamples,
    latency_ms: input.latencyMs,
  };
}

function taskBasis(task: EvalTask, reward: RewardConfig): TaskBasis {
  if (task.kind !== "repair") return { corruptedTokens: null, goldPaperCc: null };
  return {
    corruptedTokens: programTokens(task.corrupted, reward.scope),
    goldPaperCc: analyzeProgram(task.gold, "program", "paper").cognitiveComplexity,
  };
}

function sampleRecord(
  item: Pending,
  output: RolloutOutput,
  basis: TaskBasis,
  reward: RewardConfig,
): SampleRecord {
  const { task, input } = item;
  const extracted = extractProgram(input.completion, reward.endOfTurnMarkers);
  const program = extracted.kind === "code" ? extracted.program : null;
  const record: SampleRecord = {
    ...emptyRecord(task.taskId, item.sample, output.verdict, output.detail),
    passed: output.verdict === "PASSED",
    truncated: input.truncated,
    finish_reason: input.finishReason,
    tests_passed: output.testsPassed,
    tests_total: output.testsTotal,
    program,
    usage: input.usage,
    request_samples: input.requestSamples,
    latency_ms: input.latencyMs,
  };
  if (task.kind === "repair" && output.components !== null && program !== null) {
    record.d_model = output.components.dModel;
    record.d_gold = output.components.dGold;
    record.excess = output.components.excess;
    record.added_cc_sonar = output.components.addedCc ?? null;
    // The program parsed (the scorer computed its distances), so these do not throw.
    record.added_cc =
      analyzeProgram(program, "program", "paper").cognitiveComplexity - (basis.goldPaperCc ?? 0);
    record.token_edits = tokenLevenshtein(programTokens(program, reward.scope), basis.corruptedTokens ?? []);
  }
  if (task.kind === "lint" && output.lintComponents !== undefined && program !== null) {
    record.lint = {
      alerts_original: output.lintComponents.alertsOriginal,
      alerts_fixed: output.lintComponents.alertsFixed,
      alerts_new: output.lintComponents.alertsNew,
      diff_lines: unifiedDiffLineCount(task.corrupted, program),
      d_edit: output.lintComponents.dEdit,
    };
  }
  return record;
}
