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
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { create } from "@bufbuild/protobuf";
import { Metadata } from "@grpc/grpc-js";
import { startServe, stopServe } from "./serve.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const load = (file) => import(pathToFileURL(join(ROOT, "dist", file)).href);
const { parseConfig } = await load("config.js");
const { grpcServiceDefinition } = await load("server/service-definition.js");
const { RewardService, RolloutSchema, ScoreBatchRequestSchema, Verdict } = await load(
  "gen/minedit/v1/reward_pb.js",
);
const { importFile } = await load("tasks/importers/import-file.js");
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
// BigCodeBench is read where it lies, never copied into the repository (docs/paper-set.md#the-data-minedit_data_dir).
const DATA_DIR = process.env.MINEDIT_DATA_DIR;
const SOURCE =
  values.source ?? (DATA_DIR ? join(DATA_DIR, "bigcodebench", "BigCodeBench.jsonl.gz") : undefined);
if (SOURCE === undefined) {
  console.error(
    "[bench:e2e:bigcodebench] no BigCodeBench file: pass --source FILE or set MINEDIT_DATA_DIR (the directory holding bigcodebench/BigCodeBench.jsonl.gz)",
  );
  process.exit(2);
}
const TASKS = 32;
const CANDIDATES = 144;
const ROLLOUTS = 16;
const CPU_LIMIT_MS = 2_000;
/** The idle limit every task gets (the calibration's wall floor and ceiling pin it): the default floor. */
const IDLE_LIMIT_MS = 3_000;
const BASELINE_STRIDE = Number(values["baseline-stride"] ?? 4);
const CORES = availableParallelism();
const PYTHON = parseConfig({}).sandbox.pythonPath;
const log = (m) => console.error(`[bench:e2e:bigcodebench] ${m}`);
const fmt = (x, d = 2) => x.toFixed(d);
const load1 = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-bcb-"));
const loadAtStart = load1();
const started = performance.now();

function prepare(input) {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ["-s", join(HERE, "baseline.py"), "prepare"], {
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", PYTHONHASHSEED: "0" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      err += c;
    });
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
    child.stdin.end(JSON.stringify(input));
  });
}

// ---------------------------------------------------------------------------------------------------------
// Tasks: BigCodeBench problems of the bigcodebench runtime, corrupted here (first comparison flipped)
// ---------------------------------------------------------------------------------------------------------

const problems = [];
for await (const item of importFile(SOURCE, "bigcodebench")) {
  if ("problem" in item && item.problem.runtime === "bigcodebench") problems.push(item.problem);
}
// Golds known to pass (scripts/bigcodebench-golds.mjs's results), when given: fewer tasks for the gate to
// refuse.
const passing =
  values.golds === undefined
    ? null
    : new Set(
        readFileSync(values.golds, "utf8")
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((l) => JSON.parse(l))
          // Golds well inside the pinned CPU limit (their wall time bounds their CPU time), as the
          // calibration's factor would make them: a gold near the limit flips with CPU-time noise.
          .filter((r) => r.verdict === "PASSED" && r.wall_ms <= CPU_LIMIT_MS / 2)
          .map((r) => `bigcodebench/${r.id}`),
      );
const corrupt = await prepare({ problems: problems.map((p) => ({ solution: p.solution })), tasks: [] });
const corruptible = problems
  .map((p, i) => ({ p, corrupted: corrupt.problems[i].corrupted }))
  .filter((c) => c.corrupted !== null && (passing === null || passing.has(c.p.problemId)));
// Spread over the file: every k-th problem, so the mix of libraries is BigCodeBench's own.
// Two interleaved passes of CANDIDATES / 2 (the gate refuses about 60 %: a flipped comparison that the tests
// do not notice); the first pass's gate verdicts are remembered from earlier runs.
const stride = Math.max(2, Math.floor(corruptible.length / (CANDIDATES / 2)));
const pass = (offset) => corruptible.filter((_, i) => i % stride === offset).slice(0, CANDIDATES / 2);
const candidates = [...pass(0), ...pass(Math.floor(stride / 2))].map(({ p, corrupted }) => ({
  task_id: `${p.problemId}/e2e`,
  problem_id: p.problemId,
  statement: p.statement,
  entry_point: p.entryPoint,
  gold: p.solution,
  corrupted,
  tests: p.tests,
  runtime: p.runtime,
  corruptions: [{ family: "comparison", description: "first comparison flipped" }],
  split: "test",
  source: "benchmarks/e2e/bigcodebench",
}));
const taskFile = join(workDir, "tasks.jsonl");
writeFileSync(taskFile, `${candidates.map((t) => JSON.stringify(t)).join("\n")}\n`);

// ---------------------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------------------

/** The server's sandbox backend (`--sandbox docker`: the bigcodebench image, sandbox/docker/build-image.sh). */
const SANDBOX = values.sandbox ?? "bwrap";
if (SANDBOX !== "bwrap" && SANDBOX !== "docker")
  throw new Error(`--sandbox: expected bwrap or docker, got ${SANDBOX}`);

// Kept between runs (by content, as the server's own cache): a rerun does not redo the gate.
const gateDir = join(ROOT, ".cache", "e2e-bigcodebench-gate");
function serverConfig(concurrency) {
  const file = join(workDir, `config-${concurrency}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      sandbox: {
        backend: SANDBOX,
        executionConcurrency: concurrency,
        cpuTimeMs: CPU_LIMIT_MS,
        resultCacheBytes: 0,
      },
      tasks: {
        gateCacheDir: gateDir,
        // Pinned: every task gets the configured limits, which the baseline applies too.
        calibration: {
          factor: 1,
          cpuFloorMs: CPU_LIMIT_MS,
          cpuCeilingMs: CPU_LIMIT_MS,
          wallFloorMs: IDLE_LIMIT_MS,
          wallCeilingMs: IDLE_LIMIT_MS,
        },
      },
    }),
  );
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

function scoreBatch(client, rows) {
  const method = grpcServiceDefinition(RewardService).scoreBatch;
  const request = create(ScoreBatchRequestSchema, {
    rollouts: rows.map((row) =>
      create(RolloutSchema, {
        id: row.id,
        completion: row.completion,
        taskRef: { case: "taskId", value: row.taskId },
        groupId: row.taskId,
      }),
    ),
  });
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      new Metadata(),
      { deadline: Date.now() + 600_000 },
      (error, response) => (error ? reject(error) : resolve(response)),
    );
  });
}

/**
 * Clock ticks → ms of every process under `pid` (the server): fork servers' reaped runs and the rest.
 * Under Docker the fork servers are not the server's descendants but the processes of its containers,
 * under each one's containerd-shim: those are counted instead (this benchmark's server is the only one).
 */
function cpuTree(pid) {
  const tick = 100; // USER_HZ on Linux
  const parents = new Map();
  const stats = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = text.lastIndexOf(")");
      const comm = text.slice(text.indexOf("(") + 1, close);
      const f = text.slice(close + 2).split(" ");
      parents.set(Number(name), Number(f[1]));
      stats.set(Number(name), {
        comm,
        self: Number(f[11]) + Number(f[12]),
        reaped: Number(f[13]) + Number(f[14]),
      });
    } catch {}
  }
  const underServer = (p) => {
    for (let q = parents.get(p); q !== undefined && q > 1; q = parents.get(q)) if (q === pid) return true;
    return false;
  };
  const inContainer = (p) => {
    for (let q = parents.get(p); q !== undefined && q > 1; q = parents.get(q))
      if (stats.get(q)?.comm.startsWith("containerd-shim")) return true;
    return false;
  };
  const under = SANDBOX === "docker" ? inContainer : underServer;
  let runs = 0; // what the fork servers reaped: the executions
  let sandboxes = 0; // everything below the server, fork servers' own work and bwrap included
  for (const [p, s] of stats) {
    if (!under(p)) continue;
    sandboxes += s.self + s.reaped;
    // The fork server: python3, or minedit-init as the init of a Docker container (it names itself).
    if (s.comm.startsWith("python") || s.comm === "minedit-init") runs += s.reaped;
  }
  const own = stats.get(pid);
  return {
    runsMs: ((runs + (own?.reaped ?? 0)) * 1000) / tick,
    sandboxesMs: ((sandboxes + (own?.reaped ?? 0)) * 1000) / tick,
    serverMs: ((own?.self ?? 0) * 1000) / tick,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The rollouts
// ---------------------------------------------------------------------------------------------------------

const fence = (code) => `\`\`\`python\n${code}${code.endsWith("\n") ? "" : "\n"}\`\`\`\n`;
/** A candidate whose entry point never returns: a busy loop (CPU limit) or a blocking wait (the idle limit). */
const hang = (gold, entry, how) =>
  `${gold}\n\n_${entry} = ${entry}\n\ndef ${entry}(*args, **kwargs):\n` +
  (how === "busy" ? "    while True:\n        pass\n" : "    import time\n    time.sleep(3600)\n");

function groupOf(task, variants, index) {
  const fixed = `Here is the corrected function:\n\n${fence(task.gold)}`;
  const unchanged = `The code looks correct to me:\n\n${fence(task.corrupted)}`;
  const distinct = [
    ["fix", fixed],
    ["unchanged", unchanged],
    ["fix-commented", fence(variants.reformatted)],
    ["fix-bare", task.gold],
    ["over-edit-docstring", fence(variants.docstring)],
    ["over-edit-renamed", fence(variants.renamed)],
    ["over-edit-rewritten", fence(variants.rewritten)],
    ["wrong-fix", fence(variants.wrong_fix)],
    ["truncated", `Fixed:\n\n\`\`\`python\n${variants.truncated}`],
    ["prose-only", "No change is needed: the function already does what the statement asks."],
  ];
  // A few hanging candidates: a busy loop in every 4th group, a blocking one in every 16th.
  if (index % 4 === 1) distinct.push(["hang-busy", fence(hang(task.gold, task.entry_point, "busy"))]);
  if (index % 16 === 3) distinct.push(["hang-sleep", fence(hang(task.gold, task.entry_point, "sleep"))]);
  const duplicates = [
    ["fix", fixed],
    ["fix", fixed],
    ["fix", fixed],
    ["unchanged", unchanged],
    ["fix-bare", task.gold],
    ["fix", fixed],
  ].slice(0, ROLLOUTS - distinct.length);
  const group = [...distinct, ...duplicates];
  return group.map(([kind, completion], j) => ({
    kind,
    completion,
    id: `${task.task_id}#${j}`,
    taskId: task.task_id,
    index,
  }));
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
    // The gate's refusals: a rollout with no code is answered without execution, or refused with the task.
    const served = [];
    for (const t of candidates) {
      const probe = [{ id: "probe", taskId: t.task_id, completion: "No change is needed." }];
      if (
        await scoreBatch(server.client, probe).then(
          () => true,
          () => false,
        )
      )
        served.push(t);
    }
    servedCount = served.length;
    tasks = served.slice(0, TASKS);
    if (tasks.length < TASKS) throw new Error(`only ${tasks.length} tasks served:\n${server.stderr()}`);
    prepared = (await prepare({ problems: [], tasks })).tasks;
    rows = tasks.flatMap((task, i) => groupOf(task, prepared[i].variants, i));
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
