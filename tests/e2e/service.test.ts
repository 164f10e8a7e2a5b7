import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { Client, credentials, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_TASK_FILE } from "../../src/cli/service-options.js";
import { parseConfig } from "../../src/config.js";
import { ScoreStreamRequestSchema, Verdict } from "../../src/gen/minedit/v1/reward_pb.js";
import { type Service, startService } from "../../src/server/service.js";
import { callError, collect, scoreBatch, scoreStream } from "../server/harness.js";

type TaskRow = { task_id: string; gold: string; corrupted: string; tests: { style: string } };
const tasks = readFileSync(DEFAULT_TASK_FILE, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as TaskRow);
const byStyle = (style: string) => tasks.find((t) => t.tests.style === style) as TaskRow;
const fence = (code: string) => `\`\`\`python\n${code}\`\`\``;

let engine: Service;
let client: Client;

// The service's metrics pool runs dist/workers/, built once by the global setup (tests/setup/build-dist.ts).
beforeAll(async () => {
  const config = parseConfig({ server: { port: 0 }, pool: { threads: 2 }, sandbox: { wallTimeMs: 3000 } });
  engine = await startService(config, [DEFAULT_TASK_FILE], true);
  client = new Client(`127.0.0.1:${engine.server.port}`, credentials.createInsecure());
}, 300_000);

afterAll(async () => {
  client?.close();
  await engine?.close();
});

describe("ScoreBatch with execution", () => {
  test.each(["unittest", "assert", "stdio"])(
    "%s tasks: gold passes with 0.1, corrupted fails with -0.2",
    async (style) => {
      const task = byStyle(style);
      const response = await scoreBatch(client, {
        rollouts: [
          { id: "gold", completion: fence(task.gold), taskRef: { case: "taskId", value: task.task_id } },
          { id: "corrupted", completion: task.corrupted, taskRef: { case: "taskId", value: task.task_id } },
        ],
      });
      const [gold, corrupted] = response.results;
      expect(gold).toMatchObject({ id: "gold", verdict: Verdict.PASSED, reward: 0.1, cached: false });
      expect(gold?.testsPassed).toBe(gold?.testsTotal);
      expect(gold?.testsTotal).toBeGreaterThan(0);
      expect(corrupted).toMatchObject({ id: "corrupted", verdict: Verdict.FAILED_TESTS, reward: -0.2 });
      expect(corrupted?.components?.dModel).toBe(0);
    },
  );

  test("a hostile rollout gets its verdict and the rest of the batch is scored normally", async () => {
    const task = byStyle("unittest");
    const ref = { case: "taskId" as const, value: task.task_id };
    const response = await scoreBatch(client, {
      rollouts: [
        { id: "loop", completion: `${task.gold}\nwhile True:\n    pass\n`, taskRef: ref },
        { id: "exit", completion: `import os\n${task.gold}\nos._exit(0)\n`, taskRef: ref },
        { id: "ok", completion: fence(task.gold), taskRef: ref },
        { id: "dup", completion: fence(task.gold), taskRef: ref },
      ],
    });
    const byId = new Map(response.results.map((r) => [r.id, r]));
    expect(byId.get("loop")).toMatchObject({ verdict: Verdict.TIMEOUT, reward: -0.2 });
    expect(byId.get("exit")?.verdict).not.toBe(Verdict.PASSED);
    expect(byId.get("ok")).toMatchObject({ verdict: Verdict.PASSED, reward: 0.1 });
    // Identical (task, normalized program) pairs execute once: at most one of the two ran (an earlier
    // test scored this gold already, so the scorer's cross-call cache may answer both).
    expect(
      [byId.get("ok")?.cached, byId.get("dup")?.cached].filter((cached) => cached === false).length,
    ).toBeLessThanOrEqual(1);
    expect(byId.get("dup")?.verdict).toBe(Verdict.PASSED);
  }, 60_000);

  test("an inline task with stdin/stdout tests", async () => {
    const gold = "n = int(input())\nprint(n * 2)\n";
    const corrupted = "n = int(input())\nprint(n * 3)\n";
    const response = await scoreBatch(client, {
      rollouts: [
        {
          id: "inline",
          completion: fence(gold),
          taskRef: {
            case: "task",
            value: {
              corrupted,
              gold,
              tests: {
                style: {
                  case: "stdio",
                  value: {
                    cases: [
                      { input: "2\n", output: "4\n" },
                      { input: "5", output: "10" },
                    ],
                  },
                },
              },
            },
          },
        },
      ],
    });
    expect(response.results[0]).toMatchObject({
      verdict: Verdict.PASSED,
      reward: 0.1,
      testsPassed: 2,
      testsTotal: 2,
    });
  });

  test("an unknown task id is NOT_FOUND naming the id, and the server keeps serving", async () => {
    const error = await callError(
      scoreBatch(client, {
        rollouts: [{ id: "x", completion: "pass", taskRef: { case: "taskId", value: "no/such-task" } }],
      }),
    );
    expect(error.code).toBe(status.NOT_FOUND);
    expect(error.details).toContain("no/such-task");
    const task = byStyle("assert");
    const ok = await scoreBatch(client, {
      rollouts: [{ id: "y", completion: task.gold, taskRef: { case: "taskId", value: task.task_id } }],
    });
    expect(ok.results[0]?.verdict).toBe(Verdict.PASSED);
  });

  test("an expired deadline stops the call with DEADLINE_EXCEEDED", async () => {
    const task = byStyle("unittest");
    const error = await callError(
      scoreBatch(
        client,
        {
          rollouts: [
            {
              id: "slow",
              completion: `import time\ntime.sleep(30)\n${task.gold}`,
              taskRef: { case: "taskId", value: task.task_id },
            },
          ],
        },
        { call: { deadline: Date.now() + 1000 } },
      ),
    );
    expect(error.code).toBe(status.DEADLINE_EXCEEDED);
  });
});

describe("ScoreStream with execution", () => {
  test("results stream back for every rollout of every message", async () => {
    const stream = scoreStream(client);
    const results = collect(stream);
    for (const task of tasks.slice(0, 3)) {
      stream.write(
        create(ScoreStreamRequestSchema, {
          rollouts: [
            {
              id: task.task_id,
              completion: fence(task.gold),
              taskRef: { case: "taskId", value: task.task_id },
            },
          ],
        }),
      );
    }
    stream.end();
    const responses = await results;
    expect(responses.map((r) => r.result?.id).sort()).toEqual(
      tasks
        .slice(0, 3)
        .map((t) => t.task_id)
        .sort(),
    );
    expect(responses.every((r) => r.result?.verdict === Verdict.PASSED && r.result.reward === 0.1)).toBe(
      true,
    );
  });
});
