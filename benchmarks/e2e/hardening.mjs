/**
 * What the sandbox's hardening of issue 25 costs (docs/sandbox.md, "The syscall filter" and "What each
 * backend bounds"): the executions of a seed-task step scored twice in the same run, in rounds that
 * alternate, on two bwrap backends that differ only in it —
 *
 *   hardened    the default: the syscall filter on every process, and (as root) a cgroup and
 *               inode-capped scratch mounts per sandbox;
 *   unhardened  `syscallFilter: false, bounds: "per-process"` (BwrapOptions: what the code did before).
 *
 * The step is every shipped demo task's gold and corrupted program, 8 times each (384 test runs of the
 * unittest, assert and stdio styles), at the server's default concurrency with its default limits, on
 * warm interpreters (what serving uses) and then, fewer, on fresh sandboxes (what the C++/Java runners, the
 * analyzers and `warmInterpreters: false` use, where the per-sandbox set-up is paid each run). Verdicts
 * must be the same on both. The lower bound reported is the faster backend's fastest round.
 *
 *   node benchmarks/e2e/run.mjs --hardening [--rounds N]       (imports the built code: npm run build)
 */
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const load = (file) => import(pathToFileURL(join(ROOT, "dist", file)).href);
const { parseConfig } = await load("config.js");
const { executionLimits } = await load("scoring/limits.js");
const { testsFromRow } = await load("scoring/tests-row.js");
const { runPythonTests } = await load("runners/python.js");
const { createBwrapSandbox } = await load("sandbox/bwrap.js");
const { WarmPythonSandbox } = await load("sandbox/warm-python.js");

const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf("--rounds") + 1] || 5) || 5;
const REPEATS = 8;
const FRESH_REPEATS = 1;
const log = (message) => console.error(`[bench:hardening] ${message}`);

const config = parseConfig({});
const limits = executionLimits(config);
const concurrency = config.sandbox.executionConcurrency;
const tasks = readFileSync(join(ROOT, "datasets", "seed", "demo-tasks.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line));
const jobs = (repeats) =>
  tasks.flatMap((task) => {
    const tests = testsFromRow(task.tests, task.entry_point);
    return Array.from({ length: repeats }, () => [
      { id: `${task.task_id}#gold`, program: task.gold, tests },
      { id: `${task.task_id}#corrupted`, program: task.corrupted, tests },
    ]).flat();
  });

/** Runs `list` with `concurrency` at once; the step's wall seconds and each job's verdict by id. */
async function step(sandbox, list) {
  const verdicts = new Map();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < list.length) {
        const job = list[next++];
        const outcome = await runPythonTests(sandbox, job.program, job.tests, limits);
        verdicts.set(job.id, outcome.verdict);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, verdicts };
}

const quiet = () => {};
const backends = {
  hardened: (warm) => make(warm, { warn: quiet }),
  unhardened: (warm) => make(warm, { warn: quiet, syscallFilter: false, bounds: "per-process" }),
};
async function make(warm, options) {
  const base = await createBwrapSandbox(options);
  return warm ? WarmPythonSandbox.create(base, { slots: concurrency }) : base;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function compare(label, warm, list) {
  const sandboxes = {
    hardened: await backends.hardened(warm),
    unhardened: await backends.unhardened(warm),
  };
  const times = { hardened: [], unhardened: [] };
  let mismatches = 0;
  try {
    // One warm-up step each (harness compilation, the pools' first runs), not timed.
    for (const name of Object.keys(sandboxes)) await step(sandboxes[name], list);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which goes first, so a drift of the machine's load falls on both.
      const order = round % 2 === 0 ? ["hardened", "unhardened"] : ["unhardened", "hardened"];
      const results = {};
      for (const name of order) {
        results[name] = await step(sandboxes[name], list);
        times[name].push(results[name].seconds);
      }
      for (const [id, verdict] of results.hardened.verdicts) {
        if (results.unhardened.verdicts.get(id) !== verdict) mismatches++;
      }
      log(
        `${label} round ${round + 1}/${ROUNDS}: hardened ${results.hardened.seconds.toFixed(3)} s, unhardened ${results.unhardened.seconds.toFixed(3)} s`,
      );
    }
  } finally {
    await Promise.all(Object.values(sandboxes).map((s) => s.close()));
  }
  const h = median(times.hardened);
  const u = median(times.unhardened);
  return {
    label,
    runs: list.length,
    hardened: h,
    unhardened: u,
    ratio: h / u,
    lowerBound: Math.min(...times.hardened, ...times.unhardened),
    hardenedMin: Math.min(...times.hardened),
    unhardenedMin: Math.min(...times.unhardened),
    mismatches,
  };
}

log(
  `${tasks.length} demo tasks, concurrency ${concurrency}, ${availableParallelism()} cores, load ${loadavg()[0].toFixed(2)}`,
);
const rows = [
  await compare("warm interpreters", true, jobs(REPEATS)),
  await compare("fresh sandboxes", false, jobs(FRESH_REPEATS)),
];

console.log("\n## What the hardening costs (issue 25)\n");
console.log(
  `${ROUNDS} alternating rounds after a warm-up each; median step seconds; ${tasks.length} demo tasks, concurrency ${concurrency}, uid ${process.getuid?.()}.\n`,
);
console.log(
  "| executions | runs per step | hardened (s) | unhardened (s) | hardened ÷ unhardened | fastest rounds (h / u) | verdicts differing |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.runs} | ${r.hardened.toFixed(3)} | ${r.unhardened.toFixed(3)} | ${r.ratio.toFixed(3)} | ${r.hardenedMin.toFixed(3)} / ${r.unhardenedMin.toFixed(3)} | ${r.mismatches} |`,
  );
}
if (rows.some((r) => r.mismatches > 0)) {
  console.error("verdicts differ between the two backends");
  process.exitCode = 1;
}
