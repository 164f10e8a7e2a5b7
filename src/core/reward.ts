/**
 * The edit-minimality reward (docs/reward.md#the-formula; over-editing paper §4.1): a passing repair earns λexec minus
 * λedit times its excess edit distance, every failure earns a fixed failure reward, and an
 * infrastructure fault earns no reward at all so the trainer can mask the sample.
 */
import type { RewardConfig } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";

/**
 * Outcome of running one rollout. Everything except `PASSED`, `INFRA_ERROR` and `INVALID_TASK` is the
 * candidate's failure; `INFRA_ERROR` means the sandbox itself broke and `INVALID_TASK` that the task's
 * own gold program fails its tests, which say nothing about the candidate.
 */
export type Verdict =
  | "PASSED"
  | "FAILED_TESTS"
  | "UNPARSABLE"
  | "NO_CODE"
  | "TIMEOUT"
  | "MEMORY_LIMIT"
  | "RUNTIME_ERROR"
  /** The C++ or Java program did not compile (src/runners/compiled.ts). */
  | "COMPILE_ERROR"
  | "INFRA_ERROR"
  /** An inline task whose gold program fails its own tests (src/scoring/inline-gold-check.ts). */
  | "INVALID_TASK";

/** Every verdict, in declaration order (for validation and exhaustive tests). */
export const VERDICTS: readonly Verdict[] = [
  "PASSED",
  "FAILED_TESTS",
  "UNPARSABLE",
  "NO_CODE",
  "TIMEOUT",
  "MEMORY_LIMIT",
  "RUNTIME_ERROR",
  "COMPILE_ERROR",
  "INFRA_ERROR",
  "INVALID_TASK",
];

/**
 * Names everything that determines a reward given the configuration: the normalizer, the tokenizer, the
 * distance, the cognitive complexity (used by `edit_plus_cc`) and the formula. Every result carries it,
 * so rewards logged months apart are comparable; any change to one of those parts must change this
 * string. The weights, variant and scope are configuration and are reported separately.
 */
export const REWARD_DEFINITION_VERSION =
  "minedit-reward/2" +
  ";extract=end-of-turn-markers-stripped,after-last-</think>,last-backtick-fence-or-whole-text" +
  ";norm=cpython-3.11:ast.unparse(ast.parse(X))" +
  ";tokens=cpython-3.11:tokenize.generate_tokens(norm(X)),NEWLINE-kept,COMMENT/NL/ENCODING/ENDMARKER/INDENT/DEDENT-dropped,fstring=1-STRING" +
  ";distance=token-levenshtein/max(|X|,|Y|),0-if-both-empty" +
  ";excess=d(M,C)-d(G,C),negative-kept" +
  ";cc=sonar-python-cognitive-complexity(whole-program,source-as-written),addedCc=CC(M)-CC(G)" +
  ";formula=pass:full=lexec-ledit*e|correctness_only=lexec|edit_only=-ledit*e|edit_plus_cc=full-lcc*max(0,addedCc)" +
  ",fail=failureReward,infra=null";

/**
 * The distances behind a reward, all normalized token distances in [0, 1] except `excess` (in [−1, 1]).
 * `dModel` = d(M, C), `dGold` = d(G, C), `excess` = dModel − dGold; `addedCc` = CC(M) − CC(G), present
 * when it was computed (required by the `edit_plus_cc` variant).
 */
export type RewardComponents = { dModel: number; dGold: number; excess: number; addedCc?: number };

/** A reward (or `null` when the sample must be masked) together with the components it came from. */
export type RewardOutcome = { reward: number | null; components: RewardComponents | null };

/**
 * Excess edit distance e(M) = d(M, C) − d(G, C) (docs/reward.md#distance-and-scope). Positive: the model changed more than the
 * known minimal repair. Negative values (the model changed less than the gold patch, e.g. returned the
 * corrupted program unchanged and still passed) are possible and kept, as in the paper.
 */
export function excessEditDistance(dModel: number, dGold: number): number {
  return dModel - dGold;
}

function precondition(message: string, field: string): MineditError {
  return new MineditError(ErrorCode.FailedPrecondition, message, { field });
}

/** Checks that the distances the edit terms rely on are present, finite and mutually consistent. */
function requireDistances(components: RewardComponents | null, variant: string): RewardComponents {
  if (components === null) {
    throw precondition(
      `reward variant "${variant}" needs the edit distances of a passing rollout`,
      "components",
    );
  }
  for (const key of ["dModel", "dGold", "excess"] as const) {
    if (!Number.isFinite(components[key])) {
      throw precondition(`reward component ${key} must be a finite number, got ${components[key]}`, key);
    }
  }
  // `excess` is carried for reporting; the formula must agree with it, so refuse inconsistent inputs
  // rather than silently preferring one of the two.
  const expected = excessEditDistance(components.dModel, components.dGold);
  if (Math.abs(components.excess - expected) > 1e-12) {
    throw precondition(
      `reward component excess (${components.excess}) must equal dModel - dGold (${expected})`,
      "excess",
    );
  }
  return components;
}

/** The PASSED reward under the configured variant. */
function passingReward(components: RewardComponents | null, config: RewardConfig): number {
  switch (config.variant) {
    case "correctness_only":
      return config.lambdaExec;
    case "edit_only":
      return -config.lambdaEdit * requireDistances(components, config.variant).excess;
    case "full":
      return config.lambdaExec - config.lambdaEdit * requireDistances(components, config.variant).excess;
    case "edit_plus_cc": {
      const c = requireDistances(components, config.variant);
      if (c.addedCc === undefined || !Number.isFinite(c.addedCc)) {
        throw precondition('reward variant "edit_plus_cc" needs a finite addedCc component', "addedCc");
      }
      // Only complexity the model ADDED is penalized; a simpler-than-gold repair is not rewarded for it.
      return config.lambdaExec - config.lambdaEdit * c.excess - config.lambdaCc * Math.max(0, c.addedCc);
    }
    default: {
      const unreachable: never = config.variant;
      throw new MineditError(ErrorCode.Internal, `unknown reward variant ${String(unreachable)}`);
    }
  }
}

/**
 * Computes the reward of one rollout (docs/reward.md#the-formula).
 *
 * - `INFRA_ERROR`, `INVALID_TASK` → `reward: null`: the sandbox or the task broke, not the candidate;
 *   the trainer masks the sample.
 * - any other non-passing verdict → `config.failureReward` (−0.2 by default), whatever the variant.
 * - `PASSED` → by `config.variant`, with e = `components.excess`:
 *   `full` λexec − λedit·e; `correctness_only` λexec; `edit_only` −λedit·e;
 *   `edit_plus_cc` λexec − λedit·e − λcc·max(0, addedCc).
 *
 * With the defaults a perfect minimal repair (e = 0) scores exactly 0.1, and a passing repair whose
 * excess exceeds 0.3 scores below a failure — intended by the paper. `components` are returned as given
 * (for logging), including for failures.
 *
 * @throws MineditError `FailedPrecondition` when a PASSED rollout lacks a component its variant needs
 *   (distances for every variant but `correctness_only`; `addedCc` for `edit_plus_cc`) or when the
 *   components are non-finite or inconsistent.
 */
export function computeReward(
  verdict: Verdict,
  components: RewardComponents | null,
  config: RewardConfig,
): RewardOutcome {
  switch (verdict) {
    case "INFRA_ERROR":
    case "INVALID_TASK":
      return { reward: null, components };
    case "FAILED_TESTS":
    case "UNPARSABLE":
    case "NO_CODE":
    case "TIMEOUT":
    case "MEMORY_LIMIT":
    case "RUNTIME_ERROR":
    case "COMPILE_ERROR":
      return { reward: config.failureReward, components };
    case "PASSED":
      // `+ 0` turns −0 (edit_only with e = 0) into 0, so serialized and compared rewards are plain zeros.
      return { reward: passingReward(components, config) + 0, components };
    default: {
      const unreachable: never = verdict;
      throw new MineditError(ErrorCode.InvalidArgument, `unknown verdict ${String(unreachable)}`, {
        field: "verdict",
      });
    }
  }
}
