/**
 * The flags that sample from an OpenAI-compatible endpoint, shared by `eval run` and `export --generate`:
 * the model and URL, the sampling parameters, parallelism, timeouts and retries — one table, one parser
 * and one help text, so both commands take the same flags with the same meaning. The base URL and API key
 * may come from the environment (`OPENAI_BASE_URL`, the variable `--api-key-env` names), read here and
 * nowhere else.
 */
import { DEFAULT_RETRY_POLICY } from "../generation/backoff.js";
import type { GenerationSource } from "../generation/generate-stage.js";
import {
  EVAL_APIS,
  type EvalApi,
  type GenerationTarget,
  normalizeEndpoint,
  type SamplingParams,
} from "../generation/sampling.js";
import { integer, oneOf } from "./eval-flags.js";
import { usageError as usage } from "./failures.js";
import { numberFlag } from "./scoring-flags.js";

export const ENDPOINT_OPTIONS = {
  model: { type: "string" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
  api: { type: "string" },
  temperature: { type: "string" },
  "top-p": { type: "string" },
  "max-tokens": { type: "string" },
  "reasoning-effort": { type: "string" },
  "extra-body": { type: "string" },
  parallel: { type: "string" },
  "one-per-request": { type: "boolean" },
  "timeout-ms": { type: "string" },
  retries: { type: "string" },
} as const;

/** The values of {@link ENDPOINT_OPTIONS} as node:util parseArgs gives them. */
export type EndpointValues = {
  [K in keyof typeof ENDPOINT_OPTIONS]?: (typeof ENDPOINT_OPTIONS)[K]["type"] extends "boolean"
    ? boolean
    : string;
};

/** The flags that set sampling parameters (part of every sample's journal key), besides the seed's. */
export const SAMPLING_FLAGS = [
  "temperature",
  "top-p",
  "max-tokens",
  "reasoning-effort",
  "extra-body",
] as const;

/**
 * The sampling seed's flag and value: each command names its own (`eval run --seed`; `export
 * --sampling-seed`, since export's --seed places problems in splits).
 */
export type SeedFlag = { flag: string; text: string | undefined };

/** The sampling parameters of the flags; absent flags are the provider's defaults. */
export function samplingParams(values: EndpointValues, seed: SeedFlag): SamplingParams {
  const params: SamplingParams = {};
  if (values.temperature !== undefined) params.temperature = numberFlag("--temperature", values.temperature);
  if (values["top-p"] !== undefined) params.top_p = numberFlag("--top-p", values["top-p"]);
  if (values["max-tokens"] !== undefined)
    params.max_tokens = integer("--max-tokens", values["max-tokens"], 1, 1);
  if (seed.text !== undefined) params.seed = integer(seed.flag, seed.text, 0, Number.MIN_SAFE_INTEGER);
  if (values["reasoning-effort"] !== undefined) params.reasoning_effort = values["reasoning-effort"];
  if (values["extra-body"] !== undefined) {
    let extra: unknown;
    try {
      extra = JSON.parse(values["extra-body"]);
    } catch (error) {
      throw usage(`--extra-body: invalid JSON: ${(error as Error).message}`);
    }
    if (extra === null || typeof extra !== "object" || Array.isArray(extra))
      throw usage("--extra-body: expected a JSON object");
    params.extra = extra as Record<string, unknown>;
  }
  return params;
}

/**
 * The endpoint, model, API and sampling parameters: what a sample's journal key hashes.
 *
 * @param alternative what else the command accepts instead of --model (for the error message).
 */
export function generationTarget(
  values: EndpointValues,
  env: NodeJS.ProcessEnv,
  alternative: string,
  seed: SeedFlag,
): GenerationTarget {
  if (values.model === undefined) throw usage(`missing --model NAME${alternative}`);
  const baseUrl = values["base-url"] ?? env.OPENAI_BASE_URL;
  if (baseUrl === undefined || baseUrl === "") throw usage("missing --base-url URL (or $OPENAI_BASE_URL)");
  try {
    new URL(baseUrl);
  } catch {
    throw usage(`--base-url: not a URL: ${JSON.stringify(baseUrl)}`);
  }
  const api: EvalApi = oneOf("--api", values.api ?? "chat", EVAL_APIS);
  return {
    endpoint: normalizeEndpoint(baseUrl),
    model: values.model,
    api,
    params: samplingParams(values, seed),
  };
}

/** Everything a generation stage needs: the target, the key, timeouts, retries and parallelism. */
export function generationSource(
  target: GenerationTarget,
  values: EndpointValues,
  env: NodeJS.ProcessEnv,
): GenerationSource {
  const keyVariable = values["api-key-env"] ?? "OPENAI_API_KEY";
  return {
    target,
    apiKey: env[keyVariable] ?? "EMPTY",
    timeoutMs: integer("--timeout-ms", values["timeout-ms"], 600_000, 1),
    retry: {
      ...DEFAULT_RETRY_POLICY,
      retries: integer("--retries", values.retries, DEFAULT_RETRY_POLICY.retries, 0),
    },
    parallel: integer("--parallel", values.parallel, 8, 1),
    onePerRequest: values["one-per-request"] === true,
  };
}

/**
 * The help lines of the endpoint flags. `samplesFlag` is the command's flag for samples per task, `seedFlag`
 * its flag for the sampling seed (export's --seed is the split seed).
 */
export function endpointHelp(samplesFlag: string, seedFlag: string): string {
  const d = DEFAULT_RETRY_POLICY;
  return `  --model NAME            model name the endpoint serves (required to generate)
  --base-url URL          e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL)
  --api-key-env NAME      environment variable holding the API key (default: OPENAI_API_KEY; unset: "EMPTY",
                          what local servers accept)
  --api chat|completions  chat messages, or the prompt text without a chat template (default: chat)
  --temperature X, --top-p X, --max-tokens N, ${seedFlag} N, --reasoning-effort low|medium|high
                          sampling parameters (absent: the provider's defaults). Each request's seed is
                          ${seedFlag} + the index of its first sample.
  --extra-body JSON       more request fields, e.g. '{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}}'
  --parallel N            requests in flight (default: 8)
  --one-per-request       one request per sample instead of one per task with the API's n (${samplesFlag})
  --timeout-ms N          per attempt (default: 600000)
  --retries N             retries of a request on 408/409/429/5xx, timeouts and connection errors, with capped
                          exponential backoff (${d.baseMs} ms doubling to ${d.maxMs / 1000} s, full jitter), never
                          sooner than Retry-After (default: ${d.retries})
  Reasoning: reasoning_content / reasoning is kept in the journal; the program is taken from the answer
  (after the last </think> when the text has one). finish_reason "length" is recorded as truncated.
`;
}
