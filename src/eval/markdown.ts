/**
 * The Markdown of the evaluation reports, in the over-editing paper's layouts: its Table 3 (in-domain and
 * out-of-domain Pass@1, excess Levenshtein and added CC side by side, the retention benchmark last, its
 * change from the base run in parentheses), Tables 4–5 (one compact row per run), Table 6 (pass rate,
 * token edits, excess, added CC), Table 1 (per corruption family) and Table 7 (the function-length
 * distribution of the evaluated tasks) — each number with its 95 % bootstrap interval in brackets, and the
 * denominators spelt out above the tables.
 *
 * Pure: no I/O.
 */
import { table } from "../core/task-stats.js";
import { OUTCOMES } from "./records.js";
import type {
  CompareReport,
  GroupMetrics,
  IntervalValue,
  PairedMetrics,
  Report,
  RunReport,
  Statistics,
} from "./report-schema.js";

const DASH = "—";

/** A number with fixed decimals, or a dash. */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? DASH : value.toFixed(digits);
}

/** A p-value: four decimals, or two significant digits below 0.0001 (`9.3e-6`), so a tiny p is not "0.0000". */
export function pValue(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  return value >= 1e-4 || value === 0 ? value.toFixed(4) : value.toExponential(1);
}

/** A signed number (`+0.012`, `−0.004`). */
export function signed(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  const text = Math.abs(value).toFixed(digits);
  return value < 0 && Number(text) !== 0 ? `−${text}` : `+${text}`;
}

/** `0.802 [0.750, 0.851]`. */
export function withInterval(interval: IntervalValue | null | undefined, digits = 3, sign = false): string {
  if (interval === null || interval === undefined) return DASH;
  const f = sign ? signed : fixed;
  return `${f(interval.estimate, digits)} [${f(interval.low, digits)}, ${f(interval.high, digits)}]`;
}

const estimate = (interval: IntervalValue | null | undefined) => interval?.estimate ?? null;

function statisticsLine(s: Statistics): string {
  return (
    `Intervals: ${Math.round(s.level * 100)} % percentile bootstrap, resampling problems (a problem's tasks ` +
    `move together), ${s.resamples} resamples, seed ${s.seed}.`
  );
}

function domainTitle(domain: string): string {
  if (domain === "in-domain") return "In-domain";
  if (domain === "ood") return "Out-of-domain";
  return domain.charAt(0).toUpperCase() + domain.slice(1);
}

function denominators(run: RunReport): string[] {
  const lines = [
    `**${run.name}**: ${run.tasks.evaluated} of ${run.tasks.total} tasks evaluated, ${run.samples_per_task} ` +
      `sample(s) per task (prompt ${run.prompt}, distances in scope ${run.scope}).`,
  ];
  if (run.tasks.excluded.length > 0) {
    lines.push(
      "",
      `Excluded (not in any denominator): ${run.tasks.excluded.length} task(s).`,
      "",
      ...run.tasks.excluded.slice(0, 50).map((e) => `- \`${e.task_id}\`: ${e.reason}`),
    );
    if (run.tasks.excluded.length > 50)
      lines.push(`- … and ${run.tasks.excluded.length - 50} more (report.json lists all)`);
  }
  return lines;
}

/** The outcome counts per domain: every sample of the denominator, nothing dropped. */
function outcomeTable(run: RunReport): string {
  const groups: [string, GroupMetrics][] = [
    ...Object.entries(run.domains).map(([name, m]) => [domainTitle(name), m] as [string, GroupMetrics]),
    ...Object.entries(run.retention).map(([name, m]) => [name, m] as [string, GroupMetrics]),
  ];
  if (groups.length === 0) return "";
  const used = OUTCOMES.filter((o) => groups.some(([, m]) => (m.outcomes[o] ?? 0) > 0));
  const header = ["Samples", ...groups.map(([name]) => name)];
  const rows = [
    ...used.map((o) => [o, ...groups.map(([, m]) => String(m.outcomes[o] ?? 0))]),
    ["truncated (of which passed)", ...groups.map(([, m]) => `${m.truncated} (${m.truncated_passed})`)],
    ["total", ...groups.map(([, m]) => String(m.samples))],
  ];
  return table(header, rows);
}

function retentionCell(m: GroupMetrics | undefined): string {
  return m === undefined ? DASH : withInterval(m.pass_at_1);
}

/** Table 3: one row per run, in-domain | OOD | retention. */
function table3(runs: readonly RunReport[]): string {
  const domains = ["in-domain", "ood"].filter((d) => runs.some((r) => r.domains[d] !== undefined));
  const suites = [...new Set(runs.flatMap((r) => Object.keys(r.retention)))].sort();
  const header = ["Run"];
  for (const d of domains) header.push(`${domainTitle(d)} Pass@1 ↑`, "Excess Lev. ↓", "Added CC ↓");
  for (const s of suites) header.push(`${s} Pass@1 ↑`);
  const rows = runs.map((run) => {
    const row = [run.name];
    for (const d of domains) {
      const m = run.domains[d];
      row.push(withInterval(m?.pass_at_1), withInterval(m?.excess), withInterval(m?.added_cc));
    }
    for (const s of suites) row.push(retentionCell(run.retention[s]));
    return row;
  });
  return table(header, rows);
}

/** Table 6 per domain: pass rate, token edits, excess, added CC, shares of minimal and over-edited repairs. */
function table6(runs: readonly RunReport[]): string {
  const rows: string[][] = [];
  for (const run of runs) {
    const groups: [string, GroupMetrics | null][] = [["all", run.overall], ...Object.entries(run.domains)];
    for (const [name, m] of groups) {
      if (m === null) continue;
      rows.push([
        run.name,
        name === "all" ? "all" : domainTitle(name),
        String(m.tasks),
        fixed(estimate(m.pass_at_1)),
        fixed(estimate(m.token_edits), 1),
        fixed(estimate(m.excess)),
        fixed(estimate(m.added_cc)),
        fixed(m.added_cc_sonar),
        fixed(estimate(m.minimal_share)),
        fixed(estimate(m.over_edit_share)),
      ]);
    }
  }
  return table(
    [
      "Run",
      "Tasks of",
      "Tasks",
      "Pass rate ↑",
      "Token edits ↓",
      "Ex. Lev. ↓",
      "Add. CC ↓",
      "Add. CC (sonar)",
      "Minimal ↑",
      "Over-edit ↓",
    ],
    rows,
    2,
  );
}

/** Table 1: one row per family (or family combination). */
function familyTable(families: Record<string, GroupMetrics & { domain: string }>): string {
  const rows = Object.entries(families)
    .sort(([a, x], [b, y]) => x.domain.localeCompare(y.domain) || a.localeCompare(b))
    .map(([name, m]) => [
      name,
      m.domain,
      String(m.tasks),
      withInterval(m.pass_at_1),
      withInterval(m.excess),
      withInterval(m.added_cc),
      fixed(estimate(m.minimal_share)),
      fixed(estimate(m.over_edit_share)),
    ]);
  return table(
    ["Corruption", "Domain", "Tasks", "Pass@1 ↑", "Excess Lev. ↓", "Added CC ↓", "Minimal ↑", "Over-edit ↓"],
    rows,
    2,
  );
}

function passAtKTable(runs: readonly RunReport[]): string {
  const ks = [
    ...new Set(runs.flatMap((r) => Object.values(r.domains).flatMap((m) => Object.keys(m.pass_at_k)))),
  ]
    .map(Number)
    .sort((a, b) => a - b);
  if (ks.length === 0) return "";
  const rows: string[][] = [];
  for (const run of runs) {
    for (const [name, m] of Object.entries(run.domains)) {
      rows.push([run.name, domainTitle(name), ...ks.map((k) => withInterval(m.pass_at_k[String(k)]))]);
    }
  }
  return table(["Run", "Tasks of", ...ks.map((k) => `pass@${k}`)], rows, 2);
}

function lintTable(runs: readonly RunReport[]): string {
  const rows: string[][] = [];
  for (const run of runs) {
    if (run.lint === null) continue;
    for (const [name, m] of [["all", run.lint.overall], ...Object.entries(run.lint.languages)] as const) {
      rows.push([
        run.name,
        name,
        String(m.instances),
        withInterval(m.pass_at_1),
        fixed(m.reduction_at_p),
        fixed(m.new_at_p),
        fixed(m.delta_line_at_p, 1),
        fixed(m.line_per_fix_at_p, 2),
        fixed(m.style_score),
      ]);
    }
  }
  if (rows.length === 0) return "";
  return table(
    ["Run", "Language", "N", "Pass@1", "Reduction@P", "New@P", "ΔLine@P", "LinePerFix@P", "Style score"],
    rows,
    2,
  );
}

function table7(run: RunReport): string {
  const s = run.task_set;
  const row = (label: string, v: RunReport["task_set"]["tokens"], digits: number) => [
    label,
    ...[v.mean, v.median, v.q1, v.q3, v.p95, v.min, v.max].map((x) => fixed(x, digits)),
  ];
  return table(
    ["Measure", "Mean", "Med.", "Q1", "Q3", "P95", "Min", "Max"],
    [
      row("Executable lines (per function of G)", s.executable_lines, 2),
      row("Python tokens (per function of G)", s.tokens, 2),
      row("Gold token edit dist. (per task)", s.gold_token_edits, 2),
    ],
  );
}

/** What `eval run` prints on stdout: the denominators and the Table 3 layout. */
export function renderSummaryMarkdown(report: Report): string {
  const parts: string[] = [];
  for (const run of report.runs) {
    parts.push(...denominators(run).slice(0, 1));
    // The one number a reader looks for first, with its interval, before the per-domain table.
    if (run.overall !== null)
      parts.push(
        `Overall Pass@1 over ${run.overall.tasks} repair task(s): ${withInterval(run.overall.pass_at_1)} ` +
          `(${Math.round(report.statistics.level * 100)} % bootstrap interval).`,
      );
    parts.push("");
  }
  parts.push(table3(report.runs));
  return `${parts.join("\n")}\n`;
}

/** The Markdown of `report.json`. */
export function renderReportMarkdown(report: Report): string {
  const { runs } = report;
  const parts: string[] = ["# minedit eval report", "", statisticsLine(report.statistics), ""];
  parts.push(
    "Pass@1 is over every evaluated task (API errors, missing and truncated samples, NO_CODE, UNPARSABLE and " +
      "sandbox faults count as failures); the edit metrics are means over the passing repairs. Added CC is " +
      "the paper's visitor; `Add. CC (sonar)` uses SonarSource's rules (the reward's).",
    "",
  );
  for (const run of runs) parts.push(...denominators(run), "");
  parts.push("## Pass@1, excess edit distance and added CC (paper Table 3)", "", table3(runs), "");
  const outcome = runs.map((run) => ({ run, text: outcomeTable(run) })).filter((o) => o.text !== "");
  if (outcome.length > 0) {
    parts.push("## Outcomes (every sample of the denominator)", "");
    for (const { run, text } of outcome) parts.push(`**${run.name}**`, "", text, "");
  }
  if (runs.some((r) => r.overall !== null)) {
    parts.push("## Edit size (paper Table 6)", "", table6(runs), "");
  }
  const kTable = passAtKTable(runs);
  if (kTable !== "") parts.push("## pass@k (unbiased estimator)", "", kTable, "");
  for (const run of runs) {
    if (Object.keys(run.families.contains).length === 0) continue;
    parts.push(`## Per corruption family: ${run.name} (paper Table 1)`, "");
    parts.push("Tasks containing the family (a task with two families is in both rows):", "");
    parts.push(familyTable(run.families.contains), "");
    parts.push("By exact family combination:", "", familyTable(run.families.exact), "");
  }
  const lint = lintTable(runs);
  if (lint !== "") parts.push("## Lint tasks (LintEval)", "", lint, "");
  for (const run of runs) {
    if (run.task_set.gold_token_edits.count === 0) continue;
    parts.push(`## Evaluated tasks: ${run.name} (paper Tables 7–8)`, "", table7(run), "");
  }
  return `${parts.join("\n").trimEnd()}\n`;
}

function pairedRow(label: string, m: PairedMetrics, holm: boolean): string[] {
  return [
    label,
    String(m.tasks),
    fixed(m.pass_a),
    fixed(m.pass_b),
    withInterval(m.pass_delta, 3, true),
    `${m.mcnemar.only_a}/${m.mcnemar.only_b}`,
    fixed(m.mcnemar.p_value, 4),
    ...(holm ? [fixed(m.mcnemar.p_holm, 4)] : []),
    String(m.joint_passing),
    withInterval(m.excess_delta, 3, true),
    pValue(m.excess_tests?.wilcoxon.p_value),
    pValue(m.excess_tests?.sign.p_value),
    withInterval(m.added_cc_delta, 3, true),
    pValue(m.added_cc_tests?.wilcoxon.p_value),
    pValue(m.added_cc_tests?.sign.p_value),
    withInterval(m.over_edit_delta, 3, true),
    fixed(m.mde.pass),
    fixed(m.mde.excess),
  ];
}

const PAIRED_HEADER = ["Tasks", "Pass@1 A", "Pass@1 B", "Δ Pass@1 (B − A)", "only A/only B", "McNemar p"];
const PAIRED_TAIL = [
  "Joint pass",
  "Δ Excess Lev.",
  "Wilcoxon p (excess)",
  "Sign p (excess)",
  "Δ Added CC",
  "Wilcoxon p (CC)",
  "Sign p (CC)",
  "Δ Over-edit",
  "MDE pass",
  "MDE excess",
];

/** The Markdown of `compare.json`. */
export function renderCompareMarkdown(report: CompareReport): string {
  const { a, b } = report;
  const parts: string[] = [
    `# minedit eval compare: ${a.name} (A) vs ${b.name} (B)`,
    "",
    statisticsLine(report.statistics),
    "",
  ];
  parts.push(
    `${report.paired.tasks} tasks paired (evaluated by both runs). Deltas are B − A. McNemar is exact, on the ` +
      `(task, sample) outcome pairs; Holm's adjustment is across the families of each table. The edit deltas ` +
      `average over the tasks both runs repair ("joint pass"); each is followed by the two-sided Wilcoxon ` +
      `signed-rank and sign-test p-values of its per-task differences (not adjusted). Over-edit: the share ` +
      `of passing repairs with more edits than the gold (e > 0). MDE: the smallest true difference detectable ` +
      `at α = ${report.alpha} with power ${report.power} on these tasks.`,
    "",
  );
  if (report.paired.unpaired.length > 0) {
    parts.push(`Not paired: ${report.paired.unpaired.length} task(s).`, "");
    for (const u of report.paired.unpaired.slice(0, 50)) parts.push(`- \`${u.task_id}\`: ${u.reason}`);
    if (report.paired.unpaired.length > 50) parts.push(`- … and ${report.paired.unpaired.length - 50} more`);
    parts.push("");
  }
  parts.push("## Side by side (paper Table 3)", "", table3([a, b]), "");
  const suites = Object.keys(report.retention);
  if (suites.length > 0) {
    parts.push("## Performance retention", "");
    parts.push(
      table(
        ["Suite", "Tasks", `Pass@1 ${a.name}`, `Pass@1 ${b.name}`, "Δ (B − A)", "McNemar p", "MDE"],
        suites.map((s) => {
          const m = report.retention[s] as PairedMetrics;
          return [
            s,
            String(m.tasks),
            fixed(m.pass_a),
            fixed(m.pass_b),
            withInterval(m.pass_delta, 3, true),
            fixed(m.mcnemar.p_value, 4),
            fixed(m.mde.pass),
          ];
        }),
      ),
      "",
    );
  }
  const groups: [string, PairedMetrics][] = [];
  if (report.overall !== null) groups.push(["all", report.overall]);
  for (const [name, m] of Object.entries(report.domains)) groups.push([domainTitle(name), m]);
  if (groups.length > 0) {
    parts.push("## Paired comparison", "");
    parts.push(
      table(
        ["Tasks of", ...PAIRED_HEADER, ...PAIRED_TAIL],
        groups.map(([n, m]) => pairedRow(n, m, false)),
      ),
      "",
    );
  }
  for (const [title, set] of [
    ["Per corruption family (tasks containing it)", report.families.contains],
    ["Per exact family combination", report.families.exact],
  ] as const) {
    const entries = Object.entries(set).sort(
      ([x, p], [y, q]) => p.domain.localeCompare(q.domain) || x.localeCompare(y),
    );
    if (entries.length === 0) continue;
    parts.push(`## ${title}`, "");
    parts.push(
      table(
        ["Corruption", "Domain", ...PAIRED_HEADER, "Holm p", ...PAIRED_TAIL],
        entries.map(([name, m]) => {
          const [first, ...rest] = pairedRow(name, m, true);
          return [first as string, m.domain, ...rest];
        }),
        2,
      ),
      "",
    );
  }
  return `${parts.join("\n").trimEnd()}\n`;
}
