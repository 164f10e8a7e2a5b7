import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { ErrorCode, MineditError } from "../../src/errors.js";
import type { BwrapSandbox } from "../../src/sandbox/bwrap.js";
import { createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import type { ExecutionRequest, ExecutionResult, Sandbox } from "../../src/sandbox/sandbox.js";
import type { RolloutInput, RolloutOutput } from "../../src/scoring/rollout.js";
import { ExecutingRolloutScorer } from "../../src/scoring/rollout-scorer.js";
import { TaskStore } from "../../src/scoring/task-store.js";
import { MetricsPool } from "../../src/workers/metrics-pool.js";

/**
 * The real sandbox, whose first `failures` test runs (the runs of a candidate program; the harness's own
 * one-off compile run is left alone) fail as a sandbox that cannot start does.
 */
class BreakingSandbox implements Sandbox {
  readonly name = "breaking";
  /** Runs of the candidate's tests, and how many of them went to the fresh sandbox. */
  runs = 0;
  freshRuns = 0;
  private readonly freshSandbox: Sandbox;

  constructor(
    private readonly real: BwrapSandbox,
    private failures: number,
  ) {
    this.freshSandbox = {
      name: "breaking (fresh)",
      run: (request) => {
        if (Object.hasOwn(request.files, "program.py")) this.freshRuns += 1;
        return this.run(request);
      },
      close: async () => {},
    };
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    if (!Object.hasOwn(request.files, "program.py")) return this.real.run(request);
    this.runs += 1;
    if (this.failures > 0) {
      this.failures -= 1;
      throw new MineditError(ErrorCode.Unavailable, "bwrap: could not create the namespace (injected)");
    }
    return this.real.run(request);
  }

  fresh(): Sandbox {
    return this.freshSandbox;
  }

  async close(): Promise<void> {}
}

const GOLD = "def add(a, b):\n    return a + b\n";
const TASK = {
  kind: "inline" as const,
  corrupted: "def add(a, b):\n    return a - b\n",
  gold: GOLD,
  tests: {
    style: "assert" as const,
    code: "def check(candidate):\n    assert candidate(2, 3) == 5\n",
    entryPoint: "add",
  },
  entryPoint: "add",
};

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

async function scoreOne(sandbox: Sandbox, infraRetries: number, task = TASK): Promise<RolloutOutput> {
  // The runs counted are the rollouts' own: no inline gold check (tests/e2e/inline-tasks.test.ts) first.
  const config = parseConfig({ sandbox: { infraRetries }, tasks: { inlineGoldCheck: false } });
  const scorer = ExecutingRolloutScorer.fromConfig(config, { pool, sandbox, tasks: TaskStore.fromTasks([]) });
  const input: RolloutInput = { id: "r", completion: `\`\`\`python\n${GOLD}\`\`\``, task, groupId: "" };
  const outputs: RolloutOutput[] = [];
  for await (const output of scorer.score([input], undefined, new AbortController().signal))
    outputs.push(output);
  await scorer.close();
  return outputs[0] as RolloutOutput;
}

describe("INFRA_ERROR retries on a fresh sandbox", () => {
  it("a sandbox fault on the first run is retried on a fresh sandbox, and the rollout is scored", async () => {
    const sandbox = new BreakingSandbox(real, 1);
    const output = await scoreOne(sandbox, 1);
    expect(output.verdict).toBe("PASSED");
    expect(output.reward).toBeCloseTo(0.1, 12);
    expect(sandbox.runs).toBe(2);
    expect(sandbox.freshRuns).toBe(1);
  });

  it("bounded: when every attempt breaks, INFRA_ERROR after 1 + infraRetries runs, saying so", async () => {
    const sandbox = new BreakingSandbox(real, 10);
    const output = await scoreOne(sandbox, 2);
    expect(output.verdict).toBe("INFRA_ERROR");
    expect(output.reward).toBeNull();
    expect(output.detail).toContain("could not create the namespace");
    expect(output.detail).toContain("after 2 retries on a fresh sandbox");
    expect(sandbox.runs).toBe(3);
  });

  it("infraRetries 0 turns retries off", async () => {
    const sandbox = new BreakingSandbox(real, 1);
    expect((await scoreOne(sandbox, 0)).verdict).toBe("INFRA_ERROR");
    expect(sandbox.runs).toBe(1);
  });

  it("unusable tests are not retried: they fail the same way every time", async () => {
    const sandbox = new BreakingSandbox(real, 0);
    const unusable = {
      ...TASK,
      tests: { style: "assert" as const, code: "assert True\n", entryPoint: "add" },
    };
    const output = await scoreOne(sandbox, 3, unusable);
    expect(output.verdict).toBe("INFRA_ERROR");
    expect(output.detail).toMatch(/^unusable tests/);
    expect(sandbox.runs).toBe(1);
  });
});
