/**
 * From run files to the three renderings of a report — JSON (report-schema.ts), Markdown (markdown.ts)
 * and the HTML page (charts.ts, html.ts) — for one or more runs (`eval run`, `eval report`) or for a
 * paired comparison (`eval compare`). Deterministic: the same run files and statistics settings give the
 * same bytes (no clock, no randomness other than the seeded bootstrap).
 */
import type { DistanceScope } from "../config.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import { compareCharts, reportCharts } from "./charts.js";
import { type CompareOptions, compareRuns } from "./compare.js";
import { renderHtml } from "./html.js";
import { renderCompareMarkdown, renderReportMarkdown } from "./markdown.js";
import { runReport } from "./metrics.js";
import type { RunManifest, SampleRecord, TaskRecord } from "./records.js";
import {
  type CompareReport,
  REPORT_VERSION,
  type Report,
  type RunReport,
  type Statistics,
} from "./report-schema.js";
import { taskSetSummary } from "./task-set-summary.js";

/** A run's contents, as the report needs them. */
export type RunContents = {
  manifest: RunManifest;
  tasks: readonly TaskRecord[];
  samples: readonly SampleRecord[];
};

export type Rendered<T> = { report: T; markdown: string; html: string };

/** The metrics of one run. */
export async function runMetrics(
  run: RunContents,
  statistics: Statistics,
  ks: readonly number[],
): Promise<RunReport> {
  await loadPythonGrammar();
  const m = run.manifest;
  return runReport(
    {
      name: m.name,
      model: m.model,
      endpoint: m.endpoint,
      prompt: m.prompt,
      samples_per_task: m.samples,
      scope: m.scope,
      reward_version: m.reward_version,
    },
    run.tasks,
    run.samples,
    { bootstrap: { resamples: statistics.resamples, seed: statistics.seed, level: statistics.level }, ks },
    taskSetSummary(run.tasks, m.scope as DistanceScope),
  );
}

/** The report of one or more runs, rendered. */
export async function buildReport(
  runs: readonly RunContents[],
  statistics: Statistics,
  ks: readonly number[],
): Promise<Rendered<Report>> {
  const reports: RunReport[] = [];
  for (const run of runs) reports.push(await runMetrics(run, statistics, ks));
  const report: Report = { v: REPORT_VERSION, statistics, runs: reports };
  const markdown = renderReportMarkdown(report);
  const html = renderHtml({
    title: `minedit eval: ${reports.map((r) => r.name).join(", ")}`,
    markdown,
    charts: await reportCharts(reports),
    runs: runs.map((run) => ({ name: run.manifest.name, tasks: run.tasks, samples: run.samples })),
  });
  return { report, markdown, html };
}

/** The paired comparison of runs A and B, rendered. */
export async function buildCompare(
  a: RunContents,
  b: RunContents,
  options: CompareOptions,
  ks: readonly number[],
): Promise<Rendered<CompareReport>> {
  const reportA = await runMetrics(a, options.statistics, ks);
  const reportB = await runMetrics(b, options.statistics, ks);
  const report = compareRuns({ report: reportA, ...a }, { report: reportB, ...b }, options);
  const markdown = renderCompareMarkdown(report);
  const html = renderHtml({
    title: `minedit eval compare: ${reportA.name} vs ${reportB.name}`,
    markdown,
    charts: await compareCharts(report),
    runs: [
      { name: `A: ${reportA.name}`, tasks: a.tasks, samples: a.samples },
      { name: `B: ${reportB.name}`, tasks: b.tasks, samples: b.samples },
    ],
  });
  return { report, markdown, html };
}
