/**
 * Where the time of `minedit score --no-exec` goes, stage by stage, on one thread: each stage of the path a
 * rollout file takes (src/io/inputs.ts `jsonlByteBatches` on the main thread, then metrics-worker.ts
 * `scoreRows` in a worker, then the main thread writing) run on its own over a whole mix, warm (the median
 * of REPEATS runs after WARMUP runs), in this process. Stages that the worker skips for a row are skipped
 * here too: the score memo answers a program already scored for its task, C and G are answered from the
 * prepared task, so the parse, unparse, tokens, CC and distance stages see each task's distinct programs
 * once. The sum is what one thread needs per mix with the JIT warm and the memo cold; the whole-process run
 * (benchmarks/metrics/mixes.mjs) adds the start-up and the warm-up.
 *
 *   node benchmarks/metrics/offline-stages.mjs TASKS.jsonl ROLLOUTS.jsonl     (prints JSON)
 *
 * It imports the BUILT code from dist/.
 */
import { createHash } from "node:crypto";
import { createReadStream, openSync, readFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const DIST = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist");
const load = (file) => import(pathToFileURL(join(DIST, file)).href);
const [
  { loadPythonGrammar },
  { jsonlLinesOfBytes },
  { parseJsonObject, taskKey },
  { parseRolloutFields, outputLineStart, outputLineScore, OUTPUT_LINE_END, lookupTask },
  { extractProgram },
  { prepareTask, isKnownProgram, scoreProgram, noCodeScore },
  { parsePython },
  { unparse },
  { normalizedTokens },
  { pythonTokensWithOffsets },
  { cognitiveComplexity },
  { jsonlByteBatches },
  { parseConfig },
  { OutputBytes },
] = await Promise.all(
  [
    "core/python/grammar.js",
    "core/jsonl-text.js",
    "core/task-file.js",
    "core/rollout-row.js",
    "core/extract-program.js",
    "core/score-rollout.js",
    "core/python/parse.js",
    "core/python/unparse.js",
    "core/python/normalized-tokens.js",
    "core/python/tokenize.js",
    "core/cognitive-complexity.js",
    "io/inputs.js",
    "config.js",
    "core/output-bytes.js",
  ].map(load),
);

/** Rows per batch, as score-file.ts cuts them. */
const BATCH_ROWS = 512;
const WARMUP = 2;
const REPEATS = 5;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Median seconds of `run` (sync or async) over REPEATS runs after WARMUP; its last result. */
async function time(run) {
  let result;
  const seconds = [];
  for (let i = 0; i < WARMUP + REPEATS; i++) {
    const t0 = performance.now();
    result = await run();
    if (i >= WARMUP) seconds.push((performance.now() - t0) / 1000);
  }
  return { seconds: median(seconds), result };
}

/**
 * The stage table of one mix: seconds per stage (the whole mix once), rows, and what the stages saw.
 * `tasksFile` rows are {task_id, corrupted, gold}, `rolloutsFile` rows {id, task_id, completion}.
 */
export async function offlineStages(tasksFile, rolloutsFile) {
  await loadPythonGrammar();
  const config = parseConfig({}).reward;
  const entries = new Map();
  readFileSync(tasksFile, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .forEach((line, i) => {
      const t = JSON.parse(line);
      entries.set(taskKey(t.task_id), {
        kind: "ok",
        task: { corrupted: t.corrupted, gold: t.gold },
        line: i + 1,
      });
    });
  const tasks = { name: tasksFile, entries };
  const stages = {};

  // Main thread: read the file and cut it into batches of whole lines (undecoded).
  const read = await time(async () => {
    const batches = [];
    for await (const batch of jsonlByteBatches(createReadStream(rolloutsFile), BATCH_ROWS))
      batches.push(batch);
    return batches;
  });
  stages.read = read.seconds;
  const batches = read.result;

  // Tasks prepared once (C and G analyzed, d(G, C)): what the worker keeps across batches.
  const prepared = await time(() => {
    const map = new Map();
    for (const { task } of entries.values())
      map.set(task, prepareTask(task.corrupted, task.gold, config.scope));
    return map;
  });
  stages.prepare = prepared.seconds;
  const serial = new Map([...prepared.result.keys()].map((t, i) => [t, i]));
  const devNull = openSync("/dev/null", "w");
  const LINE_END = new TextEncoder().encode(OUTPUT_LINE_END);

  /**
   * One pass over the mix as a worker makes it, batch by batch (so what a batch makes dies young, as it
   * does there), each stage timed on its own; the memo lives across the batches of one pass.
   */
  function pass() {
    const seconds = Object.fromEntries(WORKER_STAGES.map((s) => [s, 0]));
    const memo = new Map();
    const seen = { rows: 0, distinct: 0, noCode: 0, knownProgram: 0, analyzed: 0, bytesOut: 0 };
    let t = performance.now();
    const lap = (stage) => {
      const now = performance.now();
      seconds[stage] += (now - t) / 1000;
      t = now;
    };
    for (const batch of batches) {
      t = performance.now();
      const lines = [];
      jsonlLinesOfBytes(batch.bytes, batch.firstLine, lines);
      lap("decode");
      const rows = lines.map(({ text }) => {
        const fields = parseRolloutFields(parseJsonObject(text), false);
        return { fields, task: lookupTask(fields.taskId, tasks).task };
      });
      lap("json");
      // Identical completions of a task in a batch are scored once.
      const groups = new Map();
      const slots = rows.map((row) => {
        let group = groups.get(row.task);
        if (group === undefined) {
          group = new Map();
          groups.set(row.task, group);
        }
        let slot = group.get(row.fields.completion);
        if (slot === undefined) {
          slot = group.size;
          group.set(row.fields.completion, slot);
        }
        return slot;
      });
      lap("group");
      const work = [];
      const offsets = new Map();
      for (const [task, completions] of groups) {
        offsets.set(task, work.length);
        for (const completion of completions.keys()) {
          work.push({ task, prepared: prepared.result.get(task), completion });
        }
      }
      for (const w of work) w.extracted = extractProgram(w.completion, config.endOfTurnMarkers);
      lap("extract");
      // The memo: C and G answered from the prepared task, other programs by their digest once scored.
      const misses = [];
      for (const w of work) {
        const e = w.extracted;
        if (e.kind === "no_code") w.score = noCodeScore(config);
        else if (isKnownProgram(w.prepared, e.program)) w.score = scoreProgram(w.prepared, e.program, config);
        else {
          w.key = `${serial.get(w.task)}.0.${createHash("sha256").update(e.program).digest("base64")}`;
          w.score = memo.get(w.key);
          if (w.score === undefined) misses.push(w);
        }
      }
      lap("memo");
      const modules = misses.map((w) => {
        try {
          return parsePython(w.extracted.program);
        } catch {
          return null;
        }
      });
      lap("parse");
      const texts = modules.map((m) => (m === null ? null : unparse(m)));
      lap("unparse");
      const tokenLists = texts.map((text) =>
        text === null ? null : (normalizedTokens(text) ?? pythonTokensWithOffsets(text)).tokens,
      );
      lap("tokens");
      for (const m of modules) if (m !== null) cognitiveComplexity(m, "sonar");
      lap("complexity");
      misses.forEach((w, i) => {
        const tokens = tokenLists[i];
        if (tokens !== null) w.prepared.corrupted.normalizedDistance(tokens);
      });
      lap("distance");
      // The score itself, from the product's function (it analyzes again: not timed).
      for (const w of misses) {
        w.score = scoreProgram(w.prepared, w.extracted.program, config);
        memo.set(w.key, w.score);
      }
      t = performance.now();
      rows.forEach((row, i) => {
        row.score = work[offsets.get(row.task) + slots[i]].score;
      });
      t = performance.now();
      // As metrics-worker.ts writes a batch: each slot's score text once, the shared end encoded once,
      // the bytes moved to the main thread, not copied.
      const output = new OutputBytes(batch.bytes.length);
      const scoreTexts = new Map();
      for (const row of rows) {
        output.text(outputLineStart(row.fields));
        let text = scoreTexts.get(row.score);
        if (text === undefined) {
          text = outputLineScore(row.score);
          scoreTexts.set(row.score, text);
        }
        output.text(text);
        output.bytes(LINE_END);
      }
      const out = output.done();
      lap("output");
      const moved = structuredClone(out, { transfer: [out.buffer] });
      lap("transfer");
      writeSync(devNull, moved);
      lap("write");
      seen.rows += rows.length;
      seen.distinct += work.length;
      seen.noCode += work.filter((w) => w.extracted.kind === "no_code").length;
      seen.knownProgram += work.filter(
        (w) => w.extracted.kind === "code" && isKnownProgram(w.prepared, w.extracted.program),
      ).length;
      seen.analyzed += misses.length;
      seen.bytesOut += moved.length;
    }
    return { seconds, seen };
  }

  const passes = [];
  for (let i = 0; i < WARMUP + REPEATS; i++) passes.push(pass());
  const timed = passes.slice(WARMUP);
  for (const stage of WORKER_STAGES) stages[stage] = median(timed.map((p) => p.seconds[stage]));
  // The per-row loop of scoreRows besides these stages (row items, counts) is not separated here.
  return {
    ...timed[0].seen,
    bytesIn: batches.reduce((n, b) => n + b.bytes.length, 0),
    tasks: entries.size,
    stages,
    totalSeconds: Object.values(stages).reduce((a, b) => a + b, 0),
  };
}

/** The stages of one pass, in the order a row meets them (`read` and `prepare` are timed apart). */
const WORKER_STAGES = [
  "decode",
  "json",
  "group",
  "extract",
  "memo",
  "parse",
  "unparse",
  "tokens",
  "complexity",
  "distance",
  "output",
  "transfer",
  "write",
];

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [tasksFile, rolloutsFile] = process.argv.slice(2);
  if (rolloutsFile === undefined) {
    console.error("usage: node benchmarks/metrics/offline-stages.mjs TASKS.jsonl ROLLOUTS.jsonl");
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(await offlineStages(tasksFile, rolloutsFile), null, 1)}\n`);
}
