/**
 * The lint reward (docs/lint.md; issue 6 item 5): a revision A′ of a working file A is worth something only
 * if it still passes A's tests; then it earns more the more of A's alerts it removes net of the alerts
 * it introduces, and less the more tokens it changes.
 *
 *   failure (tests fail, compile error, timeout, crash, no code, unparsable Python)  →  failureReward
 *   PASSED  →  λexec + λfix · clip(net, −1, 1) − λedit · d(A, A′)
 *              net = (Fixed − New) / max(1, |Orig|)
 *   INFRA_ERROR (the sandbox or an analyzer broke)                                   →  null (mask)
 *
 * Fixed, New and |Orig| are LintEval's per-instance counts (src/core/lint/alert.ts `diffAlerts`: multisets of
 * (rule id, sanitized message), never lines); d is the normalized token Levenshtein distance (distance.ts)
 * over the language's tokens (tokens/source-tokens.ts).
 *
 * Properties (defaults λexec 0.1, λfix 1.0, λedit 0.25, failure −0.2), tested in lint-reward.test.ts:
 * - Doing nothing (A′ = A) scores exactly λexec: no alert fixed, none new, d = 0.
 * - Every passing revision that introduces no alert scores at least λexec − λedit = −0.15, above a
 *   failure: preserving functionality always beats breaking it. (This holds whenever λexec − λedit >
 *   failureReward; a revision that adds more alerts than it fixes can fall below a failure, as in the
 *   repair reward a passing over-edit can.)
 * - Bounded: r ∈ [λexec − λfix − λedit, λexec + λfix] = [−1.15, 1.1]. The net term is clipped to
 *   [−1, 1] (|Orig| = 1 and five new alerts would otherwise be −5), but the total is not clipped: a
 *   clip at 1 would flatten the edit term exactly where it matters, among revisions that fix everything.
 * - The normalization by |Orig| is LintEval's Reduction@P per instance, so files with many alerts do not
 *   dominate a batch; max(1, ·) keeps a file without alerts finite (there, only new alerts and edits
 *   count).
 */
import type { LintRewardConfig } from "../../config.js";
import { ErrorCode, MineditError } from "../../errors.js";
import type { Verdict } from "../reward.js";
import { SOURCE_TOKENIZERS } from "../tokens/source-tokens.js";

/**
 * Names everything that determines a lint reward given the configuration (tokenizers, distance, alert
 * matching, formula). The analyzers' versions and rule configuration also determine it; the lint scorer
 * appends them (src/scoring/score-lint.ts `lintRewardVersion`).
 */
export const LINT_REWARD_DEFINITION_VERSION =
  "minedit-lint-reward/1" +
  `;tokens=python:${SOURCE_TOKENIZERS.python},cpp:${SOURCE_TOKENIZERS.cpp},java:${SOURCE_TOKENIZERS.java}` +
  ";distance=token-levenshtein/max(|A|,|A'|),0-if-both-empty" +
  ";alerts=multiset(rule-id,sanitized-message)" +
  ";net=(fixed-new)/max(1,|orig|)" +
  ";formula=pass:lexec+lfix*clip(net,-1,1)-ledit*d,fail=failureReward,infra=null";

/** The counts and distance behind a lint reward. */
export type LintComponents = {
  /** |Orig|: alerts of the original file A. */
  alertsOriginal: number;
  /** Original alerts absent from A′ (multiset difference). */
  alertsFixed: number;
  /** Alerts of A′ absent from A. */
  alertsNew: number;
  /** d(A, A′) ∈ [0, 1]: normalized token Levenshtein distance. */
  dEdit: number;
  /** (Fixed − New) / max(1, |Orig|), unclipped (the formula clips it to [−1, 1]). */
  net: number;
};

/** `(fixed − new) / max(1, original)`: the per-instance net reduction. */
export function netReduction(alertsOriginal: number, alertsFixed: number, alertsNew: number): number {
  return (alertsFixed - alertsNew) / Math.max(1, alertsOriginal);
}

/** Builds the components from the counts and the distance, checking they are consistent. */
export function lintComponents(
  alertsOriginal: number,
  alertsFixed: number,
  alertsNew: number,
  dEdit: number,
): LintComponents {
  for (const [name, value] of [
    ["alertsOriginal", alertsOriginal],
    ["alertsFixed", alertsFixed],
    ["alertsNew", alertsNew],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new MineditError(ErrorCode.FailedPrecondition, `${name} must be a count, got ${value}`, {
        field: name,
      });
    }
  }
  if (alertsFixed > alertsOriginal) {
    throw new MineditError(
      ErrorCode.FailedPrecondition,
      `alertsFixed (${alertsFixed}) cannot exceed alertsOriginal (${alertsOriginal})`,
      { field: "alertsFixed" },
    );
  }
  if (!(dEdit >= 0 && dEdit <= 1)) {
    throw new MineditError(ErrorCode.FailedPrecondition, `dEdit must be in [0, 1], got ${dEdit}`, {
      field: "dEdit",
    });
  }
  return {
    alertsOriginal,
    alertsFixed,
    alertsNew,
    dEdit,
    net: netReduction(alertsOriginal, alertsFixed, alertsNew),
  };
}

/** A lint reward (`null` when the sample must be masked) and the components it came from. */
export type LintRewardOutcome = { reward: number | null; components: LintComponents | null };

/**
 * The lint reward of one rollout (see the module doc). `components` are required for PASSED and
 * returned as given for every verdict (failures usually have none: the revision is not analyzed).
 *
 * @throws MineditError `FailedPrecondition` when a PASSED rollout has no components.
 */
export function computeLintReward(
  verdict: Verdict,
  components: LintComponents | null,
  config: { failureReward: number; lint: LintRewardConfig },
): LintRewardOutcome {
  if (verdict === "INFRA_ERROR") return { reward: null, components };
  if (verdict !== "PASSED") return { reward: config.failureReward, components };
  if (components === null) {
    throw new MineditError(
      ErrorCode.FailedPrecondition,
      "a passing lint rollout needs its alert counts and edit distance",
      { field: "components" },
    );
  }
  const { lambdaExec, lambdaFix, lambdaEdit } = config.lint;
  const net = Math.min(1, Math.max(-1, components.net));
  // `+ 0` turns −0 into 0, so serialized and compared rewards are plain zeros.
  return { reward: lambdaExec + lambdaFix * net - lambdaEdit * components.dEdit + 0, components };
}
