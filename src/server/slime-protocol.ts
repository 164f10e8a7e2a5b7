/**
 * slime's built-in remote reward model (`--rm-type remote_rm --rm-url URL`), without I/O: the request
 * slime sends and the answer it uses. Read from THUDM/slime v0.3.1 (a6272da0, unchanged at HEAD 624b824a),
 * `slime/rollout/rm_hub/__init__.py` `remote_rm`: one `POST` per sample to the URL as given, JSON body
 * `{"prompt", "response", "label"}` (`label` is the dataset's `--label-key` column as it is, `null`
 * without the flag), no headers of its own; `ClientTimeout(total=120)` per attempt, 10 attempts with
 * back-off on ANY failure (a 4xx too), then the rollout fails; the answer's JSON becomes
 * `sample.reward` unchanged — a number, or with `--reward-key K` an object holding the reward under K.
 *
 * So the answer is `200` with a bare number (the reward), or with `?format=object` an object: `score`
 * (the reward), `verdict`, `passed`, `infra_error`, `invalid_task` (1/0), for `--reward-key score` and
 * `--log-reward-category verdict`. An INFRA_ERROR or INVALID_TASK sample cannot be masked over HTTP (slime's
 * `remove_sample` is set by a Python reward function: minedit_client.slime), so it gets the infra reward
 * (−0.2 by default): never more than a failed repair. openrlhf-http.ts serves it next to OpenRLHF's path.
 */
import { z } from "zod";
import type { RolloutOutput } from "../scoring/rollout.js";
import { invalid, parseLabel, rewardResponse, type Sample } from "./openrlhf-protocol.js";

/** The path of the slime endpoint: `--rm-url http://HOST:PORT/slime/reward`. */
export const SLIME_PATH = "/slime/reward";

/** slime waits 120 s per attempt (`ClientTimeout(total=120)`): answer well before, whatever happens. */
export const SLIME_BUDGET_CEILING_MS = 100_000;

/** A slime request's budget: the server's (`server.openrlhfRequestBudgetMs`), capped below slime's
 *  timeout; slime always gets one, since a refused attempt only restarts its 120 s wait. */
export function slimeBudgetMs(serverBudgetMs: number): number {
  return serverBudgetMs === 0 ? SLIME_BUDGET_CEILING_MS : Math.min(serverBudgetMs, SLIME_BUDGET_CEILING_MS);
}

const RequestSchema = z.object({
  // The chat-templated prompt (a string), or the input column as it is (a string or a message list).
  prompt: z.unknown().optional(),
  response: z.string({ error: "required: the generated text (a string)" }),
  label: z.unknown(),
});

const NO_LABEL =
  "no task: slime sends `label: null` without --label-key; pass --label-key label (the task id column of " +
  "`minedit export --kind grpo --format openrlhf`), or put an inline task in that column";

/** Validates a parsed slime request: the response is the completion, the label names the task. */
export function parseSlimeRequest(body: unknown): Sample {
  const parsed = RequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join(".") : "(body)";
    throw invalid(field, issue?.message ?? "invalid request");
  }
  const { response, label } = parsed.data;
  if (label === null || label === undefined) throw invalid("label", NO_LABEL);
  if (typeof label === "string" && label.trim() === "") throw invalid("label", NO_LABEL);
  return { completion: response, split: "exact", ...parseLabel(label, "label") };
}

/** What slime reads back: the reward, or the object `?format=object` asks for. */
export function slimeResponse(
  sample: Sample,
  output: RolloutOutput,
  infraErrorReward: number,
  asObject: boolean,
): number | Record<string, number | string> {
  const reward = rewardResponse([sample], [output], infraErrorReward).rewards[0] as number;
  if (!asObject) return reward;
  return {
    score: reward,
    verdict: output.verdict,
    passed: output.verdict === "PASSED" ? 1 : 0,
    infra_error: output.verdict === "INFRA_ERROR" ? 1 : 0,
    invalid_task: output.verdict === "INVALID_TASK" ? 1 : 0,
  };
}
