/**
 * Metrics benchmark (see benchmarks/README.md): a 512-rollout GRPO-like batch (32 tasks × 16 rollouts)
 * through extraction, normalization, tokens and distance, scored by the CPython reference pipeline
 * (reference.py) and by MetricsPool, in the same run, on the same JSONL file. Every d(M, C) and d(G, C)
 * must agree exactly (float equality) or the run aborts.
 *
 * Run with `npm run bench` (builds first). It imports the BUILT code from dist/.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  loadStdlibFunctions,
  makeRollouts,
  ROLLOUTS,
  runReference,
  selectTasks,
  TASKS,
  toJsonl,
} from "./make-batch.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIST = join(ROOT, "dist");
const TASK_SEED = 1;
const MAIN_COMPLETION_SEED = 1;
/** Batches of different completions for the same tasks, to time work no cache can skip. */
const FRESH_COMPLETION_SEEDS = [2, 3, 4];
const WARM_RUNS = 5;
const ONE_THREAD_RUNS = 3;

const needed = [
  "workers/metrics-pool.js",
  "workers/metrics-worker.js",
  "config.js",
  "core/extract-program.js",
  "core/distance.js",
  "core/python/grammar.js",
  "core/python/parse.js",
  "core/python/unparse.js",
  "core/python/tokenize.js",
  "core/python/syntax-error.js",
];
const missing = needed.filter((file) => !existsSync(join(DIST, file)));
if (missing.length > 0) {
  console.error(
    `dist/ is missing ${missing.join(", ")}.\nBuild first: \`npx tsc -p tsconfig.json\` (\`npm run bench\` builds for you).`,
  );
  process.exit(1);
}
const load = (file) => import(pathToFileURL(join(DIST, file)).href);
const { MetricsPool } = await load("workers/metrics-pool.js");
const { parseConfig } = await load("config.js");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (x, digits = 3) => x.toFixed(digits);
const log = (message) => console.error(`[bench] ${message}`);

// ---------------------------------------------------------------------------------------------------------
// Machine
// ---------------------------------------------------------------------------------------------------------

const pythonVersion = spawnSync("python3", ["--version"], { encoding: "utf8" }).stdout.trim();
const machine = {
  cpu: cpus()[0]?.model ?? "unknown",
  threads: availableParallelism(),
  memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
  node: process.version,
  python: pythonVersion,
  loadavg: loadavg()
    .map((x) => x.toFixed(2))
    .join(" "),
};

// ---------------------------------------------------------------------------------------------------------
// Batches
// ---------------------------------------------------------------------------------------------------------

log("reading gold functions from the installed stdlib and building batches…");
const { stdlib, functions } = loadStdlibFunctions();
const tasks = selectTasks(functions, TASK_SEED, TASKS);
const batches = [MAIN_COMPLETION_SEED, ...FRESH_COMPLETION_SEEDS].map((seed) => ({
  seed,
  rows: makeRollouts(tasks, seed, ROLLOUTS),
}));
const [main, ...fresh] = batches;
const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-"));
for (const batch of batches) {
  batch.file = join(workDir, `batch-${batch.seed}.jsonl`);
  writeFileSync(batch.file, toJsonl(batch.rows));
}
const distinctOf = (rows) => new Set(rows.map((r) => JSON.stringify([r.task_id, r.completion]))).size;
const mainCompletions = new Set(main.rows.map((r) => JSON.stringify([r.task_id, r.completion])));
const freshSeen = fresh.map(
  (b) =>
    new Set(
      b.rows
        .filter((r) => mainCompletions.has(JSON.stringify([r.task_id, r.completion])))
        .map((r) => r.completion),
    ).size,
);

// ---------------------------------------------------------------------------------------------------------
// (a) CPython reference, one process per batch, run before any worker thread exists
// ---------------------------------------------------------------------------------------------------------

const startupRuns = Array.from({ length: 3 }, () => {
  const t0 = performance.now();
  spawnSync("python3", ["-c", "import ast, io, json, keyword, re, resource, sys, sysconfig, tokenize"]);
  return (performance.now() - t0) / 1000;
});
const pythonStartup = median(startupRuns);
for (const batch of batches) {
  log(`CPython reference on batch ${batch.seed} (${batch.rows.length} rollouts)…`);
  batch.python = runReference(["score", batch.file]);
}

// ---------------------------------------------------------------------------------------------------------
// (b) MetricsPool
// ---------------------------------------------------------------------------------------------------------

const config = parseConfig({}).reward;
const requestsOf = (rows) =>
  rows.map((r) => ({ corrupted: r.corrupted, gold: r.gold, completion: r.completion, config }));

/** Aborts the run unless every TS verdict, d(M, C) and d(G, C) equals CPython's exactly. */
function verify(label, rows, python, scores) {
  const problems = [];
  const goldChecked = new Set();
  rows.forEach((row, i) => {
    const expected = python.results[i];
    const got = scores[i];
    const where = `${label} rollout #${i} (${row.task_id}, ${row.kind})`;
    if (!got.ok) {
      problems.push(`${where}: TS rejected the task (${got.which}): ${got.message}`);
      return;
    }
    const { verdict, components } = got.score;
    if (verdict !== expected.verdict) {
      problems.push(`${where}: verdict TS ${verdict} vs CPython ${expected.verdict} (${got.score.detail})`);
    } else if (verdict === "PASSED") {
      if (components.dModel !== expected.d_model) {
        problems.push(`${where}: d(M,C) TS ${components.dModel} vs CPython ${expected.d_model}`);
      }
      if (components.dGold !== expected.d_gold) {
        problems.push(`${where}: d(G,C) TS ${components.dGold} vs CPython ${expected.d_gold}`);
      }
      goldChecked.add(row.task_id);
    }
  });
  const unchecked = new Set(rows.map((r) => r.task_id)).size - goldChecked.size;
  if (unchecked > 0)
    problems.push(`${label}: ${unchecked} task(s) had no parsable rollout to check d(G,C) on`);
  if (problems.length > 0) {
    console.error(`\nCORRECTNESS FAILURE — TypeScript and CPython disagree (${problems.length} problem(s)):`);
    for (const p of problems.slice(0, 25)) console.error(`  ${p}`);
    console.error(`batches kept in ${workDir}`);
    process.exit(2);
  }
}

/** Same scores, run to run: a warm pool must not change a single bit. */
function sameScores(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function timed(pool, rows) {
  const requests = requestsOf(rows);
  const t0 = performance.now();
  const scores = await pool.score(requests);
  return { seconds: (performance.now() - t0) / 1000, scores };
}

log(`MetricsPool, ${machine.threads} threads: cold run…`);
const mainRequests = requestsOf(main.rows);
const coldStart = performance.now();
const pool = new MetricsPool(machine.threads);
const coldScores = await pool.score(mainRequests);
const cold = (performance.now() - coldStart) / 1000;
verify("main batch (cold)", main.rows, main.python, coldScores);

log(`warm runs on the same batch ×${WARM_RUNS}…`);
const warm = [];
for (let i = 0; i < WARM_RUNS; i++) {
  const run = await timed(pool, main.rows);
  if (!sameScores(run.scores, coldScores)) throw new Error("a warm run scored the batch differently");
  warm.push(run.seconds);
}

log(`warm runs on ${fresh.length} fresh batches (new completions, same tasks)…`);
const freshTimes = [];
for (const batch of fresh) {
  const run = await timed(pool, batch.rows);
  verify(`fresh batch ${batch.seed}`, batch.rows, batch.python, run.scores);
  freshTimes.push(run.seconds);
}
await pool.close();
const maxRssPool = process.resourceUsage().maxRSS;

log(`MetricsPool, 1 thread ×${ONE_THREAD_RUNS} (after one warm-up run)…`);
const single = new MetricsPool(1);
await single.score(mainRequests);
const oneThread = [];
for (let i = 0; i < ONE_THREAD_RUNS; i++) oneThread.push((await timed(single, main.rows)).seconds);
await single.close();

// ---------------------------------------------------------------------------------------------------------
// Where the time goes: the same stages as reference.py, in-process on one thread, no dedup, no cache
// ---------------------------------------------------------------------------------------------------------

log("per-stage split of the TypeScript pipeline (main thread)…");
const { extractProgram } = await load("core/extract-program.js");
const { normalizedTokenDistance } = await load("core/distance.js");
const { loadPythonGrammar } = await load("core/python/grammar.js");
const { parsePython } = await load("core/python/parse.js");
const { unparse } = await load("core/python/unparse.js");
const { pythonTokens, TokenizeError } = await load("core/python/tokenize.js");
const { PySyntaxError } = await load("core/python/syntax-error.js");
await loadPythonGrammar();

function stagedPass(rows) {
  const stages = { extract: 0, parse: 0, unparse: 0, tokenize: 0, levenshtein: 0 };
  const results = [];
  const prepared = new Map();
  const tokensOf = (source) => {
    const t0 = performance.now();
    const module = parsePython(source);
    const t1 = performance.now();
    const text = unparse(module);
    const t2 = performance.now();
    const tokens = pythonTokens(text);
    const t3 = performance.now();
    stages.parse += t1 - t0;
    stages.unparse += t2 - t1;
    stages.tokenize += t3 - t2;
    return tokens;
  };
  const distance = (a, b) => {
    const t0 = performance.now();
    const d = normalizedTokenDistance(a, b);
    stages.levenshtein += performance.now() - t0;
    return d;
  };
  const start = performance.now();
  for (const row of rows) {
    const key = `${row.corrupted}\u0000${row.gold}`;
    let task = prepared.get(key);
    if (task === undefined) {
      const corrupted = tokensOf(row.corrupted);
      task = { corrupted, dGold: distance(tokensOf(row.gold), corrupted) };
      prepared.set(key, task);
    }
    const t0 = performance.now();
    const extracted = extractProgram(row.completion);
    stages.extract += performance.now() - t0;
    if (extracted.kind === "no_code") {
      results.push({ verdict: "NO_CODE" });
      continue;
    }
    let tokens;
    try {
      tokens = tokensOf(extracted.program);
    } catch (error) {
      const programError = error instanceof PySyntaxError || error instanceof TokenizeError;
      if (!programError) throw error;
      results.push({ verdict: "UNPARSABLE" });
      continue;
    }
    results.push({ verdict: "PASSED", dModel: distance(tokens, task.corrupted), dGold: task.dGold });
  }
  const total = (performance.now() - start) / 1000;
  for (const key of Object.keys(stages)) stages[key] /= 1000;
  return { total, stages, results };
}

stagedPass(main.rows); // JIT warm-up
const staged = stagedPass(main.rows);
staged.results.forEach((r, i) => {
  const p = main.python.results[i];
  if (
    r.verdict !== p.verdict ||
    (r.verdict === "PASSED" && (r.dModel !== p.d_model || r.dGold !== p.d_gold))
  ) {
    console.error(
      `CORRECTNESS FAILURE in the staged pass, rollout #${i}: ${JSON.stringify(r)} vs ${JSON.stringify(p)}`,
    );
    process.exit(2);
  }
});
rmSync(workDir, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------

const n = main.rows.length;
const py = main.python;
const warmMedian = median(warm);
const freshMedian = median(freshTimes);
const freshPython = median(fresh.map((b) => b.python.seconds));
const oneThreadMedian = median(oneThread);
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;
const rate = (seconds, count = n) => `${Math.round(count / seconds)}`;
const speedup = (ratio) => `${ratio.toFixed(1)}×`;
const duplicates = main.rows.filter((r) => r.duplicate).length;
const kinds = [...new Set(main.rows.map((r) => r.kind))].sort();
const lines = [];
const out = (line = "") => lines.push(line);

out("## Machine");
out();
out(`- CPU: ${machine.cpu}; os.availableParallelism() = ${machine.threads}; RAM ${machine.memory}`);
out(`- Node ${machine.node}; ${machine.python} (stdlib ${stdlib})`);
out(
  `- load average (1/5/15 min) at start: ${machine.loadavg}; at end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
out();
out("## Batch");
out();
out(
  `- ${n} rollouts = ${new Set(main.rows.map((r) => r.task_id)).size} distinct tasks × ${ROLLOUTS}; ` +
    `${duplicates} rollouts (${((100 * duplicates) / n).toFixed(1)} %) are exact duplicates within their group ` +
    `→ ${distinctOf(main.rows)} distinct (task, completion) pairs`,
);
out(
  `- gold programs: ${tasks.length} stdlib functions, ${Math.min(...tasks.map((t) => t.fn.lines))}–` +
    `${Math.max(...tasks.map((t) => t.fn.lines))} lines (mean ${(tasks.reduce((s, t) => s + t.fn.lines, 0) / tasks.length).toFixed(1)}); ` +
    `${tasks.filter((t) => t.edits.length === 2).length} tasks with 2 corruptions, the rest with 1`,
);
out(
  `- rollout kinds: ${kinds.map((k) => `${k} ${main.rows.filter((r) => r.kind === k).length}`).join(", ")}`,
);
out(
  `- verdicts (CPython): ${["PASSED", "UNPARSABLE", "NO_CODE"].map((v) => `${v} ${py.results.filter((r) => r.verdict === v).length}`).join(", ")}`,
);
out(
  `- fresh batches (seeds ${FRESH_COMPLETION_SEEDS.join(", ")}): same tasks, new completions; completions also present ` +
    `in the main batch: ${freshSeen.join(", ")} (nothing caches completions across calls anyway)`,
);
out();
out("## Results");
out();
out(
  "| scorer | rollouts | seconds | rollouts/s | speed-up vs CPython | vs CPython scoring duplicates once |",
);
out("|---|---:|---:|---:|---:|---:|");
const row = (label, seconds, pySeconds = py.seconds, pyDeduped = py.dedupedSeconds) =>
  out(
    `| ${label} | ${n} | ${fmt(seconds)} | ${rate(seconds)} | ${speedup(pySeconds / seconds)} | ${(pyDeduped / seconds).toFixed(1)}× |`,
  );
row("CPython reference (1 process, every rollout)", py.seconds);
row("CPython reference, duplicates scored once (derived from the same run)", py.dedupedSeconds);
row(`MetricsPool cold: pool start + grammar load + first batch (${machine.threads} threads)`, cold);
row(`MetricsPool warm, same batch, median of ${WARM_RUNS} (${machine.threads} threads)`, warmMedian);
row(
  `MetricsPool warm, fresh completions, median of ${fresh.length} batches (${machine.threads} threads)¹`,
  freshMedian,
  freshPython,
  median(fresh.map((b) => b.python.dedupedSeconds)),
);
row(`MetricsPool warm, same batch, 1 thread, median of ${ONE_THREAD_RUNS}`, oneThreadMedian);
out();
out(`¹ compared with CPython's median on those same fresh batches (${fmt(freshPython)} s).`);
out();
out(
  `Warm runs of the same batch: ${warm.map((s) => fmt(s)).join(", ")} s. Fresh batches: ${freshTimes.map((s) => fmt(s)).join(", ")} s ` +
    `(CPython: ${fresh.map((b) => fmt(b.python.seconds)).join(", ")} s).`,
);
out(
  `CPython interpreter start-up + imports (not included above): ${fmt(pythonStartup)} s (median of 3). ` +
    `Peak RSS: Node process (main thread + ${machine.threads} workers) ${mib(maxRssPool)}; CPython ${mib(py.maxRssKiB)}.`,
);
out(
  `Correctness: all ${batches.length * n} rollouts (${batches.length} batches) — verdicts, d(M,C) and d(G,C) — equal CPython's exactly.`,
);
out();
out("## Where the time goes (main batch, one thread, every rollout, no cache)");
out();
out("| stage | CPython s | share | TypeScript s | share | CPython / TS |");
out("|---|---:|---:|---:|---:|---:|");
const stageNames = ["extract", "parse", "unparse", "tokenize", "levenshtein"];
const pyOther = py.seconds - stageNames.reduce((s, k) => s + py.stages[k], 0);
const tsOther = staged.total - stageNames.reduce((s, k) => s + staged.stages[k], 0);
const stageRow = (name, p, t) =>
  out(
    `| ${name} | ${fmt(p)} | ${((100 * p) / py.seconds).toFixed(1)} % | ${fmt(t)} | ${((100 * t) / staged.total).toFixed(1)} % | ${(p / t).toFixed(1)}× |`,
  );
for (const name of stageNames) stageRow(name, py.stages[name], staged.stages[name]);
stageRow("loop, timers, bookkeeping", pyOther, tsOther);
stageRow("**total**", py.seconds, staged.total);
const pyNoLev = py.seconds - py.stages.levenshtein;
const tsNoLev = staged.total - staged.stages.levenshtein;
out();
out(
  `Without Levenshtein (parse + unparse + tokenize + extract + loop): CPython ${fmt(pyNoLev)} s, TypeScript ${fmt(tsNoLev)} s ` +
    `(${(pyNoLev / tsNoLev).toFixed(1)}×). Levenshtein alone: ${(py.stages.levenshtein / staged.stages.levenshtein).toFixed(0)}×.`,
);

console.log(lines.join("\n"));
