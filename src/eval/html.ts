/**
 * The evaluation's HTML page: one self-contained file (inline CSS, inline SVG charts from charts.ts, one
 * small inline script for the viewer's filter; no external resource of any kind), so it opens offline and
 * can be mailed or archived as one file.
 *
 * Contents: the Markdown report's tables (rendered here from the same Markdown, so the two never
 * disagree), the charts with a caption each, and the per-sample viewer: per task, the corrupted program
 * C, the gold patch (C → G) and each run's repair (C → M, one per sample) side by side as line diffs, each
 * repair with its verdict and distances. Every task is a closed `<details>`; the filter hides tasks by id,
 * family or outcome. Without JavaScript the page shows everything and the filter does nothing.
 *
 * Pure: no I/O.
 */
import { type DiffLine, lineDiff } from "../core/line-diff.js";
import type { Chart } from "./charts.js";
import { fixed, signed } from "./markdown.js";
import type { SampleRecord, TaskRecord } from "./records.js";

/** One run's tasks and samples, for the viewer. */
export type ViewerRun = { name: string; tasks: readonly TaskRecord[]; samples: readonly SampleRecord[] };

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Inline Markdown of our own reports: `code`, **bold**. */
function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((c) => c.trim());
}

/**
 * The subset of Markdown the reports use — headings, paragraphs, `- ` lists and pipe tables (numeric
 * columns right-aligned as their delimiter row says) — as HTML.
 */
export function markdownToHtml(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const heading = /^(#{1,4}) (.*)$/.exec(line);
    if (heading !== null) {
      const level = Math.min(6, (heading[1] as string).length + 1);
      out.push(`<h${level}>${inline(heading[2] as string)}</h${level}>`);
      i += 1;
      continue;
    }
    if (line.startsWith("|")) {
      const block: string[] = [];
      while (i < lines.length && (lines[i] as string).startsWith("|")) block.push(lines[i++] as string);
      const [header, rule, ...rows] = block;
      const align = cells(rule ?? "").map((c) => (c.endsWith(":") ? "right" : "left"));
      const row = (text: string, tag: "th" | "td") =>
        `<tr>${cells(text)
          .map((c, k) => `<${tag} class="${align[k] ?? "left"}">${inline(c)}</${tag}>`)
          .join("")}</tr>`;
      out.push(
        `<div class="table"><table><thead>${row(header ?? "", "th")}</thead><tbody>${rows.map((r) => row(r, "td")).join("")}</tbody></table></div>`,
      );
      continue;
    }
    if (line.startsWith("- ")) {
      const items: string[] = [];
      while (i < lines.length && (lines[i] as string).startsWith("- "))
        items.push((lines[i++] as string).slice(2));
      out.push(`<ul>${items.map((item) => `<li>${inline(item)}</li>`).join("")}</ul>`);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && (lines[i] as string).trim() !== "" && !/^(#|\||- )/.test(lines[i] as string)) {
      paragraph.push(lines[i++] as string);
    }
    out.push(`<p>${inline(paragraph.join(" "))}</p>`);
  }
  return out.join("\n");
}

/**
 * A line diff as a `<pre>` of one block `<span>` per line. The spans are joined with nothing: each already
 * ends its line by being a block, and a newline between two block spans inside `<pre>` is a line of its
 * own — it showed as a blank line between every two code lines.
 */
function diffHtml(diff: readonly DiffLine[]): string {
  const mark = { same: " ", del: "-", add: "+" } as const;
  return `<pre class="code">${diff
    .map((d) => `<span class="${d.kind}">${mark[d.kind]} ${escapeHtml(d.text)}</span>`)
    .join("")}</pre>`;
}

/** Program text for a `<pre>`: CRLF and CR line ends as LF (the HTML parser would make a CR a line too). */
function codeHtml(text: string): string {
  return `<pre class="code">${escapeHtml(text.replace(/\r\n?/g, "\n"))}</pre>`;
}

function sampleHeader(sample: SampleRecord): string {
  const bits = [
    `<span class="verdict ${sample.passed ? "pass" : "fail"}">${escapeHtml(sample.outcome)}</span>`,
    `#${sample.sample}`,
  ];
  if (sample.tests_total > 0) bits.push(`tests ${sample.tests_passed}/${sample.tests_total}`);
  if (sample.d_model !== null) bits.push(`d(M,C) ${fixed(sample.d_model)}`);
  if (sample.d_gold !== null) bits.push(`d(G,C) ${fixed(sample.d_gold)}`);
  if (sample.excess !== null) bits.push(`excess ${signed(sample.excess)}`);
  if (sample.added_cc !== null) bits.push(`added CC ${signed(sample.added_cc, 0)}`);
  if (sample.token_edits !== null) bits.push(`token edits ${sample.token_edits}`);
  if (sample.truncated) bits.push("truncated");
  return `<div class="sample-head">${bits.join(" · ")}</div>`;
}

function sampleBody(task: TaskRecord, sample: SampleRecord): string {
  const detail =
    sample.detail === "" ? "" : `<div class="detail">${escapeHtml(sample.detail.slice(0, 600))}</div>`;
  const body =
    sample.program === null
      ? `<p class="none">no program</p>`
      : task.corrupted === ""
        ? codeHtml(sample.program)
        : diffHtml(lineDiff(task.corrupted, sample.program));
  return `${sampleHeader(sample)}${detail}${body}`;
}

/** The viewer: one `<details>` per task of the first run, with every run's samples of that task. */
function viewer(runs: readonly ViewerRun[]): string {
  const [first] = runs;
  if (first === undefined) return "";
  const samplesOf = runs.map((run) => {
    const map = new Map<string, SampleRecord[]>();
    for (const s of run.samples) map.set(s.task_id, [...(map.get(s.task_id) ?? []), s]);
    return map;
  });
  const entries: string[] = [];
  for (const task of first.tasks) {
    const perRun = samplesOf.map((m) => (m.get(task.task_id) ?? []).sort((a, b) => a.sample - b.sample));
    const outcomes = new Set(perRun.flat().map((s) => s.outcome));
    const passedAll = perRun.every((list) => list.length > 0 && list.every((s) => s.passed));
    const columns = [`<div class="col"><h4>C (corrupted)</h4>${codeHtml(task.corrupted)}</div>`];
    if (task.gold !== "") {
      const gold =
        task.corrupted === "" ? codeHtml(task.gold) : diffHtml(lineDiff(task.corrupted, task.gold));
      columns.push(`<div class="col"><h4>G (gold patch, C → G)</h4>${gold}</div>`);
    }
    runs.forEach((run, r) => {
      const list = perRun[r] ?? [];
      const body =
        list.length === 0
          ? `<p class="none">not evaluated</p>`
          : list.map((s) => sampleBody(task, s)).join("");
      columns.push(`<div class="col"><h4>M: ${escapeHtml(run.name)} (C → M)</h4>${body}</div>`);
    });
    const search = [task.task_id, task.domain, ...task.families, ...outcomes].join(" ").toLowerCase();
    const status = task.excluded !== null ? "excluded" : passedAll ? "passed" : "failed";
    const summary =
      `<summary><code>${escapeHtml(task.task_id)}</code> <span class="tag">${escapeHtml(task.domain)}</span> ` +
      `${task.families.map((f) => `<span class="tag">${escapeHtml(f)}</span>`).join(" ")} ` +
      `<span class="verdict ${status === "passed" ? "pass" : "fail"}">${escapeHtml(task.excluded !== null ? "EXCLUDED" : [...outcomes].join(", "))}</span></summary>`;
    const excluded =
      task.excluded === null ? "" : `<p class="detail">excluded: ${escapeHtml(task.excluded)}</p>`;
    entries.push(
      `<details class="task" data-search="${escapeHtml(search)}" data-status="${status}">${summary}${excluded}<div class="cols" style="grid-template-columns: repeat(${columns.length}, minmax(0, 1fr))">${columns.join("")}</div></details>`,
    );
  }
  return `<section id="viewer"><h2>Samples</h2>
<p>Per task: the corrupted program C, the gold patch and each run's repair M as line diffs against C (− removed, + added), with the verdict and distances of every sample. Filter by task id, family, domain or outcome.</p>
<div class="filters"><input id="filter" type="search" placeholder="filter: task id, family, outcome…" aria-label="filter tasks">
<select id="status" aria-label="tasks to show"><option value="all">all tasks</option><option value="failed">some sample fails</option><option value="passed">every sample passes</option><option value="excluded">excluded</option></select>
<span id="shown"></span></div>
${entries.join("\n")}
</section>`;
}

const STYLE = `
body{font-family:Helvetica,Arial,sans-serif;margin:0 auto;max-width:1400px;padding:0 24px 48px;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-top:24px}h2{margin-top:32px;border-bottom:1px solid #ddd}
code{font-family:Menlo,Consolas,monospace;font-size:.9em}
.table{overflow-x:auto}table{border-collapse:collapse;margin:8px 0;font-size:.85em}
th,td{border:1px solid #ddd;padding:3px 7px;white-space:nowrap}th{background:#f4f4f4}
td.right,th.right{text-align:right}td.left,th.left{text-align:left}
figure{margin:16px 0}figure svg{max-width:100%;height:auto}figcaption{font-size:.9em;color:#444;max-width:900px}
.filters{margin:8px 0 12px}.filters input{width:320px;padding:4px}
details.task{border:1px solid #ddd;margin:4px 0;padding:4px 8px}details.task>summary{cursor:pointer}
.tag{background:#eef;border-radius:3px;padding:0 4px;font-size:.8em}
.verdict{font-weight:bold;font-size:.85em}.verdict.pass{color:#17803d}.verdict.fail{color:#b42318}
.cols{display:grid;gap:8px;margin-top:8px}.col{min-width:0}.col h4{margin:4px 0;font-size:.9em}
pre.code{background:#fafafa;border:1px solid #eee;padding:6px;overflow-x:auto;font-size:12px;margin:4px 0 10px;font-family:Menlo,Consolas,monospace}
pre.code span{display:block;white-space:pre}pre.code .del{background:#fde8e8}pre.code .add{background:#e6f6ea}
.sample-head{font-size:.8em;color:#333}.detail{font-size:.75em;color:#666;white-space:pre-wrap}.none{color:#888}
`;

const SCRIPT = `
(function () {
  var input = document.getElementById("filter");
  var status = document.getElementById("status");
  var shown = document.getElementById("shown");
  if (!input || !status || !shown) return;
  var tasks = Array.prototype.slice.call(document.querySelectorAll("details.task"));
  function apply() {
    var words = input.value.toLowerCase().split(/\\s+/).filter(function (w) { return w !== ""; });
    var want = status.value;
    var count = 0;
    tasks.forEach(function (task) {
      var text = task.getAttribute("data-search") || "";
      var ok = (want === "all" || task.getAttribute("data-status") === want) &&
        words.every(function (w) { return text.indexOf(w) !== -1; });
      task.hidden = !ok;
      if (ok) count += 1;
    });
    shown.textContent = count + " of " + tasks.length + " tasks";
  }
  input.addEventListener("input", apply);
  status.addEventListener("change", apply);
  apply();
})();
`;

/** The page: title, the report's Markdown as HTML, the charts, the viewer. */
export function renderHtml(options: {
  title: string;
  markdown: string;
  charts: readonly Chart[];
  runs: readonly ViewerRun[];
}): string {
  const figures = options.charts
    .map(
      (chart) =>
        `<figure id="chart-${chart.id}"><h3 id="${chart.id}-title">${escapeHtml(chart.title)}</h3>${chart.svg}<figcaption>${escapeHtml(chart.description)}</figcaption></figure>`,
    )
    .join("\n");
  // The Markdown's own title becomes the page's h1.
  const body = markdownToHtml(options.markdown)
    .replace(/^<h2>/, "<h1>")
    .replace(/^(<h1>.*?)<\/h2>/, "$1</h1>");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
<section id="charts"><h2>Charts</h2>
${figures}
</section>
${viewer(options.runs)}
<script>${SCRIPT}</script>
</body>
</html>
`;
}
