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

/**
 * The colour (and offset) channel of a chart with several runs: keyed by the run's position (0, 1, …), never
 * by its name, so two runs that happen to share a name stay two series (a key by name stacked their bars),
 * and the legend lists them in the order given (A before B). The legend shows the names, unabridged.
 */
/** Colour by domain (in-domain / OOD), where there is one run. */
const DOMAIN_CHANNEL = { field: "domain", type: "nominal", title: "Domain" } as const;

function runChannel(names: readonly string[]): object {
  return {
    field: "run",
    type: "nominal",
    title: "Run",
    scale: { domain: names.map((_, i) => i) },
    legend: {
      labelExpr: `${JSON.stringify(names)}[+datum.value]`,
      labelLimit: 0,
      orient: "bottom",
      direction: "vertical",
    },
  };
}

/** Per offset band (one run of a family row), in pixels: four runs fit a family in about 30 px. */
const FOREST_RUN_STEP = 7;
/** Per family row without offsets. */
const FOREST_ROW_STEP = 18;
/** Family names are never cut. */
const NO_LIMIT = 0;

function forestSpec(
  rows: Row[],
  options: { delta: boolean; color: object; offset: boolean; order: string[] },
): TopLevelSpec {
  const panel = (metric: (typeof METRICS)[number], index: number) => {
    const data = rows.filter((r) => r.metric === metric.key && r.value !== null);
    // The family names once, in full, left of the first panel: repeated beside each panel, a long name
    // made the figure so wide that the page scaled it down to unreadable text.
    const y = {
      field: "family",
      type: "nominal" as const,
      sort: options.order,
      title: null,
      axis: index === 0 ? { labelLimit: NO_LIMIT } : { labels: false, ticks: false, domain: false },
    };
    const color = options.color;
    const yOffset = options.offset ? { yOffset: { field: "run", type: "nominal" } } : {};
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
        mark: { type: "point", filled: true, size: options.offset ? 24 : 40 },
        encoding: {
          y,
          ...yOffset,
          x: { field: "value", type: "quantitative" },
          color,
          tooltip: [
            { field: "family" },
            { field: "run_name", title: "run" },
            { field: "value", format: ".3f" },
            { field: "n" },
          ],
        },
      },
      // The interval's n beside it: a single-task family's interval has no width, and says why.
      {
        mark: { type: "text", align: "left", dx: 4, fontSize: options.offset ? 8 : 9, color: "#555" },
        encoding: {
          y,
          ...yOffset,
          x: { field: "high", type: "quantitative" },
          text: { field: "n_label" },
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
      width: 200,
      height: { step: options.offset ? FOREST_RUN_STEP : FOREST_ROW_STEP },
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

/** The scatter plot's size and font, which the label placement below computes with. */
const SCATTER = { width: 520, height: 360, fontSize: 9, charWidth: 5.2, lineHeight: 11 };

/**
 * Chooses the visible family labels of the scatter plot: each point's label goes to its right, nudged up
 * or down a line when it would overlap a label already placed (or a point), and is left out (the point
 * keeps its tooltip) when no nudge frees it. Greedy in the order given, so put the points that matter most
 * first. Returns, per row, the label text ("" when left out) and its vertical nudge in pixels.
 */
export function placeScatterLabels(
  points: readonly { x: number; y: number; label: string }[],
  xDomain: readonly [number, number],
): { text: string; dy: number }[] {
  const [x0, x1] = xDomain;
  const px = (x: number) => (x1 === x0 ? SCATTER.width / 2 : ((x - x0) / (x1 - x0)) * SCATTER.width);
  const py = (y: number) => (1 - y) * SCATTER.height;
  type Box = { left: number; right: number; top: number; bottom: number };
  const overlaps = (a: Box, b: Box) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const taken: Box[] = points.map((p) => ({
    left: px(p.x) - 4,
    right: px(p.x) + 4,
    top: py(p.y) - 4,
    bottom: py(p.y) + 4,
  }));
  const nudges = [
    0,
    -SCATTER.lineHeight,
    SCATTER.lineHeight,
    -2 * SCATTER.lineHeight,
    2 * SCATTER.lineHeight,
  ];
  return points.map((p) => {
    const width = p.label.length * SCATTER.charWidth;
    for (const dy of nudges) {
      const left = px(p.x) + 6;
      const box = {
        left,
        right: left + width,
        top: py(p.y) + dy - SCATTER.lineHeight / 2,
        bottom: py(p.y) + dy + SCATTER.lineHeight / 2,
      };
      // A label may not leave the plot (it would be cut) nor cover another label or point.
      if (box.right > SCATTER.width + 80 || box.top < -4 || box.bottom > SCATTER.height + 4) continue;
      if (taken.some((other) => overlaps(box, other))) continue;
      taken.push(box);
      return { text: p.label, dy };
    }
    return { text: "", dy: 0 };
  });
}

function scatterSpec(rows: Row[], connect: boolean, names: readonly string[]): TopLevelSpec {
  const data = rows.filter((r) => r.excess !== null && r.pass !== null);
  const xs = data.map((r) => r.excess as number);
  const low = Math.min(...xs, 0);
  const high = Math.max(...xs, 0);
  const pad = (high - low) * 0.05 || 0.05;
  const xDomain: [number, number] = [low - pad, high + pad];
  // Label the last run's points first (B in a comparison), then the others.
  const order = data.map((_, i) => i).sort((a, b) => (data[b]?.run as number) - (data[a]?.run as number));
  const placed = placeScatterLabels(
    order.map((i) => ({
      x: data[i]?.excess as number,
      y: data[i]?.pass as number,
      label: String(data[i]?.family),
    })),
    xDomain,
  );
  const labelled = data.map((row) => ({ ...row, label: "", label_dy: 0 }));
  order.forEach((i, k) => {
    const row = labelled[i];
    const place = placed[k];
    if (row !== undefined && place !== undefined) {
      row.label = place.text;
      row.label_dy = place.dy;
    }
  });
  const x = { field: "excess", type: "quantitative", scale: { domain: xDomain, nice: false } };
  const y = { field: "pass", type: "quantitative", scale: { domain: [0, 1] } };
  const layers: object[] = [];
  if (connect) {
    layers.push({
      mark: { type: "line", color: "#bbb", strokeWidth: 1 },
      encoding: { x, y, detail: { field: "family" }, order: { field: "run" } },
    });
  }
  layers.push({
    mark: { type: "point", filled: true, size: 70, opacity: 0.85 },
    encoding: {
      x: { ...x, title: "Mean excess Lev. over passing repairs ↓" },
      y: { ...y, title: "Pass@1 ↑" },
      color: runChannel(names),
      shape: { field: "domain", type: "nominal", title: "Domain", legend: { orient: "bottom" } },
      tooltip: [
        { field: "family" },
        { field: "run_name", title: "run" },
        { field: "pass", format: ".3f" },
        { field: "excess", format: ".3f" },
      ],
    },
  });
  // The family names as visible text (placed by placeScatterLabels), not only in the marks' aria-labels.
  for (const dy of [...new Set(labelled.map((r) => r.label_dy))]) {
    layers.push({
      data: { values: labelled.filter((r) => r.label !== "" && r.label_dy === dy) },
      mark: {
        type: "text",
        align: "left",
        baseline: "middle",
        dx: 6,
        dy,
        fontSize: SCATTER.fontSize,
        color: "#333",
      },
      encoding: { x, y, text: { field: "label" } },
    });
  }
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: CONFIG,
    width: SCATTER.width,
    height: SCATTER.height,
    padding: { right: 90 },
    data: { values: labelled },
    layer: layers,
  } as unknown as TopLevelSpec;
}

function panelsSpec(rows: Row[], names: readonly string[]): TopLevelSpec {
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
          // One bar per run side by side, keyed by position: runs never stack (no `y` aggregation).
          xOffset: { field: "run", type: "nominal", scale: { domain: names.map((_, i) => i) } },
          y: { field: "value", type: "quantitative", title: metric.label, stack: null },
          color: runChannel(names),
          tooltip: [
            { field: "run_name", title: "run" },
            { field: "domain" },
            { field: "value", format: ".3f" },
          ],
        },
      },
      {
        mark: { type: "rule", color: "#222" },
        encoding: {
          x: { field: "domain", type: "nominal", sort: DOMAIN_SORT },
          xOffset: { field: "run", type: "nominal", scale: { domain: names.map((_, i) => i) } },
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

/**
 * One forest plot per family group ({@link familyGroups}) of `rows`; `text` gives each its title and
 * description from the group's domain label.
 */
async function forestCharts(
  rows: Row[],
  families: Record<string, { domain: string }>,
  style: { delta: boolean; color: object; offset: boolean },
  text: (label: string) => { title: string; description: string },
): Promise<Chart[]> {
  const charts: Chart[] = [];
  for (const group of familyGroups(families)) {
    const id = `forest-${group.domain.replace(/[^a-z0-9]+/gi, "-")}`;
    const spec = forestSpec(
      rows.filter((r) => group.families.includes(r.family as string)),
      { ...style, order: group.families },
    );
    charts.push({ id, ...text(domainLabel(group.domain)), svg: await renderSvg(spec, id) });
  }
  return charts;
}

/** The family groups of the forest plots, in the report's order: by domain (in-domain, OOD, mixed, …). */
function familyGroups(
  families: Record<string, { domain: string }>,
): { domain: string; families: string[] }[] {
  const domains = [...new Set(Object.values(families).map((f) => f.domain))].sort(
    (a, b) => rank(domainLabel(a)) - rank(domainLabel(b)) || a.localeCompare(b),
  );
  return domains.map((domain) => ({
    domain,
    families: familyOrder(families).filter((name) => families[name]?.domain === domain),
  }));
}

function rank(label: string): number {
  const index = DOMAIN_SORT.indexOf(label);
  return index === -1 ? DOMAIN_SORT.length : index;
}

function nLabel(n: number): string {
  return `n=${n}`;
}

function domainRows(runs: readonly RunReport[]): Row[] {
  const rows: Row[] = [];
  runs.forEach((run, index) => {
    for (const [domain, m] of Object.entries(run.domains)) {
      for (const metric of METRICS) {
        rows.push({
          run: index,
          run_name: run.name,
          domain: domainLabel(domain),
          metric: metric.key,
          ...intervalRow(m[metric.field]),
        });
      }
    }
  });
  return rows;
}

function scatterRows(runs: readonly RunReport[]): Row[] {
  return runs.flatMap((run, index) =>
    Object.entries(run.families.contains).map(([family, m]: [string, GroupMetrics & { domain: string }]) => ({
      run: index,
      run_name: run.name,
      family,
      domain: domainLabel(m.domain),
      pass: m.pass_at_1?.estimate ?? null,
      excess: m.excess?.estimate ?? null,
    })),
  );
}

/** The charts of a report of one or more runs. */
export async function reportCharts(runs: readonly RunReport[]): Promise<Chart[]> {
  const charts: Chart[] = [];
  const names = runs.map((r) => r.name);
  const several = runs.length > 1;
  const withFamilies = runs.some((r) => Object.keys(r.families.contains).length > 0);
  if (withFamilies) {
    const rows: Row[] = runs.flatMap((run, index) =>
      Object.entries(run.families.contains).flatMap(([family, m]) =>
        METRICS.map((metric) => {
          const n = metric.key === "pass" ? m.tasks : m.passed_samples;
          return {
            run: index,
            run_name: run.name,
            family,
            domain: domainLabel(m.domain),
            metric: metric.key,
            n,
            n_label: nLabel(n),
            ...intervalRow(m[metric.field]),
          };
        }),
      ),
    );
    const all = Object.assign({}, ...runs.map((r) => r.families.contains));
    const forest = {
      delta: false,
      color: several ? runChannel(names) : DOMAIN_CHANNEL,
      offset: several,
    };
    const forests = await forestCharts(rows, all, forest, (label) => ({
      title: `Per-family estimates: ${label} families`,
      description:
        `One row per ${label} corruption family (tasks containing it). Each panel shows the estimate ` +
        "(point) and its 95 % bootstrap interval (line) of Pass@1, mean excess edit distance and mean added " +
        "cognitive complexity over passing repairs, with n beside it (tasks for Pass@1, passing samples " +
        `for the others: a one-task family has no spread to show)${several ? "; one colour per run" : ""}.`,
    }));
    charts.push(...forests);
    charts.push({
      id: "scatter",
      title: "Pass rate vs excess",
      description:
        "One point per family and run: Pass@1 (up is better) against the mean excess edit distance of the " +
        "passing repairs (left is better); the shape says in-domain or OOD. Points up and to the left repair " +
        "often and minimally. Labels that would overlap are left out (hover a point for its family).",
      svg: await renderSvg(scatterSpec(scatterRows(runs), false, names), "scatter"),
    });
  }
  if (runs.some((r) => Object.keys(r.domains).length > 0)) {
    charts.push({
      id: "domains",
      title: "In-domain vs OOD",
      description:
        "Pass@1, excess and added CC per domain (bars) with 95 % intervals (whiskers), one colour per run: " +
        "what changes on the held-out corruption families.",
      svg: await renderSvg(panelsSpec(domainRows(runs), names), "domains"),
    });
  }
  return charts;
}

/** The charts of a comparison. */
export async function compareCharts(report: CompareReport): Promise<Chart[]> {
  const charts: Chart[] = [];
  const names = [`A: ${report.a.name}`, `B: ${report.b.name}`];
  const families = report.families.contains;
  if (Object.keys(families).length > 0) {
    const rows: Row[] = Object.entries(families).flatMap(([family, m]) => {
      const domain = domainLabel(m.domain);
      const row = (metric: string, n: number, interval: IntervalValue | null | undefined) => ({
        family,
        domain,
        metric,
        n,
        n_label: nLabel(n),
        ...intervalRow(interval),
      });
      return [
        row("pass", m.tasks, m.pass_delta),
        row("excess", m.joint_passing, m.excess_delta),
        row("cc", m.joint_passing, m.added_cc_delta),
      ];
    });
    const forest = { delta: true, color: DOMAIN_CHANNEL, offset: false };
    const forests = await forestCharts(rows, families, forest, (label) => ({
      title: `Per-family paired deltas (B − A): ${label} families`,
      description:
        `One row per ${label} corruption family (tasks containing it). Each panel shows the paired ` +
        `difference ${report.b.name} − ${report.a.name} (point) and its 95 % paired bootstrap interval ` +
        "(line) for Pass@1, and for excess edit distance and added CC over the tasks both runs repair, with " +
        "n beside it (paired tasks; jointly passing tasks); the dashed rule is no difference. An interval " +
        "that crosses it is not a clear difference.",
    }));
    charts.push(...forests);
    charts.push({
      id: "scatter",
      title: "Pass rate vs excess",
      description:
        `One point per family and run (colour), joined by a grey line from ${report.a.name} to ` +
        `${report.b.name}: Pass@1 (up is better) against the mean excess edit distance of the passing repairs ` +
        "(left is better); the shape says in-domain or OOD. Labels that would overlap are left out (hover a " +
        "point for its family).",
      svg: await renderSvg(scatterSpec(scatterRows([report.a, report.b]), true, names), "scatter"),
    });
  }
  charts.push({
    id: "domains",
    title: "In-domain vs OOD",
    description:
      "Pass@1, excess and added CC per domain (bars) with 95 % intervals (whiskers) for both runs (A, then B), " +
      "over each run's own evaluated tasks.",
    svg: await renderSvg(panelsSpec(domainRows([report.a, report.b]), names), "domains"),
  });
  return charts;
}
