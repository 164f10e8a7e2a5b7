/**
 * End-to-end tests of `minedit score`: the BUILT CLI (bin/minedit.js → dist/) is spawned on the fixture
 * files in tests/fixtures/score/, exactly as a user runs it. Expected distances come from CPython 3.11
 * (`ast.unparse` + `tokenize` + a plain DP Levenshtein, in {@link PY_ORACLE}) or are counted by hand,
 * never copied from the CLI's own output; the rewards are then recomputed from the formula.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REWARD_DEFINITION_VERSION } from "../../src/core/reward.js";
import { formatRate, PLAIN_INTERVAL_MS, Progress, type ProgressStream } from "../../src/io/progress.js";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURES = join(ROOT, "tests", "fixtures", "score");
const fixture = (name: string) => join(FIXTURES, name);

type Run = { status: number | null; stdout: string; stderr: string; rows: Record<string, unknown>[] };

function minedit(args: string[], input?: string): Run {
  const result = spawnSync(process.execPath, [join(ROOT, "bin", "minedit.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    input: input ?? "",
    timeout: 60_000,
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    // Lazy: only score runs print JSON rows (help and version print text).
    get rows() {
      return result.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

/** Scores with --no-exec and 2 threads (the machine has 2 cores); `extra` goes after the file. */
function score(file: string, ...extra: string[]): Run {
  return minedit(["score", file, "--no-exec", "--threads", "2", ...extra]);
}

/** Scores executing the tests, 2 worker threads and 2 sandbox runs at once; `extra` goes after the file. */
function scoreExec(file: string, ...extra: string[]): Run {
  return minedit(["score", file, "--threads", "2", "--concurrency", "2", ...extra]);
}

function byId(run: Run): Map<unknown, Record<string, unknown>> {
  return new Map(run.rows.map((row) => [row.id, row]));
}

/**
 * CPython 3.11 as the oracle for d(M, C) and d(G, C): tokens(X) = token strings of tokenize on
 * ast.unparse(ast.parse(X)) without COMMENT/NL/ENCODING/ENDMARKER/INDENT/DEDENT, and a textbook DP.
 */
const PY_ORACLE = `
import ast, io, json, sys, tokenize
DROP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
def toks(src):
    norm = ast.unparse(ast.parse(src))
    return [t.string for t in tokenize.generate_tokens(io.StringIO(norm).readline) if t.type not in DROP]
def lev(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]
def d(x, y):
    a, b = toks(x), toks(y)
    n = max(len(a), len(b))
    return 0.0 if n == 0 else lev(a, b) / n
print(json.dumps([{"dModel": d(r["program"], r["corrupted"]), "dGold": d(r["gold"], r["corrupted"])}
                  for r in json.load(sys.stdin)]))
`;

type Triple = { program: string; corrupted: string; gold: string };
type Distances = { dModel: number; dGold: number };

function oracle(triples: Triple[]): Distances[] {
  const result = spawnSync("python3", ["-c", PY_ORACLE], {
    input: JSON.stringify(triples),
    encoding: "utf8",
  });
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as Distances[];
}

/** Default reward of a PASSED row (λexec 0.1, λedit 1), with the same float operations as the formula. */
function fullReward({ dModel, dGold }: Distances, lambdaExec = 0.1, lambdaEdit = 1.0): number {
  return lambdaExec - lambdaEdit * (dModel - dGold);
}

// The programs of the fixtures (tests/fixtures/score/*.jsonl), restated so the oracle can see them.
const ADD_GOLD = "def add(a, b):\n    return a + b\n";
const ADD_CORRUPT = "def add(a, b):\n    return a - b\n";
const ADD_OVEREDIT = "def add(x, y):\n    return x + y\n";
const MAX_GOLD = `def find_max(xs):
    """Return the largest element of a non-empty list."""
    best = xs[0]
    for x in xs[1:]:
        if x > best:
            best = x
    return best
`;
const MAX_CORRUPT = MAX_GOLD.replace("if x > best", "if x < best");
const ADD = { corrupted: ADD_CORRUPT, gold: ADD_GOLD };
const MAX = { corrupted: MAX_CORRUPT, gold: MAX_GOLD };

let expected: {
  addPerfect: Distances;
  addUnchanged: Distances;
  addOveredit: Distances;
  maxPerfect: Distances;
  maxUnchanged: Distances;
};

let scratch: string;

// The CLI and its worker pool run from dist/, built once by the global setup (tests/setup/build-dist.ts).
beforeAll(() => {
  const [addPerfect, addUnchanged, addOveredit, maxPerfect, maxUnchanged] = oracle([
    { program: ADD_GOLD, ...ADD },
    { program: ADD_CORRUPT, ...ADD },
    { program: ADD_OVEREDIT, ...ADD },
    { program: MAX_GOLD, ...MAX },
    { program: MAX_CORRUPT, ...MAX },
  ]) as [Distances, Distances, Distances, Distances, Distances];
  expected = { addPerfect, addUnchanged, addOveredit, maxPerfect, maxUnchanged };
  scratch = mkdtempSync(join(tmpdir(), "minedit-score-test-"));
});

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe("the oracle itself", () => {
  it("agrees with a hand count on the add task", () => {
    // def add ( a , b ) : NEWLINE return a + b NEWLINE → 14 tokens (INDENT/DEDENT dropped); `-` → `+` is 1 edit.
    expect(expected.addPerfect.dGold).toBe(1 / 14);
    // Renaming a→x and b→y (4 substitutions) plus the `-` → `+` fix: 5 of 14.
    expect(expected.addOveredit.dModel).toBe(5 / 14);
    expect(expected.addUnchanged.dModel).toBe(0);
  });
});

describe("minedit score --no-exec on inline rows", () => {
  let run: Run;
  let rows: Map<unknown, Record<string, unknown>>;
  beforeAll(() => {
    run = score(fixture("rollouts.jsonl"));
    rows = byId(run);
  });

  it("exits 0, writes one row per input row in input order", () => {
    expect(run.status).toBe(0);
    expect(run.rows.map((r) => r.id)).toEqual([
      "perfect",
      "unchanged",
      "overedit-bare",
      "overedit-fenced",
      "formatting",
      6,
      "unparsable",
      "empty",
      "empty-fence",
    ]);
  });

  it("gives a perfect repair exactly 0.1 with zero excess", () => {
    const row = rows.get("perfect");
    expect(row).toEqual({
      id: "perfect",
      reward: 0.1,
      verdict: "PASSED",
      d_model: expected.addPerfect.dModel,
      d_gold: expected.addPerfect.dGold,
      excess: 0,
      added_cc: 0,
      detail: "",
      reward_version: REWARD_DEFINITION_VERSION,
    });
  });

  it("rewards returning the corrupted program unchanged above 0.1 (negative excess kept)", () => {
    const row = rows.get("unchanged");
    expect(row?.d_model).toBe(0);
    expect(row?.excess).toBe(-expected.addUnchanged.dGold);
    expect(row?.excess as number).toBeLessThan(0);
    expect(row?.reward).toBe(fullReward(expected.addUnchanged));
    expect(row?.reward as number).toBeGreaterThan(0.1);
  });

  it("scores a fenced answer after </think> and prose exactly like the bare program", () => {
    const bare = rows.get("overedit-bare");
    const fenced = rows.get("overedit-fenced");
    expect(bare?.d_model).toBe(expected.addOveredit.dModel);
    expect(bare?.excess).toBe(expected.addOveredit.dModel - expected.addOveredit.dGold);
    expect(bare?.reward).toBe(fullReward(expected.addOveredit));
    // An excess of 4/14 (≈ 0.29) takes the reward close to the failure reward.
    expect(bare?.reward as number).toBeLessThan(0);
    const { id: _a, ...bareRest } = bare ?? {};
    const { id: _b, ...fencedRest } = fenced ?? {};
    expect(fencedRest).toEqual(bareRest);
  });

  it("ignores comments, quotes, parentheses and blank lines (normalization), still 0.1", () => {
    expect(rows.get("formatting")).toMatchObject({
      reward: 0.1,
      verdict: "PASSED",
      d_model: expected.addPerfect.dModel,
      excess: 0,
    });
    expect(rows.get(6)).toMatchObject({
      reward: 0.1,
      verdict: "PASSED",
      d_model: expected.maxPerfect.dModel,
      d_gold: expected.maxPerfect.dGold,
      excess: 0,
    });
  });

  it("gives UNPARSABLE and NO_CODE the failure reward, with null distances", () => {
    expect(rows.get("unparsable")).toMatchObject({
      reward: -0.2,
      verdict: "UNPARSABLE",
      d_model: null,
      d_gold: null,
      excess: null,
      added_cc: null,
    });
    expect(rows.get("unparsable")?.detail).not.toBe("");
    for (const id of ["empty", "empty-fence"]) {
      expect(rows.get(id)).toMatchObject({ reward: -0.2, verdict: "NO_CODE", d_model: null, excess: null });
    }
  });

  it("summarizes on stderr: rows, verdict counts, mean reward, bad rows, time and rate", () => {
    expect(run.stderr).toMatch(/9 rows scored, 0 bad rows, \d+\.\d\d s, \d+\.\d rollouts\/s/);
    expect(run.stderr).toContain("verdicts: PASSED 6, UNPARSABLE 1, NO_CODE 2");
    const rewards = run.rows.map((r) => r.reward as number);
    const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    expect(run.stderr).toContain(`mean reward: ${Number(mean.toPrecision(6))} over 9 scored rows`);
    expect(run.stderr).toContain("tests were not run");
    // The bare and the fenced over-edit are one program: in one batch (one worker), the second is
    // answered by the score memo. C and G themselves never enter it, nor do rows without code: the
    // lookups are the two over-edits, the reformatted fix, row 6 and the unparsable row.
    const memo =
      /score memo: (\d+) of (\d+) programs scored before for their task \(not analyzed again\); (\d+) kept \(at most 131072 per worker/.exec(
        run.stderr,
      );
    expect(memo).not.toBeNull();
    const [hits, lookups, kept] = (memo ?? []).slice(1).map(Number) as [number, number, number];
    expect([hits, lookups, kept]).toEqual([1, 5, 4]);
    // The memo stands in for the program cache, which then reports nothing.
    expect(run.stderr).not.toContain("program cache:");
  });
});

describe("reward options", () => {
  it("--variant correctness_only: every passing row gets λexec, failures −0.2, distances still reported", () => {
    const run = score(fixture("rollouts.jsonl"), "--variant", "correctness_only");
    expect(run.status).toBe(0);
    const rows = byId(run);
    for (const id of ["perfect", "unchanged", "overedit-bare", "overedit-fenced", "formatting", 6]) {
      expect(rows.get(id)?.reward).toBe(0.1);
    }
    expect(rows.get("overedit-bare")?.excess).toBe(expected.addOveredit.dModel - expected.addOveredit.dGold);
    for (const id of ["unparsable", "empty", "empty-fence"]) expect(rows.get(id)?.reward).toBe(-0.2);
    expect(run.stderr).toContain("variant correctness_only");
  });

  it("--variant edit_only: pass → −λedit·excess (a perfect repair scores 0)", () => {
    const rows = byId(score(fixture("rollouts.jsonl"), "--variant", "edit_only", "--lambda-edit", "2"));
    expect(rows.get("perfect")?.reward).toBe(0);
    const { dModel, dGold } = expected.addOveredit;
    expect(rows.get("overedit-bare")?.reward).toBe(-2 * (dModel - dGold));
  });

  it("--variant edit_plus_cc: pass → full − λcc·max(0, added_cc)", () => {
    const file = join(scratch, "added-cc.jsonl");
    // CC(G) = 0. The guard adds an if (+1) and its `or` sequence (+1): added_cc = 2.
    const guarded = "def add(a, b):\n    if a is None or b is None:\n        return None\n    return a + b\n";
    const lines = [
      { id: "perfect", completion: ADD_GOLD, ...ADD },
      { id: "guarded", completion: guarded, ...ADD },
    ].map((row) => JSON.stringify(row));
    writeFileSync(file, `${lines.join("\n")}\n`);
    const full = byId(score(file));
    const run = score(file, "--variant", "edit_plus_cc", "--lambda-cc", "0.1");
    expect(run.status).toBe(0);
    const rows = byId(run);
    expect(rows.get("perfect")).toMatchObject({ reward: 0.1, added_cc: 0 });
    expect(full.get("guarded")?.added_cc).toBe(2);
    expect(rows.get("guarded")?.added_cc).toBe(2);
    expect(rows.get("guarded")?.reward).toBeCloseTo((full.get("guarded")?.reward as number) - 0.1 * 2, 12);
  });

  it("--config sets weights and flags override it", () => {
    const config = join(scratch, "config.json");
    writeFileSync(config, JSON.stringify({ reward: { lambdaExec: 0.5, lambdaEdit: 3, failureReward: -1 } }));
    const rows = byId(score(fixture("rollouts.jsonl"), "--config", config, "--lambda-edit", "0.25"));
    expect(rows.get("perfect")?.reward).toBe(0.5);
    expect(rows.get("overedit-bare")?.reward).toBe(fullReward(expected.addOveredit, 0.5, 0.25));
    expect(rows.get("unparsable")?.reward).toBe(-1);
    expect(byId(score(fixture("rollouts.jsonl"), "--failure-reward=-0.5")).get("empty")?.reward).toBe(-0.5);
  });

  it("--scope function_body measures from the def line of the first def, as the paper does (hand-counted)", () => {
    const rows = byId(score(fixture("rollouts.jsonl"), "--scope", "function_body"));
    // No docstring, so the body starts at the def line: def add ( a , b ) : NEWLINE return a - b
    // NEWLINE (14). Gold: 1 edit; the x/y rename: 5 edits (2 in the def line, 3 in the return).
    expect(rows.get("perfect")).toMatchObject({ d_gold: 1 / 14, d_model: 1 / 14, reward: 0.1 });
    expect(rows.get("overedit-bare")).toMatchObject({ d_model: 5 / 14, excess: 5 / 14 - 1 / 14 });
    expect(rows.get("overedit-bare")?.reward).toBe(0.1 - (5 / 14 - 1 / 14));
  });
});

describe("--tasks", () => {
  it("scores rows by task_id, accepts id/corrupted_program/gold_program aliases and integer ids", () => {
    const run = score(fixture("rollouts-tasks.jsonl"), "--tasks", fixture("tasks.jsonl"));
    expect(run.status).toBe(0);
    expect(run.rows.map((r) => [r.id, r.task_id])).toEqual([
      ["t1", "add"],
      ["t2", 7],
      ["t3", "7"],
      ["t4", "add"],
    ]);
    const rows = byId(run);
    expect(rows.get("t1")).toMatchObject({ reward: 0.1, excess: 0, d_gold: expected.addPerfect.dGold });
    expect(rows.get("t2")).toMatchObject({
      d_model: 0,
      d_gold: expected.maxUnchanged.dGold,
      reward: fullReward(expected.maxUnchanged),
    });
    expect(rows.get("t3")).toMatchObject({ reward: 0.1, d_model: expected.maxPerfect.dModel });
    expect(rows.get("t4")?.reward).toBe(fullReward(expected.addOveredit));
    expect(run.stderr).toContain("tasks: 2 loaded");
  });

  it("reports bad task rows and refuses rollouts that need them", () => {
    const run = score(fixture("rollouts-bad-tasks.jsonl"), "--tasks", fixture("tasks-bad.jsonl"));
    expect(run.status).toBe(1);
    expect(run.rows.map((r) => r.id)).toEqual(["ok"]);
    const tasks = fixture("tasks-bad.jsonl");
    const rollouts = fixture("rollouts-bad-tasks.jsonl");
    expect(run.stderr).toContain(`${tasks}:3: duplicate task_id "dup" (also defined at line 2)`);
    expect(run.stderr).toContain(`${tasks}:4: missing field "gold"`);
    expect(run.stderr).toContain(`${tasks}:6: invalid JSON`);
    expect(run.stderr).toContain(
      `${tasks}:7: fields "corrupted" and "corrupted_program" are both given and differ`,
    );
    expect(run.stderr).toContain(`${rollouts}:2: task_id "dup" is ambiguous`);
    expect(run.stderr).toContain(`${rollouts}:3: task_id "nogold" refers to a bad task row (${tasks}:4`);
    expect(run.stderr).toMatch(
      new RegExp(`${rollouts}:4: task "badpy" \\(${tasks}:5\\): the task's gold program is not valid Python`),
    );
  });
});

describe("bad rows", () => {
  it("reports each bad row with its line number and reason, scores the rest in order, exits 1", () => {
    const file = fixture("bad-rows.jsonl");
    const run = score(file, "--tasks", fixture("tasks.jsonl"));
    expect(run.status).toBe(1);
    expect(run.rows.map((r) => r.id)).toEqual(["good-1", "good-3", "good-11"]);
    expect(run.rows.map((r) => r.reward)).toEqual([
      0.1,
      fullReward(expected.addUnchanged),
      fullReward(expected.addOveredit),
    ]);
    const reported = run.stderr
      .split("\n")
      .filter((line) => line.startsWith(`${file}:`))
      .map((line) => line.slice(file.length + 1));
    expect(reported).toEqual([
      expect.stringMatching(/^2: invalid JSON: /),
      '5: missing field "completion"',
      '6: field "completion": expected a string, got number 42',
      `7: unknown task_id "nope" (not in ${fixture("tasks.jsonl")})`,
      '8: give either "task_id" or inline "corrupted" and "gold", not both',
      expect.stringMatching(/^9: inline task: the task's corrupted program is not valid Python 3\.11: /),
      "10: expected a JSON object, got array",
      '12: missing field "corrupted"',
      '13: field "id": expected a non-empty string or an integer, got number 1.5',
    ]);
    expect(run.stderr).toContain("3 rows scored, 9 bad rows");
  });

  it("says a task_id row needs --tasks", () => {
    const run = score(fixture("rollouts-tasks.jsonl"));
    expect(run.status).toBe(1);
    expect(run.rows).toEqual([]);
    expect(run.stderr).toContain(
      `${fixture("rollouts-tasks.jsonl")}:1: task_id "add" given but no --tasks file`,
    );
  });
});

describe("input handling", () => {
  it("reads stdin for `-`", () => {
    const run = minedit(
      ["score", "-", "--no-exec", "--threads", "1"],
      readFileSync(fixture("rollouts.jsonl"), "utf8"),
    );
    expect(run.status).toBe(0);
    expect(run.rows).toEqual(score(fixture("rollouts.jsonl")).rows);
  });

  it("keeps input order across many batches and the pool's task grouping", () => {
    const kinds = [
      { completion: ADD_GOLD, ...ADD, reward: 0.1 },
      { completion: ADD_OVEREDIT, ...ADD, reward: fullReward(expected.addOveredit) },
      { completion: MAX_CORRUPT, ...MAX, reward: fullReward(expected.maxUnchanged) },
      { completion: "", ...MAX, reward: -0.2 },
    ];
    const n = 1300; // > 2 batches of 512, so batches overlap in the pipeline
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const { reward: _reward, ...row } = kinds[(i * 7) % kinds.length] as (typeof kinds)[number];
      lines.push(JSON.stringify({ id: i, ...row }));
    }
    const file = join(scratch, "many.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const run = score(file);
    expect(run.status).toBe(0);
    expect(run.rows.map((r) => r.id)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(run.rows.map((r) => r.reward)).toEqual(
      Array.from({ length: n }, (_, i) => (kinds[(i * 7) % kinds.length] as (typeof kinds)[number]).reward),
    );
  });
});

describe("executing the tests (the default)", () => {
  type DemoTask = {
    task_id: string;
    corrupted: string;
    gold: string;
    entry_point: string;
    tests: { style: string };
  };
  const DEMO_TASKS = join(ROOT, "datasets", "seed", "demo-tasks.jsonl");
  /** One shipped demo task of each test style. */
  const PICKED = [
    "minedit/seed/015-moving-average/demo/v1",
    "minedit/seed/042-parse-duration/demo/v1",
    "minedit/seed/051-column-sums/demo/v1",
  ];

  /** `program` with an endless loop at the start of `entryPoint`'s body (still valid Python). */
  function loopForever(program: string, entryPoint: string): string {
    const lines = program.split("\n");
    const at = lines.findIndex((line) => line.startsWith(`def ${entryPoint}(`));
    expect(at).toBeGreaterThanOrEqual(0);
    lines.splice(at + 1, 0, "    while True:", "        pass");
    return lines.join("\n");
  }

  let tasks: DemoTask[];
  let file: string;
  let run: Run;
  let rows: Map<unknown, Record<string, unknown>>;
  beforeAll(() => {
    const all = readFileSync(DEMO_TASKS, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as DemoTask);
    tasks = PICKED.map((id) => all.find((task) => task.task_id === id) as DemoTask);
    expect(tasks.map((task) => task?.tests.style)).toEqual(["unittest", "assert", "stdio"]);
    const lines: string[] = [];
    for (const task of tasks) {
      lines.push(
        JSON.stringify({ id: `${task.task_id}:gold`, task_id: task.task_id, completion: task.gold }),
      );
      lines.push(
        JSON.stringify({
          id: `${task.task_id}:unchanged`,
          task_id: task.task_id,
          completion: task.corrupted,
        }),
      );
      // The same program as the gold row, written differently: one sandbox run serves both.
      lines.push(
        JSON.stringify({
          id: `${task.task_id}:gold-fenced`,
          task_id: task.task_id,
          completion: `Fixed:\n\`\`\`python\n# repaired\n${task.gold}\`\`\`\n`,
        }),
      );
    }
    const assertTask = tasks[1] as DemoTask;
    lines.push(
      JSON.stringify({
        id: "loop",
        task_id: assertTask.task_id,
        completion: loopForever(assertTask.gold, assertTask.entry_point),
      }),
    );
    file = join(scratch, "demo-rollouts.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    run = scoreExec(file, "--tasks", DEMO_TASKS, "--wall-time-ms", "2000", "--cpu-time-ms", "2000");
    rows = byId(run);
  });

  it("exits 0 and writes every row in input order, with tests_passed, tests_total and cached", () => {
    expect(run.stderr).toContain("10 rows scored, 0 bad rows, ");
    expect(run.status).toBe(0);
    expect(run.rows.map((r) => r.id)).toEqual([
      ...PICKED.flatMap((id) => [`${id}:gold`, `${id}:unchanged`, `${id}:gold-fenced`]),
      "loop",
    ]);
    for (const row of run.rows) {
      expect(Object.keys(row)).toEqual([
        "id",
        "task_id",
        "reward",
        "verdict",
        "d_model",
        "d_gold",
        "excess",
        "added_cc",
        "tests_passed",
        "tests_total",
        "cached",
        "detail",
        "reward_version",
      ]);
    }
  });

  it("passes the gold repair of each style: 0.1, every test passed, distances as CPython's", () => {
    const distances = oracle(tasks.map(({ gold, corrupted }) => ({ program: gold, corrupted, gold })));
    tasks.forEach((task, index) => {
      const row = rows.get(`${task.task_id}:gold`);
      const { dGold } = distances[index] as Distances;
      expect(row).toMatchObject({ verdict: "PASSED", reward: 0.1, d_model: dGold, d_gold: dGold, excess: 0 });
      expect(row?.detail).toBe("");
      expect(row?.tests_total as number).toBeGreaterThan(0);
      expect(row?.tests_passed).toBe(row?.tests_total);
      expect(row?.cached).toBe(false);
    });
  });

  it("fails the corrupted program returned unchanged: FAILED_TESTS, the failure reward, the first failure", () => {
    for (const task of tasks) {
      const row = rows.get(`${task.task_id}:unchanged`);
      expect(row).toMatchObject({ verdict: "FAILED_TESTS", reward: -0.2, d_model: 0, cached: false });
      expect(row?.tests_passed as number).toBeLessThan(row?.tests_total as number);
      expect(row?.tests_total).toBe(rows.get(`${task.task_id}:gold`)?.tests_total);
      expect(row?.detail).not.toBe("");
    }
  });

  it("runs an identical normalized program of a task once and marks the reuse as cached", () => {
    for (const task of tasks) {
      const { id: _a, cached: first, ...gold } = rows.get(`${task.task_id}:gold`) ?? {};
      const { id: _b, cached: second, ...fenced } = rows.get(`${task.task_id}:gold-fenced`) ?? {};
      expect([first, second]).toEqual([false, true]);
      expect(fenced).toEqual(gold);
    }
  });

  it("stops an endless loop at --cpu-time-ms: TIMEOUT, the failure reward, the CPU limit named", () => {
    const row = rows.get("loop");
    expect(row).toMatchObject({ verdict: "TIMEOUT", reward: -0.2, tests_passed: 0, cached: false });
    expect(row?.detail).toContain("killed after the 2000 ms CPU time limit");
    // The distances are still reported: the loop is an edit like any other.
    expect(row?.excess as number).toBeGreaterThan(0);
  });

  it("with --cpu-time-ms 0 the wall limit alone stops it, and says so", () => {
    const loop = readFileSync(file, "utf8")
      .split("\n")
      .find((line) => line.includes('"id":"loop"'));
    const only = join(scratch, "loop-only.jsonl");
    writeFileSync(only, `${loop}\n`);
    const wall = byId(scoreExec(only, "--tasks", DEMO_TASKS, "--wall-time-ms", "1500", "--cpu-time-ms", "0"));
    expect(wall.get("loop")).toMatchObject({ verdict: "TIMEOUT", reward: -0.2 });
    expect(wall.get("loop")?.detail).toContain("killed after the 1500 ms wall limit");
  });

  it("summarizes verdicts, sandbox runs and reuse, and the limits", () => {
    expect(run.stderr).toMatch(/10 rows scored, 0 bad rows, \d+\.\d\d s/);
    expect(run.stderr).toContain("verdicts: PASSED 6, FAILED_TESTS 3, TIMEOUT 1");
    expect(run.stderr).toContain("tests: 7 sandbox runs, 3 rows reused an identical program's run");
    expect(run.stderr).toContain("limits: 2000 ms wall, 1024 MiB memory, 2 at once");
    expect(run.stderr).not.toContain("--no-exec");
  });

  it("with --no-exec scores the same distances without running anything, as before", () => {
    const noExec = score(file, "--tasks", DEMO_TASKS);
    expect(noExec.status).toBe(0);
    expect(noExec.rows.map((r) => r.id)).toEqual(run.rows.map((r) => r.id));
    noExec.rows.forEach((row, index) => {
      const executed = run.rows[index] as Record<string, unknown>;
      expect(Object.keys(row)).not.toContain("tests_passed");
      expect(Object.keys(row)).not.toContain("cached");
      expect(row.verdict).toBe("PASSED");
      expect([row.d_model, row.d_gold, row.excess]).toEqual([
        executed.d_model,
        executed.d_gold,
        executed.excess,
      ]);
    });
    expect(noExec.stderr).toContain("verdicts: PASSED 10");
    expect(noExec.stderr).toContain("--no-exec: tests were not run");
  });
});

describe("executing inline rows", () => {
  const SUM_GOLD = "a, b = map(int, input().split())\nprint(a + b)\n";
  const SUM_CORRUPT = "a, b = map(int, input().split())\nprint(a - b)\n";
  let run: Run;
  let rows: Map<unknown, Record<string, unknown>>;
  beforeAll(() => {
    run = scoreExec(fixture("exec-inline.jsonl"));
    rows = byId(run);
  });

  it("runs each row's own tests: stdio cases, assert with entry_point, unittest", () => {
    expect(run.rows.map((r) => r.id)).toEqual([
      "stdio-gold",
      "stdio-unchanged",
      "stdio-half",
      "assert-gold",
      "unittest-unchanged",
      "unparsable",
    ]);
    const [sum] = oracle([{ program: SUM_GOLD, corrupted: SUM_CORRUPT, gold: SUM_GOLD }]) as [Distances];
    expect(rows.get("stdio-gold")).toMatchObject({
      verdict: "PASSED",
      reward: 0.1,
      d_model: sum.dGold,
      d_gold: sum.dGold,
      excess: 0,
      tests_passed: 2,
      tests_total: 2,
    });
    expect(rows.get("stdio-unchanged")).toMatchObject({
      verdict: "FAILED_TESTS",
      reward: -0.2,
      d_model: 0,
      tests_passed: 0,
      tests_total: 2,
      detail: 'case 1: wrong answer, expected "3\\n", got "-1\\n"',
    });
    // a + abs(b): right for "1 2", wrong for "10 -4"; every case runs, so 1 of 2 passed.
    expect(rows.get("stdio-half")).toMatchObject({
      verdict: "FAILED_TESTS",
      reward: -0.2,
      tests_passed: 1,
      tests_total: 2,
    });
    expect(rows.get("stdio-half")?.detail).toMatch(/^case 2: wrong answer/);
    expect(rows.get("assert-gold")).toMatchObject({
      verdict: "PASSED",
      reward: 0.1,
      d_model: expected.addPerfect.dModel,
      tests_passed: 3,
      tests_total: 3,
    });
    expect(rows.get("unittest-unchanged")).toMatchObject({
      verdict: "FAILED_TESTS",
      reward: -0.2,
      tests_passed: 1,
      tests_total: 2,
    });
    expect(rows.get("unittest-unchanged")?.detail).toContain("test_small");
  });

  it("does not run a program that does not parse", () => {
    expect(rows.get("unparsable")).toMatchObject({
      verdict: "UNPARSABLE",
      reward: -0.2,
      tests_passed: 0,
      tests_total: 0,
      d_model: null,
    });
    expect(run.stderr).toContain("tests: 5 sandbox runs, 0 rows reused");
  });

  it("reports rows without usable tests as bad rows, and exits 1", () => {
    const file = fixture("exec-inline.jsonl");
    expect(run.status).toBe(1);
    const reported = run.stderr
      .split("\n")
      .filter((line) => line.startsWith(`${file}:`))
      .map((line) => line.slice(file.length + 1));
    expect(reported).toEqual([
      "4: no tests: give the task's tests or pass --no-exec",
      '6: field "entry_point": assert-style tests need the entry point',
      expect.stringMatching(/^7: field "tests\.style": Invalid discriminator value/),
      '9: give either "task_id" or inline "tests" and "entry_point", not both (a task_id row takes its tests from the task file)',
    ]);
    expect(run.stderr).toContain("6 rows scored, 4 bad rows");
  });

  it("with --no-exec ignores the tests fields, as before", () => {
    const noExec = score(fixture("exec-inline.jsonl"), "--tasks", fixture("tasks.jsonl"));
    expect(noExec.status).toBe(0);
    expect(noExec.rows).toHaveLength(10);
    expect(noExec.rows.every((row) => !("tests_passed" in row))).toBe(true);
    expect(byId(noExec).get("stdio-unchanged")).toMatchObject({ verdict: "PASSED", d_model: 0 });
    expect(noExec.stderr).toContain("verdicts: PASSED 9, UNPARSABLE 1");
  });

  it("makes task rows without tests bad task rows, and every rollout that needs them a bad row", () => {
    const tasksFile = fixture("tasks.jsonl");
    const rollouts = fixture("rollouts-tasks.jsonl");
    const bad = scoreExec(rollouts, "--tasks", tasksFile);
    expect(bad.status).toBe(1);
    expect(bad.rows).toEqual([]);
    // The add task's "tests" is a bare string; task 7 has none.
    expect(bad.stderr).toContain(
      `${tasksFile}:1: field "tests": Invalid input: expected object, received string`,
    );
    expect(bad.stderr).toContain(`${tasksFile}:2: no tests: give the task's tests or pass --no-exec`);
    expect(bad.stderr).toContain(
      `${rollouts}:2: task_id 7 refers to a bad task row (${tasksFile}:2: no tests: give the task's tests or pass --no-exec)`,
    );
    expect(bad.stderr).toContain("0 rows scored, 4 bad rows");
    expect(bad.stderr).toContain("tasks: 0 loaded");
  });
});

describe("usage errors exit 2 and score nothing", () => {
  it("fails when the sandbox cannot start, pointing at bubblewrap and --no-exec", () => {
    const config = join(scratch, "no-python.json");
    writeFileSync(config, JSON.stringify({ sandbox: { pythonPath: join(scratch, "no-such-python3") } }));
    const run = minedit(["score", fixture("rollouts.jsonl"), "--config", config]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      `cannot run the tests: bwrap sandbox: interpreter ${join(scratch, "no-such-python3")}`,
    );
    expect(run.stderr).toContain("install bubblewrap (Debian: apt-get install -y bubblewrap)");
    expect(run.stderr).toContain("or pass --no-exec to score the edit distance only");
  });

  it.each([
    [["score", "missing.jsonl", "--no-exec"], "FILE: cannot read missing.jsonl: no such file"],
    [["score", "--no-exec"], "missing FILE"],
    [["score", "a.jsonl", "b.jsonl", "--no-exec"], "expected one FILE, got 2"],
    [
      ["score", "x.jsonl", "--no-exec", "--tasks", "nope.jsonl"],
      "--tasks: cannot read nope.jsonl: no such file",
    ],
    [["score", "tests", "--no-exec"], "cannot read tests: is a directory"],
    [["score", "-", "--no-exec", "--tasks", "-"], "FILE and --tasks cannot both read stdin"],
    [["score", "x.jsonl", "--no-exec", "--bogus"], "Unknown option '--bogus'"],
    [
      ["score", "x.jsonl", "--no-exec", "--lambda-edit", "abc"],
      '--lambda-edit: expected a number, got "abc"',
    ],
    [["score", "x.jsonl", "--no-exec", "--lambda-edit=-1"], "reward.lambdaEdit: Too small"],
    [["score", "x.jsonl", "--no-exec", "--threads", "0"], "pool.threads: Too small"],
    [["score", "x.jsonl", "--wall-time-ms", "0"], "sandbox.wallTimeMs: Too small"],
    [["score", "x.jsonl", "--wall-time-ms", "1.5"], "sandbox.wallTimeMs: Invalid input: expected int"],
    [["score", "x.jsonl", "--cpu-time-ms=-1"], "sandbox.cpuTimeMs: Too small"],
    [["score", "x.jsonl", "--cpu-time-ms", "1.5"], "sandbox.cpuTimeMs: Invalid input: expected int"],
    [["score", "x.jsonl", "--cpu-time-ms", "lots"], '--cpu-time-ms: expected a number, got "lots"'],
    [
      ["tasks", "build", "--source", "x.jsonl", "--out", "x-out.jsonl", "--cpu-time-ms", "x"],
      '--cpu-time-ms: expected an integer, got "x"',
    ],
    [
      ["tasks", "build", "--source", "x.jsonl", "--out", "x-out.jsonl", "--cpu-time-ms=-1"],
      "--cpu-time-ms: expected an integer ≥ 0, got -1",
    ],
    [["score", "x.jsonl", "--memory-mb", "lots"], '--memory-mb: expected a number, got "lots"'],
    [["score", "x.jsonl", "--memory-mb", "0"], "sandbox.memoryBytes: Too small"],
    [["score", "x.jsonl", "--concurrency", "0"], "sandbox.executionConcurrency: Too small"],
    [["score", "x.jsonl", "--no-exec", "--variant", "fast"], "reward.variant: Invalid option"],
    [
      ["score", "x.jsonl", "--no-exec", "--config", "nope.json"],
      "--config: cannot read nope.json: no such file",
    ],
    [["frobnicate"], 'unknown command "frobnicate"'],
    [[], "Usage: minedit <command>"],
  ])("minedit %j", (args, message) => {
    const run = minedit(args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(message);
  });

  it("names the flag behind an invalid config field, and a bad key in the config file", () => {
    expect(minedit(["score", "x.jsonl", "--no-exec", "--lambda-edit=-1"]).stderr).toContain(
      "(from --lambda-edit)",
    );
    const config = join(scratch, "bad-config.json");
    writeFileSync(config, JSON.stringify({ reward: { lambdaEdt: 1 } }));
    const run = score(fixture("rollouts.jsonl"), "--config", config);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`reward.lambdaEdt: Unrecognized key: "lambdaEdt" (in ${config})`);
  });
});

describe("help and version", () => {
  it("minedit --help lists the commands, exit codes and the reward formula", () => {
    const run = minedit(["--help"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Usage: minedit <command> [options]");
    expect(run.stdout).toContain("score FILE.jsonl [options]  score completions offline: run their tests");
    expect(run.stdout).toContain("reward = λexec − λedit·(d(M,C) − d(G,C))");
    expect(run.stdout).toContain("2 usage error");
  });

  it("minedit score --help documents rows, every flag with its default, exit codes and the formula", () => {
    const run = minedit(["score", "--help"]);
    expect(run.status).toBe(0);
    expect(minedit(["help", "score"]).stdout).toBe(run.stdout);
    const help = run.stdout;
    expect(help).toContain("reward = λexec − λedit·(d(M,C) − d(G,C))");
    expect(help).toContain('{"id": "r1", "completion": ');
    expect(help).toContain('{"id": "r2", "task_id": "t1", "completion": ');
    expect(help).toContain('{"task_id": "t1", "corrupted": ');
    for (const flag of [
      "--no-exec",
      "--tasks FILE",
      "--variant NAME",
      "--lambda-exec N",
      "--lambda-edit N",
      "--lambda-cc N",
      "--failure-reward N",
      "--scope NAME",
      "--wall-time-ms N",
      "--cpu-time-ms N",
      "--memory-mb N",
      "--concurrency N",
      "--threads N",
      "--config FILE.json",
      "-h, --help",
    ]) {
      expect(help).toContain(`  ${flag}`);
    }
    for (const fragment of [
      "(default: full)",
      "(default: 0.1)",
      "(default: 1)",
      "(default: -0.2)",
      "(default: program)",
      "(default: 10000)",
      "(default: 1024)",
    ]) {
      expect(help).toContain(fragment);
    }
    // Execution, and one example of each test style.
    expect(help).toContain("bubblewrap sandbox");
    expect(help).toContain('unittest: {"style": "unittest", "code": "import unittest');
    expect(help).toContain('assert:   {"style": "assert", "code": "def check(candidate):');
    expect(help).toContain('stdio:    {"style": "stdio", "cases": [{"input": ');
    expect(help).toMatch(/Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 .*\n {2}3 /);
  });

  it("the launcher asks for a build when dist/ is missing", () => {
    const bin = join(scratch, "bin");
    mkdirSync(bin);
    copyFileSync(join(ROOT, "bin", "minedit.js"), join(bin, "minedit.js"));
    const result = spawnSync(process.execPath, [join(bin, "minedit.js"), "--help"], { encoding: "utf8" });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain("run `npm run build` first");
  });

  it("minedit --version prints the package version", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    const run = minedit(["--version"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`${pkg.version}\n`);
  });
});

describe("Progress", () => {
  function fakeStream(isTTY: boolean): ProgressStream & { written: string[] } {
    const written: string[] = [];
    return {
      isTTY,
      columns: 80,
      written,
      write(chunk: string) {
        written.push(chunk);
        return true;
      },
    };
  }

  it("prints nothing for short runs when stderr is not a terminal, then a plain line every 5 s", () => {
    let now = 0;
    const stream = fakeStream(false);
    const progress = new Progress({
      stream,
      label: "minedit score",
      unit: "rows",
      totalBytes: 1000,
      now: () => now,
    });
    now = 1000;
    progress.update(100, 200);
    expect(stream.written).toEqual([]);
    now = PLAIN_INTERVAL_MS;
    progress.update(1000, 500);
    now = PLAIN_INTERVAL_MS + 1000;
    progress.update(1200, 600);
    now = 2 * PLAIN_INTERVAL_MS;
    progress.update(2000, 1000);
    expect(stream.written).toEqual([
      "minedit score: 50% of input, 1,000 rows, 200 rows/s\n",
      "minedit score: 100% of input, 2,000 rows, 200 rows/s\n",
    ]);
    progress.log("bad row");
    progress.clear();
    expect(stream.written.slice(2)).toEqual(["bad row\n"]);
  });

  it("redraws a bar in place on a terminal and erases it before other output", () => {
    let now = 0;
    const stream = fakeStream(true);
    const progress = new Progress({
      stream,
      label: "minedit score",
      unit: "rows",
      totalBytes: 100,
      now: () => now,
    });
    now = 500;
    progress.update(50, 25);
    expect(stream.written).toEqual([`\r\x1b[K[${"#".repeat(6)}${"-".repeat(18)}]  25%  50 rows, 100 rows/s`]);
    progress.log("file:3: bad");
    expect(stream.written.slice(1)).toEqual(["\r\x1b[K", "file:3: bad\n"]);
    now = 550; // throttled
    progress.update(60, 30);
    expect(stream.written).toHaveLength(3);
    now = 1000;
    progress.update(100, 100);
    progress.clear();
    expect(stream.written.slice(3)).toEqual([
      `\r\x1b[K[${"#".repeat(24)}] 100%  100 rows, 100 rows/s`,
      "\r\x1b[K",
    ]);
  });

  it("gives slow rates two significant digits rather than rounding them to 0/s", () => {
    expect([0, 0.04321, 0.5, 2.345, 9.96, 10.4, 12_345.6].map(formatRate)).toEqual([
      "0",
      "0.043",
      "0.5",
      "2.3",
      "10",
      "10",
      "12,346",
    ]);
  });
});
