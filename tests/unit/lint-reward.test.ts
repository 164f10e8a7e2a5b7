/**
 * The lint reward (src/core/lint/reward.ts) on hand-computed cases, and its ordering properties:
 * doing nothing scores λexec exactly; every passing revision that adds no alert beats a failure.
 */
import { describe, expect, test } from "vitest";
import { parseConfig } from "../../src/config.js";
import {
  computeLintReward,
  LINT_REWARD_DEFINITION_VERSION,
  lintComponents,
  netReduction,
} from "../../src/core/lint/reward.js";
import { VERDICTS } from "../../src/core/reward.js";

const DEFAULTS = parseConfig({}).reward;
const reward = (orig: number, fixed: number, added: number, d: number, config = DEFAULTS) =>
  computeLintReward("PASSED", lintComponents(orig, fixed, added, d), config).reward;

describe("lint reward defaults", () => {
  test("are λexec 0.1, λfix 1.0, λedit 0.25 with the shared failure reward −0.2", () => {
    expect(DEFAULTS.lint).toEqual({ lambdaExec: 0.1, lambdaFix: 1.0, lambdaEdit: 0.25 });
    expect(DEFAULTS.failureReward).toBe(-0.2);
  });
});

describe("computeLintReward", () => {
  test("doing nothing scores λexec exactly", () => {
    expect(reward(7, 0, 0, 0)).toBe(0.1);
    expect(reward(0, 0, 0, 0)).toBe(0.1);
  });

  test("hand-computed passing revisions", () => {
    // 4 alerts, all fixed, d = 0.2: 0.1 + 1.0·1 − 0.25·0.2 = 1.05.
    expect(reward(4, 4, 0, 0.2)).toBeCloseTo(1.05, 12);
    // 6 alerts, 3 fixed, 1 new, d = 0.1: net 2/6; 0.1 + 0.3333… − 0.025 = 0.40833….
    expect(reward(6, 3, 1, 0.1)).toBeCloseTo(0.1 + 2 / 6 - 0.025, 12);
    // No alerts in A, 2 new, d = 0.4: net −2 clipped to −1; 0.1 − 1 − 0.1 = −1.0.
    expect(reward(0, 0, 2, 0.4)).toBeCloseTo(-1.0, 12);
    // 5 alerts, 1 fixed, 3 new: net −0.4; 0.1 − 0.4 − 0.25·0.5 = −0.425 (below a failure: adds alerts).
    expect(reward(5, 1, 3, 0.5)).toBeCloseTo(-0.425, 12);
  });

  test("the components carry the unclipped net", () => {
    expect(lintComponents(1, 0, 5, 0.3)).toEqual({
      alertsOriginal: 1,
      alertsFixed: 0,
      alertsNew: 5,
      dEdit: 0.3,
      net: -5,
    });
    expect(netReduction(10, 4, 1)).toBeCloseTo(0.3, 12);
  });

  test("failures get the failure reward, INFRA_ERROR none", () => {
    for (const verdict of VERDICTS) {
      if (verdict === "PASSED") continue;
      const expected = verdict === "INFRA_ERROR" ? null : -0.2;
      expect(computeLintReward(verdict, null, DEFAULTS).reward).toBe(expected);
    }
  });

  test("every passing revision without new alerts beats breaking the tests", () => {
    const failure = computeLintReward("FAILED_TESTS", null, DEFAULTS).reward as number;
    for (const orig of [0, 1, 3, 20]) {
      for (let fixed = 0; fixed <= orig; fixed++) {
        for (const d of [0, 0.25, 0.5, 0.9, 1]) {
          expect(reward(orig, fixed, 0, d) as number).toBeGreaterThan(failure);
        }
      }
    }
  });

  test("more net fixes score higher; a larger edit scores lower", () => {
    expect(reward(10, 6, 0, 0.2) as number).toBeGreaterThan(reward(10, 5, 0, 0.2) as number);
    expect(reward(10, 6, 1, 0.2) as number).toBeLessThan(reward(10, 6, 0, 0.2) as number);
    expect(reward(10, 6, 0, 0.3) as number).toBeLessThan(reward(10, 6, 0, 0.2) as number);
  });

  test("bounded in [λexec − λfix − λedit, λexec + λfix]", () => {
    expect(reward(1, 0, 50, 1)).toBeCloseTo(0.1 - 1 - 0.25, 12);
    expect(reward(3, 3, 0, 0)).toBeCloseTo(1.1, 12);
  });

  test("configured weights", () => {
    const config = parseConfig({
      reward: { failureReward: -1, lint: { lambdaExec: 0, lambdaFix: 2, lambdaEdit: 0.5 } },
    }).reward;
    expect(reward(4, 2, 0, 0.5, config)).toBeCloseTo(0 + 2 * 0.5 - 0.25, 12);
    expect(computeLintReward("COMPILE_ERROR", null, config).reward).toBe(-1);
    expect(() => parseConfig({ reward: { lint: { lambdaEdit: -1 } } })).toThrow(/reward\.lint\.lambdaEdit/);
  });

  test("a passing rollout without components, or inconsistent components, is refused", () => {
    expect(() => computeLintReward("PASSED", null, DEFAULTS)).toThrow(/needs its alert counts/);
    expect(() => lintComponents(2, 3, 0, 0)).toThrow(/cannot exceed/);
    expect(() => lintComponents(2, 1, 0, 1.5)).toThrow(/dEdit/);
    expect(() => lintComponents(2, 1, -1, 0)).toThrow(/alertsNew/);
  });

  test("the definition version names the tokenizers and the formula", () => {
    expect(LINT_REWARD_DEFINITION_VERSION).toMatch(
      /^minedit-lint-reward\/1;tokens=python:.*cpp:minedit-cpp-lexer\/1/,
    );
    expect(LINT_REWARD_DEFINITION_VERSION).toContain("formula=pass:lexec+lfix*clip(net,-1,1)-ledit*d");
  });
});
