/**
 * `minedit eval report` and `minedit eval compare`: read run directories (run-files.ts), compute the
 * metrics again from their tasks and samples (so a report can be rebuilt with other bootstrap settings,
 * or after minedit changed its renderings), and write the JSON, Markdown and HTML. Nothing is generated
 * or executed: both work on a machine without the endpoint and without a sandbox.
 */
import { basename, join } from "node:path";
import type { StdIo } from "../io/std-io.js";
import { buildCompare, buildReport } from "./build-report.js";
import { renderSummaryMarkdown } from "./markdown.js";
import type { Statistics } from "./report-schema.js";
import { readRun, writeReportFiles } from "./run-files.js";
import { assertDistinctRunNames } from "./run-name.js";

export type EvalReportRequest = {
  runs: readonly string[];
  outDir: string;
  statistics: Statistics;
  ks: readonly number[];
};

/** Rebuilds the report of one or more runs into `outDir` (report.json|md|html). */
export async function runEvalReport(request: EvalReportRequest, io: StdIo): Promise<number> {
  const runs = [];
  for (const dir of request.runs) runs.push(await readRun(dir));
  assertDistinctRunNames(runs.map((run, i) => ({ name: run.manifest.name, dir: request.runs[i] as string })));
  const rendered = await buildReport(runs, request.statistics, request.ks);
  const paths = await writeReportFiles(request.outDir, "report", rendered);
  io.stdout.write(renderSummaryMarkdown(rendered.report));
  io.stderr.write(`minedit eval report: wrote ${paths.json}, ${paths.markdown}, ${paths.html}\n`);
  return 0;
}

export type EvalCompareRequest = {
  runA: string;
  runB: string;
  /** Default: RUN_B/compare-<basename of RUN_A>. */
  outDir: string | undefined;
  statistics: Statistics;
  alpha: number;
  power: number;
  ks: readonly number[];
};

/** The paired comparison of two runs into `outDir` (compare.json|md|html). */
export async function runEvalCompare(request: EvalCompareRequest, io: StdIo): Promise<number> {
  const a = await readRun(request.runA);
  const b = await readRun(request.runB);
  assertDistinctRunNames([
    { name: a.manifest.name, dir: request.runA },
    { name: b.manifest.name, dir: request.runB },
  ]);
  const rendered = await buildCompare(
    a,
    b,
    { statistics: request.statistics, alpha: request.alpha, power: request.power },
    request.ks,
  );
  const outDir =
    request.outDir ?? join(request.runB, `compare-${basename(request.runA.replace(/\/+$/, "")) || "a"}`);
  const paths = await writeReportFiles(outDir, "compare", rendered);
  io.stdout.write(rendered.markdown);
  io.stderr.write(`minedit eval compare: wrote ${paths.json}, ${paths.markdown}, ${paths.html}\n`);
  return 0;
}
