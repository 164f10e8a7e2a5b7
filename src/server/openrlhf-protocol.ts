/**
 * OpenRLHF's remote reward protocol, without I/O: the request body (`query`, `prompts`, `labels`) checked
 * and each query split into its response ({@link splitQuery}), and the answer (`rewards`, `scores`,
 * `extra_logs`) built from the scorer's outputs ({@link rewardResponse}). openrlhf-http.ts serves it.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { parseTests, type TaskTests } from "../scoring/offline/rows.js";
import type { RolloutOutput, RolloutTask } from "../scoring/rollout.js";

const Label = z.union([z.string(), z.number().int(), z.record(z.string(), z.unknown())], {
  error: "expected a task id (a string or an integer) or an inline task (an object, or one as a JSON string)",
});
/** An inline task in a label: the programs here, `tests` / `entry_point` / `runtime` as in a task file. */
const InlineLabel = z.object({ corrupted: z.string(), gold: z.string() }, { error: "expected an object" });
const RequestSchema = z.object({
  query: z.array(z.string({ error: "expected a string" }), { error: "required: a list of strings" }),
  prompts: z.array(z.string({ error: "expected a string" }), { error: "required: a list of strings" }),
  labels: z.array(Label, { error: "required: a list of task ids" }),
});

/** A malformed request, naming the offending field. */
export function invalid(field: string, message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, `${field}: ${message}`, { field });
}

/** How a query was split into prompt and response (see {@link splitQuery}). */
export type PromptSplit = "exact" | "truncated" | "last_line" | "whole_query";

/** A left-truncated prompt keeps hundreds of tokens; a shorter overlap (`\n`, `>`) is chance. */
const MIN_TRUNCATED_OVERLAP = 16;

/**
 * The length of the longest prefix of `next` that is a suffix of `text`, in UTF-16 code units: linear
 * time (the Knuth–Morris–Pratt prefix function of `next`, then matching it along the end of `text`).
 */
export function suffixPrefixOverlap(text: string, next: string): number {
  const m = Math.min(text.length, next.length);
  if (m === 0) return 0;
  const failure = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && next.charCodeAt(i) !== next.charCodeAt(k)) k = failure[k - 1] as number;
    if (next.charCodeAt(i) === next.charCodeAt(k)) k++;
    failure[i] = k;
  }
  let q = 0;
  for (let i = text.length - m; i < text.length; i++) {
    const c = text.charCodeAt(i);
    while (q > 0 && (q === m || next.charCodeAt(q) !== c)) q = failure[q - 1] as number;
    if (next.charCodeAt(q) === c) q++;
  }
  return q;
}

/**
 * The response in an OpenRLHF query (its decoded prompt + response), by the first rule that applies:
 * 1. `exact`: the text after the first occurrence of the prompt (the query may start with a BOS text);
 * 2. `truncated`: OpenRLHF cut the prompt's start to fit `max_len − max_new_tokens`, so the query starts
 *    with the prompt's end — the text after the longest suffix of the prompt (16 characters at least)
 *    that starts the query;
 * 3. `last_line`: the text after the last occurrence of the prompt's last non-blank line (the chat
 *    template's generation marker, e.g. `<|im_start|>assistant`, and the prompt's whitespace after it),
 *    for when decode(encode(prompt)) differs from the prompt; never a fence line (it would cut at the
 *    response's own code block);
 * 4. `whole_query`: the whole query — the program extractor then takes the last fenced block (after the
 *    last `</think>`), which is the response's when it has one.
 */
export function splitQuery(query: string, prompt: string): { completion: string; split: PromptSplit } {
  const at = query.indexOf(prompt);
  if (at >= 0) return { completion: query.slice(at + prompt.length), split: "exact" };
  const overlap = suffixPrefixOverlap(prompt, query);
  if (overlap >= MIN_TRUNCATED_OVERLAP) return { completion: query.slice(overlap), split: "truncated" };
  const trimmed = prompt.trimEnd();
  const lastLine = trimmed.slice(trimmed.lastIndexOf("\n") + 1).trimStart();
  if (lastLine.length > 0 && !lastLine.startsWith("```")) {
    const marker = query.lastIndexOf(lastLine);
    if (marker >= 0) {
      // The prompt's whitespace after its last line (`\n` after `<|im_start|>assistant`) is not response.
      const tail = prompt.slice(trimmed.length);
      let start = marker + lastLine.length;
      if (query.startsWith(tail, start)) start += tail.length;
      return { completion: query.slice(start), split: "last_line" };
    }
  }
  return { completion: query, split: "whole_query" };
}

/**
 * One sample of a request: its response, its task (the label: a stored task id or an inline task), the
 * key of its GRPO group (the task id, or a digest of the inline task) and how the response was found.
 */
export type Sample = { completion: string; task: RolloutTask; groupKey: string; split: PromptSplit };

const EMPTY_LABEL =
  'empty task id: OpenRLHF sends "" when it is not told the label column; pass --data.label_key label ' +
  "(OpenRLHF >= 0.10.2) or --label_key label (older), the task id column `minedit export --format openrlhf` writes";

/** Validates a parsed body and splits each query into its response. */
export function parseRewardRequest(body: unknown, maxSamples: number): Sample[] {
  const parsed = RequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = (issue?.path ?? [])
      .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
      .join("");
    throw invalid(field === "" ? "(body)" : field, issue?.message ?? "invalid request");
  }
  const { query, prompts, labels } = parsed.data;
  if (prompts.length !== query.length) {
    throw invalid("prompts", `${prompts.length} prompts for ${query.length} queries: one prompt per query`);
  }
  if (labels.length !== query.length) {
    throw invalid("labels", `${labels.length} labels for ${query.length} queries: one task id per query`);
  }
  if (query.length > maxSamples) {
    throw new MineditError(
      ErrorCode.ResourceExhausted,
      `the request has ${query.length} samples, more than the server's limit of ${maxSamples} (server.maxBatchRollouts); split it`,
      { field: "query" },
    );
  }
  return query.map((text, i) => ({
    ...splitQuery(text, prompts[i] as string),
    ...parseLabel(labels[i], `labels[${i}]`),
  }));
}

/**
 * A label's task. A string is a task id unless it is a JSON object (a dataset column holding the inline
 * task as text, as Parquet and `--data.label_key` carry it); an object is an inline task with the fields
 * of a task file row (`corrupted`, `gold`, `tests`, `entry_point`, optional `runtime`: absent, the scorer
 * picks it from what the task imports). Identical inline tasks share a group key, so the duplicate
 * completions of their GRPO group run once.
 */
export function parseLabel(label: unknown, field: string): { task: RolloutTask; groupKey: string } {
  if (typeof label === "number") return stored(String(label));
  if (typeof label === "string") {
    if (label.trim() === "") throw invalid(field, EMPTY_LABEL);
    if (!label.trimStart().startsWith("{")) return stored(label);
    let parsed: unknown;
    try {
      parsed = JSON.parse(label);
    } catch (error) {
      throw invalid(
        field,
        `starts like an inline task but is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return inlineTask(parsed, field);
  }
  return inlineTask(label, field);
}

function stored(taskId: string): { task: RolloutTask; groupKey: string } {
  return { task: { kind: "stored", taskId }, groupKey: taskId };
}

function inlineTask(label: unknown, field: string): { task: RolloutTask; groupKey: string } {
  const programs = InlineLabel.safeParse(label);
  if (!programs.success) {
    const issue = programs.error.issues[0];
    const at = issue?.path.length ? `.${issue.path.join(".")}` : "";
    throw invalid(
      `${field}${at}`,
      `inline task: ${issue?.message ?? "invalid"} (corrupted and gold are strings)`,
    );
  }
  const row = label as Record<string, unknown>;
  let tests: TaskTests | undefined;
  try {
    tests = parseTests(row);
  } catch (error) {
    if (!isMineditError(error)) throw error;
    throw invalid(field, `inline task: ${error.rawMessage}`);
  }
  if (tests === undefined) throw invalid(field, "inline task: no tests (a `tests` field as in a task file)");
  const { corrupted, gold } = programs.data;
  const task: RolloutTask = {
    kind: "inline",
    corrupted,
    gold,
    tests: tests.tests,
    entryPoint: tests.entryPoint,
    ...(tests.runtime === undefined ? {} : { runtime: tests.runtime }),
  };
  const digest = createHash("sha256").update(JSON.stringify(task)).digest("hex").slice(0, 32);
  return { task, groupKey: `inline:${digest}` };
}

/** The OpenRLHF answer for the scorer's outputs, in request order (see the module doc). */
export function rewardResponse(
  samples: readonly Sample[],
  outputs: readonly RolloutOutput[],
  infraErrorReward: number,
) {
  const scoredSum = new Map<string, { reward: number; passed: number; count: number }>();
  outputs.forEach((output, i) => {
    if (output.reward === null) return;
    const key = (samples[i] as Sample).groupKey;
    const sum = scoredSum.get(key) ?? { reward: 0, passed: 0, count: 0 };
    sum.reward += output.reward;
    sum.passed += output.verdict === "PASSED" ? 1 : 0;
    sum.count += 1;
    scoredSum.set(key, sum);
  });
  const rewards: number[] = [];
  const scores: number[] = [];
  outputs.forEach((output, i) => {
    if (output.reward !== null) {
      rewards.push(output.reward);
      scores.push(output.verdict === "PASSED" ? 1 : 0);
      return;
    }
    const sum = scoredSum.get((samples[i] as Sample).groupKey);
    rewards.push(sum === undefined ? infraErrorReward : sum.reward / sum.count);
    scores.push(sum === undefined ? 0 : sum.passed / sum.count);
  });
  const column = (f: (o: RolloutOutput) => number) => outputs.map(f);
  return {
    rewards,
    scores,
    extra_logs: {
      passed: column((o) => (o.verdict === "PASSED" ? 1 : 0)),
      infra_error: column((o) => (o.verdict === "INFRA_ERROR" ? 1 : 0)),
      invalid_task: column((o) => (o.verdict === "INVALID_TASK" ? 1 : 0)),
      prompt_fallback: samples.map((s) => (s.split === "exact" ? 0 : 1)),
      excess: column((o) => o.components?.excess ?? 0),
      d_model: column((o) => o.components?.dModel ?? 0),
      d_gold: column((o) => o.components?.dGold ?? 0),
      tests_passed: column((o) => o.testsPassed),
      tests_total: column((o) => o.testsTotal),
    },
    verdicts: outputs.map((o) => o.verdict),
  };
}
