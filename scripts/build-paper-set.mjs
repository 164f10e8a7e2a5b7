#!/usr/bin/env node
/**
 * Builds a paper-style evaluation set: the over-editing paper's benchmark (§3.1, appendix A.2: 400
 * BigCodeBench tasks, one or two in-domain corruptions each) rebuilt with `minedit tasks build` from
 * BigCodeBench's own file, and reports its Table 7–10 statistics next to the paper's.
 *
 *   node scripts/build-paper-set.mjs [--source FILE] [--out DIR] [--tasks N] [--seed N]
 *                                    [--runtime auto|stdlib|bigcodebench] [--concurrency N]
 *
 * Steps:
 * 1. Reads BigCodeBench (--source, else $MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz;
 *    gzip or plain JSONL) at run time — the data is never copied into the repository — and imports every
 *    row with the `bigcodebench` importer (what it needs beyond the standard library).
 * 2. Picks the runtime: `bigcodebench` when every module of that runtime in sandbox/runtimes.json imports
 *    in the sandbox's interpreter (/usr/bin/python3; `minedit setup --runtime bigcodebench` installs them),
 *    else `stdlib`. Eligible problems: with `stdlib`, those importing only the standard library (~300 of
 *    1,140); with `bigcodebench`, those whose every library imports here.
 * 3. Shuffles the eligible problems (seeded) and builds them in that order with the default in-domain mix
 *    (`--families in-domain --corruptions 1-2`, `--mix paper`), more of them until N tasks exist. The
 *    paper has one task per problem; when fewer than 1.5 N problems are eligible (the standard library
 *    alone) each problem may give two tasks (`--variants 2`) and the second ones fill what the first
 *    ones leave short of N.
 * 4. Writes the N tasks (first tasks in shuffled order, then second ones) to DIR/paper-set.jsonl, its
 *    `minedit tasks stats` report beside it, and DIR/paper-comparison.md (+ .json): Tables 7–10 side by
 *    side with the paper's, and how the set was made (runtime, problems, time).
 *
 * DIR (default scratch/paper-set, ignored by git) also keeps the whole build (build.jsonl, its build log
 * and report, rejections included); re-running with the same options resumes it. Needs the built CLI
 * (npm run build) and bubblewrap. Deterministic: the same data, options and engine give the same set.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const SANDBOX_PYTHON = "/usr/bin/python3";

const HELP = `Usage: node scripts/build-paper-set.mjs [options]

Builds a 400-task paper-style evaluation set from BigCodeBench with \`minedit tasks build\` (default
in-domain mix, 1-2 corruptions) and writes its Table 7-10 statistics beside the paper's.

Options:
  --source FILE      BigCodeBench JSONL, gzip or plain
                     (default: $MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz;
                     one of the two is required, see docs/paper-set.md)
  --out DIR          output directory (default: scratch/paper-set)
  --tasks N          tasks in the set (default: 400, as the paper)
  --seed N           seed of the problem order and of the corruptions (default: 0)
  --runtime NAME     auto | stdlib | bigcodebench (default: auto: bigcodebench when installed)
  --concurrency N    problems built at once (default: the builder's, available parallelism)
  -h, --help         this help
`;

// ---- the paper's figures (over-editing paper, appendix A.2) ---------------------------------------------

/** Table 7, Table 8 and the text around them: the 400-task set. */
const PAPER = {
  tasks: 400,
  applications: 568,
  corruptionsPerTask: { 1: 232, 2: 168 },
  goldTokenEditsAtMost: [0.502, 0.918, 0.968, 0.98],
  table7: {
    executableLinesPerFunction: { mean: 10.36, median: 10, q1: 7, q3: 13, p95: 19, min: 3, max: 34 },
    tokensPerFunction: { mean: 110.18, median: 102, q1: 77, q3: 134, p95: 199, min: 32, max: 364 },
  },
  table8: {
    goldTokenEditDistance: { mean: 1.63, median: 1, q1: 1, q3: 2 },
    bodyNormalizedGoldDistance: { mean: 0.017, median: 0.014, q1: 0.01, q3: 0.021 },
    goldLineEditDistance: { mean: 1.34, median: 1, q1: 1, q3: 2 },
  },
  /** Table 9: applications and tasks containing the family (of 568 applications, 400 tasks). */
  table9: [
    ["edge_case_guards", "Edge-case guards", 129, 77],
    ["arithmetic_operators", "Arithmetic operators", 104, 61],
    ["comparison_operators", "Comparison operators", 75, 48],
    ["numeric_constants", "Numeric constants", 64, 64],
    ["range_bounds", "Range bounds", 60, 34],
    ["list_indexing", "List indexing", 43, 20],
    ["boolean_constants", "Boolean constants", 40, 40],
    ["function_call_substitution", "Function-call substitution", 36, 36],
    ["sort_order", "Sort order", 10, 9],
    ["slice_bounds", "Slice bounds", 3, 3],
    ["accumulator_initialization", "Accumulator initialization", 2, 2],
    ["copy_removal", "Copy removal", 2, 2],
    ["conditional_inversion", "Conditional inversion", 0, 0],
    ["range_step", "Range step modification", 0, 0],
  ],
  /** Table 10: share of applications, share of tasks. */
  table10: [
    ["Predicate/control flow", 0.43, 0.355],
    ["Computation/value", 0.299, 0.29],
    ["Boundary/iteration", 0.187, 0.135],
    ["API/data semantics", 0.085, 0.115],
  ],
};

/** Table 8 figures must come within this relative distance of the paper's (issue 13). */
const TOLERANCE = 0.15;

// ---- small helpers ------------------------------------------------------------------------------------

function fail(message, code = 2) {
  process.stderr.write(`build-paper-set: ${message}\n`);
  process.exit(code);
}

function integerOption(name, text, fallback, min) {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    fail(`--${name}: expected an integer ≥ ${min}, got ${text}`);
  return value;
}

/** Runs the built CLI; stdout is returned, stderr passes through (progress and summaries). */
function minedit(args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "bin", "minedit.js"), ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      // Exit 1: some source rows were bad (reported on stderr); the others were built.
      if (code === 0 || code === 1) resolvePromise(stdout);
      else reject(new Error(`minedit ${args.slice(0, 2).join(" ")} exited with ${code}`));
    });
  });
}

const percent = (share) => `${(100 * share).toFixed(1)}%`;
const fixed = (value, digits) =>
  value === null || value === undefined
    ? "–"
    : Number.isInteger(value)
      ? String(value)
      : value.toFixed(digits);

/** A Markdown table (first column left-aligned, the others right-aligned). */
function table(header, rows) {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

// ---- 1. the data ----------------------------------------------------------------------------------------

const { values } = parseArgs({
  options: {
    source: { type: "string" },
    out: { type: "string" },
    tasks: { type: "string" },
    seed: { type: "string" },
    runtime: { type: "string" },
    concurrency: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (!existsSync(join(DIST, "cli", "main.js")))
  fail("dist/cli/main.js is missing: run `npm run build` first", 3);

// BigCodeBench is read where it lies, never copied into the repository (docs/paper-set.md#the-data-minedit_data_dir).
const dataDir = process.env.MINEDIT_DATA_DIR;
const source = resolve(
  values.source ??
    (dataDir ? join(dataDir, "bigcodebench", "BigCodeBench.jsonl.gz") : undefined) ??
    fail(
      "no BigCodeBench file: pass --source FILE or set MINEDIT_DATA_DIR (the directory holding bigcodebench/BigCodeBench.jsonl.gz)",
    ),
);
const outDir = resolve(values.out ?? join(ROOT, "scratch", "paper-set"));
const wanted = integerOption("tasks", values.tasks, PAPER.tasks, 1);
const seed = integerOption("seed", values.seed, 0, 0);
const concurrency = values.concurrency === undefined ? [] : ["--concurrency", values.concurrency];
const runtimeAsked = values.runtime ?? "auto";
if (!["auto", "stdlib", "bigcodebench"].includes(runtimeAsked)) {
  fail(`--runtime: expected auto, stdlib or bigcodebench, got ${runtimeAsked}`);
}
if (!existsSync(source)) fail(`--source: cannot read ${source}: no such file`);

const started = performance.now();
const { importRow } = await import(join(DIST, "tasks", "importers", "import-file.js"));
const { nonStandardLibraries } = await import(join(DIST, "core", "python", "stdlib-modules.js"));
const { seededRandom } = await import(join(DIST, "core", "corruption", "engine.js"));
const { loadPythonGrammar } = await import(join(DIST, "core", "python", "grammar.js"));
await loadPythonGrammar();

const raw = readFileSync(source);
const text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString("utf8");
/** Every importable row: its source line, the problem id and what it needs beyond the stdlib. */
const rows = [];
let badRows = 0;
for (const [index, line] of text.split("\n").entries()) {
  if (line.trim() === "") continue;
  try {
    const row = JSON.parse(line);
    const problem = importRow("bigcodebench", row);
    rows.push({ line, id: problem.problemId, needs: nonStandardLibraries(problem.libraries ?? []) });
  } catch (error) {
    badRows += 1;
    process.stderr.write(
      `${source}:${index + 1}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}
if (rows.length === 0) fail(`${source}: no BigCodeBench rows`);

// ---- 2. the runtime -------------------------------------------------------------------------------------

/** The modules among `modules` that the sandbox's interpreter cannot find. */
function missingModules(modules) {
  if (modules.length === 0) return [];
  const probe =
    "import importlib.util, json, sys\n" +
    "names = json.loads(sys.stdin.read())\n" +
    "def found(name):\n" +
    "    try:\n" +
    "        return importlib.util.find_spec(name) is not None\n" +
    "    except Exception:\n" +
    "        return False\n" +
    "print(json.dumps([n for n in names if not found(n)]))\n";
  const result = spawnSync(SANDBOX_PYTHON, ["-c", probe], {
    input: JSON.stringify(modules),
    encoding: "utf8",
  });
  if (result.status !== 0)
    fail(`${SANDBOX_PYTHON} could not check modules: ${result.stderr || result.error}`);
  return JSON.parse(result.stdout);
}

const runtimesFile = join(ROOT, "sandbox", "runtimes.json");
const runtimeModules = existsSync(runtimesFile)
  ? Object.values(JSON.parse(readFileSync(runtimesFile, "utf8")).runtimes?.bigcodebench?.packages ?? {})
  : null;
const runtimeMissing = runtimeModules === null ? null : missingModules(runtimeModules);
const runtimeInstalled = runtimeMissing !== null && runtimeMissing.length === 0;
let runtime;
if (runtimeAsked === "auto") runtime = runtimeInstalled ? "bigcodebench" : "stdlib";
else runtime = runtimeAsked;
if (runtime === "bigcodebench" && !runtimeInstalled) {
  fail(
    runtimeMissing === null
      ? "--runtime bigcodebench: this checkout has no such runtime (sandbox/runtimes.json)"
      : `--runtime bigcodebench: not installed, missing ${runtimeMissing.join(", ")} ` +
          "(node bin/minedit.js setup --runtime bigcodebench)",
  );
}
const runtimeNote =
  runtime === "bigcodebench"
    ? "bigcodebench (every module of the runtime imports here)"
    : runtimeMissing === null
      ? "stdlib (this checkout defines no bigcodebench runtime)"
      : runtimeMissing.length === 0
        ? "stdlib (asked for; the bigcodebench runtime is installed)"
        : `stdlib (the bigcodebench runtime is not installed: ${runtimeMissing.length} of its ` +
          `${runtimeModules.length} modules are missing)`;

const libraries = [...new Set(rows.flatMap((r) => r.needs))].sort();
const missingLibraries = new Set(runtime === "bigcodebench" ? missingModules(libraries) : libraries);
const eligible = rows.filter((r) => r.needs.every((library) => !missingLibraries.has(library)));
const leftOut = rows.length - eligible.length;
process.stderr.write(
  `build-paper-set: runtime ${runtimeNote}; ${eligible.length} of ${rows.length} problems eligible\n`,
);

// ---- 3. build -------------------------------------------------------------------------------------------

const random = seededRandom(`paper-set/${seed}`);
const order = [...eligible];
for (let i = order.length - 1; i > 0; i -= 1) {
  const j = Math.floor(random() * (i + 1));
  [order[i], order[j]] = [order[j], order[i]];
}
const variants = order.length >= 1.5 * wanted ? 1 : 2;

mkdirSync(outDir, { recursive: true });
const buildFile = join(outDir, "build.jsonl");
const scratch = mkdtempSync(join(tmpdir(), "minedit-paper-set-"));
const sourceFile = join(scratch, "bigcodebench.jsonl");
const readRows = (file) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line))
    : [];

let built = [];
let problems = Math.min(order.length, Math.ceil((1.35 * wanted) / variants));
try {
  for (;;) {
    // The source grows in shuffled order; the builder skips what it built already (resume).
    writeFileSync(
      sourceFile,
      `${order
        .slice(0, problems)
        .map((r) => `${r.line}\n`)
        .join("")}`,
    );
    await minedit([
      ...["tasks", "build", "--source", sourceFile, "--format", "bigcodebench", "--out", buildFile],
      ...["--families", "in-domain", "--mix", "paper", "--corruptions", "1-2"],
      ...["--variants", String(variants), "--seed", String(seed), "--split", "test", ...concurrency],
    ]);
    built = readRows(buildFile);
    const firsts = built.filter((row) => row.task_id.endsWith("/v1")).length;
    const enough = variants === 1 ? firsts >= wanted : built.length >= wanted;
    if (enough || problems === order.length) break;
    // Grow by what the yield so far says is missing, with a margin.
    const perProblem = Math.max(0.2, (variants === 1 ? firsts : built.length) / problems);
    const missing = wanted - (variants === 1 ? firsts : built.length);
    problems = Math.min(order.length, problems + Math.ceil((1.2 * missing) / perProblem) + 10);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// ---- 4. the set and its report ----------------------------------------------------------------------------

const rank = new Map(order.map((r, index) => [r.id, index]));
const byOrder = (a, b) => (rank.get(a.problem_id) ?? 0) - (rank.get(b.problem_id) ?? 0);
const firsts = built.filter((row) => row.task_id.endsWith("/v1")).sort(byOrder);
const seconds = built.filter((row) => !row.task_id.endsWith("/v1")).sort(byOrder);
const chosen = [...firsts, ...seconds].slice(0, wanted);
const chosenIds = new Set(chosen.map((row) => row.task_id));
const set = built.filter((row) => chosenIds.has(row.task_id)).sort(byOrder);
const setFile = join(outDir, "paper-set.jsonl");
writeFileSync(setFile, set.map((row) => `${JSON.stringify(row)}\n`).join(""));
// The set has no build log of its own (the build's is build.build.log): its report says so.
rmSync(join(outDir, "paper-set.build.log"), { force: true });
const markdown = await minedit(["tasks", "stats", setFile]);
const report = JSON.parse(await minedit(["tasks", "stats", setFile, "--json"]));
writeFileSync(join(outDir, "paper-set.report.md"), markdown);
writeFileSync(join(outDir, "paper-set.report.json"), `${JSON.stringify(report, null, 2)}\n`);
const buildReport = JSON.parse(await minedit(["tasks", "stats", buildFile, "--json"]));
const elapsed = (performance.now() - started) / 1000;

const ours = report.all;
const within = (value, paper) =>
  value === null ? "–" : Math.abs(value - paper) <= TOLERANCE * Math.abs(paper) + 1e-12 ? "yes" : "no";
const table8Rows = [];
const table8Json = {};
for (const [key, label, digits] of [
  ["goldTokenEditDistance", "Gold token edit dist.", 2],
  ["bodyNormalizedGoldDistance", "Normalized gold dist. (function body)", 3],
  ["goldLineEditDistance", "Gold line edit dist.", 2],
]) {
  table8Json[key] = {};
  for (const stat of ["mean", "median", "q1", "q3"]) {
    const value = ours[key][stat];
    const paper = PAPER.table8[key][stat];
    table8Json[key][stat] = { ours: value, paper, within15: within(value, paper) === "yes" };
    table8Rows.push([
      `${label}, ${stat === "median" ? "med." : stat}`,
      fixed(paper, digits),
      fixed(value, digits),
      within(value, paper),
    ]);
  }
}
const normalizedProgram = ours.normalizedGoldDistance;

const applications = ours.applications;
const familyRow = (name) => ours.families.find((f) => f.family === name);
const table9Rows = PAPER.table9.map(([name, title, paperApps, paperTasks]) => {
  const row = familyRow(name);
  return [
    title,
    `${paperApps} (${percent(paperApps / PAPER.applications)})`,
    `${row?.applications ?? 0} (${percent(row?.share ?? 0)})`,
    `${paperTasks} (${percent(paperTasks / PAPER.tasks)})`,
    `${row?.tasks ?? 0} (${percent(row?.taskShare ?? 0)})`,
  ];
});
const table10Rows = PAPER.table10.map(([category, share, taskShare]) => {
  const row = ours.categories.find((c) => c.category === category);
  return [
    category,
    percent(share),
    percent(row?.share ?? 0),
    percent(taskShare),
    percent(row?.taskShare ?? 0),
  ];
});
const perTask = (k) => ours.corruptionsPerTask.find((r) => r.corruptions === k)?.tasks ?? 0;
const buildAll = buildReport.all;
const rejected = buildAll.rejected?.counts ?? {};
const comparison = {
  source,
  runtime,
  runtimeNote,
  problems: {
    rows: rows.length,
    badRows,
    eligible: eligible.length,
    leftOut,
    built: buildAll.rejected?.problems,
  },
  build: { variants, seed, tasks: built.length, rejected },
  set: { tasks: set.length, problems: ours.problems, firstTasks: Math.min(firsts.length, wanted) },
  seconds: Math.round(elapsed),
  table8: table8Json,
  normalizedProgramDistance: normalizedProgram,
  goldTokenEditsAtMost: ours.goldTokenEditsAtMost,
  corruptionsPerTask: ours.corruptionsPerTask,
  table9: Object.fromEntries(
    PAPER.table9.map(([name, , paperApps, paperTasks]) => [
      name,
      {
        paper: { applications: paperApps, share: paperApps / PAPER.applications, tasks: paperTasks },
        ours: {
          applications: familyRow(name)?.applications ?? 0,
          share: familyRow(name)?.share ?? 0,
          tasks: familyRow(name)?.tasks ?? 0,
        },
      },
    ]),
  ),
  table10: Object.fromEntries(
    PAPER.table10.map(([category, share, taskShare]) => {
      const row = ours.categories.find((c) => c.category === category);
      return [
        category,
        { paper: { share, taskShare }, ours: { share: row?.share ?? 0, taskShare: row?.taskShare ?? 0 } },
      ];
    }),
  ),
};

const lines = [
  "# Paper-style evaluation set: comparison with the over-editing paper",
  "",
  `Built by \`node scripts/build-paper-set.mjs\` from ${source} in ${Math.round(elapsed)} s.`,
  "",
  `- Runtime: ${runtimeNote}.`,
  `- Problems: ${rows.length} imported (${badRows} bad rows), ${eligible.length} eligible, ` +
    `${leftOut} left out (libraries that do not import here); ${buildAll.rejected?.problems ?? "?"} built in a ` +
    `seeded order (seed ${seed}): ${rejected.gold_failed ?? 0} golds failed their tests, ` +
    `${rejected.no_site ?? 0} had no site the mix draws, ${rejected.still_passed ?? 0} candidates still passed.`,
  `- Build: \`--families in-domain --mix paper --corruptions 1-2 --variants ${variants}\`; ${built.length} tasks ` +
    `(${outDir}/build.jsonl, with its build log and report).`,
  `- Set: ${set.length} tasks from ${ours.problems} problems (${Math.min(firsts.length, wanted)} first tasks of their ` +
    `problem${variants === 2 ? ", the rest second tasks of a problem: too few problems for one task each" : ""}), ` +
    `${outDir}/paper-set.jsonl; its full report: paper-set.report.md.`,
  "",
  `Corruptions per task: ${perTask(1)} with one, ${perTask(2)} with two, ${applications} applications ` +
    `(paper: 232, 168, 568).`,
  "",
  "## Table 8: minimal-patch size",
  "",
  table(["Measure", "Paper", "Ours", "Within ±15%"], table8Rows),
  "",
  `Normalized over whole programs (the reward's scope): mean ${fixed(normalizedProgram.mean, 3)}, median ` +
    `${fixed(normalizedProgram.median, 3)}, Q1 ${fixed(normalizedProgram.q1, 3)}, Q3 ${fixed(normalizedProgram.q3, 3)}.`,
  `Gold repairs needing at most 1, 2, 3, 4 token edits: ${ours.goldTokenEditsAtMost.map((r) => percent(r.share)).join(", ")} ` +
    `(paper: ${PAPER.goldTokenEditsAtMost.map(percent).join(", ")}).`,
  "",
  "## Table 9: corruption families (applications and share; tasks containing the family)",
  "",
  table(["Corruption family", "Paper applic.", "Ours applic.", "Paper tasks", "Ours tasks"], table9Rows),
  "",
  "## Table 10: bug categories (share of applications; share of tasks)",
  "",
  table(["Bug category", "Paper share", "Ours share", "Paper tasks", "Ours tasks"], table10Rows),
  "",
  "## Table 7: function length (distinct gold programs)",
  "",
  table(
    ["Measure", "Paper mean", "Ours mean", "Paper med.", "Ours med."],
    [
      ["Executable lines", "executableLinesPerFunction"],
      ["Python tokens", "tokensPerFunction"],
    ].map(([label, key]) => [
      label,
      fixed(PAPER.table7[key].mean, 2),
      fixed(ours[key].mean, 2),
      fixed(PAPER.table7[key].median, 2),
      fixed(ours[key].median, 2),
    ]),
  ),
  "",
];
const comparisonMarkdown = `${lines.join("\n")}`;
writeFileSync(join(outDir, "paper-comparison.md"), comparisonMarkdown);
writeFileSync(join(outDir, "paper-comparison.json"), `${JSON.stringify(comparison, null, 2)}\n`);
process.stdout.write(comparisonMarkdown);
process.stderr.write(
  `build-paper-set: ${set.length} tasks in ${setFile}; comparison in ${join(outDir, "paper-comparison.md")} ` +
    `(${Math.round(elapsed)} s)\n`,
);
if (set.length < wanted) {
  process.stderr.write(`build-paper-set: only ${set.length} of ${wanted} tasks could be built\n`);
  process.exitCode = 1;
}
