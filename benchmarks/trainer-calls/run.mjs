/**
 * Reward calls of per-sample trainers: one GRPO step of 512 samples (32 shipped in-domain tasks × 16
 * model-like completions) scored the way verl ≥ 0.7's reward loop (8 worker processes, one awaited call
 * per sample) and OpenRLHF ≥ 0.9.1 (one HTTP request per sample, 128 in flight) call a reward server:
 * per sample (the baseline: what the adapters did before coalescing) against coalesced (the client's
 * CoalescingScorer; the OpenRLHF endpoint's server-side window). Reports RPCs per step, step latency and
 * the time after the last sample arrived, for samples arriving all at once and spread over 2 s; every
 * mode must give every sample the same reward.
 *
 * Run with `npm run bench:trainers` (builds first). It imports the BUILT code from dist/ and drives the
 * server with Debian's /usr/bin/python3 + python3-grpcio (benchmarks/trainer-calls/driver.py).
 */
import { existsSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { drive as driveOnce } from "./drive.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const DIST = join(ROOT, "dist");
const TASKS_FILE = join(ROOT, "datasets", "tasks", "in-domain.jsonl");
const ROUNDS = 3;
const SPREADS = [0, 2];

for (const file of ["config.js", "server/service.js", "workers/metrics-worker.js"]) {
  if (!existsSync(join(DIST, file))) {
    console.error(
      `dist/${file} is missing: run \`npm run build\` (\`npm run bench:trainers\` builds for you).`,
    );
    process.exit(1);
  }
}
const load = (file) => import(pathToFileURL(join(DIST, file)).href);
const { parseConfig } = await load("config.js");
const { startService } = await load("server/service.js");

const log = (message) => console.error(`[bench:trainers] ${message}`);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const drive = (mode, args) => driveOnce(mode, ["--tasks-file", TASKS_FILE, ...args]);

/**
 * Starts a service with execution on; `coalesceMs` is the OpenRLHF endpoint's window. The cross-call
 * result cache is off, as in the e2e benchmark: every round sends the same 512 completions, which a
 * trainer never does (each step brings new samples), so with the cache on every step after the warm-up
 * would be answered without one execution and the table would time the RPCs alone.
 */
async function service(coalesceMs) {
  const config = parseConfig({
    server: { port: 0, openrlhfPort: 0, openrlhfCoalesceMs: coalesceMs },
    tasks: { files: [TASKS_FILE] },
    sandbox: { resultCacheBytes: 0 },
  });
  return startService(config, [TASKS_FILE], true);
}

/** Every mode must reward every sample the same. */
function checkAgreement(reference, report, label) {
  for (const [id, reward] of Object.entries(reference.rewards)) {
    const other = report.rewards[id];
    if (other === undefined || (reward === null ? other !== null : Math.abs(other - reward) > 1e-12)) {
      throw new Error(`${label}: sample ${id} got ${other}, the per-sample baseline ${reward}`);
    }
  }
}

const rows = [];
let reference;
const measure = async (label, runOnce, rpcsOf) => {
  for (const spread of SPREADS) {
    const reports = [];
    for (let round = 0; round < ROUNDS; round++) reports.push(await runOnce(spread));
    reference ??= reports[0];
    for (const report of reports) checkAgreement(reference, report, label);
    rows.push({
      label,
      spread,
      rpcs: median(reports.map(rpcsOf)),
      stepS: median(reports.map((r) => r.step_s)),
      bestStepS: Math.min(...reports.map((r) => r.step_s)),
      tailS: median(reports.map((r) => r.after_last_arrival_s)),
      samples: reports[0].samples,
    });
    log(`${label}, spread ${spread} s: done`);
  }
};

log(`machine: ${cpus()[0]?.model ?? "?"} × ${availableParallelism()}, load ${loadavg()[0].toFixed(2)}`);
const grpcService = await service(0);
const target = `127.0.0.1:${grpcService.server.port}`;
try {
  log("warm-up step…");
  await drive("grpc-coalesced", ["--target", target]);
  await measure(
    "verl reward loop, per sample (1 ScoreBatch per sample)",
    (spread) => drive("grpc-per-sample", ["--target", target, "--spread", String(spread)]),
    (r) => r.rpcs,
  );
  await measure(
    "verl reward loop, coalesced (CoalescingScorer, 20 ms)",
    (spread) => drive("grpc-coalesced", ["--target", target, "--spread", String(spread)]),
    (r) => r.rpcs,
  );
} finally {
  await grpcService.close();
}

for (const [coalesceMs, label] of [
  [0, "OpenRLHF, per request (window 0)"],
  [20, "OpenRLHF, coalesced on the server (20 ms)"],
]) {
  const http = await service(coalesceMs);
  const url = `http://127.0.0.1:${http.openrlhf.port}/get_reward`;
  try {
    await drive("http", ["--url", url]);
    let before = 0;
    await measure(
      label,
      async (spread) => {
        before = http.openrlhf.stats().scorerCalls;
        const report = await drive("http", ["--url", url, "--spread", String(spread)]);
        return { ...report, rpcs: http.openrlhf.stats().scorerCalls - before };
      },
      (r) => r.rpcs,
    );
  } finally {
    await http.close();
  }
}

console.log(
  "| callers | arrival | scorer calls per 512-sample step | step latency median (best) | after last arrival |",
);
console.log("| --- | --- | --- | --- | --- |");
for (const row of rows) {
  console.log(
    `| ${row.label} | ${row.spread === 0 ? "all at once" : `over ${row.spread} s`} | ${row.rpcs} | ` +
      `${row.stepS.toFixed(2)} s (${row.bestStepS.toFixed(2)} s) | ${row.tailS.toFixed(2)} s |`,
  );
}
