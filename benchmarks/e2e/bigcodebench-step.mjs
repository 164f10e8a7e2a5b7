/**
 * The BigCodeBench step as the benchmarks that serve it build it (bigcodebench.mjs, which scores it at
 * several execution concurrencies against fresh interpreters; trainer-calls/bigcodebench.mjs, which
 * feeds it to trainer-like callers with generation-like arrivals): BigCodeBench problems of the
 * bigcodebench runtime corrupted here, the server configuration that pins every limit and turns the
 * cross-call result cache off, the task gate's choice of tasks, the model-like rollouts of each group,
 * and the execution CPU of a step read from /proc. See bigcodebench.mjs's header for the method.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { create } from "@bufbuild/protobuf";
import { Metadata } from "@grpc/grpc-js";

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(HERE, "..", "..");
const load = (file) => import(pathToFileURL(join(ROOT, "dist", file)).href);
const { parseConfig } = await load("config.js");
const { grpcServiceDefinition } = await load("server/service-definition.js");
const { RewardService, RolloutSchema, ScoreBatchRequestSchema } = await load("gen/minedit/v1/reward_pb.js");
const { importFile } = await load("tasks/importers/import-file.js");

/** Tasks of a step, candidate tasks (the gate refuses about 60 %), and rollouts per task. */
export const TASKS = 32;
export const CANDIDATES = 144;
export const ROLLOUTS = 16;
export const CPU_LIMIT_MS = 2_000;
/** The idle limit every task gets (the calibration's wall floor and ceiling pin it): the default floor. */
export const IDLE_LIMIT_MS = 3_000;
export const PYTHON = parseConfig({}).sandbox.pythonPath;
/** Kept between runs (by content, as the server's own cache): a rerun does not redo the gate. */
export const GATE_DIR = join(ROOT, ".cache", "e2e-bigcodebench-gate");

/**
 * The BigCodeBench file: `given`, else $MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz, else
 * undefined. BigCodeBench is read where it lies, never copied into the repository
 * (docs/paper-set.md#the-data-minedit_data_dir).
 */
export function bigcodebenchSource(given) {
  const dataDir = process.env.MINEDIT_DATA_DIR;
  return given ?? (dataDir ? join(dataDir, "bigcodebench", "BigCodeBench.jsonl.gz") : undefined);
}

/** baseline.py's `prepare`: corrupted programs of problems, metric inputs and rollout variants of tasks. */
export function prepare(input) {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ["-s", join(HERE, "baseline.py"), "prepare"], {
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", PYTHONHASHSEED: "0" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      err += c;
    });
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
    child.stdin.end(JSON.stringify(input));
  });
}

/**
 * The candidate task rows (minedit's task format): BigCodeBench problems of the bigcodebench runtime,
 * corrupted here (first comparison flipped), spread over the file. `goldsFile`: golds known to pass
 * (scripts/bigcodebench-golds.mjs's results), when given: fewer tasks for the gate to refuse.
 */
export async function loadCandidates(source, goldsFile) {
  const problems = [];
  for await (const item of importFile(source, "bigcodebench")) {
    if ("problem" in item && item.problem.runtime === "bigcodebench") problems.push(item.problem);
  }
  const passing =
    goldsFile === undefined
      ? null
      : new Set(
          readFileSync(goldsFile, "utf8")
            .split("\n")
            .filter((l) => l.trim() !== "")
            .map((l) => JSON.parse(l))
            // Golds well inside the pinned CPU limit (their wall time bounds their CPU time), as the
            // calibration's factor would make them: a gold near the limit flips with CPU-time noise.
            .filter((r) => r.verdict === "PASSED" && r.wall_ms <= CPU_LIMIT_MS / 2)
            .map((r) => `bigcodebench/${r.id}`),
        );
  const corrupt = await prepare({ problems: problems.map((p) => ({ solution: p.solution })), tasks: [] });
  const corruptible = problems
    .map((p, i) => ({ p, corrupted: corrupt.problems[i].corrupted }))
    .filter((c) => c.corrupted !== null && (passing === null || passing.has(c.p.problemId)));
  // Spread over the file: every k-th problem, so the mix of libraries is BigCodeBench's own.
  // Two interleaved passes of CANDIDATES / 2 (the gate refuses about 60 %: a flipped comparison that the
  // tests do not notice); the first pass's gate verdicts are remembered from earlier runs.
  const stride = Math.max(2, Math.floor(corruptible.length / (CANDIDATES / 2)));
  const pass = (offset) => corruptible.filter((_, i) => i % stride === offset).slice(0, CANDIDATES / 2);
  return [...pass(0), ...pass(Math.floor(stride / 2))].map(({ p, corrupted }) => ({
    task_id: `${p.problemId}/e2e`,
    problem_id: p.problemId,
    statement: p.statement,
    entry_point: p.entryPoint,
    gold: p.solution,
    corrupted,
    tests: p.tests,
    runtime: p.runtime,
    corruptions: [{ family: "comparison", description: "first comparison flipped" }],
    split: "test",
    source: "benchmarks/e2e/bigcodebench",
  }));
}

/**
 * The server's configuration (JSON for `minedit serve --config`): the cross-call result cache off and
 * every limit pinned (every task gets the configured limits, which a baseline can apply too). `sandbox`
 * is bwrap or docker (the bigcodebench image, sandbox/docker/build-image.sh); `concurrency` the
 * execution concurrency (undefined: the default); `server` more server settings.
 */
export function serverConfig({ sandbox = "bwrap", concurrency, server = {} }) {
  return {
    server,
    sandbox: {
      backend: sandbox,
      ...(concurrency === undefined ? {} : { executionConcurrency: concurrency }),
      cpuTimeMs: CPU_LIMIT_MS,
      resultCacheBytes: 0,
    },
    tasks: {
      gateCacheDir: GATE_DIR,
      calibration: {
        factor: 1,
        cpuFloorMs: CPU_LIMIT_MS,
        cpuCeilingMs: CPU_LIMIT_MS,
        wallFloorMs: IDLE_LIMIT_MS,
        wallCeilingMs: IDLE_LIMIT_MS,
      },
    },
  };
}

/** One ScoreBatch of `rows` ({id, taskId, completion}) over a grpc-js `client`; resolves to the response. */
export function scoreBatch(client, rows) {
  const method = grpcServiceDefinition(RewardService).scoreBatch;
  const request = create(ScoreBatchRequestSchema, {
    rollouts: rows.map((row) =>
      create(RolloutSchema, {
        id: row.id,
        completion: row.completion,
        taskRef: { case: "taskId", value: row.taskId },
        groupId: row.taskId,
      }),
    ),
  });
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      new Metadata(),
      { deadline: Date.now() + 600_000 },
      (error, response) => (error ? reject(error) : resolve(response)),
    );
  });
}

/**
 * Clock ticks → ms of every process under `pid` (the server): fork servers' reaped runs and the rest.
 * The fork servers reap every run, so their cutime + cstime grows by exactly the CPU of the runs (plus
 * the server's own cutime for a sandbox replaced meanwhile). Under Docker (`sandbox` "docker") the fork
 * servers are not the server's descendants but the processes of its containers, under each one's
 * containerd-shim: those are counted instead (the benchmark's server is the only one).
 */
export function cpuTree(pid, sandbox = "bwrap") {
  const tick = 100; // USER_HZ on Linux
  const parents = new Map();
  const stats = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = text.lastIndexOf(")");
      const comm = text.slice(text.indexOf("(") + 1, close);
      const f = text.slice(close + 2).split(" ");
      parents.set(Number(name), Number(f[1]));
      stats.set(Number(name), {
        comm,
        self: Number(f[11]) + Number(f[12]),
        reaped: Number(f[13]) + Number(f[14]),
      });
    } catch {}
  }
  const underServer = (p) => {
    for (let q = parents.get(p); q !== undefined && q > 1; q = parents.get(q)) if (q === pid) return true;
    return false;
  };
  const inContainer = (p) => {
    for (let q = parents.get(p); q !== undefined && q > 1; q = parents.get(q))
      if (stats.get(q)?.comm.startsWith("containerd-shim")) return true;
    return false;
  };
  const under = sandbox === "docker" ? inContainer : underServer;
  let runs = 0; // what the fork servers reaped: the executions
  let sandboxes = 0; // everything below the server, fork servers' own work and bwrap included
  for (const [p, s] of stats) {
    if (!under(p)) continue;
    sandboxes += s.self + s.reaped;
    // The fork server: python3, or minedit-init as the init of a Docker container (it names itself).
    if (s.comm.startsWith("python") || s.comm === "minedit-init") runs += s.reaped;
  }
  const own = stats.get(pid);
  return {
    runsMs: ((runs + (own?.reaped ?? 0)) * 1000) / tick,
    sandboxesMs: ((sandboxes + (own?.reaped ?? 0)) * 1000) / tick,
    serverMs: ((own?.self ?? 0) * 1000) / tick,
  };
}

const fence = (code) => `\`\`\`python\n${code}${code.endsWith("\n") ? "" : "\n"}\`\`\`\n`;
/** A candidate whose entry point never returns: a busy loop (CPU limit) or a blocking wait (the idle limit). */
const hang = (gold, entry, how) =>
  `${gold}\n\n_${entry} = ${entry}\n\ndef ${entry}(*args, **kwargs):\n` +
  (how === "busy" ? "    while True:\n        pass\n" : "    import time\n    time.sleep(3600)\n");

/**
 * The ROLLOUTS model-like rollouts of task `index` (`variants`: baseline.py's prepared rewrites): the fix
 * (often repeated), the program unchanged, over-edits, a wrong fix, a truncated answer, prose only, and
 * a few hanging candidates; each {kind, completion, id, taskId, index}.
 */
export function groupOf(task, variants, index) {
  const fixed = `Here is the corrected function:\n\n${fence(task.gold)}`;
  const unchanged = `The code looks correct to me:\n\n${fence(task.corrupted)}`;
  const distinct = [
    ["fix", fixed],
    ["unchanged", unchanged],
    ["fix-commented", fence(variants.reformatted)],
    ["fix-bare", task.gold],
    ["over-edit-docstring", fence(variants.docstring)],
    ["over-edit-renamed", fence(variants.renamed)],
    ["over-edit-rewritten", fence(variants.rewritten)],
    ["wrong-fix", fence(variants.wrong_fix)],
    ["truncated", `Fixed:\n\n\`\`\`python\n${variants.truncated}`],
    ["prose-only", "No change is needed: the function already does what the statement asks."],
  ];
  // A few hanging candidates: a busy loop in every 4th group, a blocking one in every 16th.
  if (index % 4 === 1) distinct.push(["hang-busy", fence(hang(task.gold, task.entry_point, "busy"))]);
  if (index % 16 === 3) distinct.push(["hang-sleep", fence(hang(task.gold, task.entry_point, "sleep"))]);
  const duplicates = [
    ["fix", fixed],
    ["fix", fixed],
    ["fix", fixed],
    ["unchanged", unchanged],
    ["fix-bare", task.gold],
    ["fix", fixed],
  ].slice(0, ROLLOUTS - distinct.length);
  const group = [...distinct, ...duplicates];
  return group.map(([kind, completion], j) => ({
    kind,
    completion,
    id: `${task.task_id}#${j}`,
    taskId: task.task_id,
    index,
  }));
}

/**
 * The step on a running server (its grpc-js `client`): the first `count` candidates the task gate served
 * (a rollout with no code is answered without execution, or refused with the task), their prepared
 * variants and their rollouts. Throws when fewer than `count` were served (`stderr`: the server's).
 */
export async function stepOf(client, candidates, count, stderr = () => "") {
  const served = [];
  for (const t of candidates) {
    const probe = [{ id: "probe", taskId: t.task_id, completion: "No change is needed." }];
    if (
      await scoreBatch(client, probe).then(
        () => true,
        () => false,
      )
    )
      served.push(t);
  }
  const tasks = served.slice(0, count);
  if (tasks.length < count) throw new Error(`only ${tasks.length} tasks served:\n${stderr()}`);
  const prepared = (await prepare({ problems: [], tasks })).tasks;
  const rows = tasks.flatMap((task, i) => groupOf(task, prepared[i].variants, i));
  return { tasks, prepared, rows, servedCount: served.length };
}
