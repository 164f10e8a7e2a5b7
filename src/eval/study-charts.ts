/**
 * The study's figures (study.ts), as Vega-Lite specifications rendered to static SVG by charts.ts's
 * `renderSvg` (offline, inline data):
 *
 * - Figure 2: each setting's excess (x) against Pass@1 (y); circles without reasoning, triangles with it;
 *   a line from a model's A-prompt setting to its B-prompt setting ends in an arrowhead at B; every B
 *   point (and every unpaired point) carries its name as visible text.
 * - Figure 3: per prompt, the mean over settings of each metric with its bootstrap interval.
 * - Figure 4: reasoning − no reasoning on jointly passing tasks, per family and prompt, one row per model.
 * - Figure 5: Pass@1, excess and added CC against model size (log scale), a line per series and prompt.
 *
 * Arrowheads are wedge points rotated towards B; their angle is computed here in pixels, so the scales'
 * domains are fixed here too (a wedge drawn with another domain would point elsewhere).
 */
import type { TopLevelSpec } from "vega-lite";
import { type Chart, renderSvg } from "./charts.js";
import { STUDY_METRICS, type StudyReport } from "./study.js";

const FONT = "Helvetica, Arial, sans-serif";
const CONFIG = {
  font: FONT,
  view: { stroke: "#ddd" },
  axis: { labelFontSize: 11, titleFontSize: 12 },
  legend: { labelLimit: 0, titleFontSize: 12, labelFontSize: 11 },
};
const WIDTH = 860;
const HEIGHT = 560;
/** Label text: font size, and the width of a character (an estimate for Helvetica at that size). */
const LABEL_FONT = 10;
const LABEL_CHAR_PX = 5.6;
/** Prompt colours: A blue, B orange, others after (Tableau 10). */
const PROMPT_COLORS = ["#4c78a8", "#f58518", "#54a24b", "#b279a2", "#9d755d"];

function domainOf(values: readonly number[], pad: number): [number, number] {
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  return [low - span * pad, high + span * pad];
}

function promptOrder(report: StudyReport): string[] {
  const prompts = [...new Set(report.settings.map((s) => s.prompt_group))];
  const rank = (p: string) => (report.pair.indexOf(p) < 0 ? 99 : report.pair.indexOf(p));
  return prompts.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * The labels that fit: in order, a label (to the right of its point) is kept when its box overlaps no
 * label kept before — the paper's "model names are shown where space permits". The others are in the
 * tooltip and the settings table.
 */
function placeLabels<T extends { model: string }>(
  points: readonly T[],
  px: (p: T) => number,
  py: (p: T) => number,
): T[] {
  const kept: { x0: number; x1: number; y0: number; y1: number }[] = [];
  const out: T[] = [];
  for (const p of points) {
    const x0 = px(p) + 7;
    const box = {
      x0,
      x1: x0 + p.model.length * LABEL_CHAR_PX,
      y0: py(p) - LABEL_FONT / 2,
      y1: py(p) + LABEL_FONT / 2,
    };
    if (box.x1 > WIDTH) continue;
    if (kept.some((k) => box.x0 < k.x1 && k.x0 < box.x1 && box.y0 < k.y1 && k.y0 < box.y1)) continue;
    kept.push(box);
    out.push(p);
  }
  return out;
}

function figure2(report: StudyReport): TopLevelSpec | null {
  const points = report.settings.flatMap((s) =>
    s.metrics.pass1 === null || s.metrics.excess === null
      ? []
      : [
          {
            name: s.name,
            model: s.reasoning === null ? s.model : `${s.model} · ${s.reasoning}`,
            prompt: s.prompt_group,
            reasoning: s.reasoning === null ? "no reasoning" : "reasoning",
            excess: s.metrics.excess.estimate,
            pass1: s.metrics.pass1.estimate,
          },
        ],
  );
  if (points.length === 0) return null;
  const x = domainOf(
    points.map((p) => p.excess),
    0.08,
  );
  const y = domainOf(
    points.map((p) => p.pass1),
    0.08,
  );
  const paired = new Map(report.matched.pairs.map((p) => [p.b, p.a]));
  const byName = new Map(points.map((p) => [p.name, p]));
  const segments: object[] = [];
  const heads: object[] = [];
  for (const [bName, aName] of paired) {
    const a = byName.get(aName);
    const b = byName.get(bName);
    if (a === undefined || b === undefined) continue;
    segments.push({ pair: bName, order: 0, excess: a.excess, pass1: a.pass1 });
    segments.push({ pair: bName, order: 1, excess: b.excess, pass1: b.pass1 });
    const dx = ((b.excess - a.excess) / (x[1] - x[0])) * WIDTH;
    const dy = -((b.pass1 - a.pass1) / (y[1] - y[0])) * HEIGHT;
    // The head sits at 80 % of the way, so B's own marker (circle or triangle) stays visible.
    heads.push({
      excess: a.excess + 0.8 * (b.excess - a.excess),
      pass1: a.pass1 + 0.8 * (b.pass1 - a.pass1),
      angle: (Math.atan2(dx, -dy) * 180) / Math.PI,
    });
  }
  const aNames = new Set(paired.values());
  const labels = placeLabels(
    points.filter((p) => !aNames.has(p.name)),
    (p) => ((p.excess - x[0]) / (x[1] - x[0])) * WIDTH,
    (p) => HEIGHT - ((p.pass1 - y[0]) / (y[1] - y[0])) * HEIGHT,
  );
  const xEnc = { field: "excess", type: "quantitative" as const, scale: { domain: x, nice: false } };
  const yEnc = { field: "pass1", type: "quantitative" as const, scale: { domain: y, nice: false } };
  const prompts = promptOrder(report);
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    width: WIDTH,
    height: HEIGHT,
    config: CONFIG,
    layer: [
      {
        data: { values: segments },
        mark: { type: "line", color: "#999", strokeWidth: 1 },
        encoding: { x: xEnc, y: yEnc, detail: { field: "pair" }, order: { field: "order" } },
      },
      {
        data: { values: heads },
        mark: { type: "point", shape: "wedge", filled: true, color: "#555", size: 180 },
        encoding: { x: xEnc, y: yEnc, angle: { field: "angle", type: "quantitative", scale: null } },
      },
      {
        data: { values: points },
        mark: { type: "point", filled: true, size: 70, opacity: 0.9 },
        encoding: {
          x: { ...xEnc, title: "Excess Levenshtein distance (lower: more minimal)" },
          y: { ...yEnc, title: "Pass@1" },
          color: {
            field: "prompt",
            type: "nominal",
            title: "Prompt",
            scale: { domain: prompts, range: PROMPT_COLORS },
          },
          shape: {
            field: "reasoning",
            type: "nominal",
            title: "Reasoning",
            scale: { domain: ["no reasoning", "reasoning"], range: ["circle", "triangle-up"] },
          },
          tooltip: [{ field: "name" }, { field: "pass1", format: ".3f" }, { field: "excess", format: ".4f" }],
        },
      },
      {
        data: { values: labels },
        mark: { type: "text", align: "left", baseline: "middle", dx: 7, fontSize: LABEL_FONT, color: "#333" },
        encoding: { x: xEnc, y: yEnc, text: { field: "model" } },
      },
    ],
  } as TopLevelSpec;
}

function figure3(report: StudyReport): TopLevelSpec | null {
  const rows = report.prompt_means.flatMap((p) =>
    STUDY_METRICS.flatMap((m) => {
      const v = p.metrics[m.key];
      return v === null
        ? []
        : [
            {
              prompt: p.prompt,
              metric: m.label,
              value: v.estimate,
              low: v.low,
              high: v.high,
              n: p.counts[m.key],
            },
          ];
    }),
  );
  if (rows.length === 0) return null;
  const prompts = promptOrder(report);
  const panel = (label: string) => ({
    title: label,
    width: 150,
    height: 200,
    data: { values: rows.filter((r) => r.metric === label) },
    layer: [
      {
        mark: { type: "bar" },
        encoding: {
          x: { field: "prompt", type: "nominal", sort: prompts, title: null, axis: { labelAngle: 0 } },
          y: { field: "value", type: "quantitative", title: `${label} (mean over settings)` },
          color: {
            field: "prompt",
            type: "nominal",
            scale: { domain: prompts, range: PROMPT_COLORS },
            legend: null,
          },
        },
      },
      {
        mark: { type: "rule", strokeWidth: 1.5, color: "#222" },
        encoding: {
          x: { field: "prompt", type: "nominal", sort: prompts },
          y: { field: "low", type: "quantitative" },
          y2: { field: "high" },
        },
      },
      {
        mark: { type: "text", dy: -8, fontSize: 10 },
        encoding: {
          x: { field: "prompt", type: "nominal", sort: prompts },
          y: { field: "high", type: "quantitative" },
          text: { field: "label" },
        },
        transform: [{ calculate: "'n = ' + datum.n", as: "label" }],
      },
    ],
  });
  const labels = [...new Set(rows.map((r) => r.metric))];
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    config: CONFIG,
    hconcat: labels.map(panel),
  } as TopLevelSpec;
}

function figure4(report: StudyReport): TopLevelSpec | null {
  if (report.reasoning.length === 0) return null;
  const prompts = promptOrder(report);
  const models = [...new Set(report.reasoning.map((r) => `${r.model} · ${r.reasoning}`))];
  const rows = report.reasoning.flatMap((r) => [
    { ...r, who: `${r.model} · ${r.reasoning}`, metric: "Δ excess", value: r.excess },
    { ...r, who: `${r.model} · ${r.reasoning}`, metric: "Δ added CC", value: r.added_cc },
  ]);
  const panel = (who: string, metric: string) => ({
    title: { text: `${who}: ${metric}`, fontSize: 12 },
    width: 230,
    height: { step: 14 },
    data: { values: rows.filter((r) => r.who === who && r.metric === metric && r.value !== null) },
    layer: [
      {
        mark: { type: "bar" },
        encoding: {
          y: { field: "family", type: "nominal", title: null, axis: { labelLimit: 0 } },
          yOffset: { field: "prompt", sort: prompts },
          x: { field: "value", type: "quantitative", title: `${metric} (reasoning − none)` },
          color: { field: "prompt", type: "nominal", scale: { domain: prompts, range: PROMPT_COLORS } },
          tooltip: [{ field: "family" }, { field: "tasks" }, { field: "value", format: ".4f" }],
        },
      },
      { mark: { type: "rule", color: "#888" }, encoding: { x: { datum: 0 } } },
    ],
  });
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    config: CONFIG,
    vconcat: models.map((who) => ({ hconcat: [panel(who, "Δ excess"), panel(who, "Δ added CC")] })),
  } as TopLevelSpec;
}

function figure5(report: StudyReport): TopLevelSpec | null {
  if (report.scaling.length === 0) return null;
  const prompts = promptOrder(report);
  const rows = report.scaling.flatMap((p) =>
    STUDY_METRICS.filter((m) => m.key !== "over_edit").map((m) => ({
      series: p.series,
      prompt: p.prompt,
      line: [p.series, p.prompt, p.reasoning].filter((x) => x !== null).join(" · "),
      size: p.size,
      metric: m.label,
      value: p[m.key as "pass1" | "excess" | "added_cc"],
    })),
  );
  const panel = (label: string) => ({
    title: label,
    width: 200,
    height: 200,
    data: { values: rows.filter((r) => r.metric === label && r.value !== null) },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "size", type: "quantitative", scale: { type: "log" }, title: "Model size (B parameters)" },
      y: { field: "value", type: "quantitative", title: label, scale: { zero: false } },
      color: { field: "prompt", type: "nominal", scale: { domain: prompts, range: PROMPT_COLORS } },
      detail: { field: "line" },
      tooltip: [{ field: "series" }, { field: "size" }, { field: "value", format: ".3f" }],
    },
  });
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    config: CONFIG,
    hconcat: ["Pass@1", "Excess Lev.", "Added CC"].map(panel),
  } as TopLevelSpec;
}

/** The study's figures that its data allow, rendered. */
export async function studyCharts(report: StudyReport): Promise<Chart[]> {
  const [a, b] = report.pair;
  const specs: { id: string; title: string; description: string; spec: TopLevelSpec | null }[] = [
    {
      id: "fig2",
      title: "Figure 2: excess vs Pass@1 per setting",
      description: `Each point is a setting; circles have no reasoning, triangles do. A grey line with an arrowhead goes from a model's ${a} setting to its ${b} setting; names are written beside a model's B setting (and beside unpaired points) where space permits; every setting is in the table above and in the points' tooltips.`,
      spec: figure2(report),
    },
    {
      id: "fig3",
      title: "Figure 3: means over settings per prompt",
      description:
        "Bars: the mean over settings of each metric; whiskers: 95 % bootstrap intervals over settings; n: settings.",
      spec: figure3(report),
    },
    {
      id: "fig4",
      title: "Figure 4: reasoning minus no reasoning, on tasks both repair",
      description:
        "Per model, family (tasks containing it; 'all' for every task) and prompt; negative values: reasoning repairs more minimally.",
      spec: figure4(report),
    },
    {
      id: "fig5",
      title: "Figure 5: metrics by model size",
      description:
        "A line per model series and prompt; Pass@1 over all tasks, excess and added CC over passing repairs.",
      spec: figure5(report),
    },
  ];
  const charts: Chart[] = [];
  for (const s of specs) {
    if (s.spec === null) continue;
    charts.push({ id: s.id, title: s.title, description: s.description, svg: await renderSvg(s.spec, s.id) });
  }
  return charts;
}
