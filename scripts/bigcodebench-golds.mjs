#!/usr/bin/env node
/**
 * Runs every BigCodeBench gold (complete_prompt + canonical_solution) against its own tests in the
 * sandbox, each in the task runtime the importer gives it (bigcodebench when it imports anything beyond
 * the standard library), with the same importer, runner, warm interpreters and limits as `minedit tasks
 * build` and the server; then sorts the failures by why (issue 13: the gold pass rate of the bigcodebench
 * runtime). A gold that times out is run once more with 60 s limits (CPU and wall), to tell the ones
 * that fail only by time from the ones that hang.
 *
 * Categories: missing package (a module no runtime provides: not in Debian, or left out of the runtime,
 * see sandbox/runtimes.json), network (the sandbox has none), nltk data (corpora BigCodeBench downloads at
 * run time; Debian packages none), timeout, library version (everything else: Debian bookworm's pandas
 * 1.5, numpy 1.24, matplotlib 3.6, scikit-learn 1.2, scipy 1.10, faker, ... against the versions
 * BigCodeBench pins), infra error.
 *
 * Usage: node scripts/bigcodebench-golds.mjs [--source FILE] [--out FILE.jsonl] [--report FILE.md]
 *          [--concurrency N] [--wall-time-ms N] [--only ID,ID,...]
 *   --source        BigCodeBench's own file (default: ../shared/data/bigcodebench/BigCodeBench.jsonl.gz)
 *   --out           one JSON result per task (default: .cache/bigcodebench-golds.jsonl)
 *   --report        the Markdown report (default: beside --out, .md); also printed on stdout
 *   --concurrency   runs at once (default: the configured executionConcurrency, the available parallelism)
 *   --wall-time-ms  the wall limit of a run (default: the configured 10000)
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
const { RUNTIME_NAMES, requiredModules, runtimeNamed } = await dist("sandbox/runtimes.js");

const { values } = parseArgs({
  options: {
    source: { type: "string" },
    out: { type: "string" },
    report: { type: "string" },
    concurrency: { type: "string" },
    "wall-time-ms": { type: "string" },
    only: { type: "string" },
  },
});
const source = values.source ?? join(ROOT, "..", "shared", "data", "bigcodebench", "BigCodeBench.jsonl.gz");
const out = values.out ?? join(ROOT, ".cache", "bigcodebench-golds.jsonl");
const reportPath = values.report ?? `${out.replace(/\.jsonl$/, "")}.md`;
const sandboxSection = {};
if (values.concurrency !== undefined) sandboxSection.executionConcurrency = Number(values.concurrency);
if (values["wall-time-ms"] !== undefined) sandboxSection.wallTimeMs = Number(values["wall-time-ms"]);
const config = parseConfig({ sandbox: sandboxSection });
const limits = executionLimits(config);
const only =
  values.only === undefined
    ? null
    : new Set(values.only.split(",").map((id) => (id.includes("/") ? id : `BigCodeBench/${id}`)));
const RETRY_WALL_MS = 60_000;

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
    const note = Object.entries(leftOut).find(([pkg]) => pkg.endsWith(name.toLowerCase()));
    return `no module ${name}${note === undefined ? " (not packaged in Debian bookworm)" : ` (left out: ${note[1]})`}`;
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
      const again = await runPythonTests(sandbox, problem.solution, runnerTests(problem), {
        ...limits,
        wallTimeMs: Math.max(limits.wallTimeMs, RETRY_WALL_MS),
        ...(limits.cpuTimeMs === undefined ? {} : { cpuTimeMs: RETRY_WALL_MS }),
      });
      result.retry = {
        verdict: again.verdict,
        wall_ms: again.wallTimeMs,
        category: category(again, problem.solution),
      };
      result.reason =
        again.verdict === "PASSED"
          ? `only by time: passes in ${(again.wallTimeMs / 1000).toFixed(1)} s with a ${RETRY_WALL_MS / 1000} s limit`
          : `also ${again.verdict} with a ${RETRY_WALL_MS / 1000} s limit${again.verdict === "TIMEOUT" ? "" : `: ${reason(again)}`}`;
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

const passed = results.filter((r) => r.verdict === "PASSED").length;
const slow = results.filter((r) => r.retry?.verdict === "PASSED").length;
const pct = (n) => `${((100 * n) / results.length).toFixed(1)} %`;
const byRuntime = runtimes.map((runtime) => {
  const of = results.filter((r) => r.runtime === runtime);
  return `| ${runtime} | ${of.length} | ${of.filter((r) => r.verdict === "PASSED").length} |`;
});
const categories = ["missing package", "network", "nltk data", "timeout", "library version", "infra error"];
const lines = [
  "# BigCodeBench golds in the sandbox",
  "",
  `${passed} of ${results.length} golds pass (${pct(passed)}), ` +
    (limits.cpuTimeMs === undefined ? "" : `CPU limit ${limits.cpuTimeMs} ms, wall backstop `) +
    `${limits.wallTimeMs} ms, ` +
    `${config.sandbox.executionConcurrency} at once, ${seconds.toFixed(0)} s in all ` +
    `(scripts/bigcodebench-golds.mjs, source ${source.replace(`${ROOT}/`, "")}). ` +
    `${slow} of the timeouts pass with a ${RETRY_WALL_MS / 1000} s limit: ${passed + slow} ` +
    `(${pct(passed + slow)}) pass when a slow gold's limit follows its time.`,
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
  `bigcodebench-golds: ${passed}/${results.length} passed; results in ${out}, report in ${reportPath}`,
);
