/**
 * Reward calls of per-sample trainers on heavy tasks (issue 30 item 3): one GRPO step of 512 samples
 * (32 BigCodeBench tasks of the bigcodebench runtime × 16 model-like completions, the e2e BigCodeBench
 * step of benchmarks/e2e/bigcodebench-step.mjs: realistic duplicates, a few hanging candidates) scored
 * with execution in bwrap by `minedit serve` (a child process: its executions' CPU is read from /proc),
 * every limit pinned as the e2e BigCodeBench benchmark does, and the cross-call result cache at its
 * default (on), as a user's server runs: per-sample callers send a group's identical completions in
 * different calls, which then run once. Each run (path × window, and each reference) gets a fresh
 * server, so none is answered from an earlier run's results.
 *
 * Arrivals follow a generation-like profile, seeded (mulberry32): for a window W, 25 % of the samples
 * are "truncated at max tokens" and arrive at exactly W; the other 75 % arrive at W·u^(2/3), u uniform
 * on [0, 1) (most finish late). Windows 10, 30 and 60 s, and all at once (W = 0, the reference every
 * other run must agree with). The same samples are truncated in every window.
 *
 * The callers are driver.py's, as on the seed tasks (run.mjs): verl's reward loop through the client's
 * CoalescingScorer (8 worker processes, 20 ms window: what the verl adapter does), and OpenRLHF's
 * one-sample `POST /get_reward` (128 in flight, sent in order of arrival) with the endpoint's
 * server-side window. Per window and path it reports the step latency (first arrival to last reward),
 * the time after the last arrival (what the trainer waits for once generation has ended), the step's
 * execution CPU (what the fork servers reaped, from /proc) ÷ cores and whether it fits in W, and the
 * reference: the last arrivals' own execution time, i.e. the truncated 25 % scored alone, all at once,
 * through the same path on a fresh idle server, measured in the same run. Target (issue 30):
 * time after the last arrival ≤ max(that reference, 0.5 s) whenever CPU ÷ cores ≤ W.
 *
 * Every path and window must give every sample the verdict and reward of the all-at-once verl run
 * (hanging candidates that are TIMEOUT both times aside: which test they were stopped in may differ);
 * a mismatch aborts with exit 2. Table on stdout, progress on stderr, JSON + Markdown in
 * scratch/trainer-calls/.
 *
 * With `--queue`, every server is `minedit serve --queue URL --worker` on a redis-server of the benchmark's
 * own (emptied before each run): the executions go through BullMQ, slowest first by job priority, to the
 * queue worker in the same process (its sandboxes are in the same process tree, so the CPU reads the same).
 *
 * Run with `npm run bench:trainers:bcb` (builds first; about 15 minutes at full size) or
 * `node benchmarks/trainer-calls/bigcodebench.mjs [--windows 0,10,30,60] [--tasks 32] [--paths verl,openrlhf]
 *   [--seed 1] [--concurrency N] [--golds FILE] [--source FILE] [--queue]`. BigCodeBench is read from
 * $MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz (or --source); without it this part is left out.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const log = (m) => console.error(`[bench:trainers:bcb] ${m}`);
const { values } = parseArgs({
  options: {
    windows: { type: "string" },
    tasks: { type: "string" },
    paths: { type: "string" },
    seed: { type: "string" },
    concurrency: { type: "string" },
    golds: { type: "string" },
    source: { type: "string" },
    queue: { type: "boolean" },
  },
});

const {
  ROOT,
  bigcodebenchSource,
  cpuTree,
  loadCandidates,
  ROLLOUTS,
  scoreBatch,
  serverConfig,
  stepOf,
  TASKS,
} = await import("../e2e/bigcodebench-step.mjs");
const SOURCE = bigcodebenchSource(values.source);
if (SOURCE === undefined) {
  log(
    "BigCodeBench part left out: set MINEDIT_DATA_DIR to the directory holding bigcodebench/BigCodeBench.jsonl.gz (or pass --source FILE)",
  );
  process.exit(0);
}
const { startServe, stopServe } = await import("../e2e/serve.mjs");
const { Rng } = await import("../metrics/make-batch.mjs");
const { drive } = await import("./drive.mjs");
const { startRedisServer } = await import("../queue/redis-server.mjs");

// All at once is always run first: it is the reference of every verdict and reward.
const WINDOWS = [0, ...(values.windows ?? "10,30,60").split(",").map(Number)].filter(
  (w, i, all) => all.indexOf(w) === i,
);
const TASK_COUNT = Number(values.tasks ?? TASKS);
const PATHS = (values.paths ?? "verl,openrlhf").split(",");
for (const p of PATHS) if (p !== "verl" && p !== "openrlhf") throw new Error(`--paths: unknown ${p}`);
const SEED = Number(values.seed ?? 1);
const CORES = availableParallelism();
/** Share of the samples truncated at max tokens: they arrive exactly at the end of the window. */
const TRUNCATED = 0.25;
/** The target's floor: a trainer does not notice less than this after its last sample. */
const FLOOR_S = 0.5;
const DEFAULT_GOLDS = join(ROOT, ".cache", "bigcodebench-golds.jsonl");
const GOLDS = values.golds ?? (existsSync(DEFAULT_GOLDS) ? DEFAULT_GOLDS : undefined);
const fmt = (x, d = 2) => x.toFixed(d);
const loads = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const started = performance.now();
const loadAtStart = loads();
const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-trainers-bcb-"));

// ---------------------------------------------------------------------------------------------------------
// The server, the step and its arrival profile
// ---------------------------------------------------------------------------------------------------------

const candidates = await loadCandidates(SOURCE, GOLDS);
const taskFile = join(workDir, "tasks.jsonl");
writeFileSync(taskFile, `${candidates.map((t) => JSON.stringify(t)).join("\n")}\n`);
const configFile = join(workDir, "config.json");
const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
// The result cache at its default (on), as a user's server has it: identical completions that a
// per-sample trainer sends in different calls run once. Each run gets a fresh server, so no run is
// answered from an earlier run's results.
const config = serverConfig({ concurrency, server: { openrlhfPort: 0 } });
delete config.sandbox.resultCacheBytes;
writeFileSync(configFile, JSON.stringify(config));

const scratch = join(ROOT, "scratch", "trainer-calls");
const stamp = `${values.queue ? "queue-" : ""}${new Date().toISOString().replace(/[:.]/g, "-")}`;
/** The server of the run in progress (each run starts its own). */
let server = null;
let openrlhfUrl = null;
/** With --queue: the benchmark's own redis-server, emptied before each run. */
const redis = values.queue ? await startRedisServer() : null;
process.on("exit", () => {
  server?.child.kill("SIGKILL");
  redis?.process.kill("SIGKILL");
});
async function startServer() {
  const queue = redis === null ? [] : ["--queue", redis.url, "--worker"];
  if (redis !== null) await redis.client.flushall();
  server = await startServe(
    ROOT,
    ["--port", "0", "--tasks", taskFile, "--config", configFile, ...queue],
    900_000,
  );
  openrlhfUrl = null;
  for (let i = 0; i < 100 && openrlhfUrl === null; i++) {
    openrlhfUrl = /OpenRLHF reward endpoint on (\S+\/get_reward)/.exec(server.stderr())?.[1] ?? null;
    if (openrlhfUrl === null) await new Promise((r) => setTimeout(r, 50));
  }
  if (openrlhfUrl === null) throw new Error(`no OpenRLHF endpoint:\n${server.stderr()}`);
}
async function stopServer() {
  if (server !== null) await stopServe(server);
  server = null;
}
const stop = async (code) => {
  if (code !== undefined && server !== null) {
    // An aborted run keeps the server's log (its warnings say what failed).
    mkdirSync(scratch, { recursive: true });
    writeFileSync(join(scratch, `bigcodebench-${stamp}-server.log`), server.stderr());
    log(`aborted; the server's log is scratch/trainer-calls/bigcodebench-${stamp}-server.log`);
  }
  await stopServer();
  redis?.stop();
  rmSync(workDir, { recursive: true, force: true });
  if (code !== undefined) process.exit(code);
};

log(
  `starting a server (task gate over ${candidates.length} candidates, cached in .cache/) to pick the step…`,
);
await startServer();
const { rows, servedCount } = await stepOf(server.client, candidates, TASK_COUNT, server.stderr);
await stopServer();
const kindOf = new Map(rows.map((r) => [r.id, r.kind]));
log(`${servedCount} of ${candidates.length} candidate tasks served; ${rows.length} samples`);
const writeSamples = (file, list) => {
  const path = join(workDir, file);
  writeFileSync(
    path,
    `${list.map((r) => JSON.stringify({ id: r.id, task_id: r.taskId, completion: r.completion })).join("\n")}\n`,
  );
  return path;
};
const samplesFile = writeSamples("samples.jsonl", rows);

// The profile: which samples are truncated (the same in every window) and the others' u^(2/3).
const rng = new Rng(SEED);
const order = rows.map((_, i) => i);
for (let i = order.length - 1; i > 0; i--) {
  const j = rng.int(i + 1);
  [order[i], order[j]] = [order[j], order[i]];
}
const truncated = new Set(order.slice(0, Math.round(rows.length * TRUNCATED)));
const shape = rows.map((_, i) => (truncated.has(i) ? 1 : rng.next() ** (2 / 3)));
const arrivalsFile = (w) => {
  const path = join(workDir, `arrivals-${w}.json`);
  writeFileSync(path, JSON.stringify(shape.map((s) => s * w)));
  return path;
};
const lateRows = rows.filter((_, i) => truncated.has(i));
const lateFile = writeSamples("late.jsonl", lateRows);
const lateArrivals = join(workDir, "arrivals-late.json");
writeFileSync(lateArrivals, JSON.stringify(lateRows.map(() => 0)));

// ---------------------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------------------

const PATH_LABELS = {
  verl: "verl reward loop, CoalescingScorer (8 processes, 20 ms)",
  openrlhf: "OpenRLHF, POST /get_reward (128 in flight, server window)",
};
const driveArgs = (path) =>
  path === "verl" ? ["grpc-coalesced", ["--target", server.address]] : ["http", ["--url", openrlhfUrl]];

/**
 * One step through `path` on a fresh server (started, warmed by one ScoreBatch of a sample no run
 * scores, then stopped after the step): the driver's report with the execution CPU the server's
 * sandboxes spent on it.
 */
async function step(path, samples, arrivals) {
  await startServer();
  await scoreBatch(server.client, [{ id: "warm-up", taskId: rows[0].taskId, completion: "No code." }]);
  const [mode, args] = driveArgs(path);
  const before = cpuTree(server.child.pid);
  let report;
  try {
    report = await drive(mode, [...args, "--samples-file", samples, "--arrivals-file", arrivals]);
  } catch (error) {
    log(String(error).slice(-3000));
    await stop(1);
  }
  const after = cpuTree(server.child.pid);
  await stopServer();
  return {
    ...report,
    runsCpuS: (after.runsMs - before.runsMs) / 1000,
    sandboxCpuS: (after.sandboxesMs - before.sandboxesMs) / 1000,
    serverCpuS: (after.serverMs - before.serverMs) / 1000,
    load: loads(),
  };
}

const HANGING = new Set(["hang-busy", "hang-sleep"]);
let reference = null;
/** Every sample of `report` gets the reference's verdict and reward, or the run aborts with exit 2. */
async function checkAgreement(report, label) {
  const problems = [];
  for (const [id, reward] of Object.entries(report.rewards)) {
    const verdict = report.verdicts[id];
    const want = { verdict: reference.verdicts[id], reward: reference.rewards[id] };
    if (HANGING.has(kindOf.get(id)) && verdict === "TIMEOUT" && want.verdict === "TIMEOUT") continue;
    const sameReward =
      reward === null || want.reward === null
        ? reward === want.reward
        : Math.abs(reward - want.reward) <= 1e-9;
    // The OpenRLHF answer names verdicts for humans; where one is missing only the reward is compared.
    if (!sameReward || (verdict !== null && verdict !== undefined && verdict !== want.verdict))
      problems.push(
        `${id} (${kindOf.get(id)}): ${verdict} ${reward}, all at once ${want.verdict} ${want.reward}`,
      );
  }
  if (Object.keys(report.rewards).length === 0) problems.push("no samples answered");
  if (problems.length > 0) {
    log(`${label}: ${problems.length} samples differ from the all-at-once run:`);
    for (const p of problems.slice(0, 20)) log(`  ${p}`);
    await stop(2);
  }
}

log(
  `machine: ${cpus()[0]?.model ?? "?"} × ${CORES}, load ${loadAtStart}; windows ${WINDOWS.join(", ")} s; paths ${PATHS.join(", ")}`,
);
const results = [];
const references = {};
for (const path of PATHS) {
  for (const w of WINDOWS) {
    const report = await step(path, samplesFile, arrivalsFile(w));
    if (reference === null) reference = report;
    await checkAgreement(report, `${path}, W = ${w} s`);
    results.push({ path, window: w, ...report });
    log(
      `${path}, W = ${w} s: step ${fmt(report.step_s)} s, after last arrival ${fmt(report.after_last_arrival_s)} s, ` +
        `execution CPU ${fmt(report.runsCpuS)} s (load ${report.load})`,
    );
    if (w === 0) {
      // The reference, right after the warm-up all-at-once step: the truncated samples alone, all at once.
      const late = await step(path, lateFile, lateArrivals);
      await checkAgreement(late, `${path}, the truncated samples alone`);
      references[path] = late;
      log(
        `${path}: the ${lateRows.length} truncated samples alone, all at once: ${fmt(late.step_s)} s ` +
          `(execution CPU ${fmt(late.runsCpuS)} s)`,
      );
    }
  }
}
await stop();

// ---------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------

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
const table = results.map((r) => {
  const own = references[r.path].step_s;
  const cpuPerCore = r.runsCpuS / CORES;
  const fits = cpuPerCore <= r.window;
  const targetS = Math.max(own, FLOOR_S);
  return {
    path: r.path,
    windowS: r.window,
    stepS: r.step_s,
    afterLastArrivalS: r.after_last_arrival_s,
    lastArrivalLateS: r.last_arrival_late_s,
    runsCpuS: r.runsCpuS,
    sandboxCpuS: r.sandboxCpuS,
    serverCpuS: r.serverCpuS,
    cpuPerCoreS: cpuPerCore,
    fits,
    lastArrivalsOwnS: own,
    targetS,
    met: fits ? r.after_last_arrival_s <= targetS : null,
    rpcs: r.rpcs,
    load: r.load,
  };
});
const lines = [];
const out = (l = "") => lines.push(l);
out(
  "## Trainer calls on BigCodeBench, generation-like arrivals (`benchmarks/trainer-calls/bigcodebench.mjs`)",
);
out();
out(
  `- ${rows.length} samples = ${TASK_COUNT} BigCodeBench tasks × ${ROLLOUTS} (the e2e BigCodeBench step; ${servedCount} of ${candidates.length} candidates served by the gate); kinds: ${count(rows.map((r) => r.kind))}`,
);
out(`- verdicts (all at once): ${count(Object.values(reference.verdicts))}`);
out(
  `- arrivals (seed ${SEED}): ${lateRows.length} truncated samples at W, the other ${rows.length - lateRows.length} at W·u^(2/3); ` +
    `execution in bwrap${redis === null ? "" : " through the queue (`serve --queue --worker`, BullMQ priorities: slowest first)"}, a fresh server per run with the cross-call result cache on (default), limits pinned (bigcodebench-step.mjs), execution concurrency ${concurrency ?? "default"}`,
);
out(
  `- the last arrivals' own execution time (the ${lateRows.length} truncated samples alone, all at once, fresh idle server): ` +
    PATHS.map(
      (p) => `${p} ${fmt(references[p].step_s)} s (execution CPU ${fmt(references[p].runsCpuS)} s)`,
    ).join(", "),
);
out(
  `- ${cpus()[0]?.model ?? "?"} × ${CORES}; load average at start ${loadAtStart}, at end ${loads()} (other work may share the machine); whole run ${fmt((performance.now() - started) / 1000, 0)} s`,
);
out();
out(
  "| callers | window W | step latency s | after last arrival s | execution CPU s | ÷ cores s | fits in W | last arrivals' own s | target s | target | load (1 5 15 min) |",
);
out("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- |");
for (const r of table) {
  const late = r.lastArrivalLateS > 0.05 ? ` (last sent ${fmt(r.lastArrivalLateS)} s late)` : "";
  out(
    `| ${PATH_LABELS[r.path]} | ${r.windowS === 0 ? "all at once" : `${r.windowS} s`} | ${fmt(r.stepS)} | ` +
      `${fmt(r.afterLastArrivalS)}${late} | ${fmt(r.runsCpuS)} | ${fmt(r.cpuPerCoreS)} | ${r.fits ? "yes" : "no"} | ` +
      `${fmt(r.lastArrivalsOwnS)} | ${fmt(r.targetS)} | ${r.met === null ? "— (CPU ÷ cores > W)" : r.met ? "met" : "not met"} | ${r.load} |`,
  );
}
const markdown = lines.join("\n");
console.log(markdown);

mkdirSync(scratch, { recursive: true });
writeFileSync(join(scratch, `bigcodebench-${stamp}.md`), `${markdown}\n`);
writeFileSync(
  join(scratch, `bigcodebench-${stamp}.json`),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      cores: CORES,
      loadAtStart,
      loadAtEnd: loads(),
      queue: redis !== null,
      seed: SEED,
      tasks: TASK_COUNT,
      samples: rows.length,
      truncated: lateRows.length,
      windows: WINDOWS,
      references: Object.fromEntries(
        Object.entries(references).map(([p, r]) => [p, { stepS: r.step_s, runsCpuS: r.runsCpuS }]),
      ),
      rows: table,
    },
    null,
    2,
  )}\n`,
);
log(`wrote scratch/trainer-calls/bigcodebench-${stamp}.{md,json}`);
