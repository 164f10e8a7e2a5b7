import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseConfig } from "../../src/config.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { outputLine } from "../../src/core/rollout-row.js";
import { prepareTask, scoreCompletion } from "../../src/core/score-rollout.js";
import { MetricsPool, type MetricsRequest } from "../../src/workers/metrics-pool.js";

const config = parseConfig({}).reward;
const gold = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n";
const corrupted = gold.replace("total = 0", "total = 1");
const completions = [
  `\`\`\`python\n${gold}\`\`\``,
  corrupted,
  "def f(xs):\n    return sum(xs)\n",
  "def f(xs:\n",
  "",
  `\`\`\`python\n${gold}\`\`\``,
];

/** The completions above as requests of the one task. */
const requests: MetricsRequest[] = completions.map((completion) => ({ corrupted, gold, completion, config }));

let pool: MetricsPool;

// The pool runs dist/workers/, built once by the global setup (tests/setup/build-dist.ts).
beforeAll(async () => {
  await loadPythonGrammar();
  pool = new MetricsPool(2);
});

afterAll(async () => {
  await pool.close();
});

describe("MetricsPool", () => {
  test("scores like the pure core, in request order, duplicates included", async () => {
    const results = await pool.score(requests);
    const task = prepareTask(corrupted, gold, config.scope);
    expect(results).toEqual(completions.map((c) => ({ ok: true, score: scoreCompletion(task, c, config) })));
    const rewards = results.map((r) => (r.ok ? r.score.reward : null));
    expect(rewards[0]).toBe(0.1);
    expect(rewards[5]).toBe(0.1);
    expect(results.map((r) => (r.ok ? r.score.verdict : r.reason))).toEqual([
      "PASSED",
      "PASSED",
      "PASSED",
      "UNPARSABLE",
      "NO_CODE",
      "PASSED",
    ]);
  });

  test("with fillAfter, one thread until it settles, then all of them; the same scores either way", async () => {
    let settle = () => {};
    const after = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const deferred = new MetricsPool(3, { fillAfter: after });
    // Closed before its promise settles: the other threads never start.
    let settleClosed = () => {};
    const closedAfter = new Promise<void>((resolve) => {
      settleClosed = resolve;
    });
    const closed = new MetricsPool(2, { fillAfter: closedAfter });
    try {
      const expected = await pool.score(requests);
      expect(deferred.threads).toBe(1);
      expect(await deferred.score(requests)).toEqual(expected);
      expect(deferred.threads).toBe(1);
      settle();
      await after;
      expect(deferred.threads).toBe(3);
      // Many groups at once, spread over both sets of threads, in request order.
      const many: MetricsRequest[] = Array.from({ length: 12 }, (_, i) => ({
        corrupted: corrupted.replace("total = 1", `total = ${i + 2}`),
        gold,
        completion: completions[i % completions.length] as string,
        config,
      }));
      expect(await deferred.score(many)).toEqual(await pool.score(many));
      await closed.close();
      settleClosed();
      await closedAfter;
      expect(closed.threads).toBe(0);
    } finally {
      await deferred.close();
      await closed.close();
    }
  });

  test("programs seen in an earlier call come from the workers' caches: the same scores, no parse", async () => {
    // Their own pool, so earlier tests' programs are not in its caches; one thread, so one cache.
    const cached = new MetricsPool(1, { programCacheBytes: 1 << 20 });
    const off = new MetricsPool(1, { programCacheBytes: 0 });
    try {
      const first = await cached.score(requests);
      // 4 distinct programs: gold (twice in the batch, deduplicated before the worker), C, the rewrite,
      // the unparsable one; "" has no code, so nothing to look up. G and C are the task's own programs,
      // answered from the prepared task: only the rewrite and the unparsable one are looked up.
      expect(cached.programCache()).toMatchObject({
        entries: 2,
        hits: 0,
        misses: 2,
        maxBytesPerThread: 1 << 20,
      });
      expect(cached.programCache().bytes).toBeGreaterThan(0);
      // Another task's rollouts with the same completions: the programs are the same, the scores their own.
      // The old C is an ordinary program of this task (a miss); the rewrite and the unparsable one hit.
      const other = gold.replace("total = 0", "total = 2");
      const again = await cached.score(requests.map((r) => ({ ...r, corrupted: other })));
      expect(cached.programCache()).toMatchObject({ entries: 3, hits: 2, misses: 3 });
      const otherTask = prepareTask(other, gold, config.scope);
      expect(again).toEqual(
        completions.map((c) => ({ ok: true, score: scoreCompletion(otherTask, c, config) })),
      );
      expect(await cached.score(requests)).toEqual(first);
      expect(await off.score(requests)).toEqual(first);
      expect(off.programCache()).toEqual({ entries: 0, bytes: 0, hits: 0, misses: 0, maxBytesPerThread: 0 });
    } finally {
      await cached.close();
      await off.close();
    }
  });

  test("the score memo (no norm(M) wanted) answers programs seen before for the same task and config", async () => {
    const noNorm = { normalizedPrograms: false };
    const memoized = new MetricsPool(1, { programCacheBytes: 0, scoreMemoEntries: 16 });
    const off = new MetricsPool(1, { programCacheBytes: 0, scoreMemoEntries: 0 });
    try {
      const first = await memoized.score(requests, noNorm);
      expect(first).toEqual(await off.score(requests, noNorm));
      expect(first.every((r) => r.ok && r.score.normalizedProgram === null)).toBe(true);
      // Looked up: the rewrite and the unparsable program. C and G are the task's own, "" has no code.
      expect(memoized.scoreMemo()).toEqual({ entries: 2, hits: 0, misses: 2, maxEntriesPerThread: 16 });
      // The same programs in other prose are the same programs: hits, and the very same scores.
      const reworded = ["def f(xs):\n    return sum(xs)\n", "def f(xs:\n"].map((program) => ({
        corrupted,
        gold,
        completion: `I rewrote it:\n\`\`\`py\n${program}\`\`\`\nDone.`,
        config,
      }));
      const again = await memoized.score(reworded, noNorm);
      expect(memoized.scoreMemo()).toMatchObject({ entries: 2, hits: 2, misses: 2 });
      expect(again).toEqual([first[2], first[3]]);
      // Another task or another reward config is another key: misses, and their own scores.
      const other = gold.replace("total = 0", "total = 2");
      const correctnessOnly = parseConfig({ reward: { variant: "correctness_only" } }).reward;
      const elsewhere = [
        { ...(reworded[0] as MetricsRequest), corrupted: other },
        { ...(reworded[0] as MetricsRequest), config: correctnessOnly },
      ];
      const scores = await memoized.score(elsewhere, noNorm);
      expect(memoized.scoreMemo()).toMatchObject({ entries: 4, hits: 2, misses: 4 });
      expect(scores).toEqual(await off.score(elsewhere, noNorm));
      expect(scores[1]).toMatchObject({ ok: true, score: { reward: 0.1 } });
      expect(off.scoreMemo()).toEqual({ entries: 0, hits: 0, misses: 0, maxEntriesPerThread: 0 });
      // Where norm(M) is wanted (the executing path), the memo is not used.
      await memoized.score(requests);
      expect(memoized.scoreMemo()).toMatchObject({ hits: 2, misses: 4 });
    } finally {
      await memoized.close();
      await off.close();
    }
  });

  test("scoreRows reads, scores and writes a batch of rollout-file lines, numbering them as the file does", async () => {
    const rows = [
      JSON.stringify({ id: "a", completion: completions[0], corrupted, gold }),
      "",
      JSON.stringify({ id: "b", completion: completions[2], task_id: "t" }),
      "{not json",
      JSON.stringify({ id: "c", completion: "x = 1\n", task_id: "missing" }),
      JSON.stringify({ id: "d", completion: completions[2], corrupted, gold: "def broken(:\n" }),
    ];
    const bytes = new TextEncoder().encode(`${rows.join("\r\n")}\r\n`);
    const entries = new Map([["t", { kind: "ok" as const, task: { corrupted, gold }, line: 1 }]]);
    const rowsPool = new MetricsPool(1, { tasks: { name: "tasks.jsonl", entries } });
    try {
      const outcome = await rowsPool.scoreRows({ bytes, firstLine: 10 }, config);
      // The batch was moved to the worker, not copied.
      expect(bytes.byteLength).toBe(0);
      const task = prepareTask(corrupted, gold, config.scope);
      const expected = [
        outputLine(
          { id: "a", completion: "", inline: { corrupted, gold } },
          scoreCompletion(task, completions[0] as string, config),
        ),
        outputLine(
          { id: "b", completion: "", taskId: "t" },
          scoreCompletion(task, completions[2] as string, config),
        ),
      ];
      // The lines come back as UTF-8 bytes, moved from the worker (metrics-worker.ts `RowsOutcome`).
      expect(new TextDecoder().decode(outcome.output)).toBe(expected.join(""));
      expect(outcome.scored).toBe(2);
      expect(outcome.bad.map((b) => b.line)).toEqual([13, 14, 15]);
      expect(outcome.bad[0]?.reason).toMatch(/JSON/);
      expect(outcome.bad[1]?.reason).toBe('unknown task_id "missing" (not in tasks.jsonl)');
      expect(outcome.bad[2]?.reason).toMatch(
        /^inline task: the task's gold program is not valid Python 3.11/,
      );
      expect(outcome.verdicts).toEqual({ PASSED: 2 });
    } finally {
      await rowsPool.close();
    }
  });

  test("a task whose gold program is not Python is reported for its rollouts only", async () => {
    const results = await pool.score([
      { corrupted, gold: "def broken(:\n", completion: gold, config },
      { corrupted, gold, completion: gold, config },
    ]);
    expect(results[0]).toMatchObject({ ok: false, reason: "invalid_task", which: "gold" });
    expect(results[1]).toMatchObject({ ok: true, score: { verdict: "PASSED", reward: 0.1 } });
  });

  test("per-request reward configs are kept apart", async () => {
    const correctnessOnly = parseConfig({ reward: { variant: "correctness_only" } }).reward;
    const completion = "def f(xs):\n    return sum(xs)\n";
    const [full, plain] = await pool.score([
      { corrupted, gold, completion, config },
      { corrupted, gold, completion, config: correctnessOnly },
    ]);
    expect(plain).toMatchObject({ ok: true, score: { reward: 0.1 } });
    expect(full?.ok && full.score.reward !== null && full.score.reward < 0.1).toBe(true);
  });
});

describe("added cognitive complexity through the pool", () => {
  // gold: CC(G) = 1 (the for). The guarded repair: `if xs:` +1, the for under it +2 (nesting 1),
  // `if x is None:` in the loop +3 (nesting 2): CC(M) = 6, added_cc = 5. sum(xs) has CC 0: added_cc = −1.
  const guarded =
    "def f(xs):\n    total = 0\n    if xs:\n        for x in xs:\n            if x is None:\n" +
    "                continue\n            total += x\n    return total\n";
  const simpler = "def f(xs):\n    return sum(xs)\n";

  test("addedCc = CC(M) − CC(G), and edit_plus_cc = full − λcc·max(0, addedCc)", async () => {
    const lambdaCc = 0.05;
    const plusCc = parseConfig({ reward: { variant: "edit_plus_cc", lambdaCc } }).reward;
    const completions = [gold, guarded, simpler];
    const [fullResults, ccResults] = await Promise.all([
      pool.score(completions.map((completion) => ({ corrupted, gold, completion, config }))),
      pool.score(completions.map((completion) => ({ corrupted, gold, completion, config: plusCc }))),
    ]);
    const scores = (results: typeof fullResults) =>
      results.map((r) => {
        if (!r.ok || r.score.reward === null) throw new Error("expected a scored rollout");
        return r.score;
      });
    const full = scores(fullResults);
    const withCc = scores(ccResults);
    expect(full.map((s) => s.components?.addedCc)).toEqual([0, 5, -1]);
    expect(withCc.map((s) => s.components)).toEqual(full.map((s) => s.components));
    // The gold repair and the simpler one (complexity removed is not rewarded) score exactly as `full`.
    expect(withCc[0]?.reward).toBe(full[0]?.reward);
    expect(withCc[2]?.reward).toBe(full[2]?.reward);
    // The guarded one pays λcc per unit of added complexity.
    expect(withCc[1]?.reward).toBeCloseTo((full[1]?.reward as number) - lambdaCc * 5, 12);
    expect(withCc[1]?.reward).toBeLessThan(full[1]?.reward as number);
  });
});
