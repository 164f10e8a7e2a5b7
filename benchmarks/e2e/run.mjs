/**
 * End-to-end benchmark (see benchmarks/README.md): one 512-rollout GRPO step (32 tasks × 16 model-like
 * rollouts, realistic duplicates) scored WITH EXECUTION by `minedit serve` over a real grpc-js client,
 * against the same rollouts scored by one fresh Python interpreter per rollout (baseline.py), with the same
 * parallelism, in the same run. Also reports the server's step latency and its idle memory.
 *
 * Run with `npm run bench:e2e` (builds first). It imports the BUILT code from dist/ and runs the built CLI.
 * `node benchmarks/e2e/run.mjs --bigcodebench` runs the BigCodeBench step instead (bigcodebench.mjs);
 * `--hardening` compares the step's executions with and without issue 25's hardening (hardening.mjs).
 * `node benchmarks/e2e/run.mjs --backends bwrap,docker` starts one server per sandbox backend (each with
 * `--sandbox NAME` after the other serve arguments) and steps them in turn after each baseline run: the
 * first is reported in full, each further one in a short section against the first and the same baselines.
 * Other arguments are passed to `minedit serve` (every server gets the same ones).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { create } from "@bufbuild/protobuf";
import { Client, credentials, Metadata } from "@grpc/grpc-js";
import { startServe, stopServe } from "./serve.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const DIST = join(ROOT, "dist");
const TASKS = 32;
const ROLLOUTS = 16;
/** Rounds of (baseline run, server step) after the server's warm-up step. */
const ROUNDS = 3;
/** Seconds the server is left alone before its RSS is read (it is idle: no call in flight). */
const SETTLE_MS = 2000;
/** The baseline's per-rollout wall limit, as the server's default per test program. */
const BASELINE_TIMEOUT_MS = 10_000;
const IDLE_RSS_TARGET_MB = 300;
const SPEED_TARGET = 5;

const needed = [
  "cli/main.js",
  "config.js",
  "server/service.js",
  "server/service-definition.js",
  "gen/minedit/v1/reward_pb.js",
  "workers/metrics-worker.js",
];
const missing = needed.filter((file) => !existsSync(join(DIST, file)));
if (missing.length > 0) {
  console.error(
    `dist/ is missing ${missing.join(", ")}.\nBuild first: \`npx tsc -p tsconfig.json\` (\`npm run bench:e2e\` builds for you).`,
  );
  process.exit(1);
}
if (process.argv.includes("--hardening")) {
  // What issue 25's syscall filter and whole-run bounds cost (hardening.mjs: the same step on both).
  await import("./hardening.mjs");
  process.exit(process.exitCode ?? 0);
}
if (process.argv.includes("--bigcodebench")) {
  // The BigCodeBench step (bigcodebench.mjs: the bigcodebench runtime, CPU limits, several concurrencies).
  await import("./bigcodebench.mjs");
  process.exit(process.exitCode ?? 0);
}
/** `--backends` is this script's flag; everything else on the command line goes to `minedit serve`. */
const cliArgs = process.argv.slice(2);
const backendsAt = cliArgs.indexOf("--backends");
const extraArgs = backendsAt === -1 ? cliArgs : cliArgs.toSpliced(backendsAt, 2);
/** One entry per server to start: null is the single server of the plain invocation (no `--sandbox` added). */
const BACKENDS =
  backendsAt === -1 ? [null] : (cliArgs[backendsAt + 1] ?? "").split(",").filter((b) => b !== "");
// Checked before the minute of preparation, so a mistyped command line fails at once.
if (BACKENDS.length === 0 || BACKENDS.some((b) => b?.startsWith("-"))) {
  console.error("--backends needs a comma-separated list of sandbox backends, e.g. --backends bwrap,docker");
  process.exit(1);
}
if (new Set(BACKENDS).size !== BACKENDS.length) {
  // The report names each server by its backend; two of the same would be indistinguishable.
  console.error(`--backends lists a backend twice: ${BACKENDS.join(",")}`);
  process.exit(1);
}
if (backendsAt !== -1 && extraArgs.includes("--sandbox")) {
  console.error("with --backends, leave out --sandbox: each server gets `--sandbox NAME` from the list");
  process.exit(1);
}
const load = (file) => import(pathToFileURL(join(DIST, file)).href);
const { parseConfig } = await load("config.js");
const { startService } = await load("server/service.js");
const { grpcServiceDefinition } = await load("server/service-definition.js");
const { RewardService, RolloutSchema, ScoreBatchRequestSchema, Verdict } = await load(
  "gen/minedit/v1/reward_pb.js",
);

const DEFAULTS = parseConfig({});
/** The interpreter the sandbox runs candidates with; the baseline uses the very same one. */
const PYTHON = DEFAULTS.sandbox.pythonPath;
const PARALLELISM = availableParallelism();

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (x, digits = 3) => x.toFixed(digits);
const log = (message) => console.error(`[bench:e2e] ${message}`);
const readJsonl = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

const runStarted = performance.now();
const machine = {
  cpu: cpus()[0]?.model ?? "unknown",
  memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
  node: process.version,
  python: spawnSync(PYTHON, ["--version"], { encoding: "utf8" }).stdout.trim(),
  bwrap: spawnSync("bwrap", ["--version"], { encoding: "utf8" }).stdout.trim(),
  loadavg: loadavg()
    .map((x) => x.toFixed(2))
    .join(" "),
};
const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-e2e-"));

/** baseline.py's untimed helper: corruptions of problems, variants of tasks (see its docstring). */
function prepare(input) {
  const run = spawnSync(PYTHON, ["-s", join(HERE, "baseline.py"), "prepare"], {
    input: JSON.stringify(input),
    encoding: "utf8",
    maxBuffer: 1 << 28,
    env: pythonEnv(),
  });
  if (run.status !== 0) throw new Error(`baseline.py prepare failed (exit ${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** As the sandbox: fixed hash seed. Bytecode is cached in the temp dir, never beside the sources. */
function pythonEnv() {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    PYTHONHASHSEED: "0",
    PYTHONPYCACHEPREFIX: join(workDir, "pycache"),
  };
}

// ---------------------------------------------------------------------------------------------------------
// gRPC client
// ---------------------------------------------------------------------------------------------------------

function scoreBatch(client, rollouts) {
  const method = grpcServiceDefinition(RewardService).scoreBatch;
  const request = create(ScoreBatchRequestSchema, { rollouts });
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

const toRollouts = (rows) =>
  rows.map((row) =>
    create(RolloutSchema, {
      id: row.id,
      completion: row.completion,
      taskRef: { case: "taskId", value: row.taskId },
      groupId: row.taskId,
    }),
  );

/** Plain objects from a response, in request order (the server answers in request order; checked). */
function resultsOf(rows, response) {
  if (response.results.length !== rows.length) throw new Error("the server lost rollouts");
  return response.results.map((r, i) => {
    if (r.id !== rows[i].id) throw new Error(`result #${i} is ${r.id}, expected ${rows[i].id}`);
    return {
      verdict: Verdict[r.verdict],
      reward: r.reward ?? null,
      dModel: r.components?.dModel ?? null,
      dGold: r.components?.dGold ?? null,
      cached: r.cached,
      testsPassed: r.testsPassed,
      testsTotal: r.testsTotal,
      metricsMs: r.timings?.metricsMs ?? 0,
      executionMs: r.timings?.executionMs ?? 0,
      detail: r.detail,
    };
  });
}

// ---------------------------------------------------------------------------------------------------------
// Tasks: the 24 shipped demo tasks plus 8 corrupted here from other seed problems, checked to fail
// ---------------------------------------------------------------------------------------------------------

const demoTasks = readJsonl(join(ROOT, "datasets", "seed", "demo-tasks.jsonl"));
// Task rows name problems as the importer does (`minedit/` + the id in problems.jsonl).
const demoProblems = new Set(demoTasks.map((t) => t.problem_id.replace(/^minedit\//, "")));
const others = readJsonl(join(ROOT, "datasets", "seed", "problems.jsonl")).filter(
  (p) => !demoProblems.has(p.problem_id),
);
log(`corrupting ${others.length} seed problems that are not demo tasks…`);
const corruptions = prepare({ problems: others, tasks: [] }).problems;
/** Round-robin over the test styles, so the extra tasks are not all unittest. */
const byStyle = new Map();
others.forEach((problem, i) => {
  const { corrupted, corruption } = corruptions[i];
  if (corrupted === null) return;
  const task = {
    task_id: `${problem.problem_id}/e2e`,
    problem_id: problem.problem_id,
    statement: problem.statement,
    entry_point: problem.entry_point,
    gold: problem.solution,
    corrupted,
    tests: problem.tests,
    corruptions: [{ family: corruption.split(" ")[0], description: corruption }],
    split: "test",
    source: "benchmarks/e2e",
  };
  byStyle.set(problem.tests.style, [...(byStyle.get(problem.tests.style) ?? []), task]);
});
const candidates = [];
for (let round = 0; candidates.length < [...byStyle.values()].flat().length; round++) {
  for (const list of byStyle.values()) if (round < list.length) candidates.push(list[round]);
}

log(`probing ${candidates.length} corrupted candidates through an in-process engine (execution on)…`);
const probeFile = join(workDir, "probe-tasks.jsonl");
writeFileSync(probeFile, `${candidates.map((t) => JSON.stringify(t)).join("\n")}\n`);
const fence = (code, lang = "python") => `\`\`\`${lang}\n${code}${code.endsWith("\n") ? "" : "\n"}\`\`\`\n`;
// The probe is the ground-truth gate's own test (corrupted fails, gold passes), done here so that the
// candidates that fail it are reported and replaced; with the gate on, the server would refuse them.
const probeConfig = parseConfig({ server: { port: 0 }, tasks: { files: [probeFile], gate: false } });
const probeEngine = await startService(probeConfig, [probeFile], true);
const probeClient = new Client(`127.0.0.1:${probeEngine.server.port}`, credentials.createInsecure());
const probeRows = candidates.flatMap((t) => [
  { id: `${t.task_id}#corrupted`, taskId: t.task_id, completion: fence(t.corrupted) },
  { id: `${t.task_id}#gold`, taskId: t.task_id, completion: fence(t.gold) },
]);
const probe = resultsOf(probeRows, await scoreBatch(probeClient, toRollouts(probeRows)));
probeClient.close();
await probeEngine.close();
const FAILING = new Set(["FAILED_TESTS", "RUNTIME_ERROR", "TIMEOUT", "MEMORY_LIMIT"]);
const extraTasks = candidates
  .filter((_, i) => FAILING.has(probe[2 * i].verdict) && probe[2 * i + 1].verdict === "PASSED")
  .slice(0, TASKS - demoTasks.length);
const probeRejected = candidates.filter(
  (_, i) => !(FAILING.has(probe[2 * i].verdict) && probe[2 * i + 1].verdict === "PASSED"),
).length;
if (extraTasks.length < TASKS - demoTasks.length)
  throw new Error(`only ${extraTasks.length} corrupted problems fail their tests`);
const tasks = [...demoTasks, ...extraTasks];
const taskFile = join(workDir, "tasks.jsonl");
writeFileSync(taskFile, `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);

// ---------------------------------------------------------------------------------------------------------
// The step: 16 model-like rollouts per task
// ---------------------------------------------------------------------------------------------------------

const prepared = prepare({ problems: [], tasks }).tasks;

/** mulberry32, seeded per task, only to interleave each group's rollouts reproducibly. */
function shuffled(items, seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const INTROS = [
  "Here is the corrected program:",
  "The bug is fixed below.",
  "I found the problem. Fixed version:",
  "Corrected code:",
];
const OUTROS = [
  "The comparison at the boundary was off by one.",
  "This makes the edge case behave as the statement requires.",
  "All the tests should pass now.",
  "",
];

/** Which kinds must yield which verdicts (checked on the server's and the baseline's answers). */
const EXPECTED = {
  "fix-fenced": "PASSED",
  "fix-commented": "PASSED",
  "fix-think": "PASSED",
  "fix-bare": "PASSED",
  "fix-two-blocks": "PASSED",
  "over-edit-docstring": "PASSED",
  "over-edit-renamed": "PASSED",
  "over-edit-rewritten": "PASSED",
  unchanged: "FAIL",
  "wrong-fix": "FAIL",
  truncated: "UNPARSABLE",
  "prose-only": "UNPARSABLE",
  "think-only": "NO_CODE",
};

function groupOf(task, variants, index) {
  const intro = INTROS[index % INTROS.length];
  const outro = OUTROS[index % OUTROS.length];
  const firstLines = task.corrupted.split("\n").slice(0, 4).join("\n");
  const fixFenced = `${intro}\n\n${fence(task.gold)}\n${outro}\n`;
  const unchanged = `I checked the code against the statement and it looks correct to me:\n\n${fence(task.corrupted)}`;
  const think =
    `<think>\nLet me read the code first.\n${fence(firstLines)}\nThe boundary handling looks suspicious; ` +
    `let me trace a small example by hand... yes, that is the bug.\n</think>\n${intro}\n${fence(task.gold)}`;
  const distinct = [
    ["fix-fenced", fixFenced],
    ["unchanged", unchanged],
    ["fix-commented", `${intro}\n\n${fence(variants.reformatted)}`],
    ["fix-think", think],
    ["fix-bare", task.gold],
    ["fix-two-blocks", `Original:\n${fence(task.corrupted)}\nFixed:\n${fence(task.gold, "py")}`],
    ["over-edit-docstring", `${intro}\n${fence(variants.docstring)}`],
    ["over-edit-renamed", `I also gave the variables clearer names.\n${fence(variants.renamed)}`],
    ["over-edit-rewritten", `Here is a cleaned-up version:\n${fence(variants.rewritten)}\n${outro}`],
    ["wrong-fix", `${intro}\n${fence(variants.wrong_fix)}`],
    ["truncated", `${intro}\n\n\`\`\`python\n${variants.truncated}`],
    index % 2 === 0
      ? [
          "prose-only",
          "The function already handles every case in the statement; I do not see a bug, so no change is needed.",
        ]
      : [
          "think-only",
          "<think>\nThe loop bound might be wrong, or the comparison. I need to check both against the examples.\n</think>\n",
        ],
  ];
  // Exact duplicates, as a converging policy emits: the fenced fix most often, then the others.
  const duplicates = [
    ["fix-fenced", fixFenced],
    ["fix-fenced", fixFenced],
    ["unchanged", unchanged],
    ["fix-think", think],
  ];
  if (index % 2 === 1) {
    // Odd groups: 5 duplicates and 11 distinct answers (the bare program is left out).
    distinct.splice(
      distinct.findIndex(([kind]) => kind === "fix-bare"),
      1,
    );
    duplicates.push(["fix-fenced", fixFenced]);
  }
  const group = [
    ...distinct.map(([kind, completion]) => ({ kind, completion, duplicate: false })),
    ...duplicates.map(([kind, completion]) => ({ kind, completion, duplicate: true })),
  ];
  if (group.length !== ROLLOUTS) throw new Error(`group of ${group.length}`);
  return shuffled(group, 1000 + index).map((r, j) => ({
    ...r,
    id: `${task.task_id}#${j}`,
    taskId: task.task_id,
    taskIndex: index,
  }));
}

const rows = tasks.flatMap((task, i) => groupOf(task, prepared[i].variants, i));
const n = rows.length;
const duplicates = rows.filter((r) => r.duplicate).length;
const distinctPairs = new Set(rows.map((r) => `${r.taskId}\u0000${r.completion}`)).size;
const requests = toRollouts(rows);

// ---------------------------------------------------------------------------------------------------------
// The baseline: one fresh /usr/bin/python3 per rollout, PARALLELISM at a time, no sandbox
// ---------------------------------------------------------------------------------------------------------

function baselineInput(row) {
  const task = tasks[row.taskIndex];
  return JSON.stringify({
    completion: row.completion,
    corrupted: task.corrupted,
    d_gold: prepared[row.taskIndex].d_gold,
    tests: task.tests,
    entry_point: task.entry_point,
  });
}

function runOne(row) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(PYTHON, ["-s", "-c", "import baseline; baseline.score_one()"], {
      cwd: HERE,
      env: pythonEnv(),
      stdio: ["pipe", "pipe", "ignore"],
    });
    let stdout = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, BASELINE_TIMEOUT_MS);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stdin.on("error", () => {}); // a program that exits early closes its stdin
    child.stdin.end(baselineInput(row));
    child.on("close", () => {
      clearTimeout(timer);
      const seconds = (performance.now() - t0) / 1000;
      const line = stdout
        .split("\n")
        .filter((l) => l.startsWith("@@baseline:"))
        .at(-1);
      if (line === undefined) {
        const verdict = timedOut ? "TIMEOUT" : "RUNTIME_ERROR";
        resolve({ verdict, reward: DEFAULTS.reward.failureReward, dModel: null, seconds });
        return;
      }
      const r = JSON.parse(line.slice("@@baseline:".length));
      resolve({ verdict: r.verdict, reward: r.reward, dModel: r.d_model, seconds });
    });
  });
}

/** Every row through a fresh interpreter, `PARALLELISM` at a time; results in row order. */
async function runBaseline(list) {
  const results = new Array(list.length);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: PARALLELISM }, async () => {
      while (next < list.length) {
        const index = next++;
        results[index] = await runOne(list[index]);
      }
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, results };
}

// ---------------------------------------------------------------------------------------------------------
// The server: `minedit serve` in a child process; its RSS is the whole service (workers are threads)
// ---------------------------------------------------------------------------------------------------------

function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  const threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
  return { rssKiB: kib("VmRSS"), hwmKiB: kib("VmHWM"), threads };
}

// The cross-call result cache is off: the timed steps resend the warm-up's rollouts, which the cache
// would answer without running anything (a step of ~0.3 s that measures no execution at all).
const serveConfig = join(workDir, "serve-config.json");
writeFileSync(serveConfig, JSON.stringify({ sandbox: { resultCacheBytes: 0 } }));

/** Every server spawned: a run that fails part-way (a backend that does not start) must not leave one behind. */
const spawned = [];
process.on("exit", () => {
  for (const child of spawned)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
});

/**
 * Starts `minedit serve` for one backend (null: the extra arguments alone) and waits until it listens and
 * has settled. The returned record also collects the server's measurements (warm-up, steps, idle memory).
 */
async function startServer(backend) {
  const sandboxArgs = backend === null ? [] : ["--sandbox", backend];
  log(
    `starting \`minedit serve --port 0${backend === null ? "" : ` --sandbox ${backend}`}\` with ${tasks.length} tasks…`,
  );
  // Extra arguments are passed to `minedit serve`, e.g. `-- --config tuned.json` to try other limits
  // (a config of your own replaces the one that turns the cache off).
  const configArgs = extraArgs.includes("--config") ? [] : ["--config", serveConfig];
  const started = await startServe(
    ROOT,
    ["--port", "0", "--tasks", taskFile, ...configArgs, ...extraArgs, ...sandboxArgs],
    60_000,
  );
  spawned.push(started.child);
  const server = { ...started, backend, label: backend ?? "server" };
  await sleep(SETTLE_MS);
  server.idleStart = memoryOf(server.child.pid);
  log(`listening on ${server.address}; idle RSS ${(server.idleStart.rssKiB / 1024).toFixed(0)} MiB`);
  return server;
}

/** One timed step: the whole request through one server. */
async function step(server) {
  const t0 = performance.now();
  const response = await scoreBatch(server.client, requests);
  return { seconds: (performance.now() - t0) / 1000, results: resultsOf(rows, response) };
}

// One at a time, so that each start-up and its idle reading are undisturbed by the others'.
const servers = [];
for (const backend of BACKENDS) servers.push(await startServer(backend));

// ---------------------------------------------------------------------------------------------------------
// Measurement: warm-up, then baseline run and each server's step in turn, so drifting load hits all alike
// ---------------------------------------------------------------------------------------------------------

const startupRuns = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  spawnSync(PYTHON, ["-s", "-c", "import ast, io, json, re, tokenize, unittest"], { env: pythonEnv() });
  startupRuns.push((performance.now() - t0) / 1000);
}
await runOne(rows[0]); // fills the bytecode cache of baseline.py and reference.py (favours the baseline)

// Only one server is stepped at a time: the others sit idle, so no step competes with another for cores.
for (const server of servers) {
  log(`${server.label} warm-up step (512 rollouts)…`);
  server.warmup = await step(server);
  await sleep(SETTLE_MS);
  server.idleWarm = memoryOf(server.child.pid);
  server.steps = [];
}
const baselines = [];
for (let i = 0; i < ROUNDS; i++) {
  log(`round ${i + 1}/${ROUNDS}: baseline (${n} fresh ${PYTHON} processes, ${PARALLELISM} at a time)…`);
  baselines.push(await runBaseline(rows));
  for (const server of servers) {
    log(`round ${i + 1}/${ROUNDS}: ${server.label} step…`);
    server.steps.push(await step(server));
  }
}
await sleep(SETTLE_MS);
for (const server of servers) server.idleAfter = memoryOf(server.child.pid);
for (const server of servers) await stopServe(server);
rmSync(workDir, { recursive: true, force: true });

const baselineSeconds = baselines.map((b) => b.seconds);
const baselineMedian = median(baselineSeconds);
/** The round whose baseline time is the median: its per-rollout results and process times are reported. */
const baseline = baselines[baselineSeconds.indexOf(baselineMedian)] ?? baselines[0];
// A baseline that runs each exact duplicate completion once: derived from the same runs, since PARALLELISM
// slots kept busy finish in (summed process time) / PARALLELISM, which the full runs confirm (see report).
const firstOfPair = new Map();
rows.forEach((r, i) => {
  const key = `${r.taskId}\u0000${r.completion}`;
  if (!firstOfPair.has(key)) firstOfPair.set(key, i);
});
const processSum = (b, indices) => indices.reduce((sum, i) => sum + b.results[i].seconds, 0);
const allIndices = rows.map((_, i) => i);
const dedupSeconds = median(
  baselines.map((b) => (b.seconds * processSum(b, [...firstOfPair.values()])) / processSum(b, allIndices)),
);
const packing = median(baselines.map((b) => processSum(b, allIndices) / PARALLELISM / b.seconds));

/** The first server is reported in full under the names below; each further one against it, at the end. */
const [first, ...further] = servers;
const { warmup, steps, idleStart, idleWarm, idleAfter } = first;
const serveStartup = first.startup;
const serverResults = warmup.results;
/** What a trainer receives. Across backends only this is compared: `cached` depends on the request alone. */
const sameScore = (a, b) => a.verdict === b.verdict && a.reward === b.reward && a.dModel === b.dModel;
const sameAnswer = (a, b) => sameScore(a, b) && a.cached === b.cached;
/** Timed-step results that differ from the same server's warm-up step: a server must answer alike every time. */
const unstableOf = (server) =>
  server.steps.flatMap((s) => s.results.filter((r, i) => !sameAnswer(r, server.warmup.results[i]))).length;
const unstable = unstableOf(first);
const cacheHits = serverResults.filter((r) => r.cached).length;
const executed = serverResults.filter(
  (r) => !r.cached && r.verdict !== "UNPARSABLE" && r.verdict !== "NO_CODE",
).length;
// One sandbox per execution: a stdio rollout runs all of its cases inside one sandboxed harness.
const sandboxRuns = serverResults.reduce(
  (sum, r) => sum + (r.cached || r.verdict === "UNPARSABLE" || r.verdict === "NO_CODE" ? 0 : 1),
  0,
);

// ---------------------------------------------------------------------------------------------------------
// Agreement: every rollout's verdict (and, when it passed, d(M,C) and reward) on both sides
// ---------------------------------------------------------------------------------------------------------

const sameBaseline = (s, b) =>
  s.verdict === b.verdict &&
  (s.verdict !== "PASSED" || (s.dModel === b.dModel && Math.abs(s.reward - b.reward) <= 1e-12));

/** One line per rollout that a server's results answer differently from some baseline run. */
function disagreementsOf(results) {
  const found = [];
  rows.forEach((row, i) => {
    const s = results[i];
    // A rollout disagrees if any baseline run answers differently (they should all agree with each other).
    const b = baselines.map((run) => run.results[i]).find((r) => !sameBaseline(s, r)) ?? baseline.results[i];
    const where = `${row.id} (${row.kind})`;
    if (s.verdict !== b.verdict) {
      found.push(`${where}: server ${s.verdict} vs baseline ${b.verdict}${s.detail ? ` — ${s.detail}` : ""}`);
    } else if (s.verdict === "PASSED" && (s.dModel !== b.dModel || Math.abs(s.reward - b.reward) > 1e-12)) {
      found.push(`${where}: d(M,C) ${s.dModel} vs ${b.dModel}, reward ${s.reward} vs ${b.reward}`);
    }
  });
  return found;
}
const disagreements = disagreementsOf(serverResults);
const dGoldMismatch = rows.filter(
  (row, i) => serverResults[i].dGold !== null && serverResults[i].dGold !== prepared[row.taskIndex].d_gold,
).length;
const kindViolations = rows
  .map((row, i) => ({ row, verdict: serverResults[i].verdict }))
  .filter(({ row, verdict }) => {
    const want = EXPECTED[row.kind];
    return want === "FAIL" ? !FAILING.has(verdict) : verdict !== want;
  })
  .map(({ row, verdict }) => `${row.id} (${row.kind}): ${verdict}`);

// ---------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------

const stepSecondsOf = (server) => server.steps.map((s) => s.seconds);
const stepSeconds = stepSecondsOf(first);
const stepMedian = median(stepSeconds);
const rate = (seconds, count = n) => count / seconds;
const mib = (kib) => kib / 1024;
const mb = (kib) => (kib * 1024) / 1e6;
const memCell = (m) => `${mib(m.rssKiB).toFixed(0)} MiB (${mb(m.rssKiB).toFixed(0)} MB)`;
const verdictCounts = (results) =>
  Object.entries(
    results.reduce((acc, r) => {
      acc[r.verdict] = (acc[r.verdict] ?? 0) + 1;
      return acc;
    }, {}),
  )
    .sort((a, b) => b[1] - a[1])
    .map(([v, c]) => `${v} ${c}`)
    .join(", ");
const styles = (list) =>
  ["unittest", "assert", "stdio"]
    .map((s) => `${list.filter((t) => t.tests.style === s).length} ${s}`)
    .join(", ");
const metricsMs = median(steps.map((s) => s.results[0]?.metricsMs ?? 0));
const sandboxSeconds = median(
  steps.map((s) => s.results.reduce((sum, r) => sum + (r.cached ? 0 : r.executionMs), 0) / 1000),
);
const ratio = baselineMedian / stepMedian;
const roundRatios = baselineSeconds.map((b, i) => b / stepSeconds[i]);
/** Where the time goes, per test style: a server's sandbox work per timed step, the baseline's processes. */
const styleSplitOf = (serverSteps) =>
  ["unittest", "assert", "stdio"].map((style) => {
    const inStyle = (i) => tasks[rows[i].taskIndex].tests.style === style;
    let executions = 0;
    let processes = 0;
    let wallMs = 0;
    for (const s of serverSteps) {
      s.results.forEach((r, i) => {
        if (!inStyle(i) || r.cached || r.verdict === "UNPARSABLE" || r.verdict === "NO_CODE") return;
        executions += 1;
        processes += 1;
        wallMs += r.executionMs;
      });
    }
    const base = baseline.results.filter((_, i) => inStyle(i));
    return {
      style,
      tasks: tasks.filter((t) => t.tests.style === style).length,
      executions: executions / serverSteps.length,
      processes: processes / serverSteps.length,
      wall: wallMs / 1000 / serverSteps.length,
      perProcessMs: wallMs / processes,
      baselineProcesses: base.length,
      baselineWall: base.reduce((sum, r) => sum + r.seconds, 0),
      baselineMedianMs: 1000 * median(base.map((r) => r.seconds)),
    };
  });
const styleSplit = styleSplitOf(steps);
const warningsOf = (server) => {
  const warnings = [
    ...new Set(
      server
        .stderr()
        .split("\n")
        .filter((line) => /Warning/.test(line)),
    ),
  ];
  return warnings.length === 0 ? "none" : warnings.map((w) => `\`${w.trim()}\``).join("; ");
};
const lines = [];
const out = (line = "") => lines.push(line);

out("## Machine");
out();
out(`- CPU: ${machine.cpu}; os.availableParallelism() = ${PARALLELISM}; RAM ${machine.memory}`);
out(`- Node ${machine.node}; ${machine.python} at ${PYTHON} (sandbox and baseline); ${machine.bwrap}`);
out(
  `- load average (1/5/15 min) at start: ${machine.loadavg}; at end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
out();
out("## Step");
out();
out(
  `- ${n} rollouts = ${tasks.length} tasks × ${ROLLOUTS} (${styles(tasks)}): the ${demoTasks.length} demo tasks + ` +
    `${extraTasks.length} corrupted here (${styles(extraTasks)}; ${extraTasks.map((t) => `${t.problem_id} ${t.corruptions[0].description}`).join("; ")}); ` +
    `${probeRejected} of ${candidates.length} probed corruptions did not fail their tests; the first ` +
    `${extraTasks.length} that did (test styles taken in turn) are used`,
);
out(
  `- ${duplicates} rollouts (${((100 * duplicates) / n).toFixed(1)} %) are exact duplicates within their group → ` +
    `${distinctPairs} distinct (task, completion) pairs`,
);
out(
  `- kinds: ${Object.keys(EXPECTED)
    .map((k) => `${k} ${rows.filter((r) => r.kind === k).length}`)
    .join(", ")}`,
);
out(`- verdicts (server): ${verdictCounts(serverResults)}`);
out();
out("## Results");
out();
if (further.length > 0) {
  out(
    `Server figures in this section are the ${first.label} backend's (\`--sandbox ${first.label}\`); ` +
      `${further.map((o) => o.label).join(", ")}: own section${further.length > 1 ? "s" : ""} below, stepped ` +
      `right after it in every round, against the same baseline runs.`,
  );
  out();
}
out("| scorer | rollouts | seconds | rollouts/s | vs baseline |");
out("|---|---:|---:|---:|---:|");
const tableRow = (label, seconds, count = n) =>
  out(
    `| ${label} | ${count} | ${fmt(seconds)} | ${rate(seconds, count).toFixed(1)} | ${(rate(seconds, count) / rate(baselineMedian)).toFixed(1)}× |`,
  );
tableRow(
  `baseline: fresh \`python3\` per rollout, ${PARALLELISM} at a time, no sandbox, median of ${ROUNDS}`,
  baselineMedian,
);
tableRow("baseline running each exact duplicate once (derived, see below)", dedupSeconds);
tableRow("server, first step after start-up (warm-up)", warmup.seconds);
tableRow(`**server, step latency, median of ${ROUNDS}**`, stepMedian);
out();
out(
  `**Speed: ${ratio.toFixed(1)}× the baseline's rollouts/s** (target ≥ ${SPEED_TARGET}×: ${ratio >= SPEED_TARGET ? "met" : "NOT met"}); ` +
    `${(dedupSeconds / stepMedian).toFixed(1)}× a baseline that runs exact duplicates once. Per round ` +
    `(baseline run, then server step): ${roundRatios.map((r) => `${r.toFixed(1)}×`).join(", ")}.`,
);
out();
out("| server memory (`/proc/<pid>/status`, main thread + workers) | RSS |");
out("|---|---:|");
out(`| idle after start-up (${SETTLE_MS / 1000} s after "listening") | ${memCell(idleStart)} |`);
out(`| idle after the warm-up step | ${memCell(idleWarm)} |`);
out(`| idle after all ${1 + ROUNDS} steps | ${memCell(idleAfter)} |`);
out(`| peak (VmHWM) over the run | ${memCell({ rssKiB: idleAfter.hwmKiB })} |`);
out();
out(
  `Idle RSS target < ${IDLE_RSS_TARGET_MB} MB: ${Math.max(mb(idleStart.rssKiB), mb(idleWarm.rssKiB)) < IDLE_RSS_TARGET_MB ? "met" : "NOT met"}. ` +
    `Threads in the server process at idle: ${idleWarm.threads}.`,
);
out();
out(
  `Step latencies: warm-up ${fmt(warmup.seconds)} s; timed ${stepSeconds.map((s) => fmt(s)).join(", ")} s. ` +
    `Baseline runs: ${baselineSeconds.map((s) => fmt(s)).join(", ")} s. ` +
    `Server start-up (spawn → "listening", ${tasks.length} tasks checked): ${fmt(serveStartup)} s.`,
);
out(
  `Per step: ${cacheHits} results with \`cached=true\` (same task, same norm(M) as an earlier rollout), ` +
    `${executed} test executions (${sandboxRuns} runs, each forked by a warm interpreter's fork server unless \`warmInterpreters\` is off; stdio cases forked inside it)` +
    `, ${n - cacheHits - executed} rollouts with nothing to run (UNPARSABLE / NO_CODE); metrics stage ` +
    `${fmt(metricsMs / 1000)} s, summed sandbox wall ${fmt(sandboxSeconds)} s (median of the timed steps).`,
);
out(
  `Baseline (its median run): per-process wall median ${fmt(median(baseline.results.map((r) => r.seconds)))} s, ` +
    `max ${fmt(Math.max(...baseline.results.map((r) => r.seconds)))} s; interpreter start-up with ` +
    `\`import ast, io, json, re, tokenize, unittest\` alone ${fmt(median(startupRuns))} s (median of 5). ` +
    `Verdicts: ${verdictCounts(baseline.results)}. Summed process time ÷ ${PARALLELISM} ÷ wall = ` +
    `${packing.toFixed(2)} (median of the runs; 1.00 = both slots always busy), which is why the duplicate-free ` +
    `baseline can be derived as wall × (process time of the ${firstOfPair.size} first occurrences ÷ all process time).`,
);
out();
out(
  "Where the time goes, per test style (server: sandbox work per step, mean of the timed steps; baseline: its median run):",
);
out();
out(
  "| tests | tasks | server executions | runs | summed run wall s | ms / run | baseline processes | baseline summed process s | baseline ms / process (median) |",
);
out("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of styleSplit) {
  out(
    `| ${r.style} | ${r.tasks} | ${r.executions.toFixed(0)} | ${r.processes.toFixed(0)} | ${fmt(r.wall)} | ${r.perProcessMs.toFixed(0)} | ` +
      `${r.baselineProcesses} | ${fmt(r.baselineWall)} | ${r.baselineMedianMs.toFixed(0)} |`,
  );
}
out();
out(`Server stderr warnings during the run: ${warningsOf(first)}.`);
out();
out(
  `Agreement: ${n - disagreements.length}/${n} rollouts have the same verdict from the server and from every ` +
    `baseline run (and, when passed, ` +
    `the same d(M,C) as floats and the same reward); ${disagreements.length} disagree. d(G,C) differs on ` +
    `${dGoldMismatch} rollouts. Timed steps answering differently from the warm-up step: ${unstable}. ` +
    `Rollouts whose verdict is not what their kind implies: ${kindViolations.length}.`,
);
for (const d of disagreements.slice(0, 20)) out(`- disagreement: ${d}`);
for (const k of kindViolations.slice(0, 20)) out(`- kind: ${k}`);
out();
let failed = disagreements.length > 0 || unstable > 0;
const firstSplit = new Map(styleSplit.map((r) => [r.style, r]));
for (const other of further) {
  const otherSeconds = stepSecondsOf(other);
  const otherMedian = median(otherSeconds);
  const otherResults = other.warmup.results;
  const describe = (r) => `${r.verdict}, reward ${r.reward}, d(M,C) ${r.dModel}`;
  const vsFirst = rows.flatMap((row, i) =>
    sameScore(otherResults[i], serverResults[i])
      ? []
      : [`${row.id} (${row.kind}): ${describe(otherResults[i])} vs ${describe(serverResults[i])}`],
  );
  const otherDisagreements = disagreementsOf(otherResults);
  const otherUnstable = unstableOf(other);
  failed ||= otherDisagreements.length > 0 || otherUnstable > 0;
  out(`## ${other.label} backend`);
  out();
  out(
    `- step latency, median of ${ROUNDS}: **${fmt(otherMedian)} s** (timed ${otherSeconds.map((s) => fmt(s)).join(", ")} s; ` +
      `warm-up ${fmt(other.warmup.seconds)} s); server start-up ${fmt(other.startup)} s`,
  );
  out(
    `- speed: **${(baselineMedian / otherMedian).toFixed(1)}× the baseline's rollouts/s** (its median ` +
      `${fmt(baselineMedian)} s; ${first.label}: ` +
      `${ratio.toFixed(1)}×); step latency ${(otherMedian / stepMedian).toFixed(2)}× ${first.label}'s ` +
      `${fmt(stepMedian)} s; per round, against the ${first.label} step just before it: ` +
      `${otherSeconds.map((s, i) => `${(s / stepSeconds[i]).toFixed(2)}×`).join(", ")}`,
  );
  out(
    `- agreement: ${n - vsFirst.length}/${n} rollouts have the same verdict, reward and d(M,C) as from ` +
      `${first.label} (warm-up steps); ${n - otherDisagreements.length}/${n} the same verdict as every baseline ` +
      `run (and, when passed, the same d(M,C) and reward); timed steps answering differently from its ` +
      `warm-up step: ${otherUnstable}`,
  );
  out(
    `- server memory (RSS): idle after start-up ${memCell(other.idleStart)}, after the warm-up ` +
      `${memCell(other.idleWarm)}, after all ${1 + ROUNDS} steps ${memCell(other.idleAfter)}; peak ` +
      `${memCell({ rssKiB: other.idleAfter.hwmKiB })}; threads at idle ${other.idleWarm.threads}`,
  );
  out(`- server stderr warnings: ${warningsOf(other)}`);
  for (const d of vsFirst.slice(0, 20)) out(`- differs from ${first.label}: ${d}`);
  for (const d of otherDisagreements.slice(0, 20)) out(`- disagreement: ${d}`);
  out();
  out("Per test style (sandbox work per step, mean of the timed steps):");
  out();
  out(`| tests | runs | summed run wall s | ms / run | ${first.label} ms / run |`);
  out("|---|---:|---:|---:|---:|");
  for (const r of styleSplitOf(other.steps)) {
    out(
      `| ${r.style} | ${r.processes.toFixed(0)} | ${fmt(r.wall)} | ${r.perProcessMs.toFixed(0)} | ` +
        `${firstSplit.get(r.style).perProcessMs.toFixed(0)} |`,
    );
  }
  out();
}
out(`Whole run: ${fmt((performance.now() - runStarted) / 1000, 0)} s.`);

console.log(lines.join("\n"));
if (failed) process.exitCode = 2;
