/**
 * The end-to-end BigCodeBench step (issue 13 item 6; benchmarks/README.md): one 512-rollout GRPO step
 * (32 BigCodeBench tasks of the bigcodebench runtime × 16 model-like rollouts, realistic duplicates, a few
 * hanging candidates) scored with execution by `minedit serve` over a real grpc-js client, at several
 * execution concurrencies, against one fresh interpreter per rollout (baseline.py) with the same limits.
 * Reports the step latency against its lower bound max(slowest execution, summed execution CPU / cores),
 * and whether every concurrency gives the same verdicts.
 *
 * Honest by construction: the cross-call result cache is off (`sandbox.resultCacheBytes: 0`), so every
 * step executes every distinct (task, program) pair of the batch (exact duplicates within the batch are
 * still run once, as a trainer's batch would have them); every limit is the same for all tasks (the
 * calibration is pinned: CPU limit `CPU_LIMIT_MS`, idle limit `IDLE_LIMIT_MS`, wall backstop from
 * src/scoring/limits.ts), so the baseline can apply the very same ones (it has no hanging rollouts, so
 * the idle limit, which only the fork server measures, decides none of its verdicts).
 *
 * The execution CPU of a step is read from /proc: the fork servers reap every run, so their cutime +
 * cstime grows by exactly the CPU of the runs (plus the server's own cutime for a sandbox replaced during
 * the step). The baseline runs every BASELINE_STRIDE-th rollout (the same mix) and is scaled to 512.
 *
 * Usage: npx tsc -p tsconfig.json && node benchmarks/e2e/bigcodebench.mjs [--concurrency 2,4,8,16]
 *          [--source FILE (default: $MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz)] [--golds .cache/bigcodebench-golds.jsonl] [--baseline-stride 4] [--sandbox bwrap|docker] (or `node benchmarks/e2e/run.mjs --bigcodebench …`)
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  bigcodebenchSource,
  CPU_LIMIT_MS,
  serverConfig as configOf,
  cpuTree as cpuTreeOf,
  IDLE_LIMIT_MS,
  loadCandidates,
  PYTHON,
  ROLLOUTS,
  scoreBatch,
  stepOf,
  TASKS,
} from "./bigcodebench-step.mjs";
import { startServe, stopServe } from "./serve.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const load = (file) => import(pathToFileURL(join(ROOT, "dist", file)).href);
const { Verdict } = await load("gen/minedit/v1/reward_pb.js");
const { wallBackstopMs } = await load("scoring/limits.js");
const { runtimeNamed, dataBinds } = await load("sandbox/runtimes.js");

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--bigcodebench"),
  options: {
    concurrency: { type: "string" },
    source: { type: "string" },
    golds: { type: "string" },
    "baseline-stride": { type: "string" },
    sandbox: { type: "string" },
  },
});
const CONCURRENCIES = (values.concurrency ?? "2,4,8,16").split(",").map(Number);
const SOURCE = bigcodebenchSource(values.source);
if (SOURCE === undefined) {
  console.error(
    "[bench:e2e:bigcodebench] no BigCodeBench file: pass --source FILE or set MINEDIT_DATA_DIR (the directory holding bigcodebench/BigCodeBench.jsonl.gz)",
  );
  process.exit(2);
}
const BASELINE_STRIDE = Number(values["baseline-stride"] ?? 4);
const CORES = availableParallelism();
const log = (m) => console.error(`[bench:e2e:bigcodebench] ${m}`);
const fmt = (x, d = 2) => x.toFixed(d);
const load1 = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-bcb-"));
const loadAtStart = load1();
const started = performance.now();

// Tasks: BigCodeBench problems of the bigcodebench runtime, corrupted here (bigcodebench-step.mjs).
const candidates = await loadCandidates(SOURCE, values.golds);
const taskFile = join(workDir, "tasks.jsonl");
writeFileSync(taskFile, `${candidates.map((t) => JSON.stringify(t)).join("\n")}\n`);

// ---------------------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------------------

/** The server's sandbox backend (`--sandbox docker`: the bigcodebench image, sandbox/docker/build-image.sh). */
const SANDBOX = values.sandbox ?? "bwrap";
if (SANDBOX !== "bwrap" && SANDBOX !== "docker")
  throw new Error(`--sandbox: expected bwrap or docker, got ${SANDBOX}`);
const cpuTree = (pid) => cpuTreeOf(pid, SANDBOX);

function serverConfig(concurrency) {
  const file = join(workDir, `config-${concurrency}.json`);
  writeFileSync(file, JSON.stringify(configOf({ sandbox: SANDBOX, concurrency })));
  return file;
}

/** The running server, killed if this script ends early. */
let current = null;
process.on("exit", () => current?.kill("SIGKILL"));

async function startServer(concurrency) {
  const args = ["--port", "0", "--tasks", taskFile, "--config", serverConfig(concurrency)];
  const server = await startServe(ROOT, args, 300_000);
  current = server.child;
  return server;
}

// ---------------------------------------------------------------------------------------------------------
// Steps at each concurrency
// ---------------------------------------------------------------------------------------------------------

let tasks = null;
let servedCount = 0;
let rows = null;
let prepared = null;
const steps = [];
for (const concurrency of CONCURRENCIES) {
  log(`starting the server at executionConcurrency ${concurrency}…`);
  const server = await startServer(concurrency);
  if (tasks === null) {
    ({ tasks, prepared, rows, servedCount } = await stepOf(server.client, candidates, TASKS, server.stderr));
    log(`${servedCount} of ${candidates.length} candidate tasks served; ${rows.length} rollouts`);
  }
  const before = cpuTree(server.child.pid);
  const t0 = performance.now();
  const response = await scoreBatch(server.client, rows);
  const seconds = (performance.now() - t0) / 1000;
  const after = cpuTree(server.child.pid);
  const results = response.results.map((r) => ({
    verdict: Verdict[r.verdict],
    reward: r.reward ?? null,
    executionMs: r.timings?.executionMs ?? 0,
    cached: r.cached,
    detail: r.detail,
  }));
  const runsCpu = (after.runsMs - before.runsMs) / 1000;
  const sandboxCpu = (after.sandboxesMs - before.sandboxesMs) / 1000;
  const serverCpu = (after.serverMs - before.serverMs) / 1000;
  const slowest = Math.max(...results.map((r) => r.executionMs)) / 1000;
  const lower = Math.max(slowest, runsCpu / CORES);
  steps.push({
    concurrency,
    seconds,
    results,
    runsCpu,
    sandboxCpu,
    serverCpu,
    slowest,
    lower,
    startup: server.startup,
    load: load1(),
  });
  log(
    `concurrency ${concurrency}: step ${fmt(seconds)} s, lower bound ${fmt(lower)} s (slowest ${fmt(slowest)} s, run CPU ${fmt(runsCpu)} s / ${CORES})`,
  );
  await stopServe(server);
}

// ---------------------------------------------------------------------------------------------------------
// The baseline: one fresh interpreter per rollout, CORES at a time, the same CPU limit and wall backstop
// ---------------------------------------------------------------------------------------------------------

const runtime = runtimeNamed("bigcodebench");
const nltk = join(workDir, "nltk_data", "corpora");
mkdirSync(nltk, { recursive: true });
for (const bind of dataBinds(runtime))
  if (bind.source !== null) symlinkSync(bind.source, join(nltk, "stopwords"));
const baselineWallMs = wallBackstopMs(CPU_LIMIT_MS, CORES, CORES, IDLE_LIMIT_MS);

function runOne(row) {
  return new Promise((resolve) => {
    const cwd = mkdtempSync(join(workDir, "run-"));
    const t0 = performance.now();
    const child = spawn(PYTHON, ["-s", "-c", "import baseline; baseline.score_one()"], {
      cwd,
      env: {
        PATH: "/usr/bin:/bin",
        LANG: "C.UTF-8",
        HOME: cwd,
        PYTHONHASHSEED: "0",
        PYTHONPATH: HERE,
        PYTHONDONTWRITEBYTECODE: "1",
        MPLBACKEND: "Agg",
        MPLCONFIGDIR: join(cwd, ".mpl"),
        NLTK_DATA: join(workDir, "nltk_data"),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    let stdout = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, baselineWallMs);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stdin.on("error", () => {});
    const task = tasks[row.index];
    child.stdin.end(
      JSON.stringify({
        completion: row.completion,
        corrupted: task.corrupted,
        d_gold: prepared[row.index].d_gold,
        tests: task.tests,
        entry_point: task.entry_point,
        cpu_ms: CPU_LIMIT_MS,
      }),
    );
    child.on("close", (_code, signal) => {
      clearTimeout(timer);
      rmSync(cwd, { recursive: true, force: true });
      const s = (performance.now() - t0) / 1000;
      const line = stdout
        .split("\n")
        .filter((l) => l.startsWith("@@baseline:"))
        .at(-1);
      if (line === undefined) {
        resolve({ verdict: timedOut || signal === "SIGXCPU" ? "TIMEOUT" : "RUNTIME_ERROR", seconds: s });
        return;
      }
      resolve({ verdict: JSON.parse(line.slice("@@baseline:".length)).verdict, seconds: s });
    });
  });
}

// Every BASELINE_STRIDE-th rollout, shifted by one per group, so every kind of rollout is in the sample.
const sample = rows
  .map((row, i) => ({ row, i }))
  .filter(({ i }) => (i + Math.floor(i / ROLLOUTS)) % BASELINE_STRIDE === 0);
log(`baseline: ${sample.length} of ${rows.length} rollouts, one fresh ${PYTHON} each, ${CORES} at a time…`);
const baselineStarted = performance.now();
const baselineResults = new Map();
let next = 0;
await Promise.all(
  Array.from({ length: CORES }, async () => {
    while (next < sample.length) {
      const { row, i } = sample[next++];
      baselineResults.set(i, await runOne(row));
    }
  }),
);
const baselineSampleSeconds = (performance.now() - baselineStarted) / 1000;
const baselineSeconds = (baselineSampleSeconds * rows.length) / sample.length;
rmSync(workDir, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------

const FAILING = new Set(["FAILED_TESTS", "RUNTIME_ERROR", "TIMEOUT", "MEMORY_LIMIT"]);
const reference = steps[0].results;
const verdictDiffs = steps.map((s) => s.results.filter((r, i) => r.verdict !== reference[i].verdict).length);
const diffList = steps.flatMap((s) =>
  s.results
    .map((r, i) => ({ r, i }))
    .filter(({ r, i }) => r.verdict !== reference[i].verdict)
    .map(
      ({ r, i }) =>
        `${rows[i].id} (${rows[i].kind}) at ${s.concurrency}: ${r.verdict} vs ${reference[i].verdict} (${r.detail})`,
    ),
);
const same = (a, b) =>
  a === b || (FAILING.has(a) && FAILING.has(b) && (a === "TIMEOUT") === (b === "TIMEOUT"));
const baselineDiff = [...baselineResults].filter(([i, b]) => !same(reference[i].verdict, b.verdict));
const count = (list) =>
  Object.entries(
    list.reduce((acc, v) => {
      acc[v] = (acc[v] ?? 0) + 1;
      return acc;
    }, {}),
  )
    .sort((a, b) => b[1] - a[1])
    .map(([v, c]) => `${v} ${c}`)
    .join(", ");
const distinct = new Set(rows.map((r) => `${r.taskId}\u0000${r.completion}`)).size;
const lines = [];
const out = (l = "") => lines.push(l);
out("## BigCodeBench step (`benchmarks/e2e/bigcodebench.mjs`)");
out();
out(
  `- ${rows.length} rollouts = ${TASKS} BigCodeBench tasks of the bigcodebench runtime × ${ROLLOUTS} (of ${candidates.length} ` +
    `spread over the file and corrupted here, the first ${TASKS} of the ${servedCount} the task gate served); ` +
    `${distinct} distinct (task, completion) pairs; kinds: ${count(rows.map((r) => r.kind))}`,
);
out(`- verdicts: ${count(reference.map((r) => r.verdict))}`);
out(
  `- limits (every task): CPU ${CPU_LIMIT_MS} ms; idle ${IDLE_LIMIT_MS} ms; wall backstop ${steps.map((s) => `${wallBackstopMs(CPU_LIMIT_MS, s.concurrency, CORES, IDLE_LIMIT_MS)} ms at ${s.concurrency}`).join(", ")}; cross-call cache off`,
);
out(
  `- ${CORES} cores; load average at start ${loadAtStart}, at end ${load1()} (other work shares the machine)`,
);
out();
out(
  "| executionConcurrency | step s | slowest execution s | run CPU s | ÷ cores | lower bound s | step ÷ lower bound | sandbox CPU s (all) | server CPU s | vs baseline | verdicts ≠ first |",
);
out("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
steps.forEach((s, k) => {
  out(
    `| ${s.concurrency} | ${fmt(s.seconds)} | ${fmt(s.slowest)} | ${fmt(s.runsCpu)} | ${fmt(s.runsCpu / CORES)} | ${fmt(s.lower)} | ` +
      `${fmt(s.seconds / s.lower)}× | ${fmt(s.sandboxCpu)} | ${fmt(s.serverCpu)} | ${fmt(baselineSeconds / s.seconds, 1)}× | ${verdictDiffs[k]} |`,
  );
});
out();
out(
  `Baseline: one fresh \`python3\` per rollout (baseline.py: imports, metrics, the tests in-process, RLIMIT_CPU ${CPU_LIMIT_MS / 1000} s ` +
    `for the tests, wall ${baselineWallMs} ms), ${CORES} at a time: every ${BASELINE_STRIDE}th rollout, shifted by one per group (${sample.length}: ${count(sample.map(({ row }) => row.kind))}) in ` +
    `${fmt(baselineSampleSeconds)} s → ${fmt(baselineSeconds)} s for ${rows.length}. Its verdicts: ${count([...baselineResults.values()].map((b) => b.verdict))}; ` +
    `${baselineDiff.length} of ${sample.length} differ from the server's (failures counted alike except TIMEOUT).`,
);
for (const [i, b] of baselineDiff.slice(0, 12))
  out(
    `- baseline: ${rows[i].id} (${rows[i].kind}): ${b.verdict} vs server ${reference[i].verdict} — ${reference[i].detail}`,
  );
for (const d of diffList.slice(0, 12)) out(`- concurrency: ${d}`);
out();
out(
  `Server start-up (gate, fork servers with the runtime preloaded): ${steps.map((s) => `${fmt(s.startup, 1)} s`).join(", ")}. Whole run ${fmt((performance.now() - started) / 1000, 0)} s.`,
);
console.log(lines.join("\n"));
if (verdictDiffs.some((d) => d > 0)) process.exitCode = 2;
