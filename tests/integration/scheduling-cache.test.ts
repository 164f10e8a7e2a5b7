import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import type { TestOutcome } from "../../src/runners/python.js";
import { type BwrapSandbox, createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import type { ExecutionRequest, ExecutionResult, Sandbox } from "../../src/sandbox/sandbox.js";
import { executionLimits } from "../../src/scoring/limits.js";
import { ResultCache } from "../../src/scoring/result-cache.js";
import type { RolloutInput, RolloutOutput } from "../../src/scoring/rollout.js";
import { ExecutingRolloutScorer } from "../../src/scoring/rollout-scorer.js";
import { type StoredTask, TaskStore } from "../../src/scoring/task-store.js";
import { MetricsPool } from "../../src/workers/metrics-pool.js";

const fence = (code: string) => `\`\`\`python\n${code}\`\`\`\n`;

/** The real sandbox; records the program of every test run, in the order they start. */
class RecordingSandbox implements Sandbox {
  readonly name = "recording";
  readonly programs: string[] = [];
  /** The signal each of those runs was given. */
  readonly signals: (AbortSignal | undefined)[] = [];
  constructor(private readonly real: BwrapSandbox) {}
  run(request: ExecutionRequest): Promise<ExecutionResult> {
    const program = request.files["program.py"];
    if (program !== undefined) {
      this.programs.push(program);
      this.signals.push(request.signal);
    }
    return this.real.run(request);
  }
  async close(): Promise<void> {}
}

const CHECK = "def check(candidate):\n    assert candidate(2, 3) == 5\n";
/** The inline task of the cross-call tests, and a rollout of it with `code` as its program. */
const inline = {
  kind: "inline" as const,
  corrupted: "def add(a, b):\n    return a - b\n",
  gold: "def add(a, b):\n    return a + b\n",
  tests: { style: "assert" as const, code: CHECK, entryPoint: "add" },
  entryPoint: "add",
};
const rollout = (id: string, code: string, task: RolloutInput["task"] = inline): RolloutInput => ({
  id,
  completion: fence(code),
  task,
  groupId: "",
});

function storedTask(taskId: string, body: string): StoredTask {
  return {
    taskId,
    gold: `def add(a, b):\n    ${body}\n    return a + b\n`,
    corrupted: `def add(a, b):\n    ${body}\n    return a - b\n`,
    tests: { style: "assert", code: CHECK, entryPoint: "add" },
    entryPoint: "add",
  };
}

let pool: MetricsPool;
let real: BwrapSandbox;

// The pool runs dist/workers/, built once by the global setup (tests/setup/build-dist.ts).
beforeAll(async () => {
  pool = new MetricsPool(1);
  real = await createBwrapSandbox();
}, 120_000);

afterAll(async () => {
  await Promise.all([pool?.close(), real?.close()]);
});

async function scoreAll(scorer: ExecutingRolloutScorer, inputs: RolloutInput[]): Promise<RolloutOutput[]> {
  const outputs: RolloutOutput[] = [];
  for await (const o of scorer.score(inputs, undefined, new AbortController().signal)) outputs.push(o);
  return inputs.map((input) => outputs.find((o) => o.id === input.id) as RolloutOutput);
}

describe("slowest first", () => {
  it("starts the executions of a batch in decreasing expected time, ties in rollout order", async () => {
    const tasks = [storedTask("fast-1", "x = 1"), storedTask("slow", "x = 2"), storedTask("fast-2", "x = 3")];
    const sandbox = new RecordingSandbox(real);
    const config = parseConfig({ sandbox: { executionConcurrency: 1, resultCacheBytes: 0 } });
    const limits = new Map(tasks.map((t) => [t.taskId, executionLimits(config)]));
    const scorer = ExecutingRolloutScorer.fromConfig(config, {
      pool,
      sandbox,
      tasks: TaskStore.fromTasks(tasks),
      gate: {
        refused: new Map(),
        limits,
        expected: new Map([
          ["fast-1", 20],
          ["slow", 900],
          ["fast-2", 20],
        ]),
      },
    });
    const inputs = tasks.map((t, i) => ({
      id: String(i),
      completion: fence(t.gold),
      task: { kind: "stored" as const, taskId: t.taskId },
      groupId: "",
    }));
    const outputs = await scoreAll(scorer, inputs);
    expect(outputs.map((o) => o.verdict)).toEqual(["PASSED", "PASSED", "PASSED"]);
    expect(sandbox.programs.map((p) => /x = (\d)/.exec(p)?.[1])).toEqual(["2", "1", "3"]);
    await scorer.close();
  });
});

describe("outcomes remembered across calls", () => {
  it("a second call with the same normalized program runs nothing and says cached; the verdict is the same", async () => {
    const sandbox = new RecordingSandbox(real);
    const config = parseConfig({
      sandbox: { executionConcurrency: 1, wallTimeMs: 2000, cpuTimeMs: 0 },
      tasks: { inlineGoldCheck: false }, // only the rollouts' own runs are counted
    });
    const scorer = ExecutingRolloutScorer.fromConfig(config, {
      pool,
      sandbox,
      tasks: TaskStore.fromTasks([]),
    });
    const [first] = await scoreAll(scorer, [rollout("a", inline.gold)]);
    // The same program with a comment: the same norm(M), so the same execution.
    const [second] = await scoreAll(scorer, [rollout("b", `${inline.gold}# again\n`)]);
    expect(first).toMatchObject({ verdict: "PASSED", cached: false });
    expect(second).toMatchObject({ verdict: "PASSED", cached: true, reward: first?.reward });
    const [failing] = await scoreAll(scorer, [rollout("c", inline.corrupted)]);
    const [failingAgain] = await scoreAll(scorer, [rollout("d", inline.corrupted)]);
    expect(failing).toMatchObject({ verdict: "FAILED_TESTS", cached: false });
    expect(failingAgain).toMatchObject({ verdict: "FAILED_TESTS", cached: true });
    expect(sandbox.programs).toHaveLength(2);
    await scorer.close();
  });

  it("a TIMEOUT is run again every time (it depends on the machine's load)", async () => {
    const sandbox = new RecordingSandbox(real);
    const config = parseConfig({
      sandbox: { executionConcurrency: 1, wallTimeMs: 1500, cpuTimeMs: 0 },
      tasks: { inlineGoldCheck: false }, // only the rollouts' own runs are counted
    });
    const scorer = ExecutingRolloutScorer.fromConfig(config, {
      pool,
      sandbox,
      tasks: TaskStore.fromTasks([]),
    });
    const hang = "import time\ndef add(a, b):\n    time.sleep(30)\n";
    const [first] = await scoreAll(scorer, [rollout("a", hang)]);
    const [second] = await scoreAll(scorer, [rollout("b", hang)]);
    expect(first).toMatchObject({ verdict: "TIMEOUT", cached: false });
    expect(second).toMatchObject({ verdict: "TIMEOUT", cached: false });
    expect(sandbox.programs).toHaveLength(2);
    await scorer.close();
  }, 30_000);

  it("is bounded by its byte estimate, least recently used out first; never keeps INFRA_ERROR", () => {
    const outcome = (verdict: TestOutcome["verdict"]): TestOutcome => ({
      verdict,
      testsPassed: 0,
      testsTotal: 1,
      wallTimeMs: 1,
      stderrTail: "",
      detail: "",
    });
    const cache = new ResultCache(3 * (2 * 1 + 256));
    cache.set("a", outcome("PASSED"));
    cache.set("b", outcome("FAILED_TESTS"));
    cache.set("c", outcome("RUNTIME_ERROR"));
    expect(cache.get("a")?.verdict).toBe("PASSED"); // a is now the most recently used
    cache.set("d", outcome("PASSED"));
    expect(cache.get("b")).toBeUndefined();
    expect([cache.get("a"), cache.get("c"), cache.get("d")].every((o) => o !== undefined)).toBe(true);
    cache.set("e", outcome("INFRA_ERROR"));
    cache.set("f", outcome("TIMEOUT"));
    expect(cache.get("e")).toBeUndefined();
    expect(cache.get("f")).toBeUndefined();
    expect(cache.size).toBe(3);
  });
});

describe("runs under way joined across calls", () => {
  // Runs for 3 s and passes: a second call's metrics come back well within that even on a loaded machine,
  // so it arrives while the run is under way (a finished run would answer it from the result cache).
  const slow = "import time\ndef add(a, b):\n    time.sleep(3.0)\n    return a + b\n";

  function scorerWith(sandbox: RecordingSandbox, resultCacheBytes?: number): ExecutingRolloutScorer {
    const config = parseConfig({
      sandbox: {
        executionConcurrency: 2,
        wallTimeMs: 10_000,
        cpuTimeMs: 0,
        ...(resultCacheBytes === undefined ? {} : { resultCacheBytes }),
      },
      tasks: { inlineGoldCheck: false }, // only the rollouts' own runs are counted
    });
    return ExecutingRolloutScorer.fromConfig(config, { pool, sandbox, tasks: TaskStore.fromTasks([]) });
  }

  /** One call's outputs; a call cancelled midway yields what it had (its rollouts then say so). */
  async function call(
    scorer: ExecutingRolloutScorer,
    input: RolloutInput,
    signal = new AbortController().signal,
  ) {
    const outputs: RolloutOutput[] = [];
    for await (const o of scorer.score([input], undefined, signal)) outputs.push(o);
    return outputs[0];
  }

  /** Programs the pool's workers have looked up so far: grows when a call's metrics come back. */
  function programsAnalyzed(): number {
    const { hits, misses } = pool.programCache();
    return hits + misses;
  }

  async function runsStarted(sandbox: RecordingSandbox, count: number): Promise<void> {
    while (sandbox.programs.length < count) await new Promise((r) => setTimeout(r, 10));
  }

  it("a call whose program is running for another call joins that run: one execution, the same verdict", async () => {
    const sandbox = new RecordingSandbox(real);
    const scorer = scorerWith(sandbox);
    const first = call(scorer, rollout("a", slow));
    await runsStarted(sandbox, 1);
    // The same norm(M), sent while the first run is under way (a slot is free: it could have run).
    const second = await call(scorer, rollout("b", `${slow}# again\n`));
    expect(await first).toMatchObject({ verdict: "PASSED", cached: false });
    expect(second).toMatchObject({ verdict: "PASSED", cached: true });
    expect(sandbox.programs).toHaveLength(1);
    await scorer.close();
  }, 30_000);

  it("with the result cache off, every call runs its own", async () => {
    const sandbox = new RecordingSandbox(real);
    const scorer = scorerWith(sandbox, 0);
    const first = call(scorer, rollout("a", slow));
    await runsStarted(sandbox, 1);
    const second = await call(scorer, rollout("b", slow));
    expect(await first).toMatchObject({ verdict: "PASSED", cached: false });
    expect(second).toMatchObject({ verdict: "PASSED", cached: false });
    expect(sandbox.programs).toHaveLength(2);
    await scorer.close();
  }, 30_000);

  it("a cancelled call leaves the run to the call that joined it; the run stops when no call waits", async () => {
    const sandbox = new RecordingSandbox(real);
    const scorer = scorerWith(sandbox);
    const cancelledCall = new AbortController();
    const first = call(scorer, rollout("a", slow), cancelledCall.signal);
    await runsStarted(sandbox, 1);
    const analyzed = programsAnalyzed();
    const second = call(scorer, rollout("b", slow));
    // The second call joins the run as soon as its metrics come back (no await between the two), so
    // once the pool has reported them, and this timer runs after that, it has joined.
    while (programsAnalyzed() === analyzed) await new Promise((r) => setTimeout(r, 5));
    cancelledCall.abort();
    expect((await first)?.verdict).not.toBe("PASSED");
    expect(await second).toMatchObject({ verdict: "PASSED", cached: true });
    expect(sandbox.programs).toHaveLength(1);
    expect(sandbox.signals[0]?.aborted).toBe(false);

    // Alone, a cancelled call's run is stopped (and a later call runs the program afresh).
    const alone = new AbortController();
    const lone = call(scorer, rollout("c", `${slow}# alone\n`.replace("3.0", "4.0")), alone.signal);
    await runsStarted(sandbox, 2);
    alone.abort();
    expect((await lone)?.verdict).not.toBe("PASSED");
    expect(sandbox.signals[1]?.aborted).toBe(true);
    await scorer.close();
  }, 30_000);

  it("a call cancelled during an inline task's gold check leaves the check to the call that joined it", async () => {
    // A gold that fails its own tests after 3 s: every rollout of the task is INVALID_TASK once it is known.
    const brokenGold = "import time\ndef add(a, b):\n    time.sleep(3.0)\n    return a - b\n";
    const task = { ...inline, gold: brokenGold };
    const sandbox = new RecordingSandbox(real);
    const config = parseConfig({ sandbox: { executionConcurrency: 2, wallTimeMs: 10_000, cpuTimeMs: 0 } });
    const scorer = ExecutingRolloutScorer.fromConfig(config, {
      pool,
      sandbox,
      tasks: TaskStore.fromTasks([]),
    });
    const goldRuns = () => sandbox.programs.filter((program) => program === brokenGold).length;
    const cancelledCall = new AbortController();
    const fine = "def add(a, b):\n    return a + b\n";
    const first = call(scorer, rollout("a", fine, task), cancelledCall.signal);
    while (goldRuns() === 0) await new Promise((r) => setTimeout(r, 10));
    const analyzed = programsAnalyzed();
    const second = call(scorer, rollout("b", `${fine}# b\n`, task));
    while (programsAnalyzed() === analyzed) await new Promise((r) => setTimeout(r, 5));
    cancelledCall.abort();
    expect((await first)?.verdict).not.toBe("INVALID_TASK");
    // The check went on for the second call (before, it ended with the first call's and was "unknown":
    // the rollout kept its own PASSED).
    expect(await second).toMatchObject({ verdict: "INVALID_TASK" });
    expect((await second)?.detail).toMatch(/gold program does not pass its own tests \(FAILED_TESTS/);
    expect(goldRuns()).toBe(1);
    await scorer.close();
  }, 30_000);
});
