/**
 * Offline-scoring throughput (see benchmarks/README.md): `minedit score --no-exec` over 10⁴ and 10⁶
 * completions (or `--sizes N,…`), next to the over-editing paper's pipeline (benchmarks/metrics/paper.py
 * score-file: C Levenshtein, C and G cached per process) on the same files. Whole processes, start-up,
 * JSON reading and writing included; wall time and peak RSS from wait4 (measure.py).
 *
 * The completions come from the metrics benchmark's generator (make-batch.mjs): every usable stdlib
 * function and BigCodeBench task (when the shared data is there) as a task, groups of 16 completions with
 * realistic duplicates, cycling over the tasks with new completion seeds. Every d(M, C) and verdict of
 * minedit must equal the paper pipeline's, row by row, or the run fails (exit 2).
 *
 *   npm run bench:score                      (builds first; 10⁴ and 10⁶: about 20 minutes on 2 cores)
 *   node benchmarks/score/run.mjs --sizes 10000 [--python /usr/bin/python3]
 *
 * Also imported by benchmarks/metrics/run.mjs, which runs the 10⁴ size by default.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  BIGCODEBENCH,
  loadBigCodeBenchFunctions,
  loadStdlibFunctions,
  selectTasks,
  writeScoreFiles,
} from "../metrics/make-batch.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const PAPER = join(ROOT, "benchmarks", "metrics", "paper.py");
const MEASURE = join(HERE, "measure.py");
/** Runs with one thread / one process only up to this size: the paper's pipeline takes ~10 min per 10⁶ on a core. */
const ONE_CORE_MAX = 100_000;

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

/** Lines of a file, read in chunks (the 10⁶ outputs are hundreds of MB). */
function* lines(path) {
  const fd = openSync(path, "r");
  const buffer = Buffer.alloc(1 << 20);
  let rest = "";
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      const parts = (rest + buffer.toString("utf8", 0, n)).split("\n");
      rest = parts.pop() ?? "";
      yield* parts;
    }
    if (rest !== "") yield rest;
  } finally {
    closeSync(fd);
  }
}

/** Runs `command` under measure.py with stdout to `out`; returns {seconds, maxRssKiB} or throws. */
function measured(out, command, label) {
  const run = spawnSync("python3", [MEASURE, out, "--", ...command], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const result = run.status === 0 ? JSON.parse(run.stdout) : null;
  if (result === null || result.status !== 0) {
    throw new Error(`${label} failed (status ${result?.status ?? run.status}):\n${run.stderr.slice(-3000)}`);
  }
  return { ...result, stderr: run.stderr };
}

/** Every minedit row's verdict and d(M, C) against the paper pipeline's line; returns the problems. */
function compare(mineditOut, paperOut, count) {
  const problems = [];
  const theirs = lines(paperOut);
  let n = 0;
  for (const line of lines(mineditOut)) {
    if (line === "") continue;
    const row = JSON.parse(line);
    const expected = theirs.next().value;
    const got = row.verdict === "PASSED" ? row.d_model : row.verdict;
    const want = expected === "NO_CODE" || expected === "UNPARSABLE" ? expected : Number(expected);
    if (row.id !== n) problems.push(`row ${n}: minedit wrote id ${row.id}`);
    else if (got !== want)
      problems.push(`row ${n} (${row.task_id}): minedit ${got}, paper's pipeline ${expected}`);
    n++;
    if (problems.length >= 20) break;
  }
  if (problems.length === 0 && n !== count) problems.push(`minedit wrote ${n} rows, expected ${count}`);
  if (problems.length === 0 && !theirs.next().done) problems.push("the paper's pipeline wrote more rows");
  return problems;
}

/**
 * The interpreter of the paper's pipeline, checked: it must import the C `Levenshtein` package (Debian:
 * python3-levenshtein, for /usr/bin/python3; scripts/ensure-system.sh installs it as root). Returns its
 * version line, or exits with an explanation.
 */
export function checkPaperPython(python) {
  const run = spawnSync(python, ["-c", "import sys, Levenshtein; print(sys.version.split()[0])"], {
    encoding: "utf8",
  });
  if (run.status !== 0) {
    console.error(
      `${python} cannot import the C Levenshtein package, which the paper's pipeline uses.\n` +
        "Install it (Debian: sudo apt-get install -y python3-levenshtein; scripts/ensure-system.sh does it as root), " +
        "or pass --python with an interpreter that has it.",
    );
    process.exit(1);
  }
  return `CPython ${run.stdout.trim()} at ${python}`;
}

/** All usable tasks of both sources, for many-task files. */
export function allTasks(log) {
  const stdlib = selectTasks(loadStdlibFunctions().functions, 1, Infinity, Infinity);
  const bigcodebench = existsSync(BIGCODEBENCH)
    ? selectTasks(loadBigCodeBenchFunctions().functions, 1, Infinity, Infinity)
    : [];
  if (bigcodebench.length === 0) log(`no BigCodeBench data at ${BIGCODEBENCH}: stdlib tasks only`);
  return { stdlib: stdlib.length, bigcodebench: bigcodebench.length, tasks: [...stdlib, ...bigcodebench] };
}

/**
 * Runs the throughput comparison for each size and returns the report's markdown lines.
 * Exits the process with code 2 when any distance disagrees.
 */
export function runScoreBenchmark({ sizes, python, log, tasks: given }) {
  const threads = availableParallelism();
  const { tasks, stdlib, bigcodebench } = given ?? allTasks(log);
  const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-score-"));
  const results = [];
  try {
    for (const size of sizes) {
      const tasksFile = join(workDir, "tasks.jsonl");
      const rolloutsFile = join(workDir, `rollouts-${size}.jsonl`);
      log(`writing ${size} completions over ${tasks.length} tasks…`);
      const file = writeScoreFiles({ tasks, count: size, seed: 1, tasksFile, rolloutsFile });
      const runs = [];
      const minedit = (n) => {
        const out = join(workDir, `minedit-${size}-${n}.jsonl`);
        log(`minedit score --no-exec --threads ${n}, ${size} rows (load ${load()})…`);
        const cmd = [process.execPath, join(ROOT, "bin", "minedit.js"), "score", "--no-exec"];
        const m = measured(
          out,
          [...cmd, "--threads", String(n), "--tasks", tasksFile, rolloutsFile],
          "minedit",
        );
        runs.push({
          label: `minedit score --no-exec, ${n} thread${n === 1 ? "" : "s"}`,
          cores: n,
          ...m,
          load: load(),
        });
        return out;
      };
      const paper = (n) => {
        const out = join(workDir, `paper-${size}-${n}.txt`);
        log(`paper's pipeline, ${n} process${n === 1 ? "" : "es"}, ${size} rows (load ${load()})…`);
        const m = measured(
          join(workDir, "paper-report.json"),
          [python, PAPER, "score-file", "--tasks", tasksFile, "--workers", String(n), rolloutsFile, out],
          "paper.py score-file",
        );
        const label =
          n === 1
            ? "paper's pipeline, 1 process"
            : `paper's pipeline, multiprocessing.Pool(${n}), 1 cache per process`;
        runs.push({ label, cores: n, ...m, load: load() });
        return out;
      };
      const paperAll = paper(threads);
      const mineditAll = minedit(threads);
      const problems = compare(mineditAll, paperAll, size);
      if (size <= ONE_CORE_MAX) {
        problems.push(...compare(minedit(1), paper(1), size));
      }
      if (problems.length > 0) {
        console.error(`\nCORRECTNESS FAILURE — minedit score and the paper's pipeline disagree:`);
        for (const p of problems) console.error(`  ${p}`);
        console.error(`files kept in ${workDir}`);
        process.exit(2);
      }
      for (const f of [mineditAll, paperAll]) rmSync(f, { force: true });
      results.push({ size, file, runs });
      rmSync(rolloutsFile, { force: true });
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }

  const out = [];
  out.push(
    `Input: ${tasks.length} tasks (${stdlib} stdlib functions, ${bigcodebench} BigCodeBench tasks; every usable one), ` +
      `groups of 16 cycling over the tasks with a new completion seed each cycle; task file + rollout file ` +
      `(\`--tasks\`, rows {id, task_id, completion}).`,
  );
  out.push("");
  out.push(
    "| rollouts | file | within-group duplicates | distinct (task, completion) | run | seconds | rollouts/s | per core | CPU s | rollouts per CPU-s | peak RSS | load at end |",
  );
  out.push("|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|");
  for (const { size, file, runs } of results) {
    for (const r of runs) {
      out.push(
        `| ${size.toLocaleString("en-US")} | ${(file.bytes / 2 ** 20).toFixed(0)} MiB | ${((100 * file.duplicates) / file.rows).toFixed(1)} % | ` +
          `${file.distinct.toLocaleString("en-US")} | ${r.label} | ${r.seconds.toFixed(2)} | ${Math.round(size / r.seconds).toLocaleString("en-US")} | ` +
          `${Math.round(size / r.seconds / r.cores).toLocaleString("en-US")} | ${r.cpuSeconds.toFixed(1)} | ` +
          `${Math.round(size / r.cpuSeconds).toLocaleString("en-US")} | ${(r.maxRssKiB / 1024).toFixed(0)} MiB | ${r.load} |`,
      );
    }
  }
  out.push("");
  for (const { size, runs } of results) {
    const find = (label) => runs.find((r) => r.label.startsWith(label));
    const ratio = (mine, theirs) => {
      const a = find(mine);
      const b = find(theirs);
      if (a === undefined || b === undefined) return null;
      return `${(b.seconds / a.seconds).toFixed(2)}× by wall time, ${(b.cpuSeconds / a.cpuSeconds).toFixed(2)}× by CPU time`;
    };
    const all = ratio(`minedit score --no-exec, ${threads} thread`, "paper's pipeline, multiprocessing");
    const one = ratio("minedit score --no-exec, 1 thread", "paper's pipeline, 1 process");
    out.push(
      `- ${size.toLocaleString("en-US")} rows: minedit ÷ the paper's pipeline on ${threads} cores ${all}` +
        `${one === null ? "" : `; 1 thread ÷ 1 process ${one}`}.`,
    );
  }
  out.push(
    `- Peak RSS of the paper's pool is its largest process (wait4); the pool has ${threads} workers plus the reading process. ` +
      "Every row's verdict and d(M, C) agreed.",
  );
  return out;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const option = (name, fallback) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? fallback : process.argv[at + 1];
  };
  const { parseConfig } = await import(pathToFileURL(join(ROOT, "dist", "config.js")).href);
  const sizes = option("--sizes", "10000,1000000").split(",").map(Number);
  const python = option("--python", parseConfig({}).sandbox.pythonPath);
  const pythonVersion = checkPaperPython(python);
  const log = (message) => console.error(`[bench:score] ${message}`);
  const started = Date.now();
  const startLoad = load();
  const lines = runScoreBenchmark({ sizes, python, log });
  console.log(`## \`minedit score --no-exec\` throughput\n`);
  console.log(
    `${availableParallelism()} threads (os.availableParallelism()); paper's pipeline on ${pythonVersion}. ` +
      `Load average at start ${startLoad}, at end ${load()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all.\n`,
  );
  console.log(lines.join("\n"));
}
