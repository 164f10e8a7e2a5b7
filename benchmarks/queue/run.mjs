/**
 * Queue benchmark (benchmarks/README.md, "Scale-out through the queue"): the e2e GRPO step — 512 rollouts,
 * 32 tasks × 16 model-like completions with realistic duplicates, scored with execution — through one
 * front (`minedit serve --queue`) and 1, 2 or 3 workers (`minedit worker`), against the single process
 * (`minedit serve`), all on this machine's loopback with a redis-server of its own; plus the latency one
 * rollout gains from the queue, and the CPU each part spends per rollout, for the model on paper.
 *
 * Run with `npm run build && node benchmarks/queue/run.mjs` (about 3 minutes on 2 cores). Caches are off
 * on every side (the front's in-process cache, the shared Redis cache), so every step runs all of its
 * distinct executions. The step is built as benchmarks/e2e/run.mjs builds it (its variants come from the
 * same benchmarks/e2e/baseline.py `prepare`); e2e's run.mjs is a script, not a module, so the group
 * recipe is restated here rather than imported.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { create } from "@bufbuild/protobuf";
import { Client, credentials, Metadata } from "@grpc/grpc-js";
import { startRedisServer } from "./redis-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const DIST = join(ROOT, "dist");
const CLI = join(ROOT, "bin", "minedit.js");
const ROLLOUTS = 16;
const EXTRA_TASKS = 8;
const TIMED_STEPS = 3;
const LATENCY_CALLS = 30;
const WORKER_COUNTS = [1, 2, 3];
const PARALLELISM = availableParallelism();

if (!existsSync(join(DIST, "cli", "worker.js"))) {
  console.error("dist/ is missing or old. Build first: `npm run build`.");
  process.exit(1);
}
const load = (file) => import(pathToFileURL(join(DIST, file)).href);
const { grpcServiceDefinition } = await load("server/service-definition.js");
const { RewardService, RolloutSchema, ScoreBatchRequestSchema, Verdict } = await load(
  "gen/minedit/v1/reward_pb.js",
);

const log = (message) => console.error(`[bench:queue] ${message}`);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const readJsonl = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-queue-"));
const runStarted = performance.now();
const load0 = loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");

// ---------------------------------------------------------------------------------------------------------
// The step (as benchmarks/e2e): the 24 demo tasks + 8 in-domain tasks of other problems, 16 rollouts each
// ---------------------------------------------------------------------------------------------------------

const demoTasks = readJsonl(join(ROOT, "datasets", "seed", "demo-tasks.jsonl"));
const demoProblems = new Set(demoTasks.map((t) => t.problem_id));
const inDomain = readJsonl(join(ROOT, "datasets", "tasks", "in-domain.jsonl")).filter(
  (t) => !demoProblems.has(t.problem_id) && (t.tests.runtime ?? "stdlib") === "stdlib",
);
const byStyle = new Map();
for (const task of inDomain) byStyle.set(task.tests.style, [...(byStyle.get(task.tests.style) ?? []), task]);
const candidates = [];
for (let round = 0; candidates.length < inDomain.length; round++) {
  for (const list of byStyle.values()) if (round < list.length) candidates.push(list[round]);
}

function prepare(tasks) {
  const run = spawnSync(
    "/usr/bin/python3",
    ["-s", join(ROOT, "benchmarks", "e2e", "baseline.py"), "prepare"],
    {
      input: JSON.stringify({ problems: [], tasks }),
      encoding: "utf8",
      maxBuffer: 1 << 28,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", PYTHONDONTWRITEBYTECODE: "1" },
    },
  );
  if (run.status !== 0) return null;
  return JSON.parse(run.stdout).tasks;
}

const extra = [];
const extraPrepared = [];
for (const candidate of candidates) {
  if (extra.length === EXTRA_TASKS) break;
  const prepared = prepare([candidate]);
  if (prepared === null) continue; // its variants would not (un)parse as the recipe needs
  extra.push(candidate);
  extraPrepared.push(prepared[0]);
}
const tasks = [...demoTasks, ...extra];
const prepared = [...(prepare(demoTasks) ?? []), ...extraPrepared];
if (prepared.length !== tasks.length) throw new Error("baseline.py prepare failed on the demo tasks");
const taskFile = join(workDir, "tasks.jsonl");
writeFileSync(taskFile, `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);

const fence = (code, lang = "python") => `\`\`\`${lang}\n${code}${code.endsWith("\n") ? "" : "\n"}\`\`\`\n`;
const INTROS = [
  "Here is the corrected program:",
  "The bug is fixed below.",
  "I found the problem. Fixed version:",
];

/** e2e's group: 11–12 distinct answers (fixes, over-edits, failures, unparsable, no code) + 4–5 duplicates. */
function groupOf(task, variants, index) {
  const intro = INTROS[index % INTROS.length];
  const fixFenced = `${intro}\n\n${fence(task.gold)}\n`;
  const unchanged = `It looks correct to me:\n\n${fence(task.corrupted)}`;
  const think = `<think>\nThe boundary handling looks suspicious.\n</think>\n${intro}\n${fence(task.gold)}`;
  const distinct = [
    fixFenced,
    unchanged,
    `${intro}\n\n${fence(variants.reformatted)}`,
    think,
    `Original:\n${fence(task.corrupted)}\nFixed:\n${fence(task.gold, "py")}`,
    `${intro}\n${fence(variants.docstring)}`,
    `I also gave the variables clearer names.\n${fence(variants.renamed)}`,
    `Here is a cleaned-up version:\n${fence(variants.rewritten)}`,
    `${intro}\n${fence(variants.wrong_fix)}`,
    `${intro}\n\n\`\`\`python\n${variants.truncated}`,
    index % 2 === 0
      ? "The function already handles every case; no change is needed."
      : "<think>\nThe loop bound might be wrong.\n</think>\n",
  ];
  const duplicates = [fixFenced, fixFenced, unchanged, think];
  if (index % 2 === 0) distinct.push(task.gold);
  else duplicates.push(fixFenced);
  const group = [...distinct, ...duplicates];
  if (group.length !== ROLLOUTS) throw new Error(`group of ${group.length}`);
  return group.map((completion, j) => ({ id: `${task.task_id}#${j}`, taskId: task.task_id, completion }));
}
const rows = tasks.flatMap((task, i) => groupOf(task, prepared[i].variants, i));
const requests = rows.map((row) =>
  create(RolloutSchema, {
    id: row.id,
    completion: row.completion,
    taskRef: { case: "taskId", value: row.taskId },
    groupId: row.taskId,
  }),
);

// ---------------------------------------------------------------------------------------------------------
// Processes, clients, measurements
// ---------------------------------------------------------------------------------------------------------

function startProcess(args, readyPattern) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr.setEncoding("utf8");
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 120 s:\n${output}`)), 120_000);
    child.stderr.on("data", (chunk) => {
      output += chunk;
      const match = readyPattern.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once("exit", (code) => reject(new Error(`exited (${code}):\n${output}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  };
  return { child, ready, stop, output: () => output };
}

function scoreBatch(client, rollouts) {
  const method = grpcServiceDefinition(RewardService).scoreBatch;
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      create(ScoreBatchRequestSchema, { rollouts }),
      new Metadata(),
      { deadline: Date.now() + 600_000 },
      (error, response) => (error ? reject(error) : resolve(response)),
    );
  });
}

/** Every process's parent and CPU seconds (user + system, its own and its reaped children's), from /proc. */
function processTable() {
  const table = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ");
      // After "(comm) ": state ppid … utime(11) stime(12) cutime(13) cstime(14), in 100 Hz ticks.
      const cpu = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
      table.set(Number(entry), { ppid: Number(fields[1]), cpu });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/**
 * CPU seconds of the process trees rooted at `pids` — Node and its threads, the bwrap sandboxes, the fork
 * servers and every run they forked and reaped — whatever else runs on this (shared) machine.
 */
function treeCpuSeconds(pids) {
  const table = processTable();
  const children = new Map();
  for (const [pid, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let total = 0;
  const stack = [...pids];
  while (stack.length > 0) {
    const pid = stack.pop();
    total += table.get(pid)?.cpu ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Redis's own CPU seconds, its command count, and the calls per command. */
async function redisCounters(redis) {
  const info = await redis.info("all");
  const field = (name) => Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(info)?.[1] ?? 0);
  const calls = new Map();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1], Number(match[2]));
  return {
    cpu: field("used_cpu_sys") + field("used_cpu_user"),
    commands: field("total_commands_processed"),
    calls,
  };
}

const CACHES_OFF = { sandbox: { resultCacheBytes: 0 }, queue: { resultTtlMs: 0 } };

/**
 * Starts a setup: its front and workers (each queue setup on a queue of its own, so all setups can stay
 * up and be measured in turn), and returns what measures it.
 */
async function startSetup(label, { redisUrl, queueName, workers }) {
  const configFile = join(workDir, `config-${queueName ?? "single"}.json`);
  writeFileSync(
    configFile,
    JSON.stringify({
      ...CACHES_OFF,
      tasks: { files: [taskFile] },
      queue: { ...CACHES_OFF.queue, name: queueName ?? "unused" },
    }),
  );
  const procs = [];
  const queue = redisUrl === undefined ? [] : ["--queue", redisUrl];
  const front = startProcess(
    ["serve", "--port", "0", "--config", configFile, ...queue],
    /listening on (\S+):(\d+)/,
  );
  procs.push(front);
  const [, host, port] = await front.ready;
  for (let i = 0; i < workers; i++) {
    const worker = startProcess(["worker", "--config", configFile, ...queue], /running: queue/);
    procs.push(worker);
    await worker.ready;
  }
  const client = new Client(`${host}:${port}`, credentials.createInsecure());
  const setup = { label, queued: redisUrl !== undefined, steps: [], latencies: [], warm: null };
  const workerPids = procs.slice(1).map((p) => p.child.pid);
  setup.step = async (redis) => {
    const f0 = treeCpuSeconds([front.child.pid]);
    const w0 = treeCpuSeconds(workerPids);
    const r0 = await redisCounters(redis);
    const t0 = performance.now();
    const response = await scoreBatch(client, requests);
    const seconds = (performance.now() - t0) / 1000;
    const r1 = await redisCounters(redis);
    if (response.results.length !== rows.length) throw new Error("lost rollouts");
    const calls = new Map([...r1.calls].map(([name, n]) => [name, n - (r0.calls.get(name) ?? 0)]));
    return {
      seconds,
      results: response.results,
      calls,
      cpu: {
        front: treeCpuSeconds([front.child.pid]) - f0,
        workers: treeCpuSeconds(workerPids) - w0,
        redis: setup.queued ? r1.cpu - r0.cpu : 0,
        commands: setup.queued ? r1.commands - r0.commands : 0,
      },
    };
  };
  // One rollout per call, a program never seen before each time (nothing deduped or cached): the latency
  // the queue adds to a single execution.
  setup.latency = async (i) => {
    const task = tasks[0];
    const program = `${task.gold}\n_latency_probe_${i} = ${i}\n`;
    const t0 = performance.now();
    await scoreBatch(client, [
      create(RolloutSchema, {
        id: `latency-${i}`,
        completion: fence(program),
        taskRef: { case: "taskId", value: task.task_id },
      }),
    ]);
    return performance.now() - t0;
  };
  setup.stop = async () => {
    client.close();
    for (const proc of procs.reverse()) await proc.stop();
  };
  return setup;
}

// ---------------------------------------------------------------------------------------------------------
// Run: every setup up at once; warm-up, then rounds that take each setup in turn, so load that drifts
// during the run (this machine is shared) hits all of them alike
// ---------------------------------------------------------------------------------------------------------

const redisServer = await startRedisServer();
const redisUrl = redisServer.url;
const redis = redisServer.client;
const setups = [];
try {
  log("starting the single process and the three queue setups…");
  setups.push(await startSetup("single process (`minedit serve`)", { workers: 0 }));
  for (const workers of WORKER_COUNTS) {
    const label = `1 front + ${workers} worker${workers > 1 ? "s" : ""} (queue)`;
    setups.push(await startSetup(label, { redisUrl, queueName: `bench-${workers}`, workers }));
  }
  for (const setup of setups) {
    log(`${setup.label}: warm-up step`);
    setup.warm = await setup.step(redis);
  }
  for (let round = 0; round < TIMED_STEPS; round++) {
    for (const setup of setups) {
      log(`round ${round + 1}/${TIMED_STEPS}: ${setup.label}`);
      await sleep(500);
      setup.steps.push(await setup.step(redis));
    }
  }
  log(`one-rollout latency, ${LATENCY_CALLS} calls per setup, in turn…`);
  for (let i = 0; i < LATENCY_CALLS; i++) {
    for (const [s, setup] of setups.entries()) setup.latencies.push(await setup.latency(1000 * s + i));
  }
} finally {
  for (const setup of setups) await setup.stop();
  redisServer.stop();
  rmSync(workDir, { recursive: true, force: true });
}

const results = setups.map((setup) => {
  const warm = setup.warm;
  const verdictOf = (r) => Verdict[r.verdict];
  const sum = (key) => setup.steps.reduce((acc, s) => acc + s.cpu[key], 0) / setup.steps.length;
  return {
    label: setup.label,
    warm: warm.seconds,
    median: median(setup.steps.map((s) => s.seconds)),
    all: setup.steps.map((s) => s.seconds),
    latencyMs: median(setup.latencies),
    executions: warm.results.filter(
      (r) => !r.cached && verdictOf(r) !== "UNPARSABLE" && verdictOf(r) !== "NO_CODE",
    ).length,
    cached: warm.results.filter((r) => r.cached).length,
    passed: warm.results.filter((r) => verdictOf(r) === "PASSED").length,
    verdicts: warm.results.map((r) => `${verdictOf(r)}:${r.reward}`),
    best: Math.min(...setup.steps.map((s) => s.seconds)),
    cpuPerStep: {
      front: sum("front"),
      workers: sum("workers"),
      redis: sum("redis"),
      commands: sum("commands"),
    },
    calls: setup.steps.at(-1)?.calls ?? new Map(),
  };
});

// ---------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------

const single = results[0];
const disagree = results.slice(1).map((r) => r.verdicts.filter((v, i) => v !== single.verdicts[i]).length);
const fmt = (x, d = 3) => x.toFixed(d);
const lines = [];
const out = (line = "") => lines.push(line);
out(
  `- CPU: ${cpus()[0]?.model ?? "unknown"}; os.availableParallelism() = ${PARALLELISM}; RAM ${(totalmem() / 2 ** 30).toFixed(1)} GiB; Node ${process.version}; ${spawnSync("redis-server", ["--version"], { encoding: "utf8" }).stdout.trim().split(" ").slice(0, 3).join(" ")}`,
);
out(
  `- load average at start ${load0}, at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
out(
  `- step: ${rows.length} rollouts = ${tasks.length} tasks × ${ROLLOUTS}; ${single.executions} executions, ${single.cached} cached within the call, ${single.passed} PASSED`,
);
out();
out(
  `| setup | warm-up s | step latency s, median of ${TIMED_STEPS} | best | timed steps s | rollouts/s (median) | one rollout alone, ms (median of ${LATENCY_CALLS}) |`,
);
out("|---|---:|---:|---:|---:|---:|---:|");
for (const r of results) {
  out(
    `| ${r.label} | ${fmt(r.warm)} | **${fmt(r.median)}** | ${fmt(r.best)} | ${r.all.map((s) => fmt(s)).join(", ")} | ${(rows.length / r.median).toFixed(0)} | ${r.latencyMs.toFixed(1)} |`,
  );
}
out();
out("CPU per step (process trees: Node, its threads, sandboxes, fork servers and their runs):");
out();
out("| setup | front s | workers s | Redis s | total s | Redis commands |");
out("|---|---:|---:|---:|---:|---:|");
for (const r of results) {
  const c = r.cpuPerStep;
  out(
    `| ${r.label} | ${fmt(c.front)} | ${fmt(c.workers)} | ${fmt(c.redis)} | ${fmt(c.front + c.workers + c.redis)} | ${c.commands.toFixed(0)} |`,
  );
}
out();
const q1 = results[1];
const perExec = (seconds) => fmt((1000 * seconds) / q1.executions, 2);
const queued = results.slice(1);
const mean = (f) => queued.reduce((a, r) => a + f(r), 0) / queued.length;
out(
  `Queue overhead, 1 front + 1 worker vs the single process: step latency ${fmt(q1.median - single.median)} s ` +
    `(${fmt((1000 * (q1.median - single.median)) / rows.length, 2)} ms per rollout); best step ` +
    `${fmt(q1.best - single.best)} s; one rollout alone ${fmt(q1.latencyMs - single.latencyMs, 1)} ms more. ` +
    `CPU per execution through the queue (mean of the 3 queue setups): worker ${fmt((1000 * mean((r) => r.cpuPerStep.workers)) / q1.executions, 2)} ms, ` +
    `Redis ${fmt((1000 * mean((r) => r.cpuPerStep.redis)) / q1.executions, 3)} ms, ` +
    `${(mean((r) => r.cpuPerStep.commands) / q1.executions).toFixed(1)} Redis commands; front CPU per rollout ` +
    `${fmt((1000 * mean((r) => r.cpuPerStep.front)) / rows.length, 2)} ms. Single process: ` +
    `${fmt((1000 * single.cpuPerStep.front) / rows.length, 2)} ms per rollout in all (${perExec(single.cpuPerStep.front)} ms per execution).`,
);
const topCalls = [...q1.calls]
  .filter(([, n]) => n > 0)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 8)
  .map(([name, n]) => `${name} ${(n / q1.executions).toFixed(1)}`)
  .join(", ");
out(`Redis commands per execution, 1-worker setup, last step: ${topCalls}.`);
out(`Verdicts and rewards differing from the single process: ${disagree.join(", ")} (1, 2, 3 workers).`);
out(`Whole run: ${fmt((performance.now() - runStarted) / 1000, 0)} s.`);
console.log(lines.join("\n"));
if (disagree.some((d) => d > 0)) process.exitCode = 2;
