import { describe, expect, it } from "vitest";
import { mergeRewardOverride, parseConfig, type RewardConfig } from "../../src/config.js";
import { normalizedTokenDistance } from "../../src/core/distance.js";
import {
  computeReward,
  excessEditDistance,
  REWARD_DEFINITION_VERSION,
  type RewardComponents,
  VERDICTS,
  type Verdict,
} from "../../src/core/reward.js";
import { ErrorCode, isMineditError, type MineditError } from "../../src/errors.js";

const DEFAULTS: RewardConfig = parseConfig({}).reward;

function withVariant(variant: RewardConfig["variant"], extra: Partial<RewardConfig> = {}): RewardConfig {
  return { ...DEFAULTS, ...extra, variant };
}

function components(dModel: number, dGold: number, addedCc?: number): RewardComponents {
  const c: RewardComponents = { dModel, dGold, excess: excessEditDistance(dModel, dGold) };
  if (addedCc !== undefined) {
    c.addedCc = addedCc;
  }
  return c;
}

function rewardOf(
  verdict: Verdict,
  c: RewardComponents | null,
  config: RewardConfig = DEFAULTS,
): number | null {
  return computeReward(verdict, c, config).reward;
}

function failedPrecondition(fn: () => unknown): MineditError {
  try {
    fn();
  } catch (e) {
    expect(isMineditError(e)).toBe(true);
    expect((e as MineditError).code).toBe(ErrorCode.FailedPrecondition);
    return e as MineditError;
  }
  throw new Error("expected a FailedPrecondition error");
}

// Tokens of a tiny program and its variants, as tokens(norm(X)) would give them.
const GOLD = ["def", "f", "(", "x", ")", ":", "\n", "return", "x", "<", "1", "\n"];
const CORRUPTED = ["def", "f", "(", "x", ")", ":", "\n", "return", "x", "<=", "1", "\n"];

describe("excessEditDistance", () => {
  it("is d(M,C) - d(G,C), negative values kept", () => {
    expect(excessEditDistance(0.25, 0.25)).toBe(0);
    expect(excessEditDistance(0.5, 0.25)).toBe(0.25);
    expect(excessEditDistance(0, 0.25)).toBe(-0.25);
  });
});

describe("computeReward: the full reward with the paper's defaults", () => {
  it("scores a perfect minimal repair exactly 0.1", () => {
    const dGold = normalizedTokenDistance(GOLD, CORRUPTED);
    const dModel = normalizedTokenDistance(GOLD, CORRUPTED); // the model returned G itself
    expect(dGold).toBe(1 / 12);
    expect(rewardOf("PASSED", components(dModel, dGold))).toBe(0.1);
  });

  it("rewards a corrupted program returned unchanged above 0.1 (negative excess is kept)", () => {
    // If C itself passes the tests, d(M,C) = 0 and e = -d(G,C) < 0.
    const dGold = normalizedTokenDistance(GOLD, CORRUPTED);
    const dModel = normalizedTokenDistance(CORRUPTED, CORRUPTED);
    const c = components(dModel, dGold);
    expect(dModel).toBe(0);
    expect(c.excess).toBeLessThan(0);
    const r = rewardOf("PASSED", c) as number;
    expect(r).toBeGreaterThan(0.1);
    expect(r).toBeCloseTo(0.1 + 1 / 12, 15);
  });

  it("makes excess 0.3 equal to the failure reward and more than 0.3 worse than failing", () => {
    expect(rewardOf("PASSED", components(0.4, 0.1))).toBeCloseTo(-0.2, 12);
    expect(rewardOf("PASSED", components(0.4, 0.1))).toBeCloseTo(
      rewardOf("FAILED_TESTS", null) as number,
      12,
    );
    expect(rewardOf("PASSED", components(0.45, 0.1)) as number).toBeLessThan(DEFAULTS.failureReward);
    expect(rewardOf("PASSED", components(0.35, 0.1)) as number).toBeGreaterThan(DEFAULTS.failureReward);
  });

  it("is λexec − λedit·e for a range of excesses", () => {
    for (const [dModel, dGold] of [
      [0.1, 0.1],
      [0.2, 0.1],
      [1, 0.05],
      [0, 0.5],
      [0.75, 0.25],
    ] as const) {
      expect(rewardOf("PASSED", components(dModel, dGold))).toBeCloseTo(0.1 - (dModel - dGold), 15);
    }
  });

  it("keeps the components in the outcome", () => {
    const c = components(0.3, 0.1);
    expect(computeReward("PASSED", c, DEFAULTS)).toEqual({ reward: 0.1 - c.excess, components: c });
  });
});

describe("computeReward: failures and infrastructure errors", () => {
  const failing = VERDICTS.filter((v) => v !== "PASSED" && v !== "INFRA_ERROR" && v !== "INVALID_TASK");

  it("lists the ten verdicts", () => {
    expect(VERDICTS).toHaveLength(10);
    expect(failing).toEqual([
      "FAILED_TESTS",
      "UNPARSABLE",
      "NO_CODE",
      "TIMEOUT",
      "MEMORY_LIMIT",
      "RUNTIME_ERROR",
      "COMPILE_ERROR",
    ]);
  });

  it.each(failing)("%s earns the failure reward in every variant, with or without components", (verdict) => {
    for (const variant of ["full", "correctness_only", "edit_only", "edit_plus_cc"] as const) {
      expect(rewardOf(verdict, null, withVariant(variant))).toBe(-0.2);
      expect(rewardOf(verdict, components(0.9, 0.1), withVariant(variant))).toBe(-0.2);
    }
  });

  it("uses the configured failure reward", () => {
    expect(rewardOf("TIMEOUT", null, { ...DEFAULTS, failureReward: -1 })).toBe(-1);
  });

  it.each(["INFRA_ERROR", "INVALID_TASK"] as const)(
    "masks %s with a null reward in every variant (not a failure)",
    (verdict) => {
      for (const variant of ["full", "correctness_only", "edit_only", "edit_plus_cc"] as const) {
        expect(computeReward(verdict, null, withVariant(variant))).toEqual({
          reward: null,
          components: null,
        });
      }
      const c = components(0.2, 0.1);
      expect(computeReward(verdict, c, DEFAULTS)).toEqual({ reward: null, components: c });
    },
  );

  it("rejects an unknown verdict from untyped callers", () => {
    let thrown: unknown;
    try {
      computeReward("ACCEPTED" as Verdict, null, DEFAULTS);
    } catch (e) {
      thrown = e;
    }
    expect(isMineditError(thrown)).toBe(true);
    expect((thrown as MineditError).code).toBe(ErrorCode.InvalidArgument);
    expect((thrown as MineditError).field).toBe("verdict");
  });
});

describe("computeReward: variants", () => {
  const c = components(0.35, 0.1, 3); // e = 0.25

  it("correctness_only: pass → λexec, ignoring the edit (components optional)", () => {
    expect(rewardOf("PASSED", c, withVariant("correctness_only"))).toBe(0.1);
    expect(rewardOf("PASSED", null, withVariant("correctness_only"))).toBe(0.1);
  });

  it("edit_only: pass → −λedit·e", () => {
    expect(rewardOf("PASSED", c, withVariant("edit_only"))).toBeCloseTo(-0.25, 15);
    expect(rewardOf("PASSED", components(0, 0.2), withVariant("edit_only"))).toBeCloseTo(0.2, 15);
    // A perfect repair gives +0, not −0.
    expect(rewardOf("PASSED", components(0.2, 0.2), withVariant("edit_only"))).toBe(0);
  });

  it("edit_plus_cc: full − λcc·max(0, addedCc)", () => {
    const config = withVariant("edit_plus_cc", { lambdaCc: 0.05 });
    expect(rewardOf("PASSED", c, config)).toBeCloseTo(0.1 - 0.25 - 0.05 * 3, 15);
    // Removing complexity is not rewarded: max(0, addedCc).
    expect(rewardOf("PASSED", components(0.35, 0.1, -4), config)).toBeCloseTo(0.1 - 0.25, 15);
    expect(rewardOf("PASSED", components(0.35, 0.1, 0), config)).toBeCloseTo(0.1 - 0.25, 15);
  });

  it("edit_plus_cc with the default λcc = 0 equals full", () => {
    expect(rewardOf("PASSED", c, withVariant("edit_plus_cc"))).toBe(
      rewardOf("PASSED", c, withVariant("full")),
    );
  });

  it("edit_plus_cc without addedCc is a FailedPrecondition naming addedCc", () => {
    const err = failedPrecondition(() =>
      computeReward("PASSED", components(0.3, 0.1), withVariant("edit_plus_cc")),
    );
    expect(err.field).toBe("addedCc");
    expect(err.rawMessage).toContain("addedCc");
    failedPrecondition(() =>
      computeReward("PASSED", components(0.3, 0.1, Number.NaN), withVariant("edit_plus_cc")),
    );
  });

  it.each(["full", "edit_only", "edit_plus_cc"] as const)(
    "%s needs components for a PASSED rollout",
    (variant) => {
      const err = failedPrecondition(() => computeReward("PASSED", null, withVariant(variant)));
      expect(err.field).toBe("components");
    },
  );

  it("rejects non-finite or inconsistent components", () => {
    failedPrecondition(() => computeReward("PASSED", { dModel: Number.NaN, dGold: 0, excess: 0 }, DEFAULTS));
    failedPrecondition(() =>
      computeReward("PASSED", { dModel: 0.5, dGold: 0.1, excess: Number.POSITIVE_INFINITY }, DEFAULTS),
    );
    const err = failedPrecondition(() =>
      computeReward("PASSED", { dModel: 0.5, dGold: 0.1, excess: 0.1 }, DEFAULTS),
    );
    expect(err.field).toBe("excess");
  });
});

describe("computeReward: configuration overrides", () => {
  it("applies per-request weights through mergeRewardOverride", () => {
    const c = components(0.3, 0.1); // e = 0.2
    const config = mergeRewardOverride(DEFAULTS, { lambdaExec: 1, lambdaEdit: 2 });
    expect(rewardOf("PASSED", c, config)).toBeCloseTo(1 - 2 * 0.2, 15);
    const variantOnly = mergeRewardOverride(DEFAULTS, { variant: "correctness_only" });
    expect(rewardOf("PASSED", c, variantOnly)).toBe(0.1);
    const failure = mergeRewardOverride(DEFAULTS, { failureReward: -0.5 });
    expect(rewardOf("RUNTIME_ERROR", c, failure)).toBe(-0.5);
    expect(rewardOf("INFRA_ERROR", c, failure)).toBeNull();
  });

  it("rejects an invalid override with the field named, before any reward is computed", () => {
    expect(() => mergeRewardOverride(DEFAULTS, { lambdaEdit: "1" })).toThrow(
      /reward\.lambdaEdit: .*expected number/,
    );
  });

  it("uses server-level config from parseConfig", () => {
    const config = parseConfig({ reward: { variant: "edit_only", lambdaEdit: 0.5 } }).reward;
    expect(rewardOf("PASSED", components(0.3, 0.1), config)).toBeCloseTo(-0.1, 15);
  });
});

describe("REWARD_DEFINITION_VERSION", () => {
  it("names the normalizer, tokenizer, distance and formula", () => {
    expect(REWARD_DEFINITION_VERSION).toMatch(/^minedit-reward\/\d+;/);
    expect(REWARD_DEFINITION_VERSION).toContain("cpython-3.11:ast.unparse");
    expect(REWARD_DEFINITION_VERSION).toContain("cpython-3.11:tokenize");
    expect(REWARD_DEFINITION_VERSION).toContain("NEWLINE-kept");
    expect(REWARD_DEFINITION_VERSION).toContain("token-levenshtein/max(|X|,|Y|)");
    expect(REWARD_DEFINITION_VERSION).toContain("lexec-ledit*e");
    expect(REWARD_DEFINITION_VERSION).toContain("infra=null");
  });
});
