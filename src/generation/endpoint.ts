/**
 * One OpenAI-compatible endpoint (vLLM, SGLang, OpenAI, OpenRouter, …) through the official `openai`
 * client: a request for k samples of one prompt, on the chat or the completions API, retried on the
 * failures a later attempt can cure (backoff.ts) and bounded by a per-request timeout.
 *
 * The client's own retries are off (`maxRetries: 0`): this module retries, so every attempt is counted
 * and its wait honours `Retry-After` under our cap, and a run's requests are all accounted for in the
 * journal. Per sample it returns the text, the reasoning the server sent apart (`reasoning_content`, as
 * vLLM and DeepSeek send it, or `reasoning`, as OpenRouter does; a `<think>` block inside the text is left
 * to the program extractor), the finish reason (`length` = truncated at max_tokens), the request's token
 * usage and latency.
 *
 * Decisions: a request asking for k > 1 samples uses the API's `n`; its usage is the request's (shared by
 * the k samples, which the journal records as `request_samples`). 401, 403 and 404 stop the whole run (a
 * wrong key, model or URL fails every request the same way); other errors end only that request, after
 * its retries.
 */
import OpenAI from "openai";
import { ErrorCode, MineditError } from "../errors.js";
import { isEndpointDown, isRetryable, type RetryPolicy, retryAfterMs, retryDelayMs } from "./backoff.js";
import type { ApiPrompt, GenerationTarget } from "./sampling.js";

/** Token counts of one request, as the server reported them (null: it did not). */
export type Usage = { promptTokens: number; completionTokens: number; reasoningTokens: number | null };

/** One generated sample. */
export type Choice = {
  text: string;
  /** Reasoning the server returned beside the answer; null when it sent none. */
  reasoning: string | null;
  finishReason: string | null;
};

/** What one request produced: its samples, or why it failed after its attempts. */
export type RequestOutcome =
  | {
      ok: true;
      choices: Choice[];
      usage: Usage | null;
      latencyMs: number;
      attempts: number;
      responseId: string | null;
    }
  | {
      ok: false;
      error: { status: number | null; message: string };
      /** The last failure in a few words: "HTTP 503", "ECONNREFUSED", "timeout". */
      cause: string;
      /** Whether that failure says the endpoint may be down (backoff.ts `isEndpointDown`). */
      down: boolean;
      latencyMs: number;
      attempts: number;
    };

export type EndpointOptions = {
  target: GenerationTarget;
  /** Sent as `Authorization: Bearer …`; local servers accept any value. */
  apiKey: string;
  /** Per attempt, in milliseconds. */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Called before each retry with its cause ("HTTP 429", "ECONNRESET", "timeout", …). */
  onRetry?: (cause: string) => void;
  /** Injectable for tests: the jitter source and the sleep between attempts. */
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

/** A fatal refusal (401, 403, 404): every request would fail the same way. */
const FATAL_STATUSES = new Set([401, 403, 404]);

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A failure in a few words: "HTTP 503" for a response, else the system error code found along the
 * `cause` chain (the client wraps fetch's error, which wraps the socket's: ECONNREFUSED, ENOTFOUND,
 * ECONNRESET, …), "timeout", or the message.
 */
export function failureCause(error: unknown): string {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return "timeout";
  if (error instanceof OpenAI.APIError && typeof error.status === "number") return `HTTP ${error.status}`;
  // Without a code, the innermost message says most ("bad port" under "fetch failed" under "Connection
  // error.").
  let innermost = error instanceof Error ? error.message : String(error);
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === "object"; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    const message = (current as { message?: unknown }).message;
    if (typeof message === "string" && message !== "") innermost = message;
    current = (current as { cause?: unknown }).cause;
  }
  return innermost;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function usageOf(raw: unknown): Usage | null {
  if (raw === null || typeof raw !== "object") return null;
  const u = raw as Record<string, unknown>;
  if (typeof u.prompt_tokens !== "number" || typeof u.completion_tokens !== "number") return null;
  const details = u.completion_tokens_details as Record<string, unknown> | null | undefined;
  const reasoning = details?.reasoning_tokens;
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    reasoningTokens: typeof reasoning === "number" ? reasoning : null,
  };
}

/** An endpoint to request samples from. */
export class Endpoint {
  private readonly client: OpenAI;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Whether any request has been answered: until then a dead endpoint is not retried for long. */
  private proven = false;

  constructor(private readonly options: EndpointOptions) {
    this.client = new OpenAI({
      baseURL: options.target.endpoint,
      apiKey: options.apiKey,
      maxRetries: 0,
      timeout: options.timeoutMs,
    });
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? abortableSleep;
  }

  /**
   * Checks, before anything slow starts (the ground-truth gate takes half a minute on a real task set),
   * that the endpoint can be reached at all: one `GET /models` within `timeoutMs`. Throws a MineditError
   * `Unavailable` naming the endpoint and the cause when no connection can be made (refused, unknown
   * host, no route) or the key is refused (401/403). Anything else — an answer of any kind, even a 404
   * from a server without `/models`, or a slow one — passes: the requests themselves decide then.
   */
  async probe(timeoutMs: number): Promise<void> {
    try {
      await this.client.models.list({ timeout: timeoutMs, maxRetries: 0 });
    } catch (error) {
      const status =
        error instanceof OpenAI.APIError && typeof error.status === "number" ? error.status : null;
      const timedOut = error instanceof OpenAI.APIConnectionTimeoutError;
      if (
        (status === null && !timedOut && error instanceof OpenAI.APIConnectionError) ||
        status === 401 ||
        status === 403
      ) {
        throw new MineditError(
          ErrorCode.Unavailable,
          `cannot reach ${this.options.target.endpoint} (${failureCause(error)}): ${
            error instanceof Error ? error.message : String(error)
          }${status === null ? "" : " (check the API key: --api-key-env, $OPENAI_API_KEY)"}`,
        );
      }
    }
  }

  /**
   * Requests `count` samples of `prompt`, with `seed` (when the target sets one) as the request's seed.
   * Resolves to the outcome; rejects only when `signal` aborts, or with a MineditError `Unavailable` for
   * a fatal refusal (401, 403, 404).
   */
  async request(
    prompt: ApiPrompt,
    count: number,
    seed: number | undefined,
    signal: AbortSignal,
  ): Promise<RequestOutcome> {
    const started = performance.now();
    const { retry } = this.options;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const attemptStart = performance.now();
      // The client adds an abort listener to the signal it is given and never removes it: each attempt gets
      // its own signal, linked to the run's for the attempt only, so the run's signal does not collect one
      // listener per request (a leak, and Node's MaxListenersExceededWarning after 10).
      const attempt = new AbortController();
      const forward = () => attempt.abort(signal.reason);
      if (signal.aborted) forward();
      else signal.addEventListener("abort", forward, { once: true });
      try {
        const result = await this.once(prompt, count, seed, attempt.signal);
        this.proven = true;
        return { ok: true, ...result, latencyMs: performance.now() - attemptStart, attempts };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const status =
          error instanceof OpenAI.APIError && typeof error.status === "number" ? error.status : null;
        const message = error instanceof Error ? error.message : String(error);
        if (status !== null && FATAL_STATUSES.has(status)) {
          const hint = status === 404 ? "a wrong --base-url or --model" : "a wrong or missing API key";
          throw new MineditError(
            ErrorCode.Unavailable,
            `${this.options.target.endpoint} refused the request (${status}): ${message} (${hint})`,
          );
        }
        const cause = failureCause(error);
        const down = isEndpointDown(status, error instanceof OpenAI.APIConnectionTimeoutError);
        const allowed =
          down && !this.proven
            ? Math.min(retry.retries, retry.unprovenRetries ?? retry.retries)
            : retry.retries;
        if (!isRetryable(status) || attempts > allowed) {
          return {
            ok: false,
            error: { status, message },
            cause,
            down,
            latencyMs: performance.now() - started,
            attempts,
          };
        }
        this.options.onRetry?.(cause);
        const headers = error instanceof OpenAI.APIError ? error.headers : undefined;
        const wait = retryAfterMs(
          {
            retryAfterMs: headers?.get("retry-after-ms") ?? null,
            retryAfter: headers?.get("retry-after") ?? null,
          },
          Date.now(),
        );
        await this.sleep(retryDelayMs(attempts - 1, wait, retry, this.random), signal);
      } finally {
        signal.removeEventListener("abort", forward);
      }
    }
  }

  private async once(
    prompt: ApiPrompt,
    count: number,
    seed: number | undefined,
    signal: AbortSignal,
  ): Promise<{ choices: Choice[]; usage: Usage | null; responseId: string | null }> {
    const { target } = this.options;
    const { extra, seed: _seed, ...params } = target.params;
    const body: Record<string, unknown> = { ...extra, ...params, model: target.model };
    if (count !== 1) body.n = count;
    if (seed !== undefined) body.seed = seed;
    const requestOptions = { signal, timeout: this.options.timeoutMs };
    if (prompt.kind === "chat") {
      body.messages = prompt.messages;
      const response = await this.client.chat.completions.create(
        body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        requestOptions,
      );
      const choices = [...response.choices]
        .sort((a, b) => a.index - b.index)
        .map((choice) => {
          const message = choice.message as unknown as Record<string, unknown>;
          return {
            text: stringOrNull(message.content) ?? "",
            reasoning: stringOrNull(message.reasoning_content) ?? stringOrNull(message.reasoning),
            finishReason: stringOrNull(choice.finish_reason),
          };
        });
      return {
        choices: checkCount(choices, count),
        usage: usageOf(response.usage),
        responseId: response.id ?? null,
      };
    }
    body.prompt = prompt.text;
    const response = await this.client.completions.create(
      body as unknown as OpenAI.Completions.CompletionCreateParamsNonStreaming,
      requestOptions,
    );
    const choices = [...response.choices]
      .sort((a, b) => a.index - b.index)
      .map((choice) => ({
        text: choice.text ?? "",
        reasoning: null,
        finishReason: stringOrNull(choice.finish_reason),
      }));
    return {
      choices: checkCount(choices, count),
      usage: usageOf(response.usage),
      responseId: response.id ?? null,
    };
  }
}

/** A response with fewer choices than asked is a server fault (retried like a 5xx). */
function checkCount(choices: Choice[], count: number): Choice[] {
  if (choices.length < count) {
    throw new OpenAI.InternalServerError(
      502,
      undefined,
      `asked for ${count} samples, the response has ${choices.length}`,
      new Headers(),
    );
  }
  return choices.slice(0, count);
}
