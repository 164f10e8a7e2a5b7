/**
 * A run's name: what tables, legends, chart keys and `compare`'s title call it. The default names the
 * settings that tell two runs of one model apart — `model · prompt · reasoning`, e.g.
 * `qwen3-14b · explicit · high` — leaving out what is at its default (the `generic` prompt) or absent (no
 * reasoning setting), so a plain run is just its model. `--name` overrides it.
 *
 * Two runs with one name cannot be told apart in a table, and a chart keyed by name would merge them, so
 * `eval report`, `eval compare` (and anything else that puts several runs side by side) refuse them with
 * `assertDistinctRunNames`.
 *
 * Pure: no I/O.
 */
import { ErrorCode, MineditError } from "../errors.js";
import type { SamplingParams } from "../generation/sampling.js";

/** The separator between the parts of a default name. */
export const RUN_NAME_SEPARATOR = " · ";

/** The prompt style that a default name leaves out. */
const DEFAULT_PROMPT = "generic";

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * The reasoning setting of a request, as a short word, or null when the request sets none: OpenAI's
 * `reasoning_effort` (flag or extra body), OpenRouter's `reasoning: {effort | max_tokens | enabled}`, and
 * the `chat_template_kwargs.enable_thinking` switch of Qwen3-style templates served by vLLM/SGLang.
 */
export function reasoningLabel(params: SamplingParams): string | null {
  const extra = params.extra ?? {};
  const effort = params.reasoning_effort ?? extra.reasoning_effort;
  if (typeof effort === "string" && effort !== "") return effort;
  const reasoning = record(extra.reasoning);
  if (reasoning !== null) {
    if (typeof reasoning.effort === "string" && reasoning.effort !== "") return reasoning.effort;
    if (typeof reasoning.max_tokens === "number") return `reasoning ${reasoning.max_tokens} tok`;
    if (reasoning.enabled === false || reasoning.exclude === true) return "no reasoning";
    if (reasoning.enabled === true) return "reasoning";
  }
  const thinking = record(extra.chat_template_kwargs)?.enable_thinking;
  if (thinking === false) return "no thinking";
  if (thinking === true) return "thinking";
  return null;
}

/** The default name of a run generated (or re-scored) from `model` with `prompt` and `params`. */
export function defaultRunName(model: string, prompt: string, params: SamplingParams): string {
  const parts = [model];
  if (prompt !== DEFAULT_PROMPT) parts.push(prompt);
  const reasoning = reasoningLabel(params);
  if (reasoning !== null) parts.push(reasoning);
  return parts.join(RUN_NAME_SEPARATOR);
}

/** The default name of a run scored from a candidates file: the file's name, and the prompt if not default. */
export function defaultCandidatesRunName(file: string, prompt: string): string {
  const base = file.split("/").pop() || file;
  return prompt === DEFAULT_PROMPT ? base : `${base}${RUN_NAME_SEPARATOR}${prompt}`;
}

/**
 * Refuses runs that share a name (a usage error naming them and saying how to rename one). `runs` are in
 * the order given on the command line; `dir` is where each was read from.
 */
export function assertDistinctRunNames(runs: readonly { name: string; dir: string }[]): void {
  const seen = new Map<string, string>();
  for (const run of runs) {
    const earlier = seen.get(run.name);
    if (earlier !== undefined) {
      throw new MineditError(
        ErrorCode.InvalidArgument,
        `${earlier} and ${run.dir} are both named "${run.name}": their rows and chart marks could not be ` +
          "told apart. Give each run its own name: `minedit eval run ... --name NEW` when generating, or " +
          `rename an existing run by re-scoring it from its journal (no request is sent): rerun its ` +
          "`minedit eval run` command with `--score-only --name NEW --out DIR`.",
      );
    }
    seen.set(run.name, run.dir);
  }
}
