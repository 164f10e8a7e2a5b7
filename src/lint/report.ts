/**
 * The lint report (docs/lint.md) of a set of refactorings: each (original, revised) pair analyzed with the
 * language's analyzer, the LintEval metrics and OmniCode's style score overall, per language and per
 * category, and the analyzer versions — as data ({@link LintReport}) and as Markdown tables.
 */

import type { AnalyzerVersion } from "../analyzers/analyzer.js";
import type { Linter } from "../analyzers/linter.js";
import {
  instanceCounts,
  type LintInstance,
  type LintMetrics,
  type LintMetricsReport,
  lintMetrics,
  styleScore,
  unifiedDiffLineCount,
} from "../core/lint/metrics.js";
import { type LintLanguage, TOOL_OF_LANGUAGE } from "../core/lint/tools.js";

/** One refactoring to report on. */
export type RefactoringRow = {
  id: string | number;
  language: LintLanguage;
  original: string;
  revised: string;
  /** The revision compiles and passes all its tests. */
  passed: boolean;
};

/** What the report says about one row. */
export type RowResult = {
  id: string | number;
  language: LintLanguage;
  passed: boolean;
  /** |Orig_i|, Fixed_i, New_i, Lines_i and OmniCode's score of the row. */
  originalAlerts: number;
  fixed: number;
  introduced: number;
  diffLines: number;
  styleScore: number;
};

export type LintReport = {
  /** The analyzers used (one per language present), as the tools report themselves. */
  analyzers: AnalyzerVersion[];
  metrics: LintMetricsReport;
  rows: RowResult[];
};

/** Sources analyzed per call to the linter: progress is reported between calls. */
const SOURCES_PER_CALL = 32;

/**
 * Analyzes every row's original and revised file (identical files once, see {@link Linter.analyze}) and
 * computes the report. `onProgress(done, total)` counts analyzed files.
 */
export async function buildLintReport(
  rows: readonly RefactoringRow[],
  linter: Linter,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<LintReport> {
  const languages = [...new Set(rows.map((row) => row.language))];
  const analyzers = await linter.versions(
    languages.map((language) => TOOL_OF_LANGUAGE[language]),
    options.signal,
  );
  const total = rows.length * 2;
  let done = 0;
  const alerts = new Map<
    RefactoringRow,
    { original: LintInstance["original"]; revised: LintInstance["revised"] }
  >();
  for (const language of languages) {
    const ofLanguage = rows.filter((row) => row.language === language);
    for (let start = 0; start < ofLanguage.length; start += SOURCES_PER_CALL / 2) {
      const batch = ofLanguage.slice(start, start + SOURCES_PER_CALL / 2);
      const results = await linter.analyze(
        language,
        batch.flatMap((row) => [row.original, row.revised]),
        options.signal,
      );
      batch.forEach((row, i) => {
        alerts.set(row, { original: results[2 * i] ?? [], revised: results[2 * i + 1] ?? [] });
      });
      done += batch.length * 2;
      options.onProgress?.(done, total);
    }
  }
  const instances: LintInstance[] = [];
  const results: RowResult[] = [];
  for (const row of rows) {
    const found = alerts.get(row) ?? { original: [], revised: [] };
    const instance: LintInstance = {
      language: row.language,
      original: found.original,
      revised: found.revised,
      passed: row.passed,
      diffLines: unifiedDiffLineCount(row.original, row.revised),
    };
    instances.push(instance);
    const counts = instanceCounts(instance.original, instance.revised);
    results.push({
      id: row.id,
      language: row.language,
      passed: row.passed,
      originalAlerts: counts.original,
      fixed: counts.fixed,
      introduced: counts.introduced,
      diffLines: instance.diffLines,
      styleScore: styleScore(counts, row.passed),
    });
  }
  return { analyzers, metrics: lintMetrics(instances), rows: results };
}

const percent = (value: number | null) => (value === null ? "—" : `${(100 * value).toFixed(1)}%`);
const decimal = (value: number | null) => (value === null ? "—" : value.toFixed(1));

function metricsRow(label: string, m: LintMetrics): string {
  const cells = [
    label,
    String(m.instances),
    percent(m.pass1),
    String(m.originalAlerts),
    String(m.fixed),
    String(m.introduced),
    percent(m.reductionAtP),
    percent(m.newAtP),
    decimal(m.deltaLineAtP),
    decimal(m.linePerFixAtP),
    percent(m.styleScore),
  ];
  return `| ${cells.join(" | ")} |`;
}

const HEADER = [
  "| subset | N | Pass@1 | Σ Orig | Σ Fixed | Σ New | Reduction@P | New@P | ΔLine@P | LinePerFix@P | style score |",
  "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
];

/** The report as Markdown: analyzer versions, then one table per grouping. */
export function renderLintReport(report: LintReport, title: string): string {
  const m = report.metrics;
  const lines = [
    `# Lint report: ${title}`,
    "",
    "Analyzers (pinned): " +
      (report.analyzers.length === 0 ? "none (no rows)" : report.analyzers.map((a) => a.detail).join("; ")),
    "",
    "P = rows whose revision passes its tests. Σ Orig, Σ Fixed and Σ New are alert counts summed over P;",
    "Reduction@P = (Fixed − New) / Orig and New@P = New / Orig over P (corpus-level, LintEval §3.2);",
    "ΔLine@P = mean added + deleted diff lines over P; LinePerFix@P = diff lines per fixed alert;",
    "style score = OmniCode's per-row max(0, (Fixed − New) / Orig), 0 for failing rows, averaged over all rows.",
    "",
    "## Overall and per language",
    "",
    ...HEADER,
    metricsRow("all", m.overall),
    ...Object.entries(m.byLanguage).map(([language, metrics]) => metricsRow(language, metrics)),
    "",
    "## Per category (rows with an original alert of the category; that category's alerts only)",
    "",
    ...HEADER,
    ...Object.entries(m.byCategory).map(([category, metrics]) => metricsRow(category, metrics)),
    "",
  ];
  return lines.join("\n");
}
