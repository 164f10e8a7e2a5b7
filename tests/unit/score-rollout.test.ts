/**
 * scoreCompletion's reuse of the task's own programs (src/core/score-rollout.ts): a rollout whose program
 * is C or G itself takes their analysis, one that normalizes to either takes their tokens and distance.
 * Each must give exactly the score of the plain computation — parse M, tokens(M), d(M, C) counted —
 * under both distance scopes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { normalizedTokenDistance } from "../../src/core/distance.js";
import { extractProgram } from "../../src/core/extract-program.js";
import { analyzeProgram, normalizeProgram } from "../../src/core/normalize.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { computeReward, excessEditDistance } from "../../src/core/reward.js";
import {
  isKnownProgram,
  noCodeScore,
  prepareTask,
  scoreCompletion,
  scoreProgram,
} from "../../src/core/score-rollout.js";

beforeAll(async () => {
  await loadPythonGrammar();
});

const GOLD = `def total(xs):
    """Sum of the positive values."""
    total = 0
    for x in xs:
        if x > 0:
            total += x
    return total
`;
const CORRUPTED = GOLD.replace("x > 0", "x >= 0");

const COMPLETIONS = {
  "G itself": GOLD,
  "G fenced": `Here is the fix:\n\`\`\`python\n${GOLD}\`\`\`\n`,
  "C itself": CORRUPTED,
  "G reformatted (same norm)": GOLD.replace("total = 0", "total=0  # start").replace("(xs)", "( xs )"),
  "C reformatted (same norm)": CORRUPTED.replace("for x in xs:", "for x in (xs):"),
  "another repair": GOLD.replace("total += x", "total = total + x"),
  unparsable: "def total(xs:\n",
};

/** The score without any reuse: M analyzed and d(M, C) counted from the tokens. */
function plainScore(completion: string, scope: "program" | "function_body") {
  const config = parseConfig({ reward: { scope } }).reward;
  const extracted = extractProgram(completion, config.endOfTurnMarkers);
  if (extracted.kind === "no_code") throw new Error("no code");
  const corrupted = normalizeProgram(CORRUPTED, scope).tokens;
  const gold = analyzeProgram(GOLD, scope);
  let model: ReturnType<typeof analyzeProgram>;
  try {
    model = analyzeProgram(extracted.program, scope);
  } catch {
    return { verdict: "UNPARSABLE" };
  }
  const dModel = normalizedTokenDistance(model.tokens, corrupted);
  const dGold = normalizedTokenDistance(gold.tokens, corrupted);
  const components = {
    dModel,
    dGold,
    excess: excessEditDistance(dModel, dGold),
    addedCc: model.cognitiveComplexity - gold.cognitiveComplexity,
  };
  return {
    verdict: "PASSED",
    ...computeReward("PASSED", components, config),
    normalizedProgram: model.normalized,
  };
}

describe("scoreCompletion reuses C and G exactly", () => {
  for (const scope of ["program", "function_body"] as const) {
    it.each(Object.entries(COMPLETIONS))(`${scope}: %s`, (_kind, completion) => {
      const config = parseConfig({ reward: { scope } }).reward;
      const task = prepareTask(CORRUPTED, GOLD, scope);
      expect(scoreCompletion(task, completion, config)).toMatchObject(plainScore(completion, scope));
    });
  }

  it("C and G themselves are not analyzed again, and M equal to either in norm is not tokenized again", () => {
    const task = prepareTask(CORRUPTED, GOLD, "program");
    const [corrupted, gold] = task.known;
    const config = parseConfig({}).reward;
    expect(scoreCompletion(task, GOLD, config).normalizedProgram).toBe(gold.analyzed.normalized);
    // A reformatted G normalizes to norm(G): its tokens are G's very array (analyzeProgram's `known`).
    const reformatted = COMPLETIONS["G reformatted (same norm)"];
    expect(analyzeProgram(reformatted, "program", "sonar", [corrupted.analyzed, gold.analyzed]).tokens).toBe(
      gold.analyzed.tokens,
    );
    expect(analyzeProgram(reformatted, "program").tokens).not.toBe(gold.analyzed.tokens);
  });
});

describe("scoreProgram: a score depends on the extracted program only", () => {
  it("gives every completion the score of its program, so a memo may be keyed by the program", () => {
    const config = parseConfig({}).reward;
    const task = prepareTask(CORRUPTED, GOLD, "program");
    for (const completion of [...Object.values(COMPLETIONS), "no code here", "<think>hm</think>"]) {
      const extracted = extractProgram(completion, config.endOfTurnMarkers);
      const expected =
        extracted.kind === "no_code" ? noCodeScore(config) : scoreProgram(task, extracted.program, config);
      expect(scoreCompletion(task, completion, config)).toEqual(expected);
    }
    expect(noCodeScore(config)).toMatchObject({ verdict: "NO_CODE", reward: -0.2, components: null });
  });

  it("knows C and G by their exact text only", () => {
    const task = prepareTask(CORRUPTED, GOLD, "program");
    expect(isKnownProgram(task, GOLD)).toBe(true);
    expect(isKnownProgram(task, CORRUPTED)).toBe(true);
    expect(isKnownProgram(task, `${GOLD}\n`)).toBe(false);
    expect(isKnownProgram(task, COMPLETIONS["G reformatted (same norm)"])).toBe(false);
  });
});
