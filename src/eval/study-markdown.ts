/**
 * The Markdown of a study (study.ts), in the over-editing paper's layouts: per-setting rows (Tables 17
 * and 18), prompt means (Figure 3), the matched-pair statistics (Appendix C.3), the reasoning effect
 * (Figure 4), size scaling (Figure 5) and repeated sampling (Table 19). Pure: no I/O.
 */
import type { Interval } from "../core/eval/bootstrap.js";
import { table } from "../core/task-stats.js";
import { fixed, pValue, signed } from "./markdown.js";
import { STUDY_METRICS, type StudyReport } from "./study.js";
import type { MetricValue } from "./study-settings.js";

const DASH = "—";

/** `0.802 [0.750, 0.851]`, or the estimate alone when no interval is known (published rows). */
function value(v: MetricValue | Interval | null | undefined, digits = 3): string {
  if (v === null || v === undefined) return DASH;
  if (v.low === null || v.high === null) return fixed(v.estimate, digits);
  return `${fixed(v.estimate, digits)} [${fixed(v.low, digits)}, ${fixed(v.high, digits)}]`;
}

function settingsTable(report: StudyReport): string {
  const rows = report.settings.map((s) => [
    s.name,
    s.kind === "run" ? `run ${s.source}` : s.source,
    s.tasks === null ? DASH : String(s.tasks),
    value(s.metrics.pass1),
    value(s.metrics.excess, 4),
    value(s.metrics.added_cc, 4),
    value(s.metrics.over_edit),
  ]);
  return table(
    ["Setting", "Source", "Tasks", "Pass@1 ↑", "Excess Lev. ↓", "Added CC ↓", "Over-edit ↓"],
    rows,
    2,
  );
}

function promptTable(report: StudyReport): string {
  const rows = report.prompt_means.map((p) => [
    p.prompt,
    String(p.settings),
    // A metric that not every setting has (over-edit: runs and Table 18 only) says over how many.
    ...STUDY_METRICS.map((m) => {
      const text = value(p.metrics[m.key], m.key === "pass1" ? 4 : 3);
      const count = p.counts[m.key];
      return count > 0 && count < p.settings ? `${text} (n = ${count})` : text;
    }),
  ]);
  return table(["Prompt", "Settings", ...STUDY_METRICS.map((m) => `${m.label} (mean)`)], rows);
}

function matchedTable(report: StudyReport): string {
  const rows = report.matched.metrics.map((m) => {
    const label = STUDY_METRICS.find((s) => s.key === m.metric)?.label ?? m.metric;
    const digits = m.metric === "pass1" ? 4 : 3;
    return [
      label,
      String(m.pairs),
      fixed(m.mean_a, digits),
      fixed(m.mean_b, digits),
      `${signed(m.change.estimate, digits)} [${signed(m.change.low, digits)}, ${signed(m.change.high, digits)}]`,
      `${m.improved} / ${m.worsened} / ${m.unchanged}`,
      pValue(m.wilcoxon.p_value),
      pValue(m.sign_test.p_value),
    ];
  });
  const [a, b] = report.pair;
  return table(
    [
      "Metric",
      "Pairs",
      `Mean ${a}`,
      `Mean ${b}`,
      `Change ${b} − ${a} [CI]`,
      "Better / worse / same",
      "Wilcoxon p",
      "Sign-test p",
    ],
    rows,
  );
}

function reasoningTable(report: StudyReport): string {
  const rows = report.reasoning.map((r) => [
    r.model,
    r.prompt,
    r.reasoning,
    r.family,
    String(r.tasks),
    signed(r.excess, 4),
    signed(r.added_cc, 4),
  ]);
  return table(
    ["Model", "Prompt", "Reasoning", "Family", "Joint passing", "Δ excess", "Δ added CC"],
    rows,
    4,
  );
}

function scalingTable(report: StudyReport): string {
  const rows = report.scaling.map((p) => [
    p.series,
    p.prompt,
    `${p.size}B`,
    fixed(p.pass1),
    fixed(p.excess, 4),
    fixed(p.added_cc, 4),
  ]);
  return table(["Series", "Prompt", "Size", "Pass@1 ↑", "Excess Lev. ↓", "Added CC ↓"], rows, 2);
}

function repeatedTable(report: StudyReport): string {
  const rows = report.repeated.map((r) => [
    r.setting,
    String(r.samples),
    r.temperature === null ? DASH : String(r.temperature),
    value(r.pass1),
    value(r.pass_at_k),
    value(r.excess, 4),
    value(r.added_cc, 4),
  ]);
  return table(
    [
      "Setting",
      "Samples",
      "Temperature",
      "Pass@1 (mean) ↑",
      "pass@k (k = samples) ↑",
      "Excess Lev. ↓",
      "Added CC ↓",
    ],
    rows,
  );
}

/** The study's Markdown: every table, with what each denominator is. */
export function renderStudyMarkdown(report: StudyReport): string {
  const [a, b] = report.pair;
  const level = Math.round(report.bootstrap.level * 100);
  const parts = [
    "## minedit eval study",
    "",
    `${report.settings.length} settings (${report.settings.filter((s) => s.kind === "run").length} runs, ` +
      `${report.settings.filter((s) => s.kind === "summary").length} published rows). Excess, added CC and ` +
      "over-edit share (passing repairs with excess > 0) are over passing repairs; run intervals resample " +
      `problems, published rows carry none. Intervals: ${level} % percentile bootstrap, ` +
      `${report.bootstrap.resamples} resamples, seed ${report.bootstrap.seed}.`,
    "",
    "### Settings (Tables 17 and 18)",
    "",
    settingsTable(report),
    "",
    "### Means over settings per prompt (Figure 3)",
    "",
    "Each setting weighs one; intervals resample settings.",
    "",
    promptTable(report),
    "",
    `### Matched pairs, ${a} → ${b} (Appendix C.3)`,
    "",
    report.matched.pairs.length === 0
      ? `No setting has both the ${a} and the ${b} prompt (same model, reasoning and size).`
      : `${report.matched.pairs.length} settings under both prompts (same model, reasoning and size). Change: ` +
        "mean of B − A with a paired bootstrap interval over settings; better / worse / same count settings; " +
        "two-sided Wilcoxon signed-rank (zeros dropped) and exact sign test over the per-setting differences.",
    "",
  ];
  if (report.matched.pairs.length > 0) parts.push(matchedTable(report), "");
  if (report.reasoning.length > 0)
    parts.push(
      "### Reasoning minus no reasoning, on tasks both repair (Figure 4)",
      "",
      "Negative: reasoning repairs more faithfully. Per family: tasks containing it.",
      "",
      reasoningTable(report),
      "",
    );
  if (report.scaling.length > 0)
    parts.push("### Metrics by model size (Figure 5)", "", scalingTable(report), "");
  if (report.repeated.length > 0)
    parts.push(
      "### Repeated sampling (Table 19)",
      "",
      "Pass@1 is the mean over samples (c/n per task); pass@k the unbiased estimator at k = samples.",
      "",
      repeatedTable(report),
      "",
    );
  return `${parts.join("\n")}\n`;
}
