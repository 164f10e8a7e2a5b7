/**
 * Start-up of the CLI (issue 30; see benchmarks/README.md "Start-up"): what a user waits for before a
 * command does anything, against `node -e 0` (the interpreter's own start) timed in the same run.
 *
 *   node benchmarks/startup/run.mjs [--rounds N] [--out DIR] [--baseline CHECKOUT]
 *   (after `npm run build`; ~3 min on 2 quiet cores, twice that with --baseline)
 *
 * Cases, each a fresh process of the built CLI (bin/minedit.js → dist/), run round-robin so that every case
 * sees the same load: `minedit --help`; `minedit <command> --help` for every command `minedit --help`
 * lists; `minedit score --no-exec` of a one-row file (the first shipped demo task, its gold repair as the
 * completion); `minedit serve` on a free port with the shipped demo tasks, with execution (bwrap, warm
 * interpreters, the default) and with `--no-exec`, until it prints "listening on" (what the tests and the
 * other benchmarks wait for), then stopped. Each case's output is checked (exit code; the score row's
 * verdict); a failure aborts the run (exit 2). With `--baseline CHECKOUT` (another checkout of minedit,
 * built, e.g. `git worktree add /tmp/base HEAD~3 && (cd /tmp/base && npm ci && npm run build)`) every
 * minedit case is also run with that checkout's CLI in the same rounds, and the table gains its median
 * and the speed-up: a before/after under the same load.
 *
 * Prints the machine and a Markdown table (min, median, max, median ÷ the floor's median) on stdout,
 * progress on stderr, and writes DIR/startup.json and DIR/startup.md (default DIR: scratch/startup/,
 * which git ignores: the table worth keeping goes to benchmarks/README.md).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const BIN = join(ROOT, "bin", "minedit.js");
const DEMO_TASKS = join(ROOT, "datasets", "seed", "demo-tasks.jsonl");
/** Targets of issue 30, seconds (2 cores). */
const TARGETS = { help: 0.3, score: 0.6, serve: 1.0 };

const { values } = parseArgs({
  options: { rounds: { type: "string" }, out: { type: "string" }, baseline: { type: "string" } },
});
const rounds = Number(values.rounds ?? 10);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds: expected an integer ≥ 1, got ${values.rounds}`);
const outDir = values.out ?? join(ROOT, "scratch", "startup");
const baselineBin = values.baseline === undefined ? undefined : join(values.baseline, "bin", "minedit.js");
if (baselineBin !== undefined && !existsSync(join(values.baseline, "dist", "cli", "main.js"))) {
  process.stderr.write(`--baseline ${values.baseline}: no dist/cli/main.js there (build it first)\n`);
  process.exit(2);
}

if (!existsSync(join(ROOT, "dist", "cli", "main.js"))) {
  process.stderr.write("dist/ is missing: run `npm run build` first\n");
  process.exit(2);
}

const log = (line) => process.stderr.write(`${line}\n`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

function fail(message) {
  log(`startup benchmark: ${message}`);
  process.exit(2);
}

/** The commands `minedit --help` lists, in its order. */
function commands() {
  const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
  if (help.status !== 0) fail(`minedit --help exited ${help.status}: ${help.stderr}`);
  const section = help.stdout.split("\nCommands:\n")[1]?.split("\n\n")[0] ?? "";
  const names = section.split("\n").map((line) => /^ {2}([a-z]+) /.exec(line)?.[1]);
  if (names.length === 0 || names.some((name) => name === undefined))
    fail(`cannot read the commands of:\n${help.stdout}`);
  return names;
}

/** The one-row input: the first demo task, its gold repair as a fenced completion (an inline row). */
function oneRowFile(dir) {
  const task = JSON.parse(readFileSync(DEMO_TASKS, "utf8").split("\n")[0]);
  const row = {
    id: "startup-1",
    completion: `Here is the fix.\n\`\`\`python\n${task.gold}\`\`\``,
    corrupted: task.corrupted,
    gold: task.gold,
  };
  const file = join(dir, "one-row.jsonl");
  writeFileSync(file, `${JSON.stringify(row)}\n`);
  return file;
}

/** Runs a command to its end; seconds from spawn to exit. `check` sees its result and throws on a fault. */
function timedProcess(argv, check) {
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", maxBuffer: 1 << 24 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  check(result);
  return seconds;
}

/** Starts `minedit serve ARGS` (the CLI at `bin`) on a free port: seconds until "listening on", then stops it. */
async function timedServe(bin, args) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const seconds = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve ${args.join(" ")} did not listen in 60 s:\n${stderr}`)),
      60_000,
    );
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      if (/listening on \S+:\d+/.test(stderr)) {
        clearTimeout(timer);
        resolve(Number(process.hrtime.bigint() - started) / 1e9);
      }
    });
    exited.then((code) =>
      reject(new Error(`serve ${args.join(" ")} exited (${code}) before listening:\n${stderr}`)),
    );
  });
  child.kill("SIGTERM");
  await exited;
  return seconds;
}

const exitsZero = (what) => (result) => {
  if (result.status !== 0) throw new Error(`${what} exited ${result.status}:\n${result.stderr}`);
};

const work = mkdtempSync(join(tmpdir(), "minedit-startup-"));
try {
  const oneRow = oneRowFile(work);
  /** The minedit cases, run with the CLI at `bin`. */
  const mineditCases = (bin) => [
    {
      name: "minedit --help",
      kind: "help",
      run: () => timedProcess([process.execPath, bin, "--help"], exitsZero("--help")),
    },
    ...commands().map((command) => ({
      name: `minedit ${command} --help`,
      kind: "help",
      run: () => timedProcess([process.execPath, bin, command, "--help"], exitsZero(`${command} --help`)),
    })),
    {
      name: "minedit score --no-exec, one row",
      kind: "score",
      run: () =>
        timedProcess([process.execPath, bin, "score", "--no-exec", oneRow], (result) => {
          exitsZero("score --no-exec")(result);
          const row = JSON.parse(result.stdout);
          if (row.id !== "startup-1" || row.verdict !== "PASSED")
            throw new Error(`unexpected row: ${result.stdout}`);
        }),
    },
    { name: "minedit serve, demo tasks, until listening", kind: "serve", run: () => timedServe(bin, []) },
    {
      name: "minedit serve --no-exec, demo tasks, until listening",
      kind: "serve",
      run: () => timedServe(bin, ["--no-exec"]),
    },
  ];
  const measured = mineditCases(BIN);
  const baseline = baselineBin === undefined ? [] : mineditCases(baselineBin);
  const cases = [
    {
      name: "node -e 0 (the floor)",
      kind: "floor",
      run: () => timedProcess([process.execPath, "-e", "0"], exitsZero("node -e 0")),
    },
    ...measured,
    ...baseline.map((c) => ({ ...c, name: `${c.name} [baseline]`, kind: "baseline" })),
  ];

  const machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: availableParallelism(),
    node: process.version,
    loadAtStart: load(),
  };
  log(
    `startup benchmark: ${cases.length} cases × ${rounds} rounds, round-robin; load ${machine.loadAtStart}`,
  );
  // One untimed pass first: the page cache and the task gate's cache (~/.cache/minedit) as a user has them.
  for (const c of cases) {
    try {
      await c.run();
    } catch (error) {
      fail(`${c.name}: ${error.message}`);
    }
  }
  const times = cases.map(() => []);
  for (let round = 1; round <= rounds; round++) {
    for (const [index, c] of cases.entries()) {
      try {
        times[index].push(await c.run());
      } catch (error) {
        fail(`${c.name}: ${error.message}`);
      }
    }
    log(`round ${round}/${rounds} done; load ${load()}`);
  }

  const stats = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    const middle = sorted.length / 2;
    const median =
      sorted.length % 2 === 1
        ? sorted[Math.floor(middle)]
        : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
    return { min: sorted[0], median, max: sorted[sorted.length - 1] };
  };
  const floor = stats(times[0]).median;
  const results = cases.map((c, index) => {
    const s = stats(times[index]);
    const target = TARGETS[c.kind];
    return {
      case: c.name,
      kind: c.kind,
      seconds: times[index],
      ...s,
      ratioToFloor: s.median / floor,
      target: target ?? null,
      met: target === undefined ? null : s.median <= target,
    };
  });
  machine.loadAtEnd = load();

  const f = (seconds) => `${seconds.toFixed(3)} s`;
  const withBaseline = baseline.length > 0;
  const shown = results.filter((r) => r.kind !== "baseline");
  const rows = shown.map((r) => {
    // The baseline twin of case i (1 ≤ i ≤ measured.length) is case measured.length + i.
    const twin =
      withBaseline && r.kind !== "floor" ? results[results.indexOf(r) + measured.length] : undefined;
    return [
      r.case,
      f(r.min),
      f(r.median),
      f(r.max),
      r.kind === "floor" ? "1.0×" : `${r.ratioToFloor.toFixed(1)}×`,
      ...(withBaseline
        ? twin === undefined
          ? ["", ""]
          : [
              `${f(twin.median)} (${twin.ratioToFloor.toFixed(1)}×)`,
              `${(twin.median / r.median).toFixed(1)}×`,
            ]
        : []),
      r.target === null ? "" : `≤ ${r.target} s: ${r.met ? "met" : "not met"}`,
    ];
  });
  const header = [
    "case",
    "min",
    "median",
    "max",
    "median ÷ floor",
    ...(withBaseline ? ["baseline median (÷ floor)", "speed-up"] : []),
    "target (median)",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |`;
  const table = [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
  const markdown =
    `${new Date().toISOString().slice(0, 10)}, ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ` +
    `load ${machine.loadAtStart} at the start and ${machine.loadAtEnd} at the end, ${rounds} rounds` +
    `${withBaseline ? `, baseline ${values.baseline}` : ""}:\n\n${table}\n`;
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, "startup.json"),
    `${JSON.stringify({ machine, rounds, baseline: values.baseline ?? null, results }, null, 2)}\n`,
  );
  writeFileSync(join(outDir, "startup.md"), markdown);
  process.stdout.write(markdown);
  log(`wrote ${join(outDir, "startup.json")} and startup.md`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
