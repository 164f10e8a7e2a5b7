#!/usr/bin/env node
/**
 * Runs every BigCodeBench gold (complete_prompt + canonical_solution) against its own tests in the
 * sandbox, each in the task runtime the importer gives it (bigcodebench when it imports anything beyond
 * the standard library), with the same importer, runner, warm interpreters and limits as `minedit tasks
 * build` and the server; then sorts the failures by why (issue 13: the gold pass rate of the bigcodebench
 * runtime). A gold that times out is run once more with the limits the ground-truth gate times golds
 * with (src/scoring/task-gate.ts measuringLimits: the calibration's ceilings, 60 s of CPU by default): one
 * that passes then, in a time that fits the limits it calibrates (max(floor, k × gold), capped at the
 * ceilings), is served by the server with those, so it counts as passing — the summary says how many did
 * so — and any other is refused by the gate.
 *
 * Categories: missing package (a module no runtime provides: not in Debian, or left out of the runtime,
 * see sandbox/runtimes.json), network (the sandbox has none), nltk data (corpora BigCodeBench downloads at
 * run time; Debian packages none), timeout, library version (everything else: Debian bookworm's pandas
 * 1.5, numpy 1.24, matplotlib 3.6, scikit-learn 1.2, scipy 1.10, faker, ... against the versions
 * BigCodeBench pins), infra error.
 *
 * Usage: node scripts/bigcodebench-golds.mjs [--source FILE] [--out FILE.jsonl] [--report FILE.md]
 *          [--concurrency N] [--wall-time-ms N] [--cpu-time-ms N] [--only ID,ID,...]
 *   --source        BigCodeBench's own file (default: $MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz;
 *                   one of the two is required, see docs/paper-set.md#the-data-minedit_data_dir)
 *   --out           one JSON result per task (default: .cache/bigcodebench-golds.jsonl)
 *   --report        the Markdown report (default: beside --out, .md); also printed on stdout
 *   --concurrency   runs at once (default: the configured executionConcurrency, the available parallelism)
 *   --wall-time-ms  the wall limit of a run without a CPU limit, else the floor of its backstop
 *                   (default: the configured sandbox.wallTimeMs)
 *   --cpu-time-ms   the CPU limit of a run (default: the configured sandbox.cpuTimeMs; 0: wall limit only)
 *   --only          task ids (BigCodeBench/12 or 12)
 * Needs the built CLI (npm run build) and the bigcodebench runtime (minedit setup --runtime bigcodebench).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (path) => import(join(ROOT, "dist", path));
const { parseConfig } = await dist("config.js");
const { importFile } = await dist("tasks/importers/import-file.js");
const { runnerTests } = await dist("tasks/importers/runner-tests.js");
const { runPythonTests } = await dist("runners/python.js");
const { createConfiguredSandbox } = await dist("sandbox/create.js");
const { executionLimits } = await dist("scoring/limits.js");
const { calibratedLimits, goldFits, measuringLimits } = await dist("scoring/task-gate.js");
const { RUNTIME_NAMES, requiredModules, runtimeNamed } = await dist("sandbox/runtimes.js");

const { values } = parseArgs({
  options: {
    source: { type: "string" },
    out: { type: "string" },
    report: { type: "string" },
    concurrency: { type: "string" },
    "wall-time-ms": { type: "string" },
    "cpu-time-ms": { type: "string" },
    only: { type: "string" },
    help: { type: "boolean" },
  },
});
if (values.help) {
  // The usage is this file's header comment.
  const { readFileSync } = await import("node:fs");
  const header = /\/\*\*\n([\s\S]*?)\*\//.exec(readFileSync(fileURLToPath(import.meta.url), "utf8"));
  process.stdout.write(`${(header?.[1] ?? "").replace(/^ \* ?/gm, "")}`);
  process.exit(0);
}
/** Exits 2 with the message on stderr (a usage error: nothing was run). */
function fail(message) {
  process.stderr.write(`bigcodebench-golds: ${message}\n`);
  process.exit(2);
}
// BigCodeBench is read where it lies, never copied into the repository (docs/paper-set.md#the-data-minedit_data_dir).
const dataDir = process.env.MINEDIT_DATA_DIR;
const source =
  values.source ??
  (dataDir ? join(dataDir, "bigcodebench", "BigCodeBench.jsonl.gz") : undefined) ??
  fail(
    "no BigCodeBench file: pass --source FILE or set MINEDIT_DATA_DIR (the directory holding bigcodebench/BigCodeBench.jsonl.gz)",
  );
const out = values.out ?? join(ROOT, ".cache", "bigcodebench-golds.jsonl");
const reportPath = values.report ?? `${out.replace(/\.jsonl$/, "")}.md`;
const sandboxSection = {};
if (values.concurrency !== undefined) sandboxSection.executionConcurrency = Number(values.concurrency);
if (values["wall-time-ms"] !== undefined) sandboxSection.wallTimeMs = Number(values["wall-time-ms"]);
if (values["cpu-time-ms"] !== undefined) sandboxSection.cpuTimeMs = Number(values["cpu-time-ms"]);
const config = parseConfig({ sandbox: sandboxSection });
const limits = executionLimits(config);
const only =
  values.only === undefined
    ? null
    : new Set(values.only.split(",").map((id) => (id.includes("/") ? id : `BigCodeBench/${id}`)));
const cores = (await import("node:os")).availableParallelism();
/** What the gate times a gold with (a gold passing with them is served with a calibrated limit). */
const share = { concurrency: config.sandbox.executionConcurrency, cores };
const measuring = measuringLimits(limits, config.tasks.calibration, share);
const RETRY_MS = measuring.cpuTimeMs ?? measuring.wallTimeMs;
const RETRY_LIMIT =
  measuring.cpuTimeMs === undefined
    ? `${RETRY_MS / 1000} s wall limit`
    : `${RETRY_MS / 1000} s CPU limit (wall backstop ${measuring.wallTimeMs / 1000} s)`;

const problems = [];
for await (const item of importFile(source, "bigcodebench")) {
  if ("error" in item) {
    console.error(`${source}:${item.line}: ${item.error}`);
    continue;
  }
  const id = item.problem.problemId.replace(/^bigcodebench\//, "");
  if (only === null || only.has(id)) problems.push({ id, problem: item.problem });
}
const runtimes = [...new Set(problems.map((p) => p.problem.runtime))];
const sandbox = await createConfiguredSandbox(
  config.sandbox,
  config.limits.tests,
  (line) => console.error(`bigcodebench-golds: ${line}`),
  runtimes,
);

/** Every module some runtime provides, and what sandbox/runtimes.json says about the ones left out. */
const provided = new Set(RUNTIME_NAMES.flatMap((name) => requiredModules(runtimeNamed(name))));
const leftOut = Object.assign({}, ...RUNTIME_NAMES.map((name) => runtimeNamed(name).leftOut));

/** Why a gold failed (see the module comment); `program` is the gold, for what its output cannot say. */
function category(outcome, program) {
  if (outcome.verdict === "PASSED") return "passed";
  if (outcome.verdict === "TIMEOUT") return "timeout";
  if (outcome.verdict === "INFRA_ERROR") return "infra error";
  const text = `${outcome.detail}\n${outcome.stderrTail}`;
  const missing = /No module named '([^']+)'/.exec(text);
  if (missing !== null && !provided.has(missing[1].split(".")[0])) return "missing package";
  if (/nltk\.download\(|nltk_data|Resource \S+ not found/.test(text)) return "nltk data";
  if (
    /name resolution|Name or service not known|gaierror|urlopen error|Max retries exceeded|Network is unreachable|ConnectionError|Failed to establish a new connection|getaddrinfo|Connection refused/.test(
      text,
    )
  )
    return "network";
  // A reverse DNS lookup that fails in the sandbox is caught by the gold itself: only the answer differs.
  if (/socket\.gethostbyaddr/.test(program)) return "network";
  return "library version";
}

/** The one line that says why, for the report. */
function reason(outcome) {
  const text = `${outcome.detail}\n${outcome.stderrTail}`;
  const missing = /No module named '([^']+)'/.exec(text);
  if (missing !== null) {
    const name = missing[1];
    // leftOut names a library by its module (`Crypto`, `tensorflow`) or its Debian package (`python3-x`).
    const note = Object.entries(leftOut).find(([key]) => key.toLowerCase().endsWith(name.toLowerCase()));
    return `no module ${name}${note === undefined ? " (in no package of the task's runtime)" : ` (left out: ${note[1]})`}`;
  }
  const nltk = /Resource \S*?(\w+)\S* not found|nltk\.download\('(\w+)'\)/.exec(text);
  if (nltk !== null) return `nltk data "${nltk[2] ?? nltk[1]}" not available`;
  return outcome.detail.replace(/\s+/g, " ").slice(0, 160);
}

const results = [];
let next = 0;
let done = 0;
const started = performance.now();
async function worker() {
  while (next < problems.length) {
    const { id, problem } = problems[next++];
    const outcome = await runPythonTests(sandbox, problem.solution, runnerTests(problem), limits);
    const result = {
      id,
      runtime: problem.runtime,
      verdict: outcome.verdict,
      tests: `${outcome.testsPassed}/${outcome.testsTotal}`,
      wall_ms: outcome.wallTimeMs,
      cpu_ms: outcome.cpuTimeMs ?? null,
      category: category(outcome, problem.solution),
      reason: outcome.verdict === "PASSED" ? "" : reason(outcome),
    };
    if (outcome.verdict === "TIMEOUT") {
      const again = await runPythonTests(sandbox, problem.solution, runnerTests(problem), measuring);
      result.retry = {
        verdict: again.verdict,
        wall_ms: again.wallTimeMs,
        cpu_ms: again.cpuTimeMs ?? null,
        category: category(again, problem.solution),
      };
      const gold = {
        wallMs: again.wallTimeMs,
        cpuMs: again.cpuTimeMs ?? null,
        idleMs: again.idleTimeMs ?? null,
      };
      const served = calibratedLimits(limits, gold, config.tasks.calibration, share);
      const took = `${(again.wallTimeMs / 1000).toFixed(1)} s${again.cpuTimeMs === undefined ? "" : ` (${(again.cpuTimeMs / 1000).toFixed(1)} s of CPU)`}`;
      const calibrated = `${served.cpuTimeMs === undefined ? "" : `CPU ${served.cpuTimeMs / 1000} s, `}wall ${served.wallTimeMs / 1000} s`;
      // The gate serves it only when the gold also fits the limits its time calibrates (task-gate.ts).
      result.retry.served = again.verdict === "PASSED" && goldFits(gold, served);
      result.reason =
        again.verdict !== "PASSED"
          ? `also ${again.verdict} with the gate's ${RETRY_LIMIT}${again.verdict === "TIMEOUT" ? "" : `: ${reason(again)}`}`
          : result.retry.served
            ? `slow: passes in ${took} with the gate's ${RETRY_LIMIT}; served with the limits that calibrates (${calibrated})`
            : `passes in ${took} with the gate's ${RETRY_LIMIT}, but that is beyond the calibration's ceilings (${calibrated}): refused by the gate`;
      // The gate would serve it: it counts as passing (the summary says how many did so).
      if (result.retry.served) result.category = "passed";
    }
    results.push(result);
    done += 1;
    if (done % 100 === 0) console.error(`bigcodebench-golds: ${done}/${problems.length}`);
  }
}
try {
  await Promise.all(Array.from({ length: config.sandbox.executionConcurrency }, worker));
} finally {
  await sandbox.close();
}
const seconds = (performance.now() - started) / 1000;

const order = (id) => Number(id.split("/").pop());
results.sort((a, b) => order(a.id) - order(b.id));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, results.map((r) => `${JSON.stringify(r)}\n`).join(""));

/** Served: passes with the configured limits, or (slow) with the gate's measuring limits. */
const served = (r) => r.verdict === "PASSED" || r.retry?.served === true;
const fast = results.filter((r) => r.verdict === "PASSED").length;
const slow = results.filter((r) => r.retry?.served === true).length;
const passed = fast + slow;
const pct = (n) => `${((100 * n) / results.length).toFixed(1)} %`;
const byRuntime = runtimes.map((runtime) => {
  const of = results.filter((r) => r.runtime === runtime);
  return `| ${runtime} | ${of.length} | ${of.filter(served).length} |`;
});
const categories = ["missing package", "network", "nltk data", "timeout", "library version", "infra error"];
const lines = [
  "# BigCodeBench golds in the sandbox",
  "",
  `${passed} of ${results.length} golds pass as the server would serve them (${pct(passed)}): ` +
    `${fast} with the configured limits (` +
    (limits.cpuTimeMs === undefined ? "" : `CPU limit ${limits.cpuTimeMs} ms, wall backstop `) +
    `${limits.wallTimeMs} ms), ${slow} more that time out there but pass with the ${RETRY_LIMIT} the ` +
    "ground-truth gate times golds with, so the gate serves their tasks with a limit that follows the " +
    `gold's time. ${config.sandbox.executionConcurrency} at once, ${seconds.toFixed(0)} s in all ` +
    `(scripts/bigcodebench-golds.mjs, source ${source.replace(`${ROOT}/`, "")}).`,
  "",
  "| runtime | tasks | golds passing |",
  "| --- | ---: | ---: |",
  ...byRuntime,
  "",
  "| why a gold fails | tasks |",
  "| --- | ---: |",
  ...categories.map((c) => `| ${c} | ${results.filter((r) => r.category === c).length} |`),
  "",
];
const slowOnes = results.filter((r) => r.retry?.served === true);
if (slowOnes.length > 0) {
  lines.push(`## passing slowly: served with a calibrated limit (${slowOnes.length})`, "");
  for (const r of slowOnes) lines.push(`- ${r.id} (${r.verdict} with the configured limits): ${r.reason}`);
  lines.push("");
}
for (const c of categories) {
  const failing = results.filter((r) => r.category === c);
  if (failing.length === 0) continue;
  lines.push(`## ${c} (${failing.length})`, "");
  for (const r of failing) lines.push(`- ${r.id} (${r.verdict}, tests ${r.tests}): ${r.reason}`);
  lines.push("");
}
const markdown = lines.join("\n");
writeFileSync(reportPath, markdown);
process.stdout.write(markdown);
console.error(
  `bigcodebench-golds: ${passed}/${results.length} passed as served (${fast} with the configured limits, ${slow} slow ones with the gate's ${RETRY_LIMIT}); results in ${out}, report in ${reportPath}`,
);
