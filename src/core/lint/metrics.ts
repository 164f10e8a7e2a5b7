/**
 * LintEval's refactoring metrics (docs/lint.md, LintEval §3.2) and OmniCode's style-fixing score (§3.2.4), for
 * a set of (original, revised) files. Pure: alerts and test outcomes come in, numbers go out.
 *
 * Per instance i: Fixed_i = original alerts absent from the revision and New_i = revision alerts absent
 * from the original (multisets on rule id + sanitized message, {@link diffAlerts}); Lines_i = added +
 * deleted lines of the unified diff ({@link unifiedDiffLineCount}). P = the instances whose revision passes
 * all its tests. Then, exactly as docs/lint.md (corpus-level denominators, so files with few alerts do not
 * dominate — LintEval §3.2):
 *
 *   Pass@1        = |P| / N
 *   Reduction@P   = Σ_P (Fixed_i − New_i) / Σ_P |Orig_i|      (negative when revisions add more than they fix)
 *   New@P         = Σ_P New_i / Σ_P |Orig_i|
 *   ΔLine@P       = mean over P of Lines_i
 *   LinePerFix@P  = Σ_P Lines_i / Σ_P Fixed_i
 *   style score   = mean over all N of s_i, s_i = 0 if the tests fail or |Orig_i| = 0,
 *                   else max(0, (Fixed_i − New_i) / |Orig_i|)              (OmniCode Eq. 2)
 *
 * A ratio whose denominator is 0 is `null` (undefined, printed as "—"), never 0 or NaN.
 *
 * Per category c (LintEval Appendix A.7): the instances with at least one original alert of category c,
 * with every alert count restricted to category c (Orig, Fixed and New of c only; Lines_i is the whole
 * diff, as edits cannot be attributed to alerts). Per language: the instances of that language.
 */
import { editScriptLength } from "../line-diff.js";
import { type Alert, diffAlerts } from "./alert.js";
import { ALERT_CATEGORIES, type AlertCategory, type LintLanguage } from "./tools.js";

/** One refactoring to score. */
export type LintInstance = {
  language: LintLanguage;
  /** Alerts of the original file. */
  original: readonly Alert[];
  /** Alerts of the revised file (same analyzer and configuration). */
  revised: readonly Alert[];
  /** The revision compiles and passes every test of the instance (membership in P). */
  passed: boolean;
  /** Lines_i: added + deleted lines of the unified diff, {@link unifiedDiffLineCount}(original, revised). */
  diffLines: number;
};

/** |Orig_i|, Fixed_i and New_i of one instance. */
export type InstanceCounts = { original: number; fixed: number; introduced: number };

/** |Orig_i|, Fixed_i, New_i by multiset matching ({@link diffAlerts}). */
export function instanceCounts(original: readonly Alert[], revised: readonly Alert[]): InstanceCounts {
  const diff = diffAlerts(original, revised);
  return { original: original.length, fixed: diff.fixed.length, introduced: diff.introduced.length };
}

/**
 * OmniCode's style-fixing score of one instance (Eq. 2): 0 when the tests fail or there was nothing to
 * fix, else the net share of original alerts resolved, floored at 0 — in [0, 1].
 */
export function styleScore(counts: InstanceCounts, passed: boolean): number {
  if (!passed || counts.original === 0) return 0;
  return Math.max(0, (counts.fixed - counts.introduced) / counts.original);
}

/** The metrics of a set of instances. Sums are over P unless named otherwise. */
export type LintMetrics = {
  /** N. */
  instances: number;
  /** |P|. */
  passed: number;
  /** |P| / N; null when N = 0. */
  pass1: number | null;
  /** Σ_P |Orig_i|. */
  originalAlerts: number;
  /** Σ_P Fixed_i. */
  fixed: number;
  /** Σ_P New_i. */
  introduced: number;
  /** Σ_P Lines_i. */
  diffLines: number;
  /** Σ_P (Fixed_i − New_i) / Σ_P |Orig_i|; null when Σ_P |Orig_i| = 0. May be negative. */
  reductionAtP: number | null;
  /** Σ_P New_i / Σ_P |Orig_i|; null when Σ_P |Orig_i| = 0. */
  newAtP: number | null;
  /** Σ_P Lines_i / |P|; null when P is empty. */
  deltaLineAtP: number | null;
  /** Σ_P Lines_i / Σ_P Fixed_i; null when nothing was fixed. */
  linePerFixAtP: number | null;
  /** Mean over all N instances of {@link styleScore}; null when N = 0. */
  styleScore: number | null;
};

/** Metrics overall, per language present, and per category (see the module doc for the subsets). */
export type LintMetricsReport = {
  overall: LintMetrics;
  byLanguage: Partial<Record<LintLanguage, LintMetrics>>;
  byCategory: Record<AlertCategory, LintMetrics>;
};

const ratio = (numerator: number, denominator: number): number | null =>
  denominator === 0 ? null : numerator / denominator;

/** One instance as the metrics see it: its alert counts, whether it is in P, and its Lines_i. */
export type ScoredInstance = { counts: InstanceCounts; passed: boolean; diffLines: number };

/** {@link LintMetrics} of a set of instances (the sums run in the order given). */
export function aggregate(items: readonly ScoredInstance[]): LintMetrics {
  let passed = 0;
  let originalAlerts = 0;
  let fixed = 0;
  let introduced = 0;
  let diffLines = 0;
  let scoreSum = 0;
  for (const item of items) {
    scoreSum += styleScore(item.counts, item.passed);
    if (!item.passed) continue;
    passed += 1;
    originalAlerts += item.counts.original;
    fixed += item.counts.fixed;
    introduced += item.counts.introduced;
    diffLines += item.diffLines;
  }
  return {
    instances: items.length,
    passed,
    pass1: ratio(passed, items.length),
    originalAlerts,
    fixed,
    introduced,
    diffLines,
    reductionAtP: ratio(fixed - introduced, originalAlerts),
    newAtP: ratio(introduced, originalAlerts),
    deltaLineAtP: ratio(diffLines, passed),
    linePerFixAtP: ratio(diffLines, fixed),
    styleScore: ratio(scoreSum, items.length),
  };
}

/** Computes {@link LintMetrics} overall, per language and per category. */
export function lintMetrics(instances: readonly LintInstance[]): LintMetricsReport {
  const scored = instances.map((instance) => ({
    instance,
    counts: instanceCounts(instance.original, instance.revised),
    passed: instance.passed,
    diffLines: instance.diffLines,
  }));
  const byLanguage: Partial<Record<LintLanguage, LintMetrics>> = {};
  for (const language of new Set(instances.map((i) => i.language))) {
    byLanguage[language] = aggregate(scored.filter((s) => s.instance.language === language));
  }
  const byCategory = {} as Record<AlertCategory, LintMetrics>;
  for (const category of ALERT_CATEGORIES) {
    const inCategory = (alerts: readonly Alert[]) => alerts.filter((a) => a.category === category);
    const subset: ScoredInstance[] = [];
    for (const { instance } of scored) {
      const original = inCategory(instance.original);
      if (original.length === 0) continue;
      subset.push({
        counts: instanceCounts(original, inCategory(instance.revised)),
        passed: instance.passed,
        diffLines: instance.diffLines,
      });
    }
    byCategory[category] = aggregate(subset);
  }
  return { overall: aggregate(scored), byLanguage, byCategory };
}

/**
 * Lines_i: the number of added plus deleted lines in a minimal unified diff of `a` → `b` (what `diff -u
 * --minimal` prints as `+` and `-` lines). Lines are compared with their terminator, as diff does, so a
 * last line that gains or loses its final newline counts as one deleted and one added line. CR is an
 * ordinary character. The count is the length of a shortest edit script (core/line-diff.ts), exact at any
 * size; lines are interned first so the diff compares numbers, not strings.
 */
export function unifiedDiffLineCount(a: string, b: string): number {
  const ids = new Map<string, number>();
  const intern = (text: string): number[] =>
    splitLines(text).map((line) => {
      let id = ids.get(line);
      if (id === undefined) {
        id = ids.size;
        ids.set(line, id);
      }
      return id;
    });
  return editScriptLength(intern(a), intern(b));
}

/** Lines with their `\n` terminator; the last line may lack one; "" has no lines. */
function splitLines(text: string): string[] {
  return text === "" ? [] : text.split(/(?<=\n)/);
}
