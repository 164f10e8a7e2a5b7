/**
 * The piscina pool (real worker threads running the built worker): batch results equal the pure core's,
 * come back in request order, duplicates are fanned out, and a task with invalid Python is reported per
 * rollout instead of failing the batch.
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseConfig } from "../../src/config.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
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

let pool: MetricsPool;

beforeAll(async () => {
  const build = spawnSync("npx", ["tsc", "-p", "tsconfig.json"], { stdio: "inherit" });
  if (build.status !== 0) throw new Error("build failed");
  await loadPythonGrammar();
  pool = new MetricsPool(2);
}, 300_000);

afterAll(async () => {
  await pool.close();
});

describe("MetricsPool", () => {
  test("scores like the pure core, in request order, duplicates included", async () => {
    const requests: MetricsRequest[] = completions.map((completion) => ({
      corrupted,
      gold,
      completion,
      config,
    }));
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
