/**
 * The report's charts, as Vega-Lite specifications rendered to static SVG in Node (vega's headless view,
 * `renderer: "none"` + `toSVG()`): no browser, no canvas and no network — the data are inline values — so
 * the HTML page that embeds them opens offline and shows the same pictures everywhere.
 *
 * - Forest plot: one row per corruption family (tasks containing it), a point and its 95 % interval per
 *   metric panel (Pass@1, excess, added CC). For a comparison the points are the paired deltas B − A with
 *   a rule at 0; for a report, each run's estimates.
 * - Pass rate vs excess: one point per family and run (x = mean excess over passing repairs, y = Pass@1),
 *   shaped by domain; in a comparison a line joins a family's A and B points.
 * - In-domain vs OOD panels: per metric a panel of bars per domain and run with interval whiskers.
 *
 * Each chart is returned with a short text description (the page shows it under the chart).
 */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { CompareReport, GroupMetrics, IntervalValue, RunReport } from "./report-schema.js";

/** One rendered chart. */
export type Chart = { id: string; title: string; description: string; svg: string };

type Row = Record<string, string | number | null>;

const METRICS = [
  { key: "pass", label: "Pass@1", field: "pass_at_1" },
  { key: "excess", label: "Excess Lev.", field: "excess" },
  { key: "cc", label: "Added CC", field: "added_cc" },
] as const;

const FONT = "Helvetica, Arial, sans-serif";
const CONFIG = {
  font: FONT,
  view: { stroke: "#ddd" },
  axis: { labelFontSize: 11, titleFontSize: 12 },
  axisQuantitative: { format: ".2~f" },
};

/** Domains in the order the paper reads them. */
const DOMAIN_SORT = ["in-domain", "OOD", "mixed", "unknown"];

function intervalRow(interval: IntervalValue | null | undefined): {
  value: number | null;
  low: number | null;
  high: number | null;
} {
  return interval == null
    ? { value: null, low: null, high: null }
    : { value: interval.estimate, low: interval.low, high: interval.high };
}

/**
 * Renders a Vega-Lite spec to SVG. Element ids (clip paths, gradients) are prefixed with `id`, so several
 * charts inline in one page do not resolve each other's references.
 */
export async function renderSvg(spec: TopLevelSpec, id: string): Promise<string> {
  const compiled = compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    const svg = await view.toSVG();
    return svg
      .replace(/\bid="([^"]+)"/g, (_, name: string) => `id="${id}-${name}"`)
      .replace(/url\(#([^)]+)\)/g, (_, name: string) => `url(#${id}-${name})`)
      .replace("<svg ", `<svg role="img" aria-labelledby="${id}-title" data-chart="${id}" `);
  } finally {
    view.finalize();
  }
}

function forestSpec(
  rows: Row[],
  options: { delta: boolean; colorField: string; colorTitle: string; offset: boolean; order: string[] },
): TopLevelSpec {
  const panel = (metric: (typeof METRICS)[number]) => {
    const data = rows.filter((r) => r.metric === metric.key && r.value !== null);
    const y = {
      field: "family",
      type: "nominal" as const,
      sort: options.order,
      title: null,
      axis: { labelLimit: 220 },
    };
    const color = { field: options.colorField, type: "nominal" as const, title: options.colorTitle };
    const yOffset = options.offset ? { yOffset: { field: options.colorField } } : {};
    const layers: object[] = [
      {
        mark: { type: "rule", strokeWidth: 1.5 },
        encoding: {
          y,
          ...yOffset,
          x: {
            field: "low",
            type: "quantitative",
            title: options.delta ? `Δ ${metric.label} (B − A)` : metric.label,
            scale: { zero: false },
          },
          x2: { field: "high" },
          color,
        },
      },
      {
        mark: { type: "point", filled: true, size: 40 },
        encoding: {
          y,
          ...yOffset,
          x: { field: "value", type: "quantitative" },
          color,
          tooltip: [{ field: "family" }, { field: "value", format: ".3f" }],
        },
      },
    ];
    if (options.delta)
      layers.unshift({
        mark: { type: "rule", color: "#888", strokeDash: [4, 3] },
        encoding: { x: { datum: 0 } },
      });
    return {
      title: metric.label,
      width: 180,
      height: { step: options.offset ? 22 : 16 },
      data: { values: data },
      layer: layers,
    };
  };
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: CONFIG,
    hconcat: METRICS.map(panel),
    resolve: { scale: { y: "shared" } },
  } as unknown as TopLevelSpec;
}

function scatterSpec(rows: Row[], connect: boolean): TopLevelSpec {
  const layers: object[] = [];
  if (connect) {
    layers.push({
      mark: { type: "line", color: "#bbb", strokeWidth: 1 },
      encoding: {
        x: { field: "excess", type: "quantitative" },
        y: { field: "pass", type: "quantitative" },
        detail: { field: "family" },
        order: { field: "order" },
      },
    });
  }
  layers.push({
    mark: { type: "point", filled: true, size: 70, opacity: 0.85 },
    encoding: {
      x: {
        field: "excess",
        type: "quantitative",
        title: "Mean excess Lev. over passing repairs ↓",
        scale: { zero: false },
      },
      y: { field: "pass", type: "quantitative", title: "Pass@1 ↑", scale: { domain: [0, 1] } },
      color: { field: "run", type: "nominal", title: "Run" },
      shape: { field: "domain", type: "nominal", title: "Domain" },
      tooltip: [
        { field: "family" },
        { field: "run" },
        { field: "pass", format: ".3f" },
        { field: "excess", format: ".3f" },
      ],
    },
  });
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: CONFIG,
    width: 460,
    height: 320,
    data: { values: rows.filter((r) => r.excess !== null && r.pass !== null) },
    layer: layers,
  } as unknown as TopLevelSpec;
}

function panelsSpec(rows: Row[]): TopLevelSpec {
  const panel = (metric: (typeof METRICS)[number]) => ({
    title: metric.label,
    width: 150,
    height: 180,
    data: { values: rows.filter((r) => r.metric === metric.key && r.value !== null) },
    layer: [
      {
        mark: { type: "bar" },
        encoding: {
          x: { field: "domain", type: "nominal", title: null, axis: { labelAngle: 0 }, sort: DOMAIN_SORT },
          xOffset: { field: "run" },
          y: { field: "value", type: "quantitative", title: metric.label },
          color: { field: "run", type: "nominal", title: "Run" },
          tooltip: [{ field: "run" }, { field: "domain" }, { field: "value", format: ".3f" }],
        },
      },
      {
        mark: { type: "rule", color: "#222" },
        encoding: {
          x: { field: "domain", type: "nominal", sort: DOMAIN_SORT },
          xOffset: { field: "run" },
          y: { field: "low", type: "quantitative" },
          y2: { field: "high" },
        },
      },
    ],
  });
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: CONFIG,
    hconcat: METRICS.map(panel),
  } as unknown as TopLevelSpec;
}

function domainLabel(domain: string): string {
  return domain === "in-domain" ? "in-domain" : domain === "ood" ? "OOD" : domain;
}

function familyOrder(families: Record<string, { domain: string }>): string[] {
  return Object.entries(families)
    .sort(([a, x], [b, y]) => x.domain.localeCompare(y.domain) || a.localeCompare(b))
    .map(([name]) => name);
}

function domainRows(runs: readonly RunReport[]): Row[] {
  const rows: Row[] = [];
  for (const run of runs) {
    for (const [domain, m] of Object.entries(run.domains)) {
      for (const metric of METRICS) {
        rows.push({
          run: run.name,
          domain: domainLabel(domain),
          metric: metric.key,
          ...intervalRow(m[metric.field]),
        });
      }
    }
  }
  return rows;
}

function scatterRows(runs: readonly RunReport[]): Row[] {
  return runs.flatMap((run, order) =>
    Object.entries(run.families.contains).map(([family, m]: [string, GroupMetrics & { domain: string }]) => ({
      run: run.name,
      family,
      domain: domainLabel(m.domain),
      pass: m.pass_at_1?.estimate ?? null,
      excess: m.excess?.estimate ?? null,
      order,
    })),
  );
}

/** The charts of a report of one or more runs. */
export async function reportCharts(runs: readonly RunReport[]): Promise<Chart[]> {
  const charts: Chart[] = [];
  const withFamilies = runs.filter((r) => Object.keys(r.families.contains).length > 0);
  if (withFamilies.length > 0) {
    const rows: Row[] = withFamilies.flatMap((run) =>
      Object.entries(run.families.contains).flatMap(([family, m]) =>
        METRICS.map((metric) => ({
          run: run.name,
          family,
          domain: domainLabel(m.domain),
          metric: metric.key,
          ...intervalRow(m[metric.field]),
        })),
      ),
    );
    const order = familyOrder(Object.assign({}, ...withFamilies.map((r) => r.families.contains)));
    charts.push({
      id: "forest",
      title: "Per-family estimates",
      description:
        "One row per corruption family (tasks containing it), in-domain families first. Each panel shows the " +
        "estimate (point) and its 95 % bootstrap interval (line) of Pass@1, mean excess edit distance and " +
        "mean added cognitive complexity over passing repairs; one colour per run (one run: per domain).",
      svg: await renderSvg(
        forestSpec(rows, {
          delta: false,
          colorField: runs.length > 1 ? "run" : "domain",
          colorTitle: runs.length > 1 ? "Run" : "Domain",
          offset: runs.length > 1,
          order,
        }),
        "forest",
      ),
    });
    charts.push({
      id: "scatter",
      title: "Pass rate vs excess",
      description:
        "One point per family and run: Pass@1 (up is better) against the mean excess edit distance of the " +
        "passing repairs (left is better); the shape says in-domain or OOD. Points up and to the left repair " +
        "often and minimally.",
      svg: await renderSvg(scatterSpec(scatterRows(withFamilies), false), "scatter"),
    });
  }
  if (runs.some((r) => Object.keys(r.domains).length > 0)) {
    charts.push({
      id: "domains",
      title: "In-domain vs OOD",
      description:
        "Pass@1, excess and added CC per domain (bars) with 95 % intervals (whiskers), one colour per run: " +
        "what changes on the held-out corruption families.",
      svg: await renderSvg(panelsSpec(domainRows(runs)), "domains"),
    });
  }
  return charts;
}

/** The charts of a comparison. */
export async function compareCharts(report: CompareReport): Promise<Chart[]> {
  const charts: Chart[] = [];
  const families = report.families.contains;
  if (Object.keys(families).length > 0) {
    const rows: Row[] = Object.entries(families).flatMap(([family, m]) => {
      const domain = domainLabel(m.domain);
      return [
        { family, domain, metric: "pass", ...intervalRow(m.pass_delta) },
        { family, domain, metric: "excess", ...intervalRow(m.excess_delta) },
        { family, domain, metric: "cc", ...intervalRow(m.added_cc_delta) },
      ];
    });
    charts.push({
      id: "forest",
      title: "Per-family paired deltas (B − A)",
      description:
        "One row per corruption family (tasks containing it), in-domain families first (colour: domain). Each " +
        `panel shows the paired difference ${report.b.name} − ${report.a.name} (point) and its 95 % paired bootstrap interval ` +
        "(line) for Pass@1, and for excess edit distance and added CC over the tasks both runs repair; the " +
        "dashed rule is no difference. An interval that crosses it is not a clear difference.",
      svg: await renderSvg(
        forestSpec(rows, {
          delta: true,
          colorField: "domain",
          colorTitle: "Domain",
          offset: false,
          order: familyOrder(families),
        }),
        "forest",
      ),
    });
    charts.push({
      id: "scatter",
      title: "Pass rate vs excess",
      description:
        `One point per family and run (colour), joined by a grey line from ${report.a.name} to ` +
        `${report.b.name}: Pass@1 (up is better) against the mean excess edit distance of the passing repairs ` +
        "(left is better); the shape says in-domain or OOD.",
      svg: await renderSvg(scatterSpec(scatterRows([report.a, report.b]), true), "scatter"),
    });
  }
  charts.push({
    id: "domains",
    title: "In-domain vs OOD",
    description:
      "Pass@1, excess and added CC per domain (bars) with 95 % intervals (whiskers) for both runs, over each " +
      "run's own evaluated tasks.",
    svg: await renderSvg(panelsSpec(domainRows([report.a, report.b])), "domains"),
  });
  return charts;
}
