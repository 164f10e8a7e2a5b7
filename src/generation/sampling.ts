/**
 * What a generation is asked with — the endpoint, the model, the API, the sampling parameters — and the
 * content address of one sample: the journal key (journal.ts).
 *
 * key = hex SHA-256 of the compact JSON array
 *   ["minedit-eval-sample/1", endpoint, model, api, params, prompt, sampleIndex]
 * where `endpoint` is the base URL without a trailing slash, `params` the sampling parameters with their
 * keys sorted (absent ones left out, so "provider default" is its own value), `prompt` the chat messages
 * (chat API) or the prompt text (completions API), and `sampleIndex` 0…n−1. Everything that can change
 * what the model is asked is in it, and nothing else: not the API key, the timeout, the concurrency, or how
 * many samples one request asked for. So a sample is requested once however often a run is resumed, a
 * larger `--n` later asks only for the new indices, and two runs that share a journal share its samples.
 *
 * Pure: no I/O.
 */
import { createHash } from "node:crypto";
import { type Message, promptText } from "../core/prompt/message.js";

/** The two OpenAI-compatible APIs: `/chat/completions` (messages) and `/completions` (a prompt string). */
export const EVAL_APIS = ["chat", "completions"] as const;
export type EvalApi = (typeof EVAL_APIS)[number];

/**
 * Sampling parameters, as the OpenAI API names them. Absent: the provider's default (the over-editing
 * paper used provider defaults, App. A.4). `extra` is merged into the request body as given (vLLM's
 * `top_k`, `chat_template_kwargs`, OpenRouter's `reasoning`, …).
 */
export type SamplingParams = {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
  reasoning_effort?: string;
  extra?: Record<string, unknown>;
};

/** Where and what is asked: all of it is part of every sample's key. */
export type GenerationTarget = {
  /** The base URL, e.g. `http://127.0.0.1:8000/v1` (normalized by {@link normalizeEndpoint}). */
  endpoint: string;
  model: string;
  api: EvalApi;
  params: SamplingParams;
};

/** A prompt as the API takes it: chat messages, or one string for the completions API. */
export type ApiPrompt = { kind: "chat"; messages: Message[] } | { kind: "text"; text: string };

/**
 * The prompt of a task for an API: the messages themselves for chat; for the completions API their text
 * as the export's "standard" rows have it (system prompt, blank line, user message), no chat template.
 */
export function apiPrompt(messages: readonly Message[], api: EvalApi): ApiPrompt {
  return api === "chat"
    ? { kind: "chat", messages: [...messages] }
    : { kind: "text", text: promptText(messages) };
}

/** The version tag that starts every key; bump it when what a key covers changes. */
export const SAMPLE_KEY_VERSION = "minedit-eval-sample/1";

/** The base URL without trailing slashes (and without a `user:password@` part, which must not be stored). */
export function normalizeEndpoint(baseUrl: string): string {
  let text = baseUrl.trim();
  try {
    const url = new URL(text);
    url.username = "";
    url.password = "";
    text = url.toString();
  } catch {
    // Not a URL: kept as written; the client reports it when it is used.
  }
  return text.replace(/\/+$/, "");
}

/** A JSON value with object keys sorted, recursively, so equal values have one serialization. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) out[key] = canonical(item);
    }
    return out;
  }
  return value;
}

/** The journal key of sample `sampleIndex` of `prompt` (see the module doc). */
export function sampleKey(target: GenerationTarget, prompt: ApiPrompt, sampleIndex: number): string {
  const promptValue =
    prompt.kind === "chat" ? prompt.messages.map(({ role, content }) => ({ role, content })) : prompt.text;
  const content = JSON.stringify([
    SAMPLE_KEY_VERSION,
    normalizeEndpoint(target.endpoint),
    target.model,
    target.api,
    canonical(target.params),
    promptValue,
    sampleIndex,
  ]);
  return createHash("sha256").update(content, "utf8").digest("hex");
}
