/**
 * Scoring rollouts of lint tasks (docs/lint.md; the reward is src/core/lint/reward.ts): completion → revision
 * A′ (the last fenced block, any language), tokens and d(A, A′), the language's tests in the sandbox, and
 * — only for a revision that passes — the language's analyzer on A and A′, whose multiset difference
 * gives Fixed and New.
 *
 * - Python revisions must parse as Python 3.11 (else `UNPARSABLE`, not run); C++ and Java revisions are
 *   not checked before compiling (a compile error is the runner's `COMPILE_ERROR`).
 * - Alerts of A come from the server's analyzer, not from the task row: A and A′ are compared under one
 *   tool version and rule configuration, whatever built the row.
 * - An analyzer that cannot run (crash, timeout, version off its pin) is the infrastructure's fault:
 *   `INFRA_ERROR`, no reward.
 * - A {@link LintBatch} analyzes each distinct (language, source) once per batch (A is shared by all
 *   rollouts of a task); the {@link Linter} also caches across batches by content hash.
 */
import { createHash } from "node:crypto";
import { lintConfigText, PINNED_ANALYZER_VERSIONS } from "../analyzers/analyzer.js";
import { CLANG_TIDY_COMPILE_FLAGS, CLANG_TIDY_CONFIG } from "../analyzers/clang-tidy.js";
import type { Linter } from "../analyzers/linter.js";
import { PMD_RULESET } from "../analyzers/pmd.js";
import { PYLINT_CONFIG } from "../analyzers/pylint.js";
import type { LintRewardConfig } from "../config.js";
import { normalizedTokenDistance } from "../core/distance.js";
import { extractProgram } from "../core/extract-program.js";
import { type Alert, diffAlerts } from "../core/lint/alert.js";
import {
  computeLintReward,
  LINT_REWARD_DEFINITION_VERSION,
  type LintComponents,
  lintComponents,
} from "../core/lint/reward.js";
import { type LintLanguage, TOOL_OF_LANGUAGE } from "../core/lint/tools.js";
import { PySyntaxError } from "../core/python/syntax-error.js";
import { TokenizeError } from "../core/python/tokenize.js";
import type { Verdict } from "../core/reward.js";
import { sourceTokens } from "../core/tokens/source-tokens.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { runCppTests } from "../runners/cpp.js";
import { runJavaTests } from "../runners/java.js";
import { type PythonTests, runPythonTests, type TestOutcome } from "../runners/python.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";

/** What scoring needs of a lint task (a stored row or an inline task). */
export type LintTaskSpec = { language: LintLanguage; original: string; tests: PythonTests };

/** A lint task with A tokenized once for all of its rollouts. */
export type PreparedLintTask = LintTaskSpec & { originalTokens: string[] };

/** The task's original file is not valid source for its language (Python only: C++/Java always tokenize). */
export class InvalidLintOriginal extends Error {
  override readonly name = "InvalidLintOriginal";
}

export function prepareLintTask(spec: LintTaskSpec): PreparedLintTask {
  if (spec.language !== "python" && spec.tests.style !== "stdio") {
    throw new InvalidLintOriginal(`${spec.language} lint tasks need stdio tests`);
  }
  try {
    return { ...spec, originalTokens: sourceTokens(spec.language, spec.original) };
  } catch (error) {
    if (isPythonSourceError(error)) {
      throw new InvalidLintOriginal(`the original file is not valid Python 3.11: ${error.message}`);
    }
    throw error;
  }
}

function isPythonSourceError(error: unknown): error is Error {
  return error instanceof PySyntaxError || error instanceof TokenizeError;
}

/** The revision of one completion, before execution. */
export type LintRevision =
  | { kind: "failed"; verdict: "NO_CODE" | "UNPARSABLE"; detail: string }
  | { kind: "program"; program: string; dEdit: number };

/** Extracts and tokenizes the revision (docs/reward.md#from-completion-to-program-m extraction: the last fenced block, whatever its language). */
export function lintRevision(
  task: PreparedLintTask,
  completion: string,
  endOfTurnMarkers: readonly string[],
): LintRevision {
  const extracted = extractProgram(completion, endOfTurnMarkers);
  if (extracted.kind === "no_code") {
    return { kind: "failed", verdict: "NO_CODE", detail: "the completion contains no code" };
  }
  let tokens: string[];
  try {
    tokens = sourceTokens(task.language, extracted.program);
  } catch (error) {
    if (isPythonSourceError(error)) return { kind: "failed", verdict: "UNPARSABLE", detail: error.message };
    throw error;
  }
  return {
    kind: "program",
    program: extracted.program,
    dEdit: normalizedTokenDistance(task.originalTokens, tokens),
  };
}

/** Rule-configuration files of each language's analyzer (what the reward version digests). */
const CONFIG_FILES: Readonly<Record<LintLanguage, readonly string[]>> = {
  python: [PYLINT_CONFIG],
  cpp: [CLANG_TIDY_CONFIG, CLANG_TIDY_COMPILE_FLAGS],
  java: [PMD_RULESET],
};

const versions = new Map<LintLanguage, string>();

/**
 * The reward version of a lint rollout: {@link LINT_REWARD_DEFINITION_VERSION} plus the language's
 * analyzer, its pinned version and a digest of its rule configuration — alerts, and so rewards, change
 * with any of them.
 */
export function lintRewardVersion(language: LintLanguage): string {
  let version = versions.get(language);
  if (version === undefined) {
    const tool = TOOL_OF_LANGUAGE[language];
    const hash = createHash("sha256");
    for (const name of CONFIG_FILES[language]) hash.update(`${name}\u0000${lintConfigText(name)}\u0000`);
    version =
      `${LINT_REWARD_DEFINITION_VERSION};analyzer=${tool}-${PINNED_ANALYZER_VERSIONS[tool]}` +
      `;rules=sha256:${hash.digest("hex").slice(0, 16)}`;
    versions.set(language, version);
  }
  return version;
}

/** Runs `work` when a sandbox slot is free (the scorer's bounded concurrency). */
export type SlotRunner = <T>(signal: AbortSignal, work: () => Promise<T>) => Promise<T>;

export type LintScoringOptions = {
  /** Runs the tests; null: tests are not run and every revision that parses counts as passing. */
  sandbox: Sandbox | null;
  /** The analyzers (created on first use by the caller). */
  linter: () => Promise<Linter>;
  limits: ExecutionLimits;
  slots: SlotRunner;
};

/** The outcome of one lint revision. */
export type LintScore = {
  verdict: Verdict;
  reward: number | null;
  lintComponents: LintComponents | null;
  testsPassed: number;
  testsTotal: number;
  detail: string;
  /** Tests and analysis, wall-clock. */
  executionMs: number;
};

/** The lint work of one scoring call: analyses shared by its rollouts. */
export class LintBatch {
  private readonly analyses = new Map<string, Promise<Alert[]>>();

  constructor(
    private readonly options: LintScoringOptions,
    private readonly signal: AbortSignal,
  ) {}

  /** Alerts of `source`, analyzed once per batch. */
  analyze(language: LintLanguage, source: string): Promise<Alert[]> {
    const key = `${language}\u0000${source}`;
    let pending = this.analyses.get(key);
    if (pending === undefined) {
      pending = this.options.slots(this.signal, async () => {
        const linter = await this.options.linter();
        const [alerts] = await linter.analyze(language, [source], this.signal);
        return alerts ?? [];
      });
      this.analyses.set(key, pending);
    }
    return pending;
  }

  private runTests(task: PreparedLintTask, program: string): Promise<TestOutcome> {
    const sandbox = this.options.sandbox as Sandbox;
    const { limits } = this.options;
    return this.options.slots(this.signal, () => {
      if (this.signal.aborted) {
        throw new MineditError(ErrorCode.Cancelled, "the call was cancelled before the tests ran");
      }
      switch (task.language) {
        case "python":
          return runPythonTests(sandbox, program, task.tests, limits, this.signal);
        case "cpp":
          return runCppTests(sandbox, program, stdio(task.tests), limits, this.signal);
        case "java":
          return runJavaTests(sandbox, program, stdio(task.tests), limits, this.signal);
      }
    });
  }

  /**
   * Scores a revision that was extracted (and, for Python, parsed): tests first; a passing revision is
   * then analyzed together with A. Never rejects for what the revision does; sandbox and analyzer
   * failures are `INFRA_ERROR` with the reason in `detail`.
   */
  async score(
    task: PreparedLintTask,
    revision: Extract<LintRevision, { kind: "program" }>,
    config: { failureReward: number; lint: LintRewardConfig },
  ): Promise<LintScore> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    // A is analyzed while the tests run (it is needed by every passing rollout of the task).
    const original = this.analyze(task.language, task.original);
    original.catch(() => {}); // awaited below only when the tests pass
    let outcome: TestOutcome | null = null;
    try {
      if (this.options.sandbox !== null) outcome = await this.runTests(task, revision.program);
    } catch (error) {
      return infra(isMineditError(error) ? error.message : "the sandbox failed", elapsed());
    }
    const tests = { testsPassed: outcome?.testsPassed ?? 0, testsTotal: outcome?.testsTotal ?? 0 };
    const verdict: Verdict = outcome?.verdict ?? "PASSED";
    if (verdict !== "PASSED") {
      const { reward } = computeLintReward(verdict, null, config);
      return {
        verdict,
        reward,
        lintComponents: null,
        ...tests,
        detail: outcome?.detail ?? "",
        executionMs: elapsed(),
      };
    }
    let before: Alert[];
    let after: Alert[];
    try {
      [before, after] = await Promise.all([original, this.analyze(task.language, revision.program)]);
    } catch (error) {
      const reason = isMineditError(error) ? error.message : String(error);
      return { ...infra(`analyzer failed: ${reason}`, elapsed()), ...tests };
    }
    const diff = diffAlerts(before, after);
    const components = lintComponents(
      before.length,
      diff.fixed.length,
      diff.introduced.length,
      revision.dEdit,
    );
    const { reward } = computeLintReward("PASSED", components, config);
    return { verdict, reward, lintComponents: components, ...tests, detail: "", executionMs: elapsed() };
  }
}

function stdio(tests: PythonTests): Extract<PythonTests, { style: "stdio" }> {
  if (tests.style !== "stdio") {
    throw new MineditError(
      ErrorCode.Internal,
      "compiled-language lint tasks have stdio tests (checked at load)",
    );
  }
  return tests;
}

function infra(detail: string, executionMs: number): LintScore {
  return {
    verdict: "INFRA_ERROR",
    reward: null,
    lintComponents: null,
    testsPassed: 0,
    testsTotal: 0,
    detail,
    executionMs,
  };
}

/** A failing revision that never ran (NO_CODE, UNPARSABLE). */
export function unrunLintScore(
  revision: Extract<LintRevision, { kind: "failed" }>,
  config: { failureReward: number; lint: LintRewardConfig },
): LintScore {
  const { reward } = computeLintReward(revision.verdict, null, config);
  return {
    verdict: revision.verdict,
    reward,
    lintComponents: null,
    testsPassed: 0,
    testsTotal: 0,
    detail: revision.detail,
    executionMs: 0,
  };
}
