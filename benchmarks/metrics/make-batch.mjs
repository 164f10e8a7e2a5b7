/**
 * Deterministic generator of a GRPO-like scoring batch: TASKS repair tasks × ROLLOUTS model-like
 * completions each (32 × 16 = 512 by default).
 *
 * Gold programs G are real top-level functions (15–80 lines) of the installed CPython standard library,
 * read at run time by `reference.py stdlib-functions` (which also lists where each may be edited); all
 * choices are made here with a seeded PRNG, so a seed pair always yields the same batch on the same
 * Python installation. The corrupted program C is G with 1–2 token-level corruptions (flipped comparison,
 * ±1 on an int, min↔max, dropped `not`), checked to still parse.
 *
 * Gold programs can also be BigCodeBench's (`loadBigCodeBenchFunctions`: complete_prompt +
 * canonical_solution, from $MINEDIT_DATA_DIR, read at run time), with the same corruptions and completions.
 *
 * Usable as a module (`selectTasks`, `makeRollouts`, `makeBatch`, `writeScoreFiles`) or from the command line:
 *   node benchmarks/metrics/make-batch.mjs [--source stdlib|bigcodebench] [--task-seed N] [--completion-seed N] > batch.jsonl
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REFERENCE = join(dirname(fileURLToPath(import.meta.url)), "reference.py");

export const TASKS = 32;
export const ROLLOUTS = 16;
/** At most this many tasks come from one stdlib module, so the batch spans many coding styles. */
const PER_MODULE = 2;

/** Runs a `reference.py` subcommand and parses its JSON output. */
export function runReference(args, input) {
  const run = spawnSync("python3", [REFERENCE, ...args], {
    input,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (run.error !== undefined) throw run.error;
  if (run.status !== 0)
    throw new Error(`reference.py ${args[0]} failed (exit ${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Candidate gold functions of the installed stdlib, with their edit sites (see reference.py). */
export function loadStdlibFunctions() {
  return runReference(["stdlib-functions"]);
}

/**
 * Where BigCodeBench's own file is: `$MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz`, read at run time and
 * never copied into the repository (docs/paper-set.md#the-data-minedit_data_dir). Without MINEDIT_DATA_DIR it is
 * a name that exists nowhere, so callers that test it with `existsSync` skip the BigCodeBench batch and say why.
 */
export const BIGCODEBENCH =
  process.env.MINEDIT_DATA_DIR === undefined || process.env.MINEDIT_DATA_DIR === ""
    ? "$MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz (MINEDIT_DATA_DIR is not set)"
    : join(process.env.MINEDIT_DATA_DIR, "bigcodebench", "BigCodeBench.jsonl.gz");

/**
 * BigCodeBench tasks as gold programs (complete_prompt + canonical_solution: imports and the entry function
 * with its docstring), with the same edit sites as the stdlib functions (see reference.py).
 */
export function loadBigCodeBenchFunctions(path = BIGCODEBENCH) {
  return runReference(["bigcodebench-functions", path]);
}

// ---------------------------------------------------------------------------------------------------------
// Seeded randomness
// ---------------------------------------------------------------------------------------------------------

/** FNV-1a over the parts, so every (purpose, seed, task) gets its own independent stream. */
export function hashSeed(...parts) {
  let h = 0x811c9dc5;
  for (const ch of parts.join("\u0000")) {
    h ^= ch.codePointAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: tiny, fast, good enough to pick things reproducibly. */
export class Rng {
  constructor(seed) {
    this.state = seed >>> 0;
  }

  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n) {
    return Math.floor(this.next() * n);
  }

  chance(p) {
    return this.next() < p;
  }

  pick(items) {
    return items[this.int(items.length)];
  }

  shuffle(items) {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Text edits
// ---------------------------------------------------------------------------------------------------------

/** Closed intervals, so two insertions at one offset (e.g. a comment and a closing paren) also conflict. */
function overlaps(a, b) {
  return a.start <= b.end && b.start <= a.end;
}

/** Up to `count` edits from `candidates`, in random order, none overlapping another. */
function chooseEdits(rng, candidates, count, taken = []) {
  const chosen = [];
  for (const edit of rng.shuffle(candidates)) {
    if (chosen.length === count) break;
    if ([...taken, ...chosen].some((other) => overlaps(edit, other))) continue;
    chosen.push(edit);
  }
  return chosen;
}

function applyEdits(text, edits) {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------------------------------------

/**
 * Picks `count` tasks: a seeded order over the stdlib functions, 1 or 2 corruptions each, keeping only
 * corrupted programs that CPython parses, at most {@link PER_MODULE} per module.
 */
export function selectTasks(functions, taskSeed, count = TASKS, perModuleLimit = PER_MODULE) {
  const rng = new Rng(hashSeed("tasks", taskSeed));
  const candidates = rng
    .shuffle(functions.filter((fn) => fn.corruptions.length >= 2 && fn.truncations.length > 0))
    .map((fn) => {
      const sites = fn.corruptions.map((site) => ({ ...site, text: rng.pick(site.options) }));
      const edits = chooseEdits(rng, sites, rng.chance(0.6) ? 1 : 2);
      return { fn, edits, corrupted: applyEdits(fn.gold, edits) };
    });
  const parses = runReference(
    ["check"],
    JSON.stringify({ programs: candidates.map((c) => c.corrupted), completions: [] }),
  ).programs;
  const perModule = new Map();
  const tasks = [];
  candidates.forEach((candidate, index) => {
    const module = candidate.fn.module;
    if (tasks.length === count || !parses[index] || (perModule.get(module) ?? 0) >= perModuleLimit) return;
    perModule.set(module, (perModule.get(module) ?? 0) + 1);
    const { fn, edits } = candidate;
    tasks.push({
      id: fn.id ?? `${fn.module}.${fn.name}`,
      fn,
      gold: fn.gold,
      corrupted: candidate.corrupted,
      corruptions: edits.map(
        (e) => `${e.what}: ${JSON.stringify(fn.gold.slice(e.start, e.end))} → ${JSON.stringify(e.text)}`,
      ),
      edits,
    });
  });
  if (tasks.length < count && count !== Number.POSITIVE_INFINITY)
    throw new Error(`only ${tasks.length} usable gold functions, need ${count}`);
  return tasks;
}

// ---------------------------------------------------------------------------------------------------------
// Completions
// ---------------------------------------------------------------------------------------------------------

const INTROS = [
  "Here is the corrected function:",
  "The fix is below.",
  "I found the bug. Here's the repaired code:",
  "Here's the fixed version of the function:",
  "Sure! The corrected implementation:",
  "This version fixes the issue:",
];
const OUTROS = [
  "",
  "The original code used the wrong condition, which broke the edge case.",
  "This restores the intended behaviour without changing anything else.",
  "Only the faulty expression was changed.",
  "Let me know if you need tests for this.",
];
const NO_CHANGE = [
  "I reviewed the function and it looks correct as written:",
  "The code appears to be fine. Here it is unchanged:",
  "I couldn't find a bug; the function is:",
];
const THOUGHTS = [
  "Let me read the function carefully and look for an off-by-one or a wrong comparison.",
  "The tests fail on an edge case, so the bug is probably in a boundary check.",
  "I should compare each condition with what the docstring promises.",
  "First, let me restate what the function should do, then check each branch.",
];
const COMMENTS = [
  "# handle the edge case",
  "# fixed: boundary condition",
  "# keep the original behaviour",
  "# normalize input",
  "# TODO: could be simplified",
  "# early exit",
  "# main loop",
];
const PROSE_ONLY = [
  "The bug is in the comparison inside `{name}`; flipping the operator fixes it.",
  "You need to change the constant in `{name}` so that the last element is included.",
  "I'm not able to determine the fix without more context about `{name}`.",
];

/** Some of src/config.ts DEFAULT_END_OF_TURN_MARKERS, as chat templates end a turn. */
const END_OF_TURN = [
  "<|im_end|>",
  "<|eot_id|>",
  "</s>",
  "<｜end▁of▁sentence｜>",
  "<|im_end|>\n<|endoftext|>",
];

function fenced(code, lang = "python") {
  return `\`\`\`${lang}\n${code}${code.endsWith("\n") ? "" : "\n"}\`\`\``;
}

function answer(rng, code, lang = "python") {
  const outro = rng.pick(OUTROS);
  return `${rng.pick(INTROS)}\n\n${fenced(code, lang)}\n${outro === "" ? "" : `\n${outro}\n`}`;
}

/**
 * One generator per kind of model output. Each returns the completion text, or null when the task's
 * function offers no site for it. `expect` is what the extraction must yield (checked with CPython).
 */
const KINDS = {
  gold_fenced: { expect: "code", make: (t, rng) => answer(rng, t.gold) },
  gold_bare: { expect: "code", make: (t) => t.gold },
  // An unfenced repair as a trainer that decodes with special tokens kept hands it over (OpenRLHF).
  gold_end_of_turn: {
    expect: "code",
    make: (t, rng) => `${t.gold}${rng.pick(["", "\n"])}${rng.pick(END_OF_TURN)}`,
  },
  corrupted_unchanged: {
    expect: "code",
    make: (t, rng) => `${rng.pick(NO_CHANGE)}\n\n${fenced(t.corrupted)}\n`,
  },
  think_then_gold: {
    expect: "code",
    make: (t, rng) => {
      const draft = t.corrupted
        .split("\n")
        .slice(0, 4 + rng.int(4))
        .join("\n");
      return (
        `<think>\n${rng.pick(THOUGHTS)} The function is:\n\n${fenced(draft)}\n\n` +
        `Something in ${t.fn.name} is off; I'll fix that expression and keep the rest.\n</think>\n\n` +
        answer(rng, t.gold)
      );
    },
  },
  two_blocks: {
    expect: "code",
    make: (t, rng) =>
      `The original code:\n\n${fenced(t.corrupted)}\n\n${rng.pick(INTROS)}\n\n${fenced(t.gold, rng.pick(["py", "python", ""]))}\n`,
  },
  reformatted: {
    expect: "code",
    make: (t, rng) => {
      const fn = t.fn;
      const edits = chooseEdits(
        rng,
        fn.comments.map((at) => ({ start: at, end: at, text: `  ${rng.pick(COMMENTS)}` })),
        1 + rng.int(3),
      );
      edits.push(
        ...chooseEdits(
          rng,
          fn.blanks.map((at) => ({ start: at, end: at, text: "\n" })),
          1 + rng.int(2),
          edits,
        ),
      );
      edits.push(...chooseEdits(rng, fn.quotes, 1 + rng.int(3), edits));
      edits.push(...chooseEdits(rng, fn.parens, rng.int(2), edits));
      return answer(rng, applyEdits(t.gold, edits));
    },
  },
  renamed_local: {
    expect: "code",
    make: (t, rng) => {
      if (t.fn.renames.length === 0) return null;
      const rename = rng.pick(t.fn.renames);
      const edits = rename.offsets.map((at) => ({
        start: at,
        end: at + rename.name.length,
        text: rename.new,
      }));
      return answer(rng, applyEdits(t.gold, edits));
    },
  },
  guard_added: {
    expect: "code",
    make: (t, rng) => {
      const guard = t.fn.guard;
      if (guard === null) return null;
      const param = rng.chance(0.7) ? guard.params[0] : rng.pick(guard.params);
      const text = `${guard.indent}if ${param} is None:\n${guard.indent}    return None\n`;
      return answer(rng, applyEdits(t.gold, [{ start: guard.offset, end: guard.offset, text }]));
    },
  },
  docstring_added: {
    expect: "code",
    make: (t, rng) => {
      const site = t.fn.docstring;
      if (site === null) return null;
      const verb = rng.pick(["Compute", "Return", "Handle", "Process"]);
      const text = `${site.indent}"""${verb} ${t.fn.name.replace(/_/g, " ").trim()}."""\n`;
      return answer(rng, applyEdits(t.gold, [{ start: site.offset, end: site.offset, text }]));
    },
  },
  rewritten_lines: {
    expect: "code",
    make: (t, rng) => {
      if (t.fn.rewrites.length === 0) return null;
      return answer(rng, applyEdits(t.gold, chooseEdits(rng, t.fn.rewrites, 1 + rng.int(2))));
    },
  },
  partial_fix: {
    expect: "code",
    make: (t, rng) => {
      // Two corruptions: the model fixes one of them. One: it fixes it but breaks something else.
      if (t.edits.length === 2) return answer(rng, applyEdits(t.gold, [rng.pick(t.edits)]));
      const others = t.fn.corruptions
        .filter((site) => !t.edits.some((e) => overlaps(e, site)))
        .map((site) => ({ ...site, text: rng.pick(site.options) }));
      return others.length === 0 ? null : answer(rng, applyEdits(t.gold, [rng.pick(others)]));
    },
  },
  wholesale_restyle: {
    expect: "code",
    make: (t, rng) =>
      `I've cleaned up the function while fixing it:\n\n${fenced(t.fn.restyled)}\n${rng.pick(OUTROS)}`,
  },
  wholesale_reorder: {
    expect: "code",
    make: (t, rng) => (t.fn.reordered === null ? null : answer(rng, t.fn.reordered)),
  },
  truncated: {
    expect: "unparsable",
    // Generation stopped at max tokens right after a block header: an unclosed fence, no body.
    make: (t, rng) => `${rng.pick(INTROS)}\n\n\`\`\`python\n${t.gold.slice(0, rng.pick(t.fn.truncations))}`,
  },
  prose_only: {
    expect: "unparsable",
    make: (t, rng) => rng.pick(PROSE_ONLY).replace("{name}", t.fn.name),
  },
  think_only: {
    expect: "no_code",
    make: (t, rng) =>
      `<think>\n${rng.pick(THOUGHTS)}\nThe loop in ${t.fn.name} looks suspicious.\n</think>\n`,
  },
};

/** Always present in a group: the perfect repair, the unchanged input and a truncated output. */
const CORE_KINDS = ["gold_fenced", "corrupted_unchanged", "truncated"];
const OPTIONAL_KINDS = Object.keys(KINDS).filter((k) => !CORE_KINDS.includes(k) && k !== "think_only");
/** Kinds that yield a new text when drawn again (different prose, sites or renames). */
const REPEATABLE_KINDS = ["gold_fenced", "reformatted", "renamed_local", "rewritten_lines", "two_blocks"];
/** Identical completions in a GRPO group are mostly the converged answer, sometimes the unchanged input. */
const DUPLICATE_WEIGHTS = { gold_fenced: 4, gold_bare: 2, corrupted_unchanged: 2, think_then_gold: 2 };

/** One GRPO group: `perTask` completions of one task, some exact duplicates, in a seeded order. */
export function makeGroup(task, rng, perTask) {
  // 4 or 5 of 16 (25–31 %) are exact duplicates of another rollout of the group.
  const duplicates = Math.round(perTask * (rng.chance(0.5) ? 0.25 : 0.3125));
  const distinct = perTask - duplicates;
  const unique = [];
  const seen = new Set();
  const add = (kind) => {
    let generator = KINDS[kind];
    if (kind === "prose_only" && rng.chance(0.3)) [kind, generator] = ["think_only", KINDS.think_only];
    const completion = generator.make(task, rng);
    if (completion === null || seen.has(completion)) return;
    seen.add(completion);
    unique.push({ kind, completion, expect: generator.expect });
  };
  for (const kind of [...CORE_KINDS, ...rng.shuffle(OPTIONAL_KINDS)]) {
    if (unique.length === distinct) break;
    add(kind);
  }
  for (let attempt = 0; unique.length < distinct; attempt++) {
    if (attempt > 1000) throw new Error(`cannot make ${distinct} distinct completions for ${task.id}`);
    add(rng.pick(REPEATABLE_KINDS));
  }
  const pool = unique.flatMap((u) => Array(DUPLICATE_WEIGHTS[u.kind] ?? 1).fill(u));
  const copies = Array.from({ length: duplicates }, () => ({ ...rng.pick(pool), duplicate: true }));
  return rng.shuffle([...unique, ...copies]);
}

/**
 * `perTask` completions for each task, as JSONL-ready rows (groups contiguous, as a trainer sends them).
 * Every completion's extraction is checked with CPython against what its kind must yield.
 */
export function makeRollouts(tasks, completionSeed, perTask = ROLLOUTS) {
  const rows = tasks.flatMap((task) =>
    makeGroup(task, new Rng(hashSeed("completions", completionSeed, task.id)), perTask).map((r) => ({
      task_id: task.id,
      corrupted: task.corrupted,
      gold: task.gold,
      completion: r.completion,
      kind: r.kind,
      duplicate: r.duplicate === true,
      expect: r.expect,
    })),
  );
  const statuses = runReference(
    ["check"],
    JSON.stringify({ programs: [], completions: rows.map((r) => r.completion) }),
  ).completions;
  rows.forEach((row, i) => {
    if (statuses[i] !== row.expect) {
      throw new Error(
        `generator bug: ${row.kind} rollout of ${row.task_id} extracts to ${statuses[i]}, not ${row.expect}`,
      );
    }
  });
  return rows;
}

/** The whole batch: tasks from `taskSeed`, completions from `completionSeed`. */
export function makeBatch({
  taskSeed = 1,
  completionSeed = 1,
  functions = loadStdlibFunctions().functions,
} = {}) {
  const tasks = selectTasks(functions, taskSeed);
  return { tasks, rows: makeRollouts(tasks, completionSeed) };
}

/** One JSON object per line; `kind`, `duplicate` and `expect` are labels for humans, not scoring input. */
export function toJsonl(rows) {
  return rows
    .map((r) =>
      JSON.stringify({
        task_id: r.task_id,
        corrupted: r.corrupted,
        gold: r.gold,
        completion: r.completion,
        kind: r.kind,
        duplicate: r.duplicate,
      }),
    )
    .join("\n")
    .concat("\n");
}

/**
 * A large input for offline scoring (`minedit score --no-exec --tasks TASKS ROLLOUTS`): `count` rollouts in
 * groups of {@link ROLLOUTS}, cycling over `tasks` (group g is task g mod T, with completion seed
 * `seed` + ⌊g / T⌋, so a task comes back with new completions, and with the ones a model repeats), written
 * as a task file (task_id, corrupted, gold) and a rollout file (id, task_id, completion), streamed.
 * Not checked with CPython row by row (the generator is checked on the benchmark's batches).
 *
 * @returns rows written, exact duplicates within their group, distinct (task, completion) pairs, bytes.
 */
export function writeScoreFiles({ tasks, count, seed = 1, tasksFile, rolloutsFile }) {
  writeFileSync(
    tasksFile,
    tasks.map((t) => JSON.stringify({ task_id: t.id, corrupted: t.corrupted, gold: t.gold })).join("\n") +
      "\n",
  );
  const fd = openSync(rolloutsFile, "w");
  const distinct = new Set();
  let rows = 0;
  let duplicates = 0;
  let bytes = 0;
  let chunk = [];
  const flush = () => {
    const text = chunk.join("");
    bytes += Buffer.byteLength(text);
    writeSync(fd, text);
    chunk = [];
  };
  try {
    for (let g = 0; rows < count; g++) {
      const task = tasks[g % tasks.length];
      const completionSeed = seed + Math.floor(g / tasks.length);
      const group = makeGroup(task, new Rng(hashSeed("completions", completionSeed, task.id)), ROLLOUTS);
      for (const r of group) {
        if (rows === count) break;
        if (r.duplicate) duplicates++;
        distinct.add(
          createHash("sha1").update(task.id).update("\u0000").update(r.completion).digest("base64"),
        );
        chunk.push(`${JSON.stringify({ id: rows, task_id: task.id, completion: r.completion })}\n`);
        rows++;
      }
      if (chunk.length >= 4096) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return { rows, duplicates, distinct: distinct.size, bytes, tasks: tasks.length };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const option = (name, fallback) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? fallback : process.argv[at + 1];
  };
  const source = option("--source", "stdlib");
  if (source !== "stdlib" && source !== "bigcodebench") {
    console.error("--source is stdlib or bigcodebench");
    process.exit(2);
  }
  if (source === "bigcodebench" && !existsSync(BIGCODEBENCH)) {
    console.error(
      `no BigCodeBench file at ${BIGCODEBENCH}: set MINEDIT_DATA_DIR to the directory holding bigcodebench/BigCodeBench.jsonl.gz`,
    );
    process.exit(2);
  }
  const { rows } = makeBatch({
    taskSeed: Number(option("--task-seed", 1)),
    completionSeed: Number(option("--completion-seed", 1)),
    functions: (source === "stdlib" ? loadStdlibFunctions() : loadBigCodeBenchFunctions()).functions,
  });
  process.stdout.write(toJsonl(rows));
}
