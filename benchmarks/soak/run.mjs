/**
 * Soak benchmark (not a CI test; benchmarks/README.md, "Soak"): `minedit serve` as its own process, with
 * execution in the real sandbox, fed N rollouts (default 100,000) over ONE ScoreStream with hostile
 * programs mixed in, while the server's memory is sampled. It must stay flat: a leak per rollout shows as a
 * slope, which the report gives along with the curve.
 *
 *   npm run bench:soak                                  # builds first; N = 100,000
 *   node benchmarks/soak/run.mjs --rollouts 20000       # a shorter soak
 *
 * Options: --rollouts N, --message N (rollouts per stream message, 128), --in-flight N (most rollouts the
 * client keeps unanswered, 2048), --sample-ms N (1000). Markdown report on stdout, progress on stderr.
 *
 * The mix (deterministic in the rollout index), over the stored demo tasks: 10 % the gold with a distinct
 * padding statement (a new program: it executes), 35 % the gold exactly as a converged GRPO group repeats
 * it, 12 % the gold with new comments and 8 % with blank lines doubled (same normalized program: cached),
 * 15 % the corrupted program (fails; cached after its first run), 12 % prose or an unclosed fence
 * (UNPARSABLE: no execution), 8 % hostile programs that each execute (distinct): an allocation bomb, an
 * output flood, a fork loop, os._exit(0) / sys.exit(0) after the definitions, unbounded recursion, a
 * SIGKILL of itself, closing its fds; and a busy loop until the wall limit (1 in 2,000 only: each costs the
 * whole limit). About a fifth of the rollouts execute; the rest exercise the cache and the metrics path.
 *
 * Memory: VmRSS of the server's node process from /proc every --sample-ms, the RSS of its whole process
 * tree (fork servers, bwrap) and the V8 heap in use from the server's own /metrics.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { create } from "@bufbuild/protobuf";
import { Client, credentials, Metadata } from "@grpc/grpc-js";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const DIST = join(ROOT, "dist");
const { values } = parseArgs({
  options: {
    rollouts: { type: "string", default: "100000" },
    message: { type: "string", default: "128" },
    "in-flight": { type: "string", default: "2048" },
    "sample-ms": { type: "string", default: "1000" },
  },
});
const N = Number(values.rollouts);
const MESSAGE = Number(values.message);
const IN_FLIGHT = Number(values["in-flight"]);
const SAMPLE_MS = Number(values["sample-ms"]);
const log = (message) => console.error(`[bench:soak] ${message}`);

for (const file of ["cli/main.js", "server/service-definition.js", "gen/minedit/v1/reward_pb.js"]) {
  if (!existsSync(join(DIST, file))) {
    console.error(`dist/${file} is missing: build first (\`npm run bench:soak\` builds for you)`);
    process.exit(1);
  }
}
const load = (file) => import(pathToFileURL(join(DIST, file)).href);
const { grpcServiceDefinition } = await load("server/service-definition.js");
const { RewardService, ScoreStreamRequestSchema, Verdict } = await load("gen/minedit/v1/reward_pb.js");
const { DEFAULT_TASK_FILE } = await load("cli/service-options.js");
const { parseConfig } = await load("config.js");
/** What the server runs with: its defaults (the report states them). */
const SERVER_DEFAULTS = parseConfig({}).sandbox;

const tasks = readFileSync(DEFAULT_TASK_FILE, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line));

// ---------------------------------------------------------------------------------------------------
// The rollouts.

const fence = (code) => `Here is the fix:\n\`\`\`python\n${code}\n\`\`\`\n`;
const HOSTILE = [
  (gold, i) => `${gold}\n_x${i} = bytearray(1 << 34)\n`,
  (gold, i) => `${gold}\nimport sys\nfor _ in range(10**6): sys.stdout.write("flood ${i} " * 64)\n`,
  (gold, i) =>
    `import os\n${gold}\nfor _n in range(200):\n    try:\n        if os.fork() == 0: os._exit(0)  # ${i}\n    except OSError:\n        break\n`,
  (gold, i) => `import os\n${gold}\nos._exit(0)  # ${i}\n`,
  (gold, i) => `import sys\n${gold}\nsys.exit(0)  # ${i}\n`,
  (gold, i) => `def _r${i}(n): return _r${i}(n + 1)\n${gold}\n_r${i}(0)\n`,
  (gold, i) => `import os, signal\n${gold}\nos.kill(os.getpid(), signal.SIGKILL)  # ${i}\n`,
  (gold, i) => `import os\n${gold}\nfor _fd in range(3): os.close(_fd)  # ${i}\n`,
];

function rollout(i) {
  const task = tasks[i % tasks.length];
  const taskRef = { case: "taskId", value: task.task_id };
  const slot = (i * 7919) % 100; // a fixed permutation of the mix over the indices
  let completion;
  let kind;
  if (i % 2000 === 1999) {
    kind = "hostile:busy-loop";
    completion = fence(`${task.gold}\nwhile True:\n    pass  # ${i}\n`);
  } else if (slot < 10) {
    kind = "gold-distinct";
    completion = fence(`${task.gold}\n_soak_pad = ${i}\n`);
  } else if (slot < 45) {
    kind = "gold-repeat";
    completion = fence(task.gold);
  } else if (slot < 57) {
    kind = "gold-comment";
    completion = fence(`# attempt ${i}\n${task.gold}\n# done\n`);
  } else if (slot < 72) {
    kind = "corrupted";
    completion = task.corrupted;
  } else if (slot < 78) {
    kind = "prose";
    completion = `I think the function is already correct (${i}).`;
  } else if (slot < 84) {
    kind = "truncated";
    completion = `\`\`\`python\ndef f(x):\n    if x > ${i}`;
  } else if (slot < 92) {
    const which = (i + Math.floor(i / 100)) % HOSTILE.length;
    kind = `hostile:${["alloc", "flood", "fork", "os-exit", "sys-exit", "recursion", "sigkill", "close-fds"][which]}`;
    completion = fence(HOSTILE[which](task.gold, i));
  } else {
    kind = "gold-blank-lines";
    completion = fence(task.gold.replaceAll("\n", "\n\n"));
  }
  return { rollout: { id: `r${i}`, completion, taskRef, groupId: `g${Math.floor(i / 16)}` }, kind };
}

// ---------------------------------------------------------------------------------------------------
// Memory sampling.

function rssKbOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}
/** RSS of `root` and every process below it. */
function treeRssKb(root) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {}
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop();
    total += rssKbOf(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}
function metricValue(text, name) {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(" ") + 1));
}

// ---------------------------------------------------------------------------------------------------
// The server.

const dir = mkdtempSync(join(tmpdir(), "minedit-soak-"));
const configFile = join(dir, "config.json");
writeFileSync(configFile, JSON.stringify({ server: { port: 0, metricsPort: 0, logLevel: "warn" } }));
const server = spawn(process.execPath, ["bin/minedit.js", "serve", "--config", configFile], {
  cwd: ROOT,
  stdio: ["ignore", "ignore", "pipe"],
});
let stderr = "";
let infraLines = 0;
server.stderr.setEncoding("utf8").on("data", (chunk) => {
  stderr += chunk;
  infraLines += (chunk.match(/sandbox fault/g) ?? []).length;
  if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19));
});
const ports = await new Promise((resolve, reject) => {
  const timer = setInterval(() => {
    const grpc = /listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
    const metrics = /metrics on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
    if (grpc !== null && metrics !== null) {
      clearInterval(timer);
      resolve({ grpc: Number(grpc[1]), metrics: Number(metrics[1]) });
    }
  }, 100);
  server.on("exit", (code) => reject(new Error(`minedit serve exited ${code}:\n${stderr}`)));
});
log(`server pid ${server.pid}, gRPC :${ports.grpc}, metrics :${ports.metrics}; ${N} rollouts`);
const scrape = async () => (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();

// ---------------------------------------------------------------------------------------------------
// The soak.

const samples = [];
let done = 0;
const t0 = performance.now();
const sample = async () => {
  const text = await scrape().catch(() => "");
  samples.push({
    s: (performance.now() - t0) / 1000,
    done,
    rssMb: rssKbOf(server.pid) / 1024,
    treeMb: treeRssKb(server.pid) / 1024,
    heapMb: metricValue(text, "nodejs_heap_size_used_bytes") / 2 ** 20,
    depth: metricValue(text, "minedit_queue_depth_rollouts"),
  });
};
await sample();
const sampler = setInterval(() => void sample(), SAMPLE_MS);

const method = grpcServiceDefinition(RewardService).scoreStream;
const client = new Client(`127.0.0.1:${ports.grpc}`, credentials.createInsecure(), {
  "grpc.max_receive_message_length": 64 * 1024 * 1024,
});
const stream = client.makeBidiStreamRequest(
  method.path,
  method.requestSerialize,
  method.responseDeserialize,
  new Metadata(),
  {},
);
const verdicts = {};
const kinds = new Map();
const kindVerdicts = {};
let sent = 0;
let passedHostile = 0;
const result = await new Promise((resolve) => {
  const pump = () => {
    while (sent < N && sent - done < IN_FLIGHT) {
      const batch = [];
      for (let k = 0; k < MESSAGE && sent < N; k++, sent++) {
        const { rollout: r, kind } = rollout(sent);
        kinds.set(r.id, kind);
        batch.push(r);
      }
      stream.write(create(ScoreStreamRequestSchema, { rollouts: batch }));
    }
    if (sent === N) stream.end();
  };
  let lastLog = 0;
  stream.on("data", (response) => {
    const r = response.result;
    const name = Verdict[r.verdict];
    verdicts[name] = (verdicts[name] ?? 0) + 1;
    const kind = kinds.get(r.id);
    kinds.delete(r.id);
    kindVerdicts[kind] ??= {};
    kindVerdicts[kind][name] = (kindVerdicts[kind][name] ?? 0) + 1;
    // Exiting, forking or closing fds after the definitions may legitimately pass; these may not.
    if (name === "PASSED" && /hostile:(alloc|flood|recursion|sigkill|busy-loop)/.test(kind ?? "")) {
      passedHostile += 1;
    }
    done += 1;
    if (done - lastLog >= N / 20) {
      lastLog = done;
      const last = samples.at(-1);
      log(
        `${done}/${N} (${((performance.now() - t0) / 1000).toFixed(0)} s, RSS ${last?.rssMb.toFixed(0)} MiB)`,
      );
    }
    if (sent < N) pump();
  });
  stream.on("error", (error) => resolve({ error }));
  stream.on("end", () => resolve({}));
  pump();
});
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
await sample();
const finalMetrics = await scrape();
client.close();
server.kill("SIGTERM");
const exit = await new Promise((resolve) => server.on("exit", (code, signal) => resolve({ code, signal })));
rmSync(dir, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------------
// Report.

const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "n/a");
/** Least-squares slope of y over x. */
function slope(points, x, y) {
  const n = points.length;
  const mx = points.reduce((a, p) => a + x(p), 0) / n;
  const my = points.reduce((a, p) => a + y(p), 0) / n;
  const num = points.reduce((a, p) => a + (x(p) - mx) * (y(p) - my), 0);
  const den = points.reduce((a, p) => a + (x(p) - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}
// The curve: the sample nearest each 10 % of the rollouts answered.
const curve = [];
for (let tenth = 0; tenth <= 10; tenth++) {
  const target = (N * tenth) / 10;
  const best = samples.reduce((a, p) => (Math.abs(p.done - target) < Math.abs(a.done - target) ? p : a));
  curve.push({ tenth, ...best });
}
// Past the first 10 % (the warm-up: caches and pools filling), memory should not grow with rollouts.
const steady = samples.filter((p) => p.done >= N / 10);
const perRollout = (key) =>
  slope(
    steady,
    (p) => p.done,
    (p) => p[key],
  ) * 10_000;
const maxOf = (key) => Math.max(...samples.map((p) => p[key]).filter(Number.isFinite));

const out = [];
out.push(`### Soak run: ${N.toLocaleString("en")} rollouts over one ScoreStream`);
out.push("");
out.push(
  `Machine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores; server defaults (execution concurrency ` +
    `${SERVER_DEFAULTS.executionConcurrency}, warm interpreters, 64 MiB result cache, max 16,384 queued rollouts); messages of ` +
    `${MESSAGE}, at most ${IN_FLIGHT} unanswered. ${result.error === undefined ? "Stream ended OK" : `Stream FAILED: ${result.error.code} ${result.error.details}`}; ` +
    `${done.toLocaleString("en")} of ${N.toLocaleString("en")} answered in ${fmt(seconds)} s (${fmt(done / seconds)} rollouts/s); ` +
    `server exit ${exit.code ?? exit.signal} after SIGTERM.`,
);
out.push("");
out.push(
  `Verdicts: ${Object.entries(verdicts)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}. INFRA_ERROR log lines: ${infraLines}. ` +
    `Hostile programs that PASSED although they allocate, flood, recurse, kill themselves or loop (must be 0): ${passedHostile}.`,
);
out.push("");
out.push("| kind | verdicts |");
out.push("|---|---|");
for (const [kind, counts] of Object.entries(kindVerdicts).sort()) {
  out.push(
    `| ${kind} | ${Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")} |`,
  );
}
out.push("");
out.push("| answered | elapsed s | server RSS MiB | process tree RSS MiB | V8 heap used MiB | queue depth |");
out.push("|---:|---:|---:|---:|---:|---:|");
for (const p of curve) {
  out.push(
    `| ${p.done.toLocaleString("en")} | ${fmt(p.s)} | ${fmt(p.rssMb)} | ${fmt(p.treeMb)} | ${fmt(p.heapMb, 1)} | ${fmt(p.depth)} |`,
  );
}
out.push("");
out.push(
  `Samples: ${samples.length} (every ${SAMPLE_MS} ms). Max server RSS ${fmt(maxOf("rssMb"))} MiB, max tree ` +
    `${fmt(maxOf("treeMb"))} MiB, max heap ${fmt(maxOf("heapMb"), 1)} MiB. Slope after the first 10 %: server RSS ` +
    `${fmt(perRollout("rssMb"), 2)} MiB, heap ${fmt(perRollout("heapMb"), 2)} MiB per 10,000 rollouts. ` +
    `minedit_rollouts_total on the server: ${finalMetrics
      .split("\n")
      .filter((l) => l.startsWith("minedit_rollouts_total{"))
      .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(" ") + 1)), 0)}.`,
);
console.log(out.join("\n"));
if (result.error !== undefined || done !== N) process.exitCode = 1;
