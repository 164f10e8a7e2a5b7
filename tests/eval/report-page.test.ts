/**
 * The HTML page of `eval compare` (and of `eval report`) in a real headless browser: Debian's `chromium`
 * (scripts/ensure-system.sh installs it) loads the file offline with a fresh profile, and its console
 * (`--enable-logging=stderr`, every console message and uncaught error as a `CONSOLE` line) stays empty;
 * the DOM after the page's script ran (`--dump-dom`) has the three charts with their marks, the viewer's
 * tasks, and the filter's count (written by the script, so it ran). A control page that does log an
 * error shows the console is really watched. The page itself refers to nothing outside the file.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCompare, buildReport } from "../../src/eval/build-report.js";
import type { Statistics } from "../../src/eval/report-schema.js";
import { readRun } from "../../src/eval/run-files.js";

const CHROMIUM = "/usr/bin/chromium";
const GOLDEN = join(import.meta.dirname, "..", "fixtures", "eval", "golden");
const STATS: Statistics = {
  method: "cluster-bootstrap-percentile",
  unit: "problem",
  resamples: 300,
  seed: 0,
  level: 0.95,
};

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "minedit-eval-page-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Loads `file` in headless chromium; resolves to the DOM after scripts ran and the console lines. */
function load(file: string): Promise<{ dom: string; console: string[]; status: number | null }> {
  const profile = mkdtempSync(join(dir, "profile-"));
  const args = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
    "--enable-logging=stderr",
    "--v=0",
    "--dump-dom",
    `file://${file}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, args, { stdio: ["ignore", "pipe", "pipe"] });
    let dom = "";
    let log = "";
    child.stdout.on("data", (chunk: Buffer) => {
      dom += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ dom, status, console: log.split("\n").filter((line) => line.includes(":CONSOLE")) });
    });
  });
}

/** Where the pages' screenshots are kept after the run, for a human to look at. */
const SCREENSHOTS = join(import.meta.dirname, "..", "..", "test-results", "eval-report-page");

/** Renders `file` to a PNG of a 1400-pixel-wide window; resolves to chromium's exit status. */
function screenshot(file: string, png: string, height: number): Promise<number | null> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const profile = mkdtempSync(join(dir, "profile-"));
  const args = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--hide-scrollbars",
    `--user-data-dir=${profile}`,
    `--window-size=1400,${height}`,
    `--screenshot=${png}`,
    `file://${file}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, args, { stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve(status);
    });
  });
}

/** The SVG of chart `id` in a dumped DOM. */
function chartSvg(dom: string, id: string): string {
  const start = dom.indexOf(`data-chart="${id}"`);
  if (start === -1) return "";
  return dom.slice(start, dom.indexOf("</svg>", start));
}

/** The text contents of the `<text>` elements of an SVG, unescaped. */
function svgTexts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) =>
    (m[1] as string)
      .replaceAll("&amp;", "&")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&quot;", '"'),
  );
}

describe("the report page in headless chromium", () => {
  it("has chromium (scripts/ensure-system.sh installs Debian's chromium)", () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
  });

  it("notices console errors (control page)", { timeout: 90_000 }, async () => {
    const control = join(dir, "control.html");
    writeFileSync(
      control,
      "<!doctype html><title>x</title><script>console.error('control-error'); missing();</script>",
    );
    const { console: lines } = await load(control);
    expect(lines.some((l) => l.includes("control-error"))).toBe(true);
    expect(lines.some((l) => l.includes("Uncaught ReferenceError"))).toBe(true);
  });

  it("loads the comparison page with no console message, its three charts and every task", {
    timeout: 90_000,
  }, async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const b = await readRun(join(GOLDEN, "run-b"));
    const { html } = await buildCompare(a, b, { statistics: STATS, alpha: 0.05, power: 0.8 }, [2]);
    // Self-contained: no attribute loads anything (namespaces are not loads).
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["'](?!#|data:)/i);
    expect(html).not.toMatch(/url\((?!#)/);
    const file = join(dir, "compare.html");
    writeFileSync(file, html);
    const { dom, console: lines, status } = await load(file);
    expect(status).toBe(0);
    expect(lines).toEqual([]);
    for (const chart of ["forest-in-domain", "forest-ood", "scatter", "domains"]) {
      const start = dom.indexOf(`data-chart="${chart}"`);
      expect(start, `chart ${chart}`).toBeGreaterThan(-1);
      const svg = dom.slice(start, dom.indexOf("</svg>", start));
      expect(svg).toMatch(/class="mark-(symbol|rule|rect|line)/);
      expect((svg.match(/<path /g) ?? []).length).toBeGreaterThan(5);
    }
    expect(dom).toContain("Per-family paired deltas (B − A): in-domain families");
    expect((dom.match(/<details class="task"/g) ?? []).length).toBe(14);
    expect(dom).toContain('<span id="shown">14 of 14 tasks</span>');
    expect(dom).toContain("McNemar");
  });

  it("loads a single run's page too", { timeout: 90_000 }, async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const { html } = await buildReport([a], STATS, [2]);
    const file = join(dir, "report.html");
    writeFileSync(file, html);
    const { dom, console: lines } = await load(file);
    expect(lines).toEqual([]);
    expect((dom.match(/data-chart="/g) ?? []).length).toBe(4);
    expect(dom).toContain("API_ERROR");
  });

  it("shows what a reader needs: labels as text, names uncut, n beside intervals, A before B, no blank code lines", {
    timeout: 180_000,
  }, async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const b = await readRun(join(GOLDEN, "run-b"));
    // Names that sort B before A, and a family name longer than any default label limit.
    const long = "a_corruption_family_with_a_name_far_longer_than_any_axis_label_limit_of_vega";
    const rename = (run: typeof a, name: string) => ({
      ...run,
      manifest: { ...run.manifest, name },
      tasks: run.tasks.map((t) => ({
        ...t,
        families: t.families.map((f) => (f === "copy_removal" ? long : f)),
      })),
    });
    const runA = rename(a, "zeta-model · explicit · high");
    const runB = rename(b, "alpha-model · explicit · high");
    const { html, report } = await buildCompare(
      runA,
      runB,
      { statistics: STATS, alpha: 0.05, power: 0.8 },
      [2],
    );
    const file = join(dir, "compare-named.html");
    writeFileSync(file, html);
    const { dom, console: lines } = await load(file);
    expect(lines).toEqual([]);
    const families = Object.keys(report.families.contains);
    expect(families).toContain(long);

    // Scatter: the family names are visible <text> elements (not only aria-labels); at least most of them.
    const scatterTexts = svgTexts(chartSvg(dom, "scatter"));
    const labelled = families.filter((f) => scatterTexts.includes(f));
    expect(labelled.length).toBeGreaterThanOrEqual(Math.ceil(families.length / 2));

    // Forests: every family name in full as an axis label, nothing ellipsized anywhere in any chart.
    const forestTexts = [
      ...svgTexts(chartSvg(dom, "forest-in-domain")),
      ...svgTexts(chartSvg(dom, "forest-ood")),
    ];
    for (const family of families) expect(forestTexts, family).toContain(family);
    for (const id of ["forest-in-domain", "forest-ood", "scatter", "domains"])
      expect(svgTexts(chartSvg(dom, id)).filter((t) => t.endsWith("…"))).toEqual([]);

    // n beside each interval: one "n=…" per drawn interval, with the group's own count (hand check: the
    // Pass@1 panel's n is the family's paired task count).
    const drawn = Object.values(report.families.contains).flatMap((m) =>
      [
        [m.pass_delta, m.tasks],
        [m.excess_delta, m.joint_passing],
        [m.added_cc_delta, m.joint_passing],
      ].filter(([interval]) => interval !== null),
    );
    const nTexts = forestTexts.filter((t) => /^n=\d+$/.test(t));
    expect(nTexts.length).toBe(drawn.length);
    expect(nTexts.sort()).toEqual(drawn.map(([, n]) => `n=${n}`).sort());

    // A before B: in the legend of the domain panels and in the viewer's columns.
    const domainTexts = svgTexts(chartSvg(dom, "domains"));
    const legendA = domainTexts.indexOf("A: zeta-model · explicit · high");
    const legendB = domainTexts.indexOf("B: alpha-model · explicit · high");
    expect(legendA).toBeGreaterThan(-1);
    expect(legendB).toBeGreaterThan(legendA);
    const viewerA = dom.indexOf("M: A: zeta-model");
    expect(viewerA).toBeGreaterThan(-1);
    expect(dom.indexOf("M: B: alpha-model")).toBeGreaterThan(viewerA);

    // The viewer's code: no text between the line spans of a diff (a newline there is a blank line).
    const pres = [...dom.matchAll(/<pre class="code">([\s\S]*?)<\/pre>/g)].map((m) => m[1] as string);
    expect(pres.length).toBeGreaterThan(10);
    for (const pre of pres) expect(pre).not.toMatch(/<\/span>\s+<span/);

    const png = join(SCREENSHOTS, "compare.png");
    expect(await screenshot(file, png, 4000)).toBe(0);
    expect(readFileSync(png).subarray(1, 4).toString("latin1")).toBe("PNG");
  });

  it("draws two runs that share a name as two bars, not one stacked bar", { timeout: 90_000 }, async () => {
    const a = await readRun(join(GOLDEN, "run-a"));
    const twin = { ...a, manifest: { ...a.manifest, name: "same" } };
    const { html } = await buildReport([twin, twin], STATS, [2]);
    const file = join(dir, "twins.html");
    writeFileSync(file, html);
    const { dom } = await load(file);
    const svg = chartSvg(dom, "domains");
    // The Pass@1 panel's bars: one per run and domain, each at its own x (stacked bars would share one).
    const panel = svg.slice(0, svg.indexOf("concat_1"));
    const bars = [...panel.matchAll(/aria-roledescription="bar" d="M([\d.]+),([\d.]+)h([\d.]+)v([\d.]+)/g)];
    const domains = new Set(a.tasks.map((t) => t.domain)).size;
    expect(bars.length).toBe(2 * domains);
    expect(new Set(bars.map((m) => m[1])).size).toBe(2 * domains);
    // Each bar rises from the axis (y + height = the panel's 180 px): none sits on top of another.
    for (const m of bars) expect(Number(m[2]) + Number(m[4])).toBeCloseTo(180, 6);
    const png = join(SCREENSHOTS, "twins.png");
    expect(await screenshot(file, png, 2000)).toBe(0);
  });
});
