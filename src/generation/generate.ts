/**
 * Generation: the samples of every task that the journal does not have yet, asked from the endpoint with
 * bounded concurrency, each request's outcome appended to the journal as soon as it arrives.
 *
 * Requests: by default one per task, asking with the API's `n` for all of the task's missing samples
 * (the prompt is sent and processed once); with `onePerRequest` one per sample (for servers that do not
 * take `n`). The seed sent is `--seed` plus the first sample index of the request, so one-per-request
 * samples differ from each other, and an uninterrupted n-request sends `--seed` itself.
 *
 * Ctrl-C (the signal) stops new requests and aborts the ones in flight; everything finished is in the
 * journal, and the next run asks only for the rest.
 */
import { setMaxListeners } from "node:events";
import type { Message } from "../core/prompt/message.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { Endpoint, RequestOutcome } from "./endpoint.js";
import type { Journal, JournalLine } from "./journal.js";
import { JOURNAL_VERSION } from "./journal.js";
import {
  type ApiPrompt,
  apiPrompt,
  type GenerationTarget,
  normalizeEndpoint,
  sampleKey,
} from "./sampling.js";

/** What generation needs of a task: its id (the journal's `task_id`) and the prompt to send. */
export type GenerationTask = { taskId: string; messages: readonly Message[] };

export type GenerateOptions = {
  tasks: readonly GenerationTask[];
  /** Samples per task (`--n`). */
  samples: number;
  target: GenerationTarget;
  endpoint: Pick<Endpoint, "request">;
  journal: Journal;
  /** Requests in flight at once. */
  parallel: number;
  onePerRequest: boolean;
  signal: AbortSignal;
  /** Called after every request with the counts so far. */
  onProgress?: (counts: { done: number; total: number; tokens: number; errors: number }) => void;
  /** Called once per failed request (after its retries). */
  onError?: (taskId: string, message: string) => void;
};

export type GenerationSummary = {
  /** Samples the journal already had. */
  reused: number;
  /** Samples asked for in this run. */
  asked: number;
  /** Of those, generated. */
  generated: number;
  /** Of those, failed (API errors after retries). */
  failed: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  seconds: number;
};

type Request = { task: GenerationTask; prompt: ApiPrompt; indices: number[]; keys: string[] };

/** The keys of a task's samples 0…n−1, for the target. */
export function taskSampleKeys(task: GenerationTask, target: GenerationTarget, samples: number): string[] {
  const prompt = apiPrompt(task.messages, target.api);
  return Array.from({ length: samples }, (_, index) => sampleKey(target, prompt, index));
}

/** The journal's last line for each of a task's samples 0…n−1 (undefined: never asked, or torn). */
export function journalSamples(
  journal: Journal,
  task: GenerationTask,
  target: GenerationTarget,
  samples: number,
): (JournalLine | undefined)[] {
  return taskSampleKeys(task, target, samples).map((key) => journal.state.entries.get(key));
}

/**
 * How many first requests must fail, none succeeding, each with a connection failure or a 5xx after its
 * (short, backoff.ts `unprovenRetries`) retries, for the endpoint to count as down and the run to stop —
 * fewer when the run has fewer requests. A few, not one: one unlucky request must not end a run; some
 * 429s or timeouts never do.
 */
export const DEAD_ENDPOINT_REQUESTS = 3;

/** Runs the generation; resolves when every request has an outcome (or rejects on a fatal refusal). */
export async function generateSamples(options: GenerateOptions): Promise<GenerationSummary> {
  const started = performance.now();
  const { target, journal } = options;
  const requests: Request[] = [];
  let reused = 0;
  for (const task of options.tasks) {
    const prompt = apiPrompt(task.messages, target.api);
    const missing: { index: number; key: string }[] = [];
    for (let index = 0; index < options.samples; index += 1) {
      const key = sampleKey(target, prompt, index);
      if (journal.done(key) !== undefined) reused += 1;
      else missing.push({ index, key });
    }
    if (missing.length === 0) continue;
    const chunks = options.onePerRequest ? missing.map((m) => [m]) : [missing];
    for (const chunk of chunks) {
      requests.push({ task, prompt, indices: chunk.map((m) => m.index), keys: chunk.map((m) => m.key) });
    }
  }
  const asked = requests.reduce((sum, r) => sum + r.indices.length, 0);
  const summary: GenerationSummary = {
    reused,
    asked,
    generated: 0,
    failed: 0,
    requests: 0,
    promptTokens: 0,
    completionTokens: 0,
    seconds: 0,
  };
  const endpoint = normalizeEndpoint(target.endpoint);
  let next = 0;
  let fatal: unknown = null;
  let succeeded = false;
  const downCauses: string[] = [];
  const deadAfter = Math.min(DEAD_ENDPOINT_REQUESTS, requests.length);
  const controller = new AbortController();
  // Each request in flight listens to this signal once (its attempt's, endpoint.ts), and so may a backoff
  // sleep: up to 2 × parallel listeners, which is no leak — only above Node's default warning level of 10.
  setMaxListeners(Math.max(10, 2 * options.parallel + 2), controller.signal);
  const onAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", onAbort, { once: true });
  const worker = async () => {
    while (next < requests.length && fatal === null && !controller.signal.aborted) {
      const request = requests[next++] as Request;
      const first = request.indices[0] as number;
      const seed = target.params.seed === undefined ? undefined : target.params.seed + first;
      let outcome: RequestOutcome;
      try {
        outcome = await options.endpoint.request(
          request.prompt,
          request.indices.length,
          seed,
          controller.signal,
        );
      } catch (error) {
        if (controller.signal.aborted) return;
        fatal = error;
        controller.abort(error);
        return;
      }
      const created = new Date().toISOString();
      const common = { model: target.model, endpoint, api: target.api, created };
      const lines: JournalLine[] = request.indices.map((sample, i) => {
        const base = {
          v: JOURNAL_VERSION,
          key: request.keys[i] as string,
          task_id: request.task.taskId,
          sample,
        } as const;
        if (!outcome.ok) {
          return {
            ...base,
            status: "error",
            error: outcome.error,
            latency_ms: Math.round(outcome.latencyMs),
            attempts: outcome.attempts,
            ...common,
          };
        }
        const choice = outcome.choices[i] as (typeof outcome.choices)[number];
        return {
          ...base,
          status: "ok",
          text: choice.text,
          reasoning: choice.reasoning,
          finish_reason: choice.finishReason,
          truncated: choice.finishReason === "length",
          usage:
            outcome.usage === null
              ? null
              : {
                  prompt_tokens: outcome.usage.promptTokens,
                  completion_tokens: outcome.usage.completionTokens,
                  reasoning_tokens: outcome.usage.reasoningTokens,
                },
          request_samples: request.indices.length,
          latency_ms: Math.round(outcome.latencyMs),
          attempts: outcome.attempts,
          response_id: outcome.responseId,
          ...common,
        };
      });
      if (outcome.ok) succeeded = true;
      else if (!succeeded && outcome.down) {
        downCauses.push(outcome.cause);
        if (downCauses.length >= deadAfter) {
          // Nothing is journalled: the next run asks these again, and no report of zeros is written.
          const causes = [...new Set(downCauses)].join(", ");
          fatal = new MineditError(
            ErrorCode.Unavailable,
            `${endpoint} is unreachable or failing (${causes}): the first ${downCauses.length} request(s) all ` +
              `failed after their retries and none succeeded. Last error: ${outcome.error.message}`,
          );
          controller.abort(fatal);
          return;
        }
      }
      await journal.append(lines);
      summary.requests += 1;
      if (outcome.ok) {
        summary.generated += request.indices.length;
        summary.promptTokens += outcome.usage?.promptTokens ?? 0;
        summary.completionTokens += outcome.usage?.completionTokens ?? 0;
      } else {
        summary.failed += request.indices.length;
        options.onError?.(request.task.taskId, outcome.error.message);
      }
      options.onProgress?.({
        done: summary.generated + summary.failed,
        total: asked,
        tokens: summary.completionTokens,
        errors: summary.failed,
      });
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.parallel, requests.length)) }, worker),
    );
  } finally {
    options.signal.removeEventListener("abort", onAbort);
  }
  if (fatal !== null) throw fatal;
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}
