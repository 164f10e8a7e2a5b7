/**
 * Which candidate revision A′ of a lint task becomes the corpus's answer (issue 6 item 6; docs/export.md, docs/lint.md#lint-corpora):
 *
 * - kept only if it passes every test of the task (functionality is a prerequisite, LintEval §3.1) and
 *   reduces the alerts: net fixed = Fixed − New > 0 (multiset matching, src/core/lint/alert.ts);
 * - of the kept ones, the highest net reduction wins; ties go to the smallest diff — the added + deleted
 *   lines of the unified diff (LintEval's Lines_i, src/core/lint/metrics.ts), then the token edit distance to
 *   the original (the lint reward's per-language tokens) — and then to input order (teacher rows in file
 *   order, then the rule-based fixer), so the choice is the same on every run.
 *
 * Every rejected candidate is counted under one reason, in the order the checks run.
 *
 * Pure: no I/O.
 */
import type { Verdict } from "../core/reward.js";

/** Where a candidate came from. */
export type RevisionOrigin = "teacher" | "clang-tidy";

/** A candidate as judged: its tests, and (when it passed) its alert counts and diff size. */
export type LintCandidate = {
  origin: RevisionOrigin;
  /** Position among the task's candidates (input order). */
  order: number;
  /** The extracted program, or null when the completion had no code. */
  program: string | null;
  /** Verdict of the task's tests on `program` (null when there was no program). */
  verdict: Verdict | null;
  testsPassed: number;
  testsTotal: number;
  /** |Orig|, Fixed and New; null when the candidate was not analyzed (no program, failed tests). */
  counts: { original: number; fixed: number; introduced: number } | null;
  /** Added + deleted lines of the unified diff from the original (null when not computed). */
  diffLines: number | null;
  /**
   * Token Levenshtein distance from the original (null when not computed, or when the tokenizer refused
   * the file — Python constructs minedit's tokenizer does not support — which then loses every tie).
   */
  tokenDistance: number | null;
};

/** A candidate that passed and was analyzed. */
export type JudgedCandidate = LintCandidate & {
  counts: NonNullable<LintCandidate["counts"]>;
  diffLines: number;
};

/** The reasons a candidate is rejected (summary keys). */
export const LINT_REJECTIONS = {
  noCode: "no code in the completion",
  unchanged: "identical to the original",
  infra: "sandbox fault while running the tests (INFRA_ERROR)",
  notAnalyzed: "not analyzed",
  addsAlerts: "adds more alerts than it fixes (net < 0)",
  noReduction: "no net alert reduction (net = 0)",
} as const;

/** `fails its tests (FAILED_TESTS)`, one reason per verdict. */
export function failedTestsReason(verdict: Verdict): string {
  return `fails its tests (${verdict})`;
}

/** Fixed − New. */
export function netFixed(counts: { fixed: number; introduced: number }): number {
  return counts.fixed - counts.introduced;
}

/**
 * Whether a candidate may be kept, and if not why. `original` is the task's file (a revision equal to
 * it fixes nothing; it is named as such rather than as "no reduction").
 */
export function judgeLintCandidate(
  candidate: LintCandidate,
  original: string,
): { ok: true; candidate: JudgedCandidate } | { ok: false; reason: string } {
  if (candidate.program === null) return { ok: false, reason: LINT_REJECTIONS.noCode };
  if (candidate.program === original) return { ok: false, reason: LINT_REJECTIONS.unchanged };
  if (candidate.verdict === "INFRA_ERROR") return { ok: false, reason: LINT_REJECTIONS.infra };
  if (candidate.verdict !== "PASSED") {
    return { ok: false, reason: failedTestsReason(candidate.verdict ?? "NO_CODE") };
  }
  const { counts, diffLines } = candidate;
  if (counts === null || diffLines === null) {
    return { ok: false, reason: LINT_REJECTIONS.notAnalyzed };
  }
  const net = netFixed(counts);
  if (net < 0) return { ok: false, reason: LINT_REJECTIONS.addsAlerts };
  if (net === 0) return { ok: false, reason: LINT_REJECTIONS.noReduction };
  return { ok: true, candidate: { ...candidate, counts, diffLines } };
}

/** Orders kept candidates best first: net reduction desc, diff lines asc, token distance asc, order asc. */
export function compareLintCandidates(a: JudgedCandidate, b: JudgedCandidate): number {
  return (
    netFixed(b.counts) - netFixed(a.counts) ||
    a.diffLines - b.diffLines ||
    (a.tokenDistance ?? Number.POSITIVE_INFINITY) - (b.tokenDistance ?? Number.POSITIVE_INFINITY) ||
    a.order - b.order
  );
}

/** The outcome for one task: the chosen revision (null when none qualifies) and the rejections by reason. */
export type LintSelection = {
  chosen: JudgedCandidate | null;
  /** Candidates that qualified (the chosen one included). */
  qualified: number;
  rejected: Record<string, number>;
};

/** Judges every candidate of a task and picks the best qualifying one. */
export function selectLintRevision(candidates: readonly LintCandidate[], original: string): LintSelection {
  const rejected: Record<string, number> = {};
  let chosen: JudgedCandidate | null = null;
  let qualified = 0;
  for (const candidate of candidates) {
    const judged = judgeLintCandidate(candidate, original);
    if (!judged.ok) {
      rejected[judged.reason] = (rejected[judged.reason] ?? 0) + 1;
      continue;
    }
    qualified += 1;
    if (chosen === null || compareLintCandidates(judged.candidate, chosen) < 0) chosen = judged.candidate;
  }
  return { chosen, qualified, rejected };
}
