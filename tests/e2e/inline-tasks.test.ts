/**
 * Inline tasks through the whole service, nothing faked (startService: the metrics pool, the real
 * bubblewrap sandbox with the bigcodebench runtime, the grpc-js server on 127.0.0.1:0, a real client):
 *
 * - a task that names no runtime runs in the one its imports call for (numpy → bigcodebench), as a task
 *   file's row would after `minedit tasks build`; one that names a runtime runs in that one;
 * - an unknown runtime is INVALID_ARGUMENT naming the field; a runtime the server cannot run is
 *   FAILED_PRECONDITION naming `minedit setup --runtime NAME` (a server whose interpreter finds no
 *   library: Debian's python3 with `-S`);
 * - a task whose gold fails its own tests gives INVALID_TASK (no reward) to every rollout, whatever its
 *   completion; the gold runs once per task content (counted with the sandbox's runs).
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Client, credentials, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_TASK_FILE } from "../../src/cli/service-options.js";
import { parseConfig } from "../../src/config.js";
import { type RolloutSchema, Verdict } from "../../src/gen/minedit/v1/reward_pb.js";
import { type Service, startService } from "../../src/server/service.js";
import { callError, scoreBatch } from "../server/harness.js";

type RolloutInit = MessageInitShape<typeof RolloutSchema>;
type TaskInit = Extract<NonNullable<RolloutInit["taskRef"]>, { case: "task" }>["value"];

const fence = (code: string) => `\`\`\`python\n${code}\`\`\``;

/** numpy in the programs and the tests: the bigcodebench runtime (sandbox/runtimes.json) has it. */
const NUMPY_TASK: TaskInit = {
  corrupted: "import numpy as np\n\ndef task_func(n):\n    return np.arange(n).sum() + 1\n",
  gold: "import numpy as np\n\ndef task_func(n):\n    return np.arange(n).sum()\n",
  tests: {
    style: {
      case: "unittest",
      value: {
        code:
          "import unittest\nimport numpy as np\n\nclass TestCases(unittest.TestCase):\n" +
          "    def test_sum(self):\n        self.assertEqual(task_func(4), 6)\n" +
          "        self.assertIsInstance(task_func(3), np.integer)\n",
      },
    },
  },
};

/** A task whose gold fails its own tests (the expected value is wrong): nothing can pass it. */
const BROKEN_TASK: TaskInit = {
  corrupted: "def add(a, b):\n    return a - b\n",
  gold: "def add(a, b):\n    return a + b\n",
  entryPoint: "add",
  tests: {
    style: { case: "assert", value: { code: "def check(candidate):\n    assert candidate(1, 2) == 4\n" } },
  },
};

const rollout = (id: string, completion: string, task: TaskInit, groupId = ""): RolloutInit => ({
  id,
  completion,
  groupId,
  taskRef: { case: "task", value: task },
});

let engine: Service;
let client: Client;

/** Programs the service's sandbox has run (its own counter, minedit_sandbox_starts_total). */
async function sandboxRuns(): Promise<number> {
  const counter = await engine.metrics.sandboxStarts.get();
  return counter.values.reduce((sum, { value }) => sum + value, 0);
}

/** The whole service on 127.0.0.1:0 with the demo tasks and `sandbox` settings, and a client of it. */
async function serviceWithClient(sandbox: Record<string, unknown>): Promise<[Service, Client]> {
  const config = parseConfig({ server: { port: 0 }, pool: { threads: 1 }, sandbox });
  const service = await startService(config, [DEFAULT_TASK_FILE], true, () => {});
  return [service, new Client(`127.0.0.1:${service.server.port}`, credentials.createInsecure())];
}

beforeAll(async () => {
  [engine, client] = await serviceWithClient({ wallTimeMs: 20_000 });
}, 300_000);

afterAll(async () => {
  client?.close();
  await engine?.close();
});

describe("the runtime of an inline task", () => {
  test("no runtime named: picked from the imports (numpy → bigcodebench); the gold passes, C fails", async () => {
    const response = await scoreBatch(client, {
      rollouts: [
        rollout("gold", fence(NUMPY_TASK.gold as string), NUMPY_TASK),
        rollout("corrupted", fence(NUMPY_TASK.corrupted as string), NUMPY_TASK),
      ],
    });
    const [gold, corrupted] = response.results;
    expect(gold).toMatchObject({ verdict: Verdict.PASSED, reward: 0.1, testsPassed: 1, testsTotal: 1 });
    expect(corrupted).toMatchObject({ verdict: Verdict.FAILED_TESTS, reward: -0.2 });
  }, 120_000);

  test("a runtime named is the one used: the same task in stdlib cannot import numpy, so it is INVALID_TASK", async () => {
    const inStdlib = { ...NUMPY_TASK, runtime: "stdlib" };
    const response = await scoreBatch(client, {
      rollouts: [rollout("gold", fence(NUMPY_TASK.gold as string), inStdlib)],
    });
    const [gold] = response.results;
    expect(gold?.verdict).toBe(Verdict.INVALID_TASK);
    expect(gold?.reward).toBeUndefined();
    expect(gold?.detail).toMatch(/gold program does not pass its own tests/);
    expect(gold?.detail).toMatch(/numpy/);
  }, 120_000);

  test("an unknown runtime is INVALID_ARGUMENT naming the field and the known ones", async () => {
    const error = await callError(
      scoreBatch(client, {
        rollouts: [rollout("a", "x", { ...NUMPY_TASK, runtime: "tensorflow" })],
      }),
    );
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toMatch(
      /^rollouts\[0\]\.task\.runtime: unknown runtime "tensorflow" \(known: stdlib, bigcodebench/,
    );
  });
});

describe("a task whose gold fails its own tests", () => {
  test("every rollout is INVALID_TASK with no reward, whatever its completion; the gold runs once", async () => {
    const completions = [
      fence(BROKEN_TASK.gold as string),
      fence(BROKEN_TASK.corrupted as string),
      "no code here",
      "",
    ];
    const first = await scoreBatch(client, {
      rollouts: completions.map((c, i) => rollout(`r${i}`, c, BROKEN_TASK, "g")),
    });
    for (const result of first.results) {
      expect(result).toMatchObject({
        verdict: Verdict.INVALID_TASK,
        groupId: "g",
        testsPassed: 0,
        testsTotal: 0,
      });
      expect(result.reward).toBeUndefined();
      expect(result.detail).toMatch(/^the task's gold program does not pass its own tests \(FAILED_TESTS/);
    }
    // Known now: the next call runs nothing at all for it.
    const before = await sandboxRuns();
    const second = await scoreBatch(client, {
      rollouts: [rollout("again", fence("def add(a, b):\n    return b + a\n"), BROKEN_TASK)],
    });
    expect(second.results[0]?.verdict).toBe(Verdict.INVALID_TASK);
    expect(await sandboxRuns()).toBe(before);
  }, 120_000);

  test("a task whose gold passes is scored as usual beside a broken one in the same call", async () => {
    const response = await scoreBatch(client, {
      rollouts: [
        rollout("broken", fence(BROKEN_TASK.gold as string), BROKEN_TASK),
        rollout("fine", fence(NUMPY_TASK.gold as string), NUMPY_TASK),
      ],
    });
    const byId = new Map(response.results.map((r) => [r.id, r]));
    expect(byId.get("broken")?.verdict).toBe(Verdict.INVALID_TASK);
    expect(byId.get("fine")).toMatchObject({ verdict: Verdict.PASSED, reward: 0.1 });
  }, 120_000);
});

describe("a runtime this server cannot run", () => {
  let bare: Service;
  let bareClient: Client;
  const dir = join("/var/tmp", `minedit-python-no-site-${process.pid}`);

  beforeAll(async () => {
    // Debian's interpreter without `site`: it finds none of the bigcodebench runtime's libraries.
    // Not under /tmp (the sandbox's scratch would hide it).
    mkdirSync(join(dir, "bin"), { recursive: true });
    const python = join(dir, "bin", "python3");
    writeFileSync(python, '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n');
    chmodSync(python, 0o755);
    chmodSync(dir, 0o755);
    [bare, bareClient] = await serviceWithClient({ pythonPath: python, warmInterpreters: false });
  }, 300_000);

  afterAll(async () => {
    bareClient?.close();
    await bare?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("picked from the imports: FAILED_PRECONDITION naming the runtime, the modules and what to run", async () => {
    const error = await callError(
      scoreBatch(bareClient, { rollouts: [rollout("a", fence(NUMPY_TASK.gold as string), NUMPY_TASK)] }),
    );
    expect(error.code).toBe(status.FAILED_PRECONDITION);
    expect(error.details).toMatch(/^rollouts\[0\]\.task\.runtime: runtime "bigcodebench" is not installed/);
    expect(error.details).toContain("run `minedit setup --runtime bigcodebench`");
    expect(error.details).toContain("picked from the modules the task imports: numpy");
  }, 60_000);

  test("named: the same error, and a standard-library task still scores", async () => {
    const named = await callError(
      scoreBatch(bareClient, {
        rollouts: [rollout("a", "x", { ...BROKEN_TASK, runtime: "bigcodebench" })],
      }),
    );
    expect(named.code).toBe(status.FAILED_PRECONDITION);
    expect(named.details).toContain("minedit setup --runtime bigcodebench");
    const fine = {
      ...BROKEN_TASK,
      tests: {
        style: { case: "assert" as const, value: { code: "def check(c):\n    assert c(1, 2) == 3\n" } },
      },
    };
    const response = await scoreBatch(bareClient, {
      rollouts: [rollout("ok", fence(fine.gold as string), fine)],
    });
    expect(response.results[0]).toMatchObject({ verdict: Verdict.PASSED, reward: 0.1 });
  }, 60_000);
});
