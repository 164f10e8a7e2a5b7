/**
 * `minedit eval study`: reads run directories (run-files.ts) and summary files (study-settings.ts),
 * computes each run's metrics again from its tasks and samples (build-report.ts), builds the study
 * (study.ts) and writes study.json, study.md and study.html into `--out`. Nothing is generated or
 * executed.
 */
import { readFile } from "node:fs/promises";
import { ErrorCode, MineditError } from "../errors.js";
import type { SamplingParams } from "../generation/sampling.js";
import { fsReason } from "../io/inputs.js";
import type { StdIo } from "../io/std-io.js";
import { runMetrics } from "./build-report.js";
import { renderHtml } from "./html.js";
import type { Statistics } from "./report-schema.js";
import { type RunFiles, readRun, writeReportFiles } from "./run-files.js";
import { buildStudy, type StudySetting, type TaskResult } from "./study.js";
import { studyCharts } from "./study-charts.js";
import { renderStudyMarkdown } from "./study-markdown.js";
import {
  type MetricValue,
  parseSummaryRows,
  reasoningOfParams,
  type SettingIdentity,
  settingName,
  sizeFromModelName,
} from "./study-settings.js";
import { joinSamples } from "./task-samples.js";

/** What `--setting DIR:key=value,…` says of one run: its identity, where the manifest is silent or wrong. */
export type SettingOverride = Partial<SettingIdentity> & { name?: string };

export type EvalStudyRequest = {
  runs: readonly string[];
  summaries: readonly string[];
  overrides: ReadonlyMap<string, SettingOverride>;
  pair: [string, string];
  outDir: string;
  statistics: Statistics;
};

function invalid(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

const interval = (v: { estimate: number; low: number; high: number } | null): MetricValue | null =>
  v === null ? null : { estimate: v.estimate, low: v.low, high: v.high };

/** A run directory as a setting: identity from its manifest (and `override`), metrics from its samples. */
async function runSetting(
  run: RunFiles,
  override: SettingOverride,
  statistics: Statistics,
): Promise<StudySetting> {
  const m = run.manifest;
  const params = m.params as { reasoning_effort?: unknown; temperature?: unknown };
  const model = override.model ?? m.model ?? m.name;
  const identity: SettingIdentity = {
    model,
    prompt: override.prompt ?? m.prompt,
    reasoning:
      override.reasoning !== undefined ? override.reasoning : reasoningOfParams(m.params as SamplingParams),
    size: override.size !== undefined ? override.size : sizeFromModelName(model),
  };
  const report = await runMetrics({ manifest: m, tasks: run.tasks, samples: run.samples }, statistics, [
    m.samples,
  ]);
  const overall = report.overall;
  if (overall === null) throw invalid(`${run.dir}: the run has no evaluated repair task`);
  const perTask: TaskResult[] = joinSamples(run.tasks, run.samples)
    .filter((t) => t.task.kind === "repair")
    .map((t) => {
      const passing = t.samples.filter((s) => s.passed);
      const meanOf = (pick: (s: (typeof passing)[number]) => number | null) => {
        const values = passing.map(pick).filter((v): v is number => v !== null);
        return values.length === 0 ? null : values.reduce((x, y) => x + y, 0) / values.length;
      };
      return {
        task_id: t.task.task_id,
        families: t.task.families,
        excess: meanOf((s) => s.excess),
        added_cc: meanOf((s) => s.added_cc),
      };
    });
  return {
    ...identity,
    name: override.name ?? settingName(identity),
    source: run.dir,
    kind: "run",
    metrics: {
      pass1: interval(overall.pass_at_1),
      excess: interval(overall.excess),
      added_cc: interval(overall.added_cc),
      over_edit: interval(overall.over_edit_share),
    },
    tasks: overall.tasks,
    samples: m.samples,
    temperature: typeof params.temperature === "number" ? params.temperature : null,
    pass_at_k:
      m.samples > 1 ? { k: m.samples, value: interval(overall.pass_at_k[String(m.samples)] ?? null) } : null,
    per_task: perTask,
  };
}

async function summarySettings(path: string): Promise<StudySetting[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw invalid(`--summary: cannot read ${path}: ${fsReason(error)}`);
  }
  return parseSummaryRows(text, path).map((row) => ({
    model: row.model,
    prompt: row.prompt,
    reasoning: row.reasoning,
    size: row.size,
    name: row.label ?? settingName(row),
    source: row.source,
    kind: "summary",
    metrics: row.metrics,
    tasks: row.tasks,
    samples: row.samples,
    temperature: row.temperature,
    pass_at_k: null,
    per_task: null,
  }));
}

/** The study of `request`'s runs and summary rows, written to `outDir`; the Markdown on stdout. */
export async function runEvalStudy(request: EvalStudyRequest, io: StdIo): Promise<number> {
  for (const dir of request.overrides.keys())
    if (!request.runs.includes(dir))
      throw invalid(`--setting names ${dir}, which is not one of the run directories given`);
  const settings: StudySetting[] = [];
  for (const [index, dir] of request.runs.entries()) {
    io.stderr.write(`minedit eval study: reading run ${index + 1}/${request.runs.length} ${dir}\n`);
    settings.push(await runSetting(await readRun(dir), request.overrides.get(dir) ?? {}, request.statistics));
  }
  for (const path of request.summaries) settings.push(...(await summarySettings(path)));
  if (settings.length === 0) throw invalid("a study needs at least one run directory or --summary file");
  const report = buildStudy(settings, {
    pair: request.pair,
    bootstrap: {
      resamples: request.statistics.resamples,
      seed: request.statistics.seed,
      level: request.statistics.level,
    },
  });
  const markdown = renderStudyMarkdown(report);
  const html = renderHtml({
    title: `minedit eval study: ${settings.length} settings`,
    markdown,
    charts: await studyCharts(report),
    runs: [],
  });
  const paths = await writeReportFiles(request.outDir, "study", { report, markdown, html });
  io.stdout.write(markdown);
  io.stderr.write(`minedit eval study: wrote ${paths.json}, ${paths.markdown}, ${paths.html}\n`);
  return 0;
}
