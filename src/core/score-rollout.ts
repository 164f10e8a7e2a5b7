/**
 * Scores rollouts of one repair task without executing them (docs/reward.md): completion → program M,
 * tokens(M), d(M, C), d(G, C), excess, added cognitive complexity CC(M) − CC(G) and reward. Execution
 * verdicts come from the sandbox (a later stage); here a program that parses counts as passing unless
 * the caller supplies a verdict.
 *
 * A task is prepared once — C and G normalized and tokenized, d(G, C) and CC(G) computed — and reused
 * for all of its rollouts, which is where most of the work of a GRPO group (16 rollouts, one task) is
 * saved. CC(M) comes from the same parse as tokens(M). A rollout whose program is C or G itself — the
 * unchanged answer, the reproduced fix — reuses their analysis outright, and one that normalizes to
 * either reuses their tokens and distance: the same text gives the same result.
 */
import type { DistanceScope, RewardConfig } from "../config.js";
import type { AnalyzedProgramCache } from "./analyzed-program-cache.js";
import { TokenBaseline } from "./distance.js";
import { extractProgram } from "./extract-program.js";
import { type AnalyzedProgram, analyzeProgram, type NormalizedProgram } from "./normalize.js";
import { PySyntaxError } from "./python/syntax-error.js";
import { TokenizeError } from "./python/tokenize.js";
import { computeReward, excessEditDistance, type RewardComponents, type Verdict } from "./reward.js";

/**
 * A repair task reduced to what the edit reward needs. `goldCc` = CC(G), SonarSource's rules (the
 * `sonar` variant of `cognitiveComplexity`), the one `added_cc` and `edit_plus_cc` use.
 */
export type PreparedTask = {
  scope: DistanceScope;
  corruptedTokens: string[];
  /** tokens(C), ready to be compared with every rollout's tokens(M). */
  corrupted: TokenBaseline;
  dGold: number;
  goldCc: number;
  /** C's and G's text and analysis (under `scope`; CC by SonarSource's rules), in that order. */
  known: readonly [KnownProgram, KnownProgram];
};

/** A program of the task: its text, and what {@link analyzeProgram} gives for it. */
export type KnownProgram = { source: string; analyzed: AnalyzedProgram };

/** Why a task could not be prepared: its corrupted or gold program is not valid Python 3.11. */
export class InvalidTaskProgram extends Error {
  override readonly name = "InvalidTaskProgram";
  constructor(
    readonly which: "corrupted" | "gold",
    readonly reason: string,
  ) {
    super(`the task's ${which} program is not valid Python 3.11: ${reason}`);
  }
}

export function prepareTask(corrupted: string, gold: string, scope: DistanceScope): PreparedTask {
  const corruptedProgram = orInvalidTask("corrupted", () => analyzeProgram(corrupted, scope));
  const goldProgram = orInvalidTask("gold", () => analyzeProgram(gold, scope));
  const baseline = new TokenBaseline(corruptedProgram.tokens);
  return {
    scope,
    corruptedTokens: corruptedProgram.tokens,
    corrupted: baseline,
    dGold:
      emptyScopeDistance(corruptedProgram, goldProgram) ?? baseline.normalizedDistance(goldProgram.tokens),
    goldCc: goldProgram.cognitiveComplexity,
    known: [
      { source: corrupted, analyzed: corruptedProgram },
      { source: gold, analyzed: goldProgram },
    ],
  };
}

function orInvalidTask<T>(which: "corrupted" | "gold", run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (isProgramError(error)) throw new InvalidTaskProgram(which, error.message);
    throw error;
  }
}

/** Errors that describe the program (it is not CPython 3.11 source), as opposed to bugs of ours. */
function isProgramError(error: unknown): error is Error {
  return error instanceof PySyntaxError || error instanceof TokenizeError;
}

export type RolloutScore = {
  verdict: Verdict;
  reward: number | null;
  components: RewardComponents | null;
  /** Human-readable reason for a non-passing verdict, empty otherwise. */
  detail: string;
  /**
   * norm(M), null when there is no program (or when the metrics pool was asked to leave it out, which a
   * caller that executes nothing does); rollouts of a task with the same norm(M) execute once.
   */
  normalizedProgram: string | null;
};

/**
 * Scores one completion against a prepared task. `executionVerdict` is the sandbox's verdict for the
 * program; without one (offline scoring, `--no-exec`) a program that parses is treated as PASSED.
 * `programs`, when given, answers programs analyzed before (the same score, without the parse).
 */
export function scoreCompletion(
  task: PreparedTask,
  completion: string,
  config: RewardConfig,
  executionVerdict: Verdict = "PASSED",
  programs?: AnalyzedProgramCache,
): RolloutScore {
  const extracted = extractProgram(completion, config.endOfTurnMarkers);
  if (extracted.kind === "no_code") return noCodeScore(config);
  return scoreProgram(task, extracted.program, config, executionVerdict, programs);
}

/** The score of a completion that contains no code (docs/reward.md#normalization-and-tokens): the same for every such completion. */
export function noCodeScore(config: RewardConfig): RolloutScore {
  return failure("NO_CODE", "the completion contains no code", config);
}

/** Whether `program` is the task's C or G, word for word: its score then costs no analysis. */
export function isKnownProgram(task: PreparedTask, program: string): boolean {
  return program === task.known[0].source || program === task.known[1].source;
}

/**
 * Scores the program extracted from a completion (docs/reward.md#normalization-and-tokens) — all a score depends on besides the task,
 * the reward config and the verdict, so a caller may key a memo of scores by the program.
 */
export function scoreProgram(
  task: PreparedTask,
  program: string,
  config: RewardConfig,
  executionVerdict: Verdict = "PASSED",
  programs?: AnalyzedProgramCache,
): RolloutScore {
  const [corrupted, gold] = task.known;
  let model: AnalyzedProgram;
  if (program === corrupted.source) model = corrupted.analyzed;
  else if (program === gold.source) model = gold.analyzed;
  else {
    try {
      const known = [corrupted.analyzed, gold.analyzed];
      model =
        programs === undefined
          ? analyzeProgram(program, task.scope, "sonar", known)
          : programs.analyzeProgram(program, task.scope, isProgramError, known);
    } catch (error) {
      if (isProgramError(error)) return failure("UNPARSABLE", error.message, config);
      throw error;
    }
  }
  // M tokenized exactly as C or G (the same array) is at distance 0 or d(G, C) from C: no need to count.
  const dModel =
    emptyScopeDistance(model, corrupted.analyzed) ??
    (model.tokens === corrupted.analyzed.tokens
      ? 0
      : model.tokens === gold.analyzed.tokens
        ? task.dGold
        : task.corrupted.normalizedDistance(model.tokens));
  const components: RewardComponents = {
    dModel,
    dGold: task.dGold,
    excess: excessEditDistance(dModel, task.dGold),
    addedCc: model.cognitiveComplexity - task.goldCc,
  };
  const outcome = computeReward(executionVerdict, components, config);
  return { verdict: executionVerdict, ...outcome, detail: "", normalizedProgram: model.normalized };
}

/**
 * 0 when either program's scope text is empty (the paper's zero metrics; normalize.ts
 * `scopedNormalizedDistance`), else null: the distance is then counted against the token baseline.
 */
function emptyScopeDistance(a: NormalizedProgram, b: NormalizedProgram): number | null {
  return a.emptyScope === true || b.emptyScope === true ? 0 : null;
}

function failure(verdict: Verdict, detail: string, config: RewardConfig): RolloutScore {
  return { verdict, ...computeReward(verdict, null, config), detail, normalizedProgram: null };
}
