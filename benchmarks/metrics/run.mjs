/**
 * Metrics benchmark (see benchmarks/README.md): 512-rollout GRPO-like batches (32 tasks × 16 rollouts) of
 * two kinds — real stdlib functions, and BigCodeBench tasks from the shared data — scored through
 * extraction, normalization, tokens and distance by
 *   - minedit's MetricsPool, 1 thread and all threads, cold (pool start included) and warm;
 *   - the over-editing paper's own pipeline (paper.py: CPython ast + tokenize + the C Levenshtein package,
 *     C and G cached per process), 1 process and a multiprocessing pool on all cores, plus its variant
 *     that scores duplicate completions once (the strongest baseline) and the paper's code as written;
 *   - the pure-Python reference pipeline (reference.py), the baseline this benchmark used to quote;
 * all on the same JSONL files. Every verdict, d(M, C) and d(G, C) of every baseline must equal minedit's
 * exactly (float equality) or the run aborts (exit 2). Then, unless `--score-sizes 0`, the offline-scoring
 * throughput and peak RSS of `minedit score --no-exec` (benchmarks/score/run.mjs) at 10⁴ and 10⁶
 * completions, against the paper's pipeline on the same files.
 *
 *   npm run bench        (builds first; ~30 min on 2 cores, most of it the paper's pipeline at 10⁶)
 *   node benchmarks/metrics/run.mjs [--score-sizes 10000] [--python /usr/bin/python3]
 *
 * It imports the BUILT code from dist/.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { allTasks, checkPaperPython, runScoreBenchmark } from "../score/run.mjs";
import {
  BIGCODEBENCH,
  loadBigCodeBenchFunctions,
  loadStdlibFunctions,
  makeRollouts,
  ROLLOUTS,
  runReference,
  selectTasks,
  TASKS,
  toJsonl,
} from "./make-batch.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const DIST = join(ROOT, "dist");
const PAPER = join(HERE, "paper.py");
const TASK_SEED = 1;
const MAIN_COMPLETION_SEED = 1;
/**
 * Batches of different completions for the same tasks, to time work no completion cache can skip. A
 * minedit batch takes tens of milliseconds, where a GC pause or a deoptimization shows: nine of them,
 * and their median, keep one such hiccup from setting the ratio.
 */
const FRESH_COMPLETION_SEEDS = [2, 3, 4, 5, 6, 7, 8, 9, 10];
/** The pure-Python reference (kept for continuity, ~8 s a batch) scores the main batch and this many fresh ones. */
const PURE_FRESH_BATCHES = 3;
const WARM_RUNS = 5;

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const scoreSizes = option("--score-sizes", "10000,1000000")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);

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
  "core/python/normalized-tokens.js",
  "core/python/syntax-error.js",
  "cli/main.js",
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
const PYTHON = option("--python", parseConfig({}).sandbox.pythonPath);
const paperPython = checkPaperPython(PYTHON);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (x, digits = 3) => x.toFixed(digits);
const loadNow = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const log = (message) => console.error(`[bench] ${message} (load ${loadNow()})`);
const started = performance.now();
const THREADS = availableParallelism();

const machine = {
  cpu: cpus()[0]?.model ?? "unknown",
  memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
  node: process.version,
  python: spawnSync("python3", ["--version"], { encoding: "utf8" }).stdout.trim(),
  loadavg: loadNow(),
};

// ---------------------------------------------------------------------------------------------------------
// Running the Python pipelines
// ---------------------------------------------------------------------------------------------------------

/** paper.py batches: one process scoring `files` in order (caches kept from one to the next). */
function runPaper(files, { mode = "cached", workers = 1, stages = false } = {}) {
  const args = [
    PAPER,
    "batches",
    "--mode",
    mode,
    "--workers",
    String(workers),
    ...(stages ? ["--stages"] : []),
  ];
  const run = spawnSync(PYTHON, [...args, ...files], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (run.status !== 0) throw new Error(`paper.py failed (exit ${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Interpreter start-up + the pipeline's imports, median of 3 (not inside any batch time). */
function startup(python, imports) {
  return median(
    Array.from({ length: 3 }, () => {
      const t0 = performance.now();
      spawnSync(python, ["-c", `import ${imports}`]);
      return (performance.now() - t0) / 1000;
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Correctness
// ---------------------------------------------------------------------------------------------------------

/**
 * Aborts the run unless every verdict, d(M, C) and d(G, C) of `expected` equals minedit's exactly.
 * `everyTask`: each task must have a passing rollout, so that its d(G, C) was compared too (not asked
 * of a part of a batch, where a task may have none).
 */
function verify(label, rows, expected, scores, workDir, everyTask = true) {
  const problems = [];
  const goldChecked = new Set();
  rows.forEach((row, i) => {
    const want = expected[i];
    const got = scores[i];
    const where = `${label} rollout #${i} (${row.task_id}, ${row.kind})`;
    if (!got.ok) {
      problems.push(`${where}: minedit rejected the task (${got.which}): ${got.message}`);
      return;
    }
    const { verdict, components } = got.score;
    if (verdict !== want.verdict) {
      problems.push(`${where}: verdict minedit ${verdict} vs ${want.verdict} (${got.score.detail})`);
    } else if (verdict === "PASSED") {
      if (components.dModel !== want.d_model) {
        problems.push(`${where}: d(M,C) minedit ${components.dModel} vs ${want.d_model}`);
      }
      if (components.dGold !== want.d_gold) {
        problems.push(`${where}: d(G,C) minedit ${components.dGold} vs ${want.d_gold}`);
      }
      goldChecked.add(row.task_id);
    }
  });
  const unchecked = new Set(rows.map((r) => r.task_id)).size - goldChecked.size;
  if (everyTask && unchecked > 0)
    problems.push(`${label}: ${unchecked} task(s) had no parsable rollout to check d(G,C) on`);
  if (problems.length > 0) {
    console.error(`\nCORRECTNESS FAILURE — minedit and ${label} disagree (${problems.length} problem(s)):`);
    for (const p of problems.slice(0, 25)) console.error(`  ${p}`);
    console.error(`batches kept in ${workDir}`);
    process.exit(2);
  }
}

// ---------------------------------------------------------------------------------------------------------
// One suite: a main batch and three fresh batches of the same tasks, through every pipeline
// ---------------------------------------------------------------------------------------------------------

const config = parseConfig({}).reward;
const requestsOf = (rows) =>
  rows.map((r) => ({ corrupted: r.corrupted, gold: r.gold, completion: r.completion, config }));

/**
 * What the pool is asked for when nothing is executed (`minedit score --no-exec`, through the rollout
 * scorer): the scores without norm(M), which only keys executions.
 */
const NO_EXECUTION = { normalizedPrograms: false };

/** Wall seconds, and CPU seconds of this whole process (main thread + workers), of one batch. */
async function timed(pool, rows) {
  const requests = requestsOf(rows);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const scores = await pool.score(requests, NO_EXECUTION);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, scores };
}

/** The bounds of the workers' program cache and score memo when they are on: the defaults (src/config.ts). */
const PROGRAM_CACHE_BYTES = parseConfig({}).pool.programCacheBytes;
const SCORE_MEMO_ENTRIES = parseConfig({}).pool.scoreMemoEntries;

/**
 * minedit with `threads` threads: cold (pool start + first batch), warm same batch, fresh batches. The
 * program cache and the score memo are off unless `caches` turns one on: with either on, the warm runs of
 * the same batch would measure the cache, not the parse, and fresh batches that repeat a program (a
 * restyle, a rename the generator draws again) would count those once — a benefit of its own, measured on
 * its own ({@link runSuite}'s `cached`: the program cache, which the service's executing path uses, and
 * `memoized`: the score memo, which `minedit score --no-exec` uses).
 */
async function runMinedit(threads, main, fresh, caches = {}) {
  const { programCacheBytes = 0, scoreMemoEntries = 0 } = caches;
  const on = [programCacheBytes > 0 ? "program cache on" : "", scoreMemoEntries > 0 ? "score memo on" : ""]
    .filter((x) => x !== "")
    .map((x) => `, ${x}`)
    .join("");
  log(`MetricsPool, ${threads} thread(s)${on}: cold, ${WARM_RUNS} warm, ${fresh.length} fresh…`);
  const coldStart = performance.now();
  const pool = new MetricsPool(threads, { programCacheBytes, scoreMemoEntries });
  const coldScores = await pool.score(requestsOf(main.rows), NO_EXECUTION);
  const cold = (performance.now() - coldStart) / 1000;
  const warm = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    const run = await timed(pool, main.rows);
    if (JSON.stringify(run.scores) !== JSON.stringify(coldScores)) {
      console.error("a warm run scored the batch differently");
      process.exit(2);
    }
    warm.push(run.seconds);
  }
  const freshTimes = [];
  const freshCpu = [];
  const freshScores = [];
  for (const batch of fresh) {
    const run = await timed(pool, batch.rows);
    freshTimes.push(run.seconds);
    freshCpu.push(run.cpuSeconds);
    freshScores.push(run.scores);
  }
  const programCache = pool.programCache();
  const scoreMemo = pool.scoreMemo();
  // This process's resident size with the pool's workers and whatever their caches hold.
  const rssBytes = process.memoryUsage().rss;
  await pool.close();
  return {
    cold,
    warm,
    fresh: freshTimes,
    freshCpu,
    coldScores,
    freshScores,
    programCache,
    scoreMemo,
    rssBytes,
  };
}

/** One cache filled with the batches' distinct programs: its estimate against the heap it took. */
function programCacheHeap(files) {
  const child = spawnSync(process.execPath, ["--expose-gc", join(HERE, "program-cache-heap.mjs"), ...files], {
    encoding: "utf8",
  });
  if (child.status !== 0) throw new Error(`program-cache-heap.mjs failed: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

async function runSuite(name, functions, workDir) {
  const tasks = selectTasks(functions, TASK_SEED, TASKS);
  const batches = [MAIN_COMPLETION_SEED, ...FRESH_COMPLETION_SEEDS].map((seed) => ({
    seed,
    rows: makeRollouts(tasks, seed, ROLLOUTS),
  }));
  for (const batch of batches) {
    batch.file = join(workDir, `${name}-batch-${batch.seed}.jsonl`);
    writeFileSync(batch.file, toJsonl(batch.rows));
  }
  const [main, ...fresh] = batches;
  const freshFiles = fresh.map((b) => b.file);

  // Python first, before any worker thread of this process exists.
  log(`${name}: pure-Python reference on ${1 + PURE_FRESH_BATCHES} batches…`);
  const pure = batches.slice(0, 1 + PURE_FRESH_BATCHES).map((b) => runReference(["score", b.file]));
  log(`${name}: paper's pipeline, 1 process…`);
  const paper1 = runPaper([main.file, main.file, main.file, ...freshFiles]);
  log(`${name}: paper's pipeline, ${THREADS} processes…`);
  const paperN = runPaper([main.file, main.file, main.file, ...freshFiles], { workers: THREADS });
  log(`${name}: paper's pipeline, duplicates once…`);
  const memo1 = runPaper([main.file, ...freshFiles], { mode: "memo" });
  const memoN = runPaper([main.file, ...freshFiles], { mode: "memo", workers: THREADS });
  log(`${name}: paper's code as written…`);
  const asWritten = runPaper([main.file, ...freshFiles], { mode: "as-written" });
  const paperStages = runPaper([main.file, main.file], { stages: true });

  const many = await runMinedit(THREADS, main, fresh);
  const one = await runMinedit(1, main, fresh);
  const cached = await runMinedit(THREADS, main, fresh, { programCacheBytes: PROGRAM_CACHE_BYTES });
  const memoized = await runMinedit(THREADS, main, fresh, { scoreMemoEntries: SCORE_MEMO_ENTRIES });
  const cacheHeap = programCacheHeap(batches.map((b) => b.file));

  // Every baseline, every batch it scored, against minedit's scores of that batch.
  const scoresOf = [many.coldScores, ...many.freshScores];
  const check = (label, output, order) =>
    output.batches.forEach((b, i) => {
      const at = order[i];
      verify(`${label} (batch ${batches[at].seed})`, batches[at].rows, b.results, scoresOf[at], workDir);
    });
  for (const [i, p] of pure.entries()) {
    verify(
      `pure-Python reference (batch ${batches[i].seed})`,
      batches[i].rows,
      p.results,
      scoresOf[i],
      workDir,
    );
  }
  // Batch indexes in the order each run scored them: the main batch (three times), then the fresh ones.
  const everyBatch = batches.map((_, i) => i);
  const mainThrice = [0, 0, ...everyBatch];
  check("paper's pipeline, 1 process", paper1, mainThrice);
  check(`paper's pipeline, ${THREADS} processes`, paperN, mainThrice);
  check("paper's pipeline, duplicates once", memo1, everyBatch);
  check(`paper's pipeline, duplicates once, ${THREADS} processes`, memoN, everyBatch);
  check("paper's code as written", asWritten, everyBatch);
  check("paper's pipeline, staged", paperStages, [0, 0]);
  for (const [label, run] of [
    ["1 thread", one],
    ["the program cache", cached],
    ["the score memo", memoized],
  ]) {
    run.freshScores.forEach((s, i) => {
      if (JSON.stringify(s) !== JSON.stringify(many.freshScores[i])) {
        console.error(`${label} and all threads without it scored a batch differently`);
        process.exit(2);
      }
    });
  }

  // The same comparison on the rollouts whose program is neither C's nor G's own text. minedit answers
  // those from the prepared task without parsing (the unchanged answer, the reproduced fix), so this
  // part of each batch shows the parse path alone; the paper's pipeline parses every rollout either way.
  const others = batches.map((batch) => ({
    seed: batch.seed,
    file: join(workDir, `${name}-batch-${batch.seed}-others.jsonl`),
    rows: batch.rows.filter((row) => {
      const extracted = extractProgram(row.completion, config.endOfTurnMarkers);
      return (
        extracted.kind === "no_code" ||
        (extracted.program !== row.gold && extracted.program !== row.corrupted)
      );
    }),
  }));
  for (const batch of others) writeFileSync(batch.file, toJsonl(batch.rows));
  const [mainOthers, ...freshOthers] = others;
  log(
    `${name}: the rollouts that are not C or G (${mainOthers.rows.length} of ${main.rows.length}), paper and minedit…`,
  );
  const paperOthers = runPaper([
    mainOthers.file,
    mainOthers.file,
    mainOthers.file,
    ...freshOthers.map((b) => b.file),
  ]);
  const oneOthers = await runMinedit(1, mainOthers, freshOthers);
  paperOthers.batches.slice(3).forEach((b, i) => {
    const label = `paper's pipeline, not C or G (batch ${freshOthers[i].seed})`;
    verify(label, freshOthers[i].rows, b.results, oneOthers.freshScores[i], workDir, false);
  });

  const stagesTs = await stagedPass(main.rows, paperStages.batches[1].results, workDir);
  return {
    others,
    paperOthers,
    oneOthers,
    name,
    tasks,
    batches,
    pure,
    paper1,
    paperN,
    memo1,
    memoN,
    asWritten,
    paperStages,
    many,
    one,
    cached,
    memoized,
    cacheHeap,
    stagesTs,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Where the time goes: the same stages as paper.py --stages, in-process on one thread, no dedup
// ---------------------------------------------------------------------------------------------------------

const { extractProgram } = await load("core/extract-program.js");
const { TokenBaseline } = await load("core/distance.js");
const { normalizedTokens } = await load("core/python/normalized-tokens.js");
const { loadPythonGrammar } = await load("core/python/grammar.js");
const { parsePython } = await load("core/python/parse.js");
const { unparse } = await load("core/python/unparse.js");
const { pythonTokens, TokenizeError } = await load("core/python/tokenize.js");
const { PySyntaxError } = await load("core/python/syntax-error.js");
await loadPythonGrammar();

function stagedOnce(rows) {
  const stages = { extract: 0, parse: 0, unparse: 0, tokenize: 0, levenshtein: 0 };
  const results = [];
  const prepared = new Map();
  const tokensOf = (source) => {
    const t0 = performance.now();
    const module = parsePython(source);
    const t1 = performance.now();
    const text = unparse(module);
    const t2 = performance.now();
    // As the product reads norm(X)'s tokens: its own tokenizer of unparse's output, the port when that
    // declines (src/core/normalize.ts).
    const tokens = normalizedTokens(text)?.tokens ?? pythonTokens(text);
    const t3 = performance.now();
    stages.parse += t1 - t0;
    stages.unparse += t2 - t1;
    stages.tokenize += t3 - t2;
    return tokens;
  };
  /** d(tokens, C), with C's symbols assigned once per task as the product does (TokenBaseline). */
  const distance = (tokens, baseline) => {
    const t0 = performance.now();
    const d = baseline.normalizedDistance(tokens);
    stages.levenshtein += performance.now() - t0;
    return d;
  };
  const start = performance.now();
  for (const row of rows) {
    const key = `${row.corrupted}\u0000${row.gold}`;
    let task = prepared.get(key);
    if (task === undefined) {
      const t0 = performance.now();
      const corrupted = new TokenBaseline(tokensOf(row.corrupted));
      stages.levenshtein += performance.now() - t0;
      task = { corrupted, dGold: distance(tokensOf(row.gold), corrupted) };
      prepared.set(key, task);
    }
    const t0 = performance.now();
    const extracted = extractProgram(row.completion, config.endOfTurnMarkers);
    stages.extract += performance.now() - t0;
    if (extracted.kind === "no_code") {
      results.push({ verdict: "NO_CODE" });
      continue;
    }
    let tokens;
    try {
      tokens = tokensOf(extracted.program);
    } catch (error) {
      if (!(error instanceof PySyntaxError || error instanceof TokenizeError)) throw error;
      results.push({ verdict: "UNPARSABLE" });
      continue;
    }
    results.push({ verdict: "PASSED", dModel: distance(tokens, task.corrupted), dGold: task.dGold });
  }
  const total = (performance.now() - start) / 1000;
  for (const key of Object.keys(stages)) stages[key] /= 1000;
  return { total, stages, results };
}

async function stagedPass(rows, expected, workDir) {
  stagedOnce(rows); // JIT warm-up
  const staged = stagedOnce(rows);
  staged.results.forEach((r, i) => {
    const p = expected[i];
    if (
      r.verdict !== p.verdict ||
      (r.verdict === "PASSED" && (r.dModel !== p.d_model || r.dGold !== p.d_gold))
    ) {
      console.error(
        `CORRECTNESS FAILURE in the staged pass, rollout #${i}: ${JSON.stringify(r)} vs ${JSON.stringify(p)}`,
      );
      console.error(`batches kept in ${workDir}`);
      process.exit(2);
    }
  });
  return staged;
}

// ---------------------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------------------

const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-"));
log("reading gold programs (installed stdlib, shared BigCodeBench data)…");
const stdlib = loadStdlibFunctions();
const suites = [await runSuite("stdlib", stdlib.functions, workDir)];
let bigcodebench = null;
if (existsSync(BIGCODEBENCH)) {
  bigcodebench = loadBigCodeBenchFunctions();
  suites.push(await runSuite("bigcodebench", bigcodebench.functions, workDir));
} else {
  log(`no BigCodeBench data at ${BIGCODEBENCH}: that batch is skipped`);
}
rmSync(workDir, { recursive: true, force: true });
const paperStartup = startup(PYTHON, "ast, io, json, multiprocessing, re, tokenize, Levenshtein");
const metricsLoad = loadNow();
const metricsSeconds = (performance.now() - started) / 1000;

let scoreLines = null;
if (scoreSizes.length > 0) {
  const tasks = allTasks((m) => log(m));
  scoreLines = runScoreBenchmark({ sizes: scoreSizes, python: PYTHON, log, tasks });
}

// ---------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------

const lines = [];
const out = (line = "") => lines.push(line);
const rate = (seconds, n) => Math.round(n / seconds);
const x = (r) => `${r.toFixed(2)}×`;

out("## Machine");
out();
out(`- CPU: ${machine.cpu}; os.availableParallelism() = ${THREADS}; RAM ${machine.memory}`);
out(
  `- Node ${machine.node}; pure-Python reference and batch generator on ${machine.python} (\`python3\`); paper's pipeline on ${paperPython}`,
);
out(
  `- load average (1/5/15 min): at start ${machine.loadavg}; after the batches ${metricsLoad}; at end ${loadNow()}`,
);
out(
  `- metrics part ${fmt(metricsSeconds, 0)} s; whole run ${fmt((performance.now() - started) / 1000, 0)} s`,
);
out();

for (const s of suites) {
  const [main, ...fresh] = s.batches;
  const n = main.rows.length;
  const mainPure = s.pure[0];
  const dup = main.rows.filter((r) => r.duplicate).length;
  const distinct = new Set(main.rows.map((r) => JSON.stringify([r.task_id, r.completion]))).size;
  const kinds = [...new Set(main.rows.map((r) => r.kind))].sort();
  const chars = (t) => t.gold.length;
  out(`## Batch: ${s.name === "stdlib" ? "stdlib functions" : "BigCodeBench tasks"}`);
  out();
  out(
    `- ${n} rollouts = ${s.tasks.length} tasks × ${ROLLOUTS}; ${dup} (${((100 * dup) / n).toFixed(1)} %) exact duplicates within ` +
      `their group → ${distinct} distinct (task, completion) pairs; gold ${Math.min(...s.tasks.map((t) => t.fn.lines))}–` +
      `${Math.max(...s.tasks.map((t) => t.fn.lines))} lines (mean ${(s.tasks.reduce((a, t) => a + t.fn.lines, 0) / s.tasks.length).toFixed(1)}), ` +
      `${Math.round(s.tasks.reduce((a, t) => a + chars(t), 0) / s.tasks.length)} characters on average; ` +
      `${s.tasks.filter((t) => t.edits.length === 2).length} tasks with 2 corruptions, the rest 1`,
  );
  out(`- tasks: ${s.tasks.map((t) => `\`${t.id}\``).join(", ")}`);
  out(
    `- rollout kinds: ${kinds.map((k) => `${k} ${main.rows.filter((r) => r.kind === k).length}`).join(", ")}`,
  );
  out(
    `- verdicts: ${["PASSED", "UNPARSABLE", "NO_CODE"].map((v) => `${v} ${mainPure.results.filter((r) => r.verdict === v).length}`).join(", ")}; ` +
      `fresh batches (completion seeds ${FRESH_COMPLETION_SEEDS.join(", ")}): same tasks, new completions`,
  );
  out();
  out(
    "| pipeline | cores | cold: start + first batch, s | cold rollouts/s | warm same batch, s (median) | warm fresh completions, s (median) | **warm fresh rollouts/s** | per core |",
  );
  out("|---|---:|---:|---:|---:|---:|---:|---:|");
  const freshN = fresh[0].rows.length;
  const row = (label, cores, cold, same, freshSeconds) =>
    out(
      `| ${label} | ${cores} | ${cold === null ? "—" : fmt(cold)} | ${cold === null ? "—" : rate(cold, n)} | ${same === null ? "—" : fmt(same)} | ` +
        `${fmt(freshSeconds)} | **${rate(freshSeconds, freshN)}** | ${rate(freshSeconds * cores, freshN)} |`,
    );
  const b = (o, i) => o.batches[i].seconds;
  const warmSame = (o) => median([b(o, 1), b(o, 2)]);
  const warmFresh = (o, from) => median(o.batches.slice(from).map((x) => x.seconds));
  row(`minedit MetricsPool, 1 thread`, 1, s.one.cold, median(s.one.warm), median(s.one.fresh));
  row(
    `minedit MetricsPool, ${THREADS} threads`,
    THREADS,
    s.many.cold,
    median(s.many.warm),
    median(s.many.fresh),
  );
  row(
    "paper's pipeline, 1 process (C and G cached) — **baseline**",
    1,
    paperStartup + b(s.paper1, 0),
    warmSame(s.paper1),
    warmFresh(s.paper1, 3),
  );
  row(
    `paper's pipeline, multiprocessing.Pool(${THREADS}), a cache per process`,
    THREADS,
    paperStartup + s.paperN.poolStartSeconds + b(s.paperN, 0),
    warmSame(s.paperN),
    warmFresh(s.paperN, 3),
  );
  row(
    "paper's pipeline + duplicates scored once, 1 process — strongest",
    1,
    null,
    null,
    warmFresh(s.memo1, 1),
  );
  row(
    `paper's pipeline + duplicates scored once, Pool(${THREADS})`,
    THREADS,
    null,
    null,
    warmFresh(s.memoN, 1),
  );
  row(
    "paper's code as written (norm(G), norm(C), d(G,C) per rollout), 1 process",
    1,
    null,
    null,
    warmFresh(s.asWritten, 1),
  );
  row(
    "pure-Python reference (reference.py), 1 process",
    1,
    null,
    null,
    median(s.pure.slice(1).map((p) => p.seconds)),
  );
  out();
  const r1 = median(s.one.fresh);
  const rN = median(s.many.fresh);
  out(
    "| comparison (warm, fresh completions) | minedit rollouts/s | baseline rollouts/s | minedit ÷ baseline (per core) | same, by CPU time |",
  );
  out("|---|---:|---:|---:|---:|");
  // CPU time (user + system of the whole process) is what load from other jobs moves least.
  const cpu1 = median(s.one.freshCpu);
  const cpuOf = (o, from) => median(o.batches.slice(from).map((b) => b.cpuSeconds));
  const cmp = (label, mine, theirs, cpuRatio) =>
    out(
      `| ${label} | ${rate(mine, freshN)} | ${rate(theirs, freshN)} | **${x(theirs / mine)}** | ${cpuRatio === undefined ? "—" : x(cpuRatio)} |`,
    );
  cmp("1 thread vs the paper's pipeline, 1 process", r1, warmFresh(s.paper1, 3), cpuOf(s.paper1, 3) / cpu1);
  cmp(
    "1 thread vs the paper's pipeline + duplicates once, 1 process (lower bound)",
    r1,
    warmFresh(s.memo1, 1),
    cpuOf(s.memo1, 1) / cpu1,
  );
  cmp(`${THREADS} threads vs the paper's pipeline, Pool(${THREADS})`, rN, warmFresh(s.paperN, 3));
  cmp(
    `${THREADS} threads vs the paper's pipeline + duplicates once, Pool(${THREADS}) (lower bound)`,
    rN,
    warmFresh(s.memoN, 1),
  );
  cmp(
    "1 thread vs the paper's code as written, 1 process",
    r1,
    warmFresh(s.asWritten, 1),
    cpuOf(s.asWritten, 1) / cpu1,
  );
  cmp("1 thread vs the pure-Python reference", r1, median(s.pure.slice(1).map((p) => p.seconds)));
  out();
  {
    const othersN = median(s.others.slice(1).map((b) => b.rows.length));
    const mine = median(s.oneOthers.fresh);
    const theirs = median(s.paperOthers.batches.slice(3).map((b) => b.seconds));
    const cpuMine = median(s.oneOthers.freshCpu);
    const cpuTheirs = median(s.paperOthers.batches.slice(3).map((b) => b.cpuSeconds));
    const share = (100 * othersN) / freshN;
    out(
      `Rollouts whose program is not C's or G's own text (${share.toFixed(0)} % of each fresh batch, median ${othersN} rollouts; ` +
        `minedit answers the others from the prepared task without parsing, the paper's pipeline parses them all): ` +
        `minedit 1 thread ${rate(mine, othersN)} rollouts/s vs the paper's pipeline, 1 process ${rate(theirs, othersN)}/s: ` +
        `**${x(theirs / mine)}** (${x(cpuTheirs / cpuMine)} by CPU time). The same rollouts were checked equal.`,
    );
  }
  out();
  out(
    `Cold: minedit ${THREADS} threads ${fmt(s.many.cold)} s vs the paper's Pool(${THREADS}) ${fmt(paperStartup + s.paperN.poolStartSeconds + b(s.paperN, 0))} s ` +
      `(${x((paperStartup + s.paperN.poolStartSeconds + b(s.paperN, 0)) / s.many.cold)}); 1 thread ${fmt(s.one.cold)} s vs 1 process ${fmt(paperStartup + b(s.paper1, 0))} s ` +
      `(${x((paperStartup + b(s.paper1, 0)) / s.one.cold)}). Python cold = interpreter start-up and imports (${fmt(paperStartup)} s, median of 3) + ` +
      `pool start (${fmt(s.paperN.poolStartSeconds)} s) + first batch with empty caches.`,
  );
  out(
    `Runs: minedit ${THREADS} threads warm ${s.many.warm.map((t) => fmt(t)).join(", ")}, fresh ${s.many.fresh.map((t) => fmt(t)).join(", ")} s; ` +
      `1 thread warm ${s.one.warm.map((t) => fmt(t)).join(", ")}, fresh ${s.one.fresh.map((t) => fmt(t)).join(", ")} s; ` +
      `paper 1 process ${s.paper1.batches.map((t) => fmt(t.seconds)).join(", ")} s; Pool(${THREADS}) ${s.paperN.batches.map((t) => fmt(t.seconds)).join(", ")} s ` +
      `(main ×3, then fresh). Peak RSS: paper's process ${(s.paper1.maxRss.selfKiB / 1024).toFixed(0)} MiB; pure-Python ${(mainPure.maxRssKiB / 1024).toFixed(0)} MiB.`,
  );
  const { hits, misses, entries, bytes } = s.cached.programCache;
  out(
    `Program cache (\`pool.programCacheBytes\`, on by default, used where norm(M) is wanted: the service's executing path; every row above runs with it and the score memo off, so they measure the parse): ` +
      `${THREADS} threads, fresh batches ${rate(median(s.cached.fresh), freshN)} rollouts/s (off: ${rate(rN, freshN)}; ${x(rN / median(s.cached.fresh))}), ` +
      `the same batch again ${rate(median(s.cached.warm), n)} rollouts/s (every program kept: off ${rate(median(s.many.warm), n)}). ` +
      `Over the run ${hits} of ${hits + misses} program lookups were hits (within a batch identical completions are scored once anyway; these are programs seen in an earlier batch); ` +
      `${entries} programs kept, ~${(bytes / 2 ** 20).toFixed(1)} MiB estimated (bound ${(PROGRAM_CACHE_BYTES / 2 ** 20).toFixed(0)} MiB per worker); ` +
      `process RSS at the end ${(s.cached.rssBytes / 2 ** 20).toFixed(0)} MiB with it, ${(s.many.rssBytes / 2 ** 20).toFixed(0)} MiB without. ` +
      `What the estimate stands for (one cache of the ${s.cacheHeap.entries} distinct programs of all ${s.batches.length} batches, program-cache-heap.mjs): ` +
      `estimate ${(s.cacheHeap.estimateBytes / 2 ** 20).toFixed(2)} MiB, V8 heap growth ${(s.cacheHeap.heapBytes / 2 ** 20).toFixed(2)} MiB ` +
      `(${(s.cacheHeap.heapBytes / s.cacheHeap.estimateBytes).toFixed(2)}× the estimate).`,
  );
  const memo = s.memoized.scoreMemo;
  out(
    `Score memo (\`pool.scoreMemoEntries\`, on by default, used where norm(M) is not wanted: \`minedit score --no-exec\`; scores keyed by task, config and the program's SHA-256): ` +
      `${THREADS} threads, fresh batches ${rate(median(s.memoized.fresh), freshN)} rollouts/s (off: ${rate(rN, freshN)}), ` +
      `the same batch again ${rate(median(s.memoized.warm), n)} rollouts/s. Over the run ${memo.hits} of ${memo.hits + memo.misses} programs (C and G themselves are never looked up) were scored before for their task; ` +
      `${memo.entries} scores kept (bound ${SCORE_MEMO_ENTRIES} per worker); process RSS at the end ${(s.memoized.rssBytes / 2 ** 20).toFixed(0)} MiB.`,
  );
  out(
    `Correctness: every rollout of every batch each baseline scored (${s.batches.length} batches, ${s.batches.length * n} rollouts; the pure-Python reference ${1 + PURE_FRESH_BATCHES} of them) — verdicts, d(M,C), d(G,C) — equals minedit's exactly.`,
  );
  out();
  out(
    `### Where the time goes (${s.name}, main batch, one thread, every rollout, C and G prepared in the pass)`,
  );
  out();
  const py = s.paperStages.batches[1];
  const ts = s.stagesTs;
  out("| stage | paper's pipeline s | share | minedit s | share | paper ÷ minedit |");
  out("|---|---:|---:|---:|---:|---:|");
  const stageRow = (name, p, t) =>
    out(
      `| ${name} | ${fmt(p)} | ${((100 * p) / py.seconds).toFixed(1)} % | ${t === null ? "—" : fmt(t)} | ${t === null ? "—" : `${((100 * t) / ts.total).toFixed(1)} %`} | ${t === null ? "—" : x(p / t)} |`,
    );
  const pyNames = ["extract", "parse", "unparse", "tokenize", "encode", "levenshtein"];
  for (const name of ["extract", "parse", "unparse", "tokenize"])
    stageRow(name, py.stages[name], ts.stages[name]);
  stageRow("tokens → code points (0.12.2 takes strings only)", py.stages.encode, null);
  stageRow("levenshtein", py.stages.levenshtein, ts.stages.levenshtein);
  const pyOther = py.seconds - pyNames.reduce((a, k) => a + py.stages[k], 0);
  const tsOther =
    ts.total -
    ["extract", "parse", "unparse", "tokenize", "levenshtein"].reduce((a, k) => a + ts.stages[k], 0);
  stageRow("loop, timers, bookkeeping", pyOther, tsOther);
  stageRow("**total**", py.seconds, ts.total);
  out();
}

if (scoreLines !== null) {
  out("## `minedit score --no-exec` throughput");
  out();
  for (const line of scoreLines) out(line);
}

console.log(lines.join("\n"));
