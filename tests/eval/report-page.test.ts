/**
 * The HTML page of `eval compare` (and of `eval report`) in a real headless browser: Debian's `chromium`
 * (scripts/ensure-system.sh installs it) loads the file offline with a fresh profile, and its console
 * (`--enable-logging=stderr`, every console message and uncaught error as a `CONSOLE` line) stays empty;
 * the DOM after the page's script ran (`--dump-dom`) has the three charts with their marks, the viewer's
 * tasks, and the filter's count (written by the script, so it ran). A control page that does log an
 * error shows the console is really watched. The page itself refers to nothing outside the file.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
    for (const chart of ["forest", "scatter", "domains"]) {
      const start = dom.indexOf(`data-chart="${chart}"`);
      expect(start, `chart ${chart}`).toBeGreaterThan(-1);
      const svg = dom.slice(start, dom.indexOf("</svg>", start));
      expect(svg).toMatch(/class="mark-(symbol|rule|rect|line)/);
      expect((svg.match(/<path /g) ?? []).length).toBeGreaterThan(5);
    }
    expect(dom).toContain("Per-family paired deltas (B − A)");
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
    expect((dom.match(/data-chart="/g) ?? []).length).toBe(3);
    expect(dom).toContain("API_ERROR");
  });
});
