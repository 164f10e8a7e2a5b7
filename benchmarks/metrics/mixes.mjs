/**
 * `minedit score --no-exec` on one core against the over-editing paper's pipeline on one core, mix by mix
 * (issue 30, item 2; benchmarks/README.md "Metrics", "Mixes"). A mix is a task file and a rollout file
 * written by the benchmark generator (make-batch.mjs `writeScoreFiles`: groups of 16 completions with
 * realistic duplicates, cycling over the tasks with a new completion seed each cycle). For each mix, in
 * this one run:
 *
 *   - minedit warm: a MetricsPool of 1 thread with the score memo on (what `score --no-exec` runs), its JIT
 *     warmed on other tasks' rollouts first, scoring the mix's file as score-file.ts does — the main
 *     thread reads and cuts it into batches of 512 lines, the worker decodes, scores and writes each, the
 *     main thread writes the bytes out — wall and CPU time of the whole process;
 *   - minedit whole process: `minedit score --no-exec --threads 1`, wall and CPU (wait4), and the same
 *     on a one-row file, whose time is the start-up ("after start-up" = the difference);
 *   - the paper's pipeline (paper.py score-file: CPython ast + tokenize + the C Levenshtein package, C and
 *     G cached per process), 1 process, and its variant that scores each distinct completion of a group
 *     once (`--mode memo`): the lower bound;
 *   - the stage table of minedit's path (offline-stages.mjs), warm, one thread.
 *
 * Every d(M, C) and verdict of minedit's two runs must equal the paper's, row by row, or the run stops
 * (exit 2). Python start-up is not taken out of the paper's time (~0.05 s of 5–15 s).
 *
 *   node benchmarks/metrics/mixes.mjs [--python /usr/bin/python3] [--mixes default,tasks-8,...]
 *
 * BigCodeBench is read from $MINEDIT_DATA_DIR (docs/paper-set.md#the-data-minedit_data_dir; never copied
 * into the repository); without it the BigCodeBench mixes are left out and the report says so. It imports the BUILT code from dist/.
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const DIST = join(ROOT, "dist");
const PAPER = join(HERE, "paper.py");
const MEASURE = join(ROOT, "benchmarks", "score", "measure.py");
// make-batch.mjs reads MINEDIT_DATA_DIR when it is imported.
const { BIGCODEBENCH, loadBigCodeBenchFunctions, loadStdlibFunctions, selectTasks, writeScoreFiles } =
  await import("./make-batch.mjs");
const load = (file) => import(pathToFileURL(join(DIST, file)).href);
const { MetricsPool } = await load("workers/metrics-pool.js");
const { parseConfig } = await load("config.js");
const { jsonlByteBatches } = await load("io/inputs.js");
const { taskKey } = await load("core/task-file.js");

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const PYTHON = option("--python", parseConfig({}).sandbox.pythonPath);
const CONFIG = parseConfig({});
/** Rows per batch and batches in flight, as score-file.ts uses them with `--no-exec`. */
const BATCH_ROWS = 512;
const IN_FLIGHT = 6;
/**
 * minedit's runs of a mix are repeated and the median kept (by wall time; its CPU time beside it): one
 * takes 1–3 s, where the other jobs of a shared machine show. The paper's pipeline runs once (5–15 s).
 */
const REPEATS = 3;
/** The run of median wall time among `runs`. */
const medianRun = (runs) => [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
/**
 * Rollouts of other tasks that warm the pool's JIT before a mix is timed, and how many tasks they cover.
 * "Warm" is a server's steady state: after 10,240 rollouts of 32 tasks, V8's compiler threads still used
 * about as much CPU as the worker during the timed stdlib run (180–270 ms against its 190 ms: the parser,
 * lexer and unparser meeting code shapes the warm-up had not shown, deoptimized and compiled again); after
 * 40,960 of up to 128 tasks, 40–110 ms (per-thread CPU from /proc/self/task, 2026-12-07).
 */
const WARMUP_ROWS = 40_960;
const WARMUP_TASKS = 128;

const loadNow = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const log = (message) => console.error(`[mixes] ${message} (load ${loadNow()})`);

const stdlibFunctions = loadStdlibFunctions().functions;
const bigcodebenchFunctions = existsSync(BIGCODEBENCH) ? loadBigCodeBenchFunctions().functions : null;
const everyStdlib = selectTasks(stdlibFunctions, 1, Infinity, Infinity);

/**
 * The mixes: the generator's defaults (32 tasks of task seed 1, 20,480 rows = 40 completion seeds), two
 * other settings of it (fewer tasks, so more repeats; every usable stdlib function, so few repeats), and
 * the stdlib and BigCodeBench mixes of run.mjs (32 tasks × 16 rollouts × completion seeds 1–10).
 */
const MIXES = [
  {
    name: "default",
    label: "generator defaults: 32 stdlib tasks, 20,480 rows",
    source: "stdlib",
    tasks: 32,
    rows: 20_480,
  },
  {
    name: "tasks-8",
    label: "generator, 8 stdlib tasks, 20,480 rows",
    source: "stdlib",
    tasks: 8,
    rows: 20_480,
  },
  {
    name: "tasks-all",
    label: "generator, every stdlib task, 20,480 rows",
    source: "stdlib",
    tasks: Infinity,
    rows: 20_480,
  },
  {
    name: "stdlib",
    label: "stdlib (run.mjs batches: 32 tasks, seeds 1–10)",
    source: "stdlib",
    tasks: 32,
    rows: 5_120,
  },
  {
    name: "bigcodebench",
    label: "BigCodeBench (run.mjs batches: 32 tasks, seeds 1–10)",
    source: "bigcodebench",
    tasks: 32,
    rows: 5_120,
  },
  {
    name: "bigcodebench-20k",
    label: "generator defaults on BigCodeBench: 32 tasks, 20,480 rows",
    source: "bigcodebench",
    tasks: 32,
    rows: 20_480,
  },
];
const chosen = option("--mixes", MIXES.map((m) => m.name).join(",")).split(",");

function tasksOf(mix) {
  const functions = mix.source === "stdlib" ? stdlibFunctions : bigcodebenchFunctions;
  if (mix.tasks === Infinity)
    return mix.source === "stdlib" ? everyStdlib : selectTasks(functions, 1, Infinity, Infinity);
  return selectTasks(functions, 1, mix.tasks);
}

/** Runs `command` under measure.py with stdout to `out`: {seconds, cpuSeconds, maxRssKiB}. */
function measured(out, command, label) {
  const run = spawnSync("python3", [MEASURE, out, "--", ...command], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const result = run.status === 0 ? JSON.parse(run.stdout) : null;
  if (result === null || result.status !== 0) {
    throw new Error(`${label} failed (status ${result?.status ?? run.status}):\n${run.stderr.slice(-3000)}`);
  }
  return result;
}

/** minedit's lines against the paper's (d(M, C) as repr, or the verdict); returns the problems. */
function compare(mineditOut, paperOut, count) {
  const ours = readFileSync(mineditOut, "utf8")
    .split("\n")
    .filter((l) => l !== "");
  const theirs = readFileSync(paperOut, "utf8")
    .split("\n")
    .filter((l) => l !== "");
  const problems = [];
  if (ours.length !== count || theirs.length !== count) {
    problems.push(`rows: minedit ${ours.length}, paper ${theirs.length}, expected ${count}`);
  }
  for (let i = 0; i < Math.min(ours.length, theirs.length) && problems.length < 20; i++) {
    const row = JSON.parse(ours[i]);
    const got = row.verdict === "PASSED" ? row.d_model : row.verdict;
    const want = theirs[i] === "NO_CODE" || theirs[i] === "UNPARSABLE" ? theirs[i] : Number(theirs[i]);
    if (row.id !== i || got !== want)
      problems.push(`row ${i} (${row.task_id}): minedit ${got}, paper ${theirs[i]}`);
  }
  return problems;
}

/** The task table the pool's workers resolve `task_id` against, as score-file.ts builds it. */
function taskLookup(name, tasks) {
  const entries = new Map();
  tasks.forEach((t, i) => {
    entries.set(taskKey(t.id), { kind: "ok", task: { corrupted: t.corrupted, gold: t.gold }, line: i + 1 });
  });
  return { name, entries };
}

/** score-file.ts's `--no-exec` loop on a warm pool: read, cut, score in the worker, write in order. */
async function scoreWith(pool, rolloutsFile, outFile) {
  const out = openSync(outFile, "w");
  const pending = [];
  const flush = async () => {
    const outcome = await pending.shift();
    writeSync(out, outcome.output);
  };
  try {
    for await (const batch of jsonlByteBatches(createReadStream(rolloutsFile), BATCH_ROWS)) {
      pending.push(pool.scoreRows(batch, CONFIG.reward));
      if (pending.length >= IN_FLIGHT) await flush();
    }
    while (pending.length > 0) await flush();
  } finally {
    closeSync(out);
  }
}

/** Warm minedit: pool started and JIT-warmed on `warmup` (other tasks), then the mix timed. */
async function warmMinedit(mix, files, warmup, workDir) {
  const warmTasks = warmup.tasks;
  const pool = new MetricsPool(1, {
    programCacheBytes: CONFIG.pool.programCacheBytes,
    scoreMemoEntries: CONFIG.pool.scoreMemoEntries,
    tasks: taskLookup(files.tasksFile, [...files.tasks, ...warmTasks]),
  });
  try {
    await scoreWith(pool, warmup.rolloutsFile, join(workDir, "warmup.out"));
    const out = join(workDir, `${mix.name}-warm.jsonl`);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await scoreWith(pool, files.rolloutsFile, out);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, out, load: loadNow() };
  } finally {
    await pool.close();
  }
}

/**
 * Tasks to warm the pool on, none of them the mix's own: the same source's functions corrupted with another
 * task seed, so that the JIT has compiled the parser's, lexer's and unparser's paths for that kind of code
 * (a server's steady state after steps of the same tasks), then the other source's when too few. A task
 * whose corrupted program is one of the mix's is left out: the worker keys prepared tasks, and through
 * them its score memo, on (C, G), so nothing the warm-up scored is found again in the timed run. Before
 * 2026-12-08 the warm-up took only functions the mix does not hold, which left every stdlib task warmed
 * on BigCodeBench's code alone: V8 then spent ~0.55 s of its compiler threads recompiling the parser
 * during the timed run (--trace-opt, per-thread CPU from /proc/self/task). Empty when neither source has
 * enough (fewer than 8 of the mix's own source, and the other source's data absent), and then the mix is
 * left out: a pool timed cold would pay its JIT's warm-up, which is not what the mix asks.
 */
function warmupTasksFor(mix, mixTasks) {
  const mixCorrupted = new Set(mixTasks.map((t) => t.corrupted));
  const functions = mix.source === "stdlib" ? stdlibFunctions : bigcodebenchFunctions;
  // Their own ids: the task table the pool resolves `task_id` against holds the mix's tasks too.
  const ownIds = (tasks) => tasks.map((t) => ({ ...t, id: `warm-up/${t.id}` }));
  const same = selectTasks(functions, 2, Number.POSITIVE_INFINITY)
    .filter((t) => !mixCorrupted.has(t.corrupted))
    .slice(0, WARMUP_TASKS);
  if (same.length >= 8) return ownIds(same);
  const otherFunctions = mix.source === "stdlib" ? bigcodebenchFunctions : stdlibFunctions;
  return otherFunctions === null ? [] : ownIds(selectTasks(otherFunctions, 2, WARMUP_TASKS));
}

/** The warm-up's rollouts of `tasks`, written to `workDir`. */
function writeWarmup(tasks, workDir) {
  const rolloutsFile = join(workDir, "warmup.jsonl");
  writeScoreFiles({
    tasks,
    count: WARMUP_ROWS,
    seed: 101,
    tasksFile: join(workDir, "warmup-tasks.jsonl"),
    rolloutsFile,
  });
  return { tasks, rolloutsFile };
}

async function runMix(mix, tasks, warmupTasks, workDir) {
  const tasksFile = join(workDir, `${mix.name}-tasks.jsonl`);
  const rolloutsFile = join(workDir, `${mix.name}-rollouts.jsonl`);
  const file = writeScoreFiles({ tasks, count: mix.rows, seed: 1, tasksFile, rolloutsFile });
  const oneRow = join(workDir, `${mix.name}-one.jsonl`);
  writeFileSync(oneRow, `${readFileSync(rolloutsFile, "utf8").split("\n")[0]}\n`);
  log(
    `${mix.name}: ${file.rows} rows over ${file.tasks} tasks, ${file.distinct} distinct (task, completion)`,
  );

  const paperOut = join(workDir, `${mix.name}-paper.txt`);
  const paperCommand = (mode, out) => [
    PYTHON,
    PAPER,
    "score-file",
    "--tasks",
    tasksFile,
    "--mode",
    mode,
    rolloutsFile,
    out,
  ];
  log(`${mix.name}: the paper's pipeline, 1 process…`);
  const paper = {
    ...measured(join(workDir, "paper.json"), paperCommand("cached", paperOut), "paper.py"),
    load: loadNow(),
  };
  log(`${mix.name}: the paper's pipeline, duplicates once…`);
  const memoOut = join(workDir, `${mix.name}-paper-memo.txt`);
  const paperMemo = {
    ...measured(join(workDir, "paper.json"), paperCommand("memo", memoOut), "paper.py"),
    load: loadNow(),
  };

  log(`${mix.name}: minedit score --no-exec --threads 1, whole process (${REPEATS} runs)…`);
  const cli = [
    process.execPath,
    join(ROOT, "bin", "minedit.js"),
    "score",
    "--no-exec",
    "--threads",
    "1",
    "--tasks",
    tasksFile,
  ];
  const wholeOut = join(workDir, `${mix.name}-whole.jsonl`);
  const startups = [];
  const wholes = [];
  for (let i = 0; i < REPEATS; i++) {
    startups.push(measured(join(workDir, "one.out"), [...cli, oneRow], "minedit (one row)"));
    wholes.push({ ...measured(wholeOut, [...cli, rolloutsFile], "minedit"), load: loadNow() });
  }
  const startup = medianRun(startups);
  const whole = medianRun(wholes);

  log(`${mix.name}: minedit warm, 1 thread (${REPEATS} pools)…`);
  const warmup = writeWarmup(warmupTasks, workDir);
  const warms = [];
  for (let i = 0; i < REPEATS; i++) {
    warms.push(await warmMinedit(mix, { tasks, tasksFile, rolloutsFile }, warmup, workDir));
  }
  const warm = medianRun(warms);

  const problems = [
    ...compare(wholeOut, paperOut, file.rows).map((p) => `whole process: ${p}`),
    ...compare(warm.out, paperOut, file.rows).map((p) => `warm: ${p}`),
    ...compare(wholeOut, memoOut, file.rows).map((p) => `paper, duplicates once: ${p}`),
  ];
  if (readFileSync(wholeOut, "utf8") !== readFileSync(warm.out, "utf8"))
    problems.push("warm and whole-process outputs differ");
  if (problems.length > 0) {
    console.error(`\nCORRECTNESS FAILURE on ${mix.name}:`);
    for (const p of problems) console.error(`  ${p}`);
    console.error(`files kept in ${workDir}`);
    process.exit(2);
  }
  log(`${mix.name}: stage table…`);
  const stages = JSON.parse(
    spawnSync(process.execPath, [join(HERE, "offline-stages.mjs"), tasksFile, rolloutsFile], {
      encoding: "utf8",
      maxBuffer: 1 << 26,
    }).stdout,
  );
  for (const f of [rolloutsFile, paperOut, memoOut, wholeOut, warm.out]) rmSync(f, { force: true });
  return { mix, file, paper, paperMemo, startup, whole, warm, stages };
}

// ---------------------------------------------------------------------------------------------------------

const fmt = (x, digits = 2) => x.toFixed(digits);
const rate = (rows, seconds) => Math.round(rows / seconds).toLocaleString("en-US");

function report(results, skipped) {
  const out = [];
  out.push(
    `Machine: ${cpus()[0]?.model ?? "unknown"}, ${cpus().length} cores, Node ${process.version}; ${PYTHON}.`,
  );
  out.push("");
  out.push(
    "| mix | rows (distinct) | paper 1 proc, rows/s | minedit warm, rows/s | **warm ÷ paper** (CPU) | warm ÷ duplicates once (CPU) | whole process after start-up ÷ paper (CPU) | load |",
  );
  out.push("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const r of results) {
    const rows = r.file.rows;
    const afterStartup = r.whole.seconds - r.startup.seconds;
    const afterStartupCpu = r.whole.cpuSeconds - r.startup.cpuSeconds;
    out.push(
      `| ${r.mix.label} | ${rows.toLocaleString("en-US")} (${r.file.distinct.toLocaleString("en-US")}) ` +
        `| ${rate(rows, r.paper.seconds)} | ${rate(rows, r.warm.seconds)} ` +
        `| **${fmt(r.paper.seconds / r.warm.seconds, 1)}×** (${fmt(r.paper.cpuSeconds / r.warm.cpuSeconds, 1)}×) ` +
        `| ${fmt(r.paperMemo.seconds / r.warm.seconds, 1)}× (${fmt(r.paperMemo.cpuSeconds / r.warm.cpuSeconds, 1)}×) ` +
        `| ${fmt(r.paper.seconds / afterStartup, 1)}× (${fmt(r.paper.cpuSeconds / afterStartupCpu, 1)}×) ` +
        `| ${r.warm.load.split(" ")[0]} |`,
    );
  }
  out.push("");
  out.push(
    "Seconds: paper (1 process / duplicates once), minedit whole process (start-up = a one-row file), minedit warm; wall (CPU):",
  );
  out.push("");
  out.push(
    "| mix | paper | paper, duplicates once | minedit start-up | minedit whole process | minedit warm |",
  );
  out.push("| --- | ---: | ---: | ---: | ---: | ---: |");
  const s = (m) => `${fmt(m.seconds)} (${fmt(m.cpuSeconds)})`;
  for (const r of results) {
    out.push(
      `| ${r.mix.name} | ${s(r.paper)} | ${s(r.paperMemo)} | ${s(r.startup)} | ${s(r.whole)} | ${s(r.warm)} |`,
    );
  }
  out.push("");
  const names = Object.keys(results[0]?.stages.stages ?? {});
  out.push(
    "Where minedit's time goes (offline-stages.mjs: one thread, warm, milliseconds for the whole mix; `read` is the main thread's):",
  );
  out.push("");
  out.push(`| stage | ${results.map((r) => r.mix.name).join(" | ")} |`);
  out.push(`| --- | ${results.map(() => "---:").join(" | ")} |`);
  for (const name of names) {
    out.push(`| ${name} | ${results.map((r) => fmt(1000 * r.stages.stages[name], 0)).join(" | ")} |`);
  }
  out.push(`| **sum** | ${results.map((r) => `**${fmt(1000 * r.stages.totalSeconds, 0)}**`).join(" | ")} |`);
  out.push(`| programs analyzed | ${results.map((r) => r.stages.analyzed).join(" | ")} |`);
  out.push(
    `| rows/s (sum) | ${results.map((r) => rate(r.stages.rows, r.stages.totalSeconds)).join(" | ")} |`,
  );
  if (skipped.length > 0) {
    out.push("");
    out.push(`Left out: ${skipped.join("; ")}.`);
  }
  return out.join("\n");
}

const workDir = mkdtempSync(join(tmpdir(), "minedit-bench-mixes-"));
const results = [];
const skipped = [];
log(`start; ${PYTHON}`);
try {
  for (const mix of MIXES.filter((m) => chosen.includes(m.name))) {
    if (mix.source === "bigcodebench" && bigcodebenchFunctions === null) {
      skipped.push(`${mix.name} (no BigCodeBench data at ${BIGCODEBENCH})`);
      continue;
    }
    const tasks = tasksOf(mix);
    const warmupTasks = warmupTasksFor(mix, tasks);
    if (warmupTasks.length === 0) {
      skipped.push(
        `${mix.name} (too few other tasks to warm the pool on, and no BigCodeBench data at ${BIGCODEBENCH})`,
      );
      continue;
    }
    results.push(await runMix(mix, tasks, warmupTasks, workDir));
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
const text = report(results, skipped);
console.log(text);
log("done");
