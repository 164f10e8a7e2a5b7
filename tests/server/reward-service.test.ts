import { create } from "@bufbuild/protobuf";
import { type Metadata, type MethodDefinition, status } from "@grpc/grpc-js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { ErrorCode, isMineditError, MineditError } from "../../src/errors.js";
import {
  DistanceScope,
  RewardVariant,
  type Rollout,
  RolloutSchema,
  type ScoreBatchResponse,
  ScoreStreamRequestSchema,
  type ScoreStreamResponse,
  Verdict,
} from "../../src/gen/minedit/v1/reward_pb.js";
import type { RolloutInput, RolloutOutput } from "../../src/scoring/rollout.js";
import { ExecutingRolloutScorer } from "../../src/scoring/rollout-scorer.js";
import { TaskStore } from "../../src/scoring/task-store.js";
import { startServer } from "../../src/server/server.js";
import { MetricsPool } from "../../src/workers/metrics-pool.js";
import {
  callError,
  collect,
  fakeOutput,
  GatedFakeScorer,
  ReversingFakeScorer,
  rewardClientDefinition,
  type ScoreCall,
  SignalWaitingFakeScorer,
  scoreBatch,
  scoreStream,
  startTestServer,
  stopTestServer,
  storedRollout,
  type TestServer,
  testConfig,
  unary,
} from "./harness.js";

let t: TestServer | undefined;
afterEach(async () => {
  await stopTestServer(t);
  t = undefined;
});

function fieldOf(metadata: Metadata | undefined): unknown {
  return metadata?.get("minedit-field")[0];
}

/** FAKE scorer: like ReversingFakeScorer, but throws a plain Error (a bug) when a completion is "boom". */
class BuggyFakeScorer extends ReversingFakeScorer {
  override async *score(...args: Parameters<ReversingFakeScorer["score"]>): AsyncIterable<RolloutOutput> {
    if (args[0].some((r) => r.completion === "boom"))
      throw new Error("secret internal detail at /srv/x.ts:42");
    if (args[0].some((r) => r.completion === "boom-string")) throw "a thrown string";
    if (args[0].some((r) => r.completion === "bad-result")) {
      // Contract violation: an INFRA_ERROR must carry no reward.
      yield { ...fakeOutput(args[0][0] as RolloutInput, "INFRA_ERROR"), reward: 0 };
      return;
    }
    yield* super.score(...args);
  }
}

/** FAKE scorer: fails with NotFound for task ids starting with "missing", like the real one. */
class UnknownTaskFakeScorer extends ReversingFakeScorer {
  override async *score(...args: Parameters<ReversingFakeScorer["score"]>): AsyncIterable<RolloutOutput> {
    for (const r of args[0]) {
      if (r.task.kind === "stored" && r.task.taskId.startsWith("missing")) {
        throw new MineditError(ErrorCode.NotFound, `unknown task id "${r.task.taskId}"`, {
          field: "task_id",
        });
      }
    }
    yield* super.score(...args);
  }
}

describe("ScoreBatch", () => {
  it("round-trips every task kind and returns results in request order", async () => {
    const scorer = new ReversingFakeScorer();
    t = await startTestServer(scorer);
    const response = await scoreBatch(t.client, {
      rollouts: [
        {
          id: "r0",
          completion: "print(1)",
          taskRef: { case: "taskId", value: "HumanEval/0" },
          groupId: "g0",
        },
        {
          id: "r1",
          completion: "```python\nx = 1\n```",
          taskRef: {
            case: "task",
            value: {
              corrupted: "x = 2\n",
              gold: "x = 1\n",
              tests: { style: { case: "unittest", value: { code: "class TestCases: pass" } } },
            },
          },
        },
        {
          id: "r2",
          completion: "verdict:INFRA_ERROR",
          taskRef: {
            case: "task",
            value: {
              corrupted: "def f(): return 2\n",
              gold: "def f(): return 1\n",
              entryPoint: "f",
              tests: { style: { case: "assert", value: { code: "def check(c): assert c() == 1" } } },
            },
          },
          groupId: "g1",
        },
        {
          id: "r3",
          completion: "",
          taskRef: {
            case: "task",
            value: {
              corrupted: "print(input())",
              gold: "print(input())",
              tests: {
                style: {
                  case: "stdio",
                  value: { cases: [{ input: "1\n", output: "1\n" }], floatTolerance: 1e-6 },
                },
              },
            },
          },
        },
        { id: "r4", completion: "verdict:TIMEOUT", taskRef: { case: "taskId", value: "t9" } },
      ],
      rewardOverride: {
        variant: RewardVariant.EDIT_ONLY,
        lambdaEdit: 0.5,
        scope: DistanceScope.FUNCTION_BODY,
      },
    });

    // The fake yields in reverse; the response is in request order.
    expect(response.results.map((r) => r.id)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    const [r0, , r2, , r4] = response.results;
    expect(r0?.reward).toBe(0.1);
    expect(r0?.verdict).toBe(Verdict.PASSED);
    expect(r0?.components).toMatchObject({ dModel: 0.25, dGold: 0.25, excess: 0 });
    expect(r0?.components?.addedCc).toBeUndefined();
    expect(r0?.testsPassed).toBe(3);
    expect(r0?.testsTotal).toBe(3);
    expect(r0?.timings).toMatchObject({ queueMs: 1.5, metricsMs: 2.25, executionMs: 10, totalMs: 13.75 });
    expect(r0?.groupId).toBe("g0");
    expect(r0?.detail).toBe("fake:print(1)");
    expect(r0?.rewardVersion).toBe("fake-reward/1");
    // INFRA_ERROR: reward ABSENT (not 0), so the trainer can mask the sample.
    expect(r2?.verdict).toBe(Verdict.INFRA_ERROR);
    expect(r2?.reward).toBeUndefined();
    expect(r2?.components).toBeUndefined();
    expect(r2?.groupId).toBe("g1");
    expect(r4?.verdict).toBe(Verdict.TIMEOUT);
    expect(r4?.reward).toBe(-0.2);

    // What the scorer received: validated, converted inputs and the override in config terms.
    expect(scorer.calls).toHaveLength(1);
    const call = scorer.calls[0] as ScoreCall;
    expect(call.override).toEqual({ variant: "edit_only", lambdaEdit: 0.5, scope: "function_body" });
    expect(call.rollouts).toEqual([
      { id: "r0", completion: "print(1)", task: { kind: "stored", taskId: "HumanEval/0" }, groupId: "g0" },
      {
        id: "r1",
        completion: "```python\nx = 1\n```",
        task: {
          kind: "inline",
          corrupted: "x = 2\n",
          gold: "x = 1\n",
          tests: { style: "unittest", code: "class TestCases: pass" },
          entryPoint: "",
        },
        groupId: "",
      },
      {
        id: "r2",
        completion: "verdict:INFRA_ERROR",
        task: {
          kind: "inline",
          corrupted: "def f(): return 2\n",
          gold: "def f(): return 1\n",
          tests: { style: "assert", code: "def check(c): assert c() == 1", entryPoint: "f" },
          entryPoint: "f",
        },
        groupId: "g1",
      },
      {
        id: "r3",
        completion: "",
        task: {
          kind: "inline",
          corrupted: "print(input())",
          gold: "print(input())",
          tests: { style: "stdio", cases: [{ input: "1\n", output: "1\n" }], floatTolerance: 1e-6 },
          entryPoint: "",
        },
        groupId: "",
      },
      { id: "r4", completion: "verdict:TIMEOUT", task: { kind: "stored", taskId: "t9" }, groupId: "" },
    ]);
  });

  it("passes no override when none (or only UNSPECIFIED enums) is given, and answers an empty batch", async () => {
    const scorer = new ReversingFakeScorer();
    t = await startTestServer(scorer);
    await scoreBatch(t.client, { rollouts: [storedRollout("a")] });
    await scoreBatch(t.client, {
      rollouts: [storedRollout("a")],
      rewardOverride: { variant: RewardVariant.UNSPECIFIED, scope: DistanceScope.UNSPECIFIED },
    });
    expect(scorer.calls.map((c) => c.override)).toEqual([undefined, undefined]);
    const empty = await scoreBatch(t.client, { rollouts: [] });
    expect(empty.results).toEqual([]);
    expect(scorer.calls).toHaveLength(2);
  });

  const inline = (tests: unknown, extra: Record<string, unknown> = {}) =>
    create(RolloutSchema, {
      id: "x",
      completion: "c",
      taskRef: { case: "task", value: { corrupted: "a", gold: "b", tests: tests as never, ...extra } },
    });
  const unittest = { style: { case: "unittest", value: { code: "t" } } };

  it.each<[string, Rollout[], Record<string, unknown> | undefined, string, string]>([
    [
      "missing id",
      [
        storedRollout("a"),
        create(RolloutSchema, { completion: "c", taskRef: { case: "taskId", value: "t" } }),
      ],
      undefined,
      "rollouts[1].id",
      "rollouts[1].id: required",
    ],
    [
      "missing completion",
      [
        storedRollout("a"),
        storedRollout("b"),
        storedRollout("c"),
        create(RolloutSchema, { id: "d", taskRef: { case: "taskId", value: "t" } }),
      ],
      undefined,
      "rollouts[3].completion",
      "rollouts[3].completion: required",
    ],
    [
      "neither task_id nor task",
      [storedRollout("a"), storedRollout("b"), create(RolloutSchema, { id: "c", completion: "x" })],
      undefined,
      "rollouts[2]",
      "rollouts[2]: one of task_id, task or lint_task is required",
    ],
    [
      "empty task_id",
      [create(RolloutSchema, { id: "a", completion: "x", taskRef: { case: "taskId", value: "" } })],
      undefined,
      "rollouts[0].task_id",
      "rollouts[0].task_id: must not be empty",
    ],
    [
      "duplicate id",
      [storedRollout("a"), storedRollout("b"), storedRollout("a")],
      undefined,
      "rollouts[2].id",
      'rollouts[2].id: duplicate of rollouts[0].id ("a")',
    ],
    ["inline task without tests", [inline(undefined)], undefined, "rollouts[0].task.tests", "required"],
    [
      "tests without a style",
      [inline({})],
      undefined,
      "rollouts[0].task.tests",
      "one of unittest, assert or stdio is required",
    ],
    [
      "empty unittest code",
      [inline({ style: { case: "unittest", value: { code: "" } } })],
      undefined,
      "rollouts[0].task.tests.unittest.code",
      "required",
    ],
    [
      "assert tests without entry point",
      [inline({ style: { case: "assert", value: { code: "def check(c): pass" } } })],
      undefined,
      "rollouts[0].task.entry_point",
      "required for assert tests",
    ],
    [
      "entry point that is not an identifier",
      [inline(unittest, { entryPoint: "f(); import os" })],
      undefined,
      "rollouts[0].task.entry_point",
      "not a Python identifier",
    ],
    [
      "entry point that is a keyword",
      [inline(unittest, { entryPoint: "lambda" })],
      undefined,
      "rollouts[0].task.entry_point",
      "not a Python identifier",
    ],
    [
      "stdio without cases",
      [inline({ style: { case: "stdio", value: { cases: [] } } })],
      undefined,
      "rollouts[0].task.tests.stdio.cases",
      "at least one case is required",
    ],
    [
      "negative float tolerance",
      [
        inline({
          style: { case: "stdio", value: { cases: [{ input: "", output: "" }], floatTolerance: -1 } },
        }),
      ],
      undefined,
      "rollouts[0].task.tests.stdio.float_tolerance",
      "must be a finite number >= 0",
    ],
    [
      "unknown reward variant",
      [storedRollout("a")],
      { variant: 99 },
      "reward_override.variant",
      "reward_override.variant: unknown value 99",
    ],
    [
      "unknown distance scope",
      [storedRollout("a")],
      { scope: 7 },
      "reward_override.scope",
      "reward_override.scope: unknown value 7",
    ],
    [
      "negative lambda_edit",
      [storedRollout("a")],
      { lambdaEdit: -0.5 },
      "reward_override.lambda_edit",
      "reward_override.lambda_edit: ",
    ],
    [
      "NaN lambda_exec",
      [storedRollout("a")],
      { lambdaExec: Number.NaN },
      "reward_override.lambda_exec",
      "reward_override.lambda_exec: ",
    ],
    [
      "infinite failure_reward",
      [storedRollout("a")],
      { failureReward: Number.NEGATIVE_INFINITY },
      "reward_override.failure_reward",
      "reward_override.failure_reward: ",
    ],
  ])("INVALID_ARGUMENT for %s, naming the field", async (_name, rollouts, override, field, message) => {
    const scorer = new ReversingFakeScorer();
    t = await startTestServer(scorer);
    const error = await callError(
      scoreBatch(t.client, { rollouts, ...(override === undefined ? {} : { rewardOverride: override }) }),
    );
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toContain(message);
    expect(error.details.startsWith(`${field}: `)).toBe(true);
    expect(fieldOf(error.metadata)).toBe(field);
    expect(error.metadata.get("minedit-error-code")).toEqual([ErrorCode.InvalidArgument]);
    // Bad input changes nothing: the scorer never saw the batch.
    expect(scorer.calls).toHaveLength(0);
  });

  it("answers bytes that are not a request with INVALID_ARGUMENT, not INTERNAL", async () => {
    t = await startTestServer(new ReversingFakeScorer());
    const raw: MethodDefinition<Buffer, ScoreBatchResponse> = {
      ...rewardClientDefinition.scoreBatch,
      requestSerialize: (b) => b,
      requestDeserialize: (b) => b,
    };
    // Field 1 (rollouts, length-delimited) claiming 100 bytes that are not there.
    const error = await callError(unary(t.client, raw, Buffer.from([0x0a, 0x64, 0x01])));
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toMatch(/^request is not a valid minedit\.v1\.ScoreBatchRequest: /);
  });

  it("RESOURCE_EXHAUSTED over the batch limit, naming the limit", async () => {
    const scorer = new ReversingFakeScorer();
    t = await startTestServer(scorer, { maxBatchRollouts: 8 });
    const rollouts = Array.from({ length: 9 }, (_, i) => storedRollout(`r${i}`));
    const error = await callError(scoreBatch(t.client, { rollouts }));
    expect(error.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(error.details).toContain("9 rollouts");
    expect(error.details).toContain("limit of 8");
    expect(scorer.calls).toHaveLength(0);
    // Exactly the limit is fine.
    const ok = await scoreBatch(t.client, { rollouts: rollouts.slice(0, 8) });
    expect(ok.results).toHaveLength(8);
  });

  it("NOT_FOUND for an unknown task id", async () => {
    t = await startTestServer(new UnknownTaskFakeScorer());
    const error = await callError(
      scoreBatch(t.client, { rollouts: [storedRollout("a"), storedRollout("b", "x", "missing-7")] }),
    );
    expect(error.code).toBe(status.NOT_FOUND);
    expect(error.details).toBe('unknown task id "missing-7"');
    expect(fieldOf(error.metadata)).toBe("task_id");
  });

  it("a scorer bug is INTERNAL with a generic message, is reported, and the server keeps serving", async () => {
    t = await startTestServer(new BuggyFakeScorer());
    for (const completion of ["boom", "boom-string", "bad-result"]) {
      const error = await callError(
        scoreBatch(t.client, { rollouts: [storedRollout("a", completion), storedRollout("b")] }),
      );
      expect(error.code).toBe(status.INTERNAL);
      if (completion === "bad-result") {
        // A contract violation caught by the server is its own (MineditError Internal) message.
        expect(error.details).toMatch(/invalid result for rollout "a": reward 0 with verdict INFRA_ERROR/);
      } else {
        expect(error.details).toMatch(/^internal error \(ref [0-9a-f]{8}\); the server logged the details$/);
        expect(error.details).not.toContain("secret");
        expect(error.details).not.toContain("thrown string");
      }
    }
    expect(t.internalErrors).toHaveLength(2);
    expect(String(t.internalErrors[0])).toContain("secret internal detail");
    expect(t.internalErrors[1]).toBe("a thrown string");
    const ok = await scoreBatch(t.client, { rollouts: [storedRollout("a")] });
    expect(ok.results[0]?.verdict).toBe(Verdict.PASSED);
  });

  it("aborts the scorer's signal when the deadline passes", async () => {
    const scorer = new SignalWaitingFakeScorer();
    t = await startTestServer(scorer);
    const error = await callError(
      scoreBatch(t.client, { rollouts: [storedRollout("a")] }, { call: { deadline: Date.now() + 300 } }),
    );
    expect(error.code).toBe(status.DEADLINE_EXCEEDED);
    const reason = await scorer.aborted.promise;
    expect(isMineditError(reason) && reason.code).toBe(ErrorCode.DeadlineExceeded);
  });

  it("aborts the scorer's signal when the client cancels", async () => {
    const scorer = new SignalWaitingFakeScorer();
    t = await startTestServer(scorer);
    let cancel = (): void => {};
    const pending = scoreBatch(
      t.client,
      { rollouts: [storedRollout("a")] },
      { onCall: (call) => (cancel = () => call.cancel()) },
    );
    await scorer.started.promise;
    cancel();
    expect((await callError(pending)).code).toBe(status.CANCELLED);
    const reason = await scorer.aborted.promise;
    expect(isMineditError(reason) && reason.code).toBe(ErrorCode.Cancelled);
  });

  it("close() cancels calls still running after the grace period, aborting their scorers", async () => {
    const scorer = new SignalWaitingFakeScorer();
    const server = await startServer({ config: testConfig(), scorer, shutdownGraceMs: 100 });
    const { Client, credentials } = await import("@grpc/grpc-js");
    const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
    try {
      const pending = callError(scoreBatch(client, { rollouts: [storedRollout("a")] }));
      await scorer.started.promise;
      await server.close();
      expect(await scorer.aborted.promise).toBeDefined();
      expect((await pending).code).toBe(status.CANCELLED);
    } finally {
      client.close();
      await server.close();
    }
  });
});

/** Resolves with the next response the stream delivers. */
function nextResponse(stream: ReturnType<typeof scoreStream>): Promise<ScoreStreamResponse> {
  return new Promise((resolve, reject) => {
    stream.once("data", resolve);
    stream.once("error", reject);
  });
}

describe("ScoreStream", () => {
  it("returns each result as soon as it is done, across messages, then ends with OK", async () => {
    const scorer = new GatedFakeScorer();
    t = await startTestServer(scorer);
    const stream = scoreStream(t.client);
    stream.write(create(ScoreStreamRequestSchema, { rollouts: [storedRollout("a"), storedRollout("b")] }));
    stream.write(
      create(ScoreStreamRequestSchema, {
        rollouts: [{ ...storedRollout("c"), groupId: "g" }],
        rewardOverride: { lambdaExec: 1 },
      }),
    );
    await scorer.started.promise;

    const order: string[] = [];
    for (const id of ["b", "c", "a"]) {
      const next = nextResponse(stream);
      scorer.release(id);
      const response = await next;
      order.push(response.result?.id ?? "?");
      if (id === "c") expect(response.result?.groupId).toBe("g");
    }
    expect(order).toEqual(["b", "c", "a"]);
    const rest = collect(stream);
    stream.end();
    expect(await rest).toEqual([]);
    expect(scorer.calls.map((c) => c.override)).toEqual([undefined, { lambdaExec: 1 }]);
  });

  it("keeps reading and answering when more rollouts than the limit are in flight", async () => {
    t = await startTestServer(new ReversingFakeScorer(), { maxBatchRollouts: 2 });
    const stream = scoreStream(t.client);
    const all = collect(stream);
    for (let m = 0; m < 5; m++) {
      stream.write(
        create(ScoreStreamRequestSchema, { rollouts: [storedRollout(`m${m}a`), storedRollout(`m${m}b`)] }),
      );
    }
    stream.end();
    const ids = (await all).map((r) => r.result?.id).sort();
    expect(ids).toEqual(["m0a", "m0b", "m1a", "m1b", "m2a", "m2b", "m3a", "m3b", "m4a", "m4b"]);
  });

  it("an invalid message ends the call with INVALID_ARGUMENT and aborts the work in flight", async () => {
    const scorer = new GatedFakeScorer();
    t = await startTestServer(scorer);
    const stream = scoreStream(t.client);
    const outcome = collect(stream);
    stream.write(create(ScoreStreamRequestSchema, { rollouts: [storedRollout("a")] }));
    await scorer.started.promise;
    stream.write(
      create(ScoreStreamRequestSchema, {
        rollouts: [create(RolloutSchema, { id: "b", taskRef: { case: "taskId", value: "t" } })],
      }),
    );
    const error = await callError(outcome);
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toBe("stream message 1: rollouts[0].completion: required");
    expect(fieldOf(error.metadata)).toBe("rollouts[0].completion");
    expect(scorer.calls[0]?.signal.aborted).toBe(true);
  });

  it("refuses an id that is still being scored on the stream", async () => {
    const scorer = new GatedFakeScorer();
    t = await startTestServer(scorer);
    const stream = scoreStream(t.client);
    const outcome = collect(stream);
    stream.write(create(ScoreStreamRequestSchema, { rollouts: [storedRollout("a")] }));
    stream.write(create(ScoreStreamRequestSchema, { rollouts: [storedRollout("a")] }));
    const error = await callError(outcome);
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toBe('stream message 1: rollouts[0].id: "a" is still being scored on this stream');
  });

  it("RESOURCE_EXHAUSTED for one message over the limit; NOT_FOUND from the scorer", async () => {
    t = await startTestServer(new UnknownTaskFakeScorer(), { maxBatchRollouts: 3 });
    const big = scoreStream(t.client);
    const bigOutcome = collect(big);
    big.write(
      create(ScoreStreamRequestSchema, { rollouts: ["a", "b", "c", "d"].map((id) => storedRollout(id)) }),
    );
    const bigError = await callError(bigOutcome);
    expect(bigError.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(bigError.details).toContain("limit of 3");

    const missing = scoreStream(t.client);
    const missingOutcome = collect(missing);
    missing.write(create(ScoreStreamRequestSchema, { rollouts: [storedRollout("a", "x", "missing-1")] }));
    const missingError = await callError(missingOutcome);
    expect(missingError.code).toBe(status.NOT_FOUND);
    expect(missingError.details).toContain("missing-1");
  });

  it("aborts the scorer's signal when the client cancels the stream or its deadline passes", async () => {
    const cancelled = new SignalWaitingFakeScorer();
    t = await startTestServer(cancelled);
    const stream = scoreStream(t.client);
    const outcome = collect(stream);
    stream.write(create(ScoreStreamRequestSchema, { rollouts: [storedRollout("a")] }));
    await cancelled.started.promise;
    stream.cancel();
    expect((await callError(outcome)).code).toBe(status.CANCELLED);
    const reason = await cancelled.aborted.promise;
    expect(isMineditError(reason) && reason.code).toBe(ErrorCode.Cancelled);
    await stopTestServer(t);

    const late = new SignalWaitingFakeScorer();
    t = await startTestServer(late);
    const timed = scoreStream(t.client, { call: { deadline: Date.now() + 300 } });
    const timedOutcome = collect(timed);
    timed.write(create(ScoreStreamRequestSchema, { rollouts: [storedRollout("a")] }));
    expect((await callError(timedOutcome)).code).toBe(status.DEADLINE_EXCEEDED);
    const lateReason = await late.aborted.promise;
    expect(isMineditError(lateReason) && lateReason.code).toBe(ErrorCode.DeadlineExceeded);
  });
});

describe("added_cc in ScoreBatch components", () => {
  it("is sent whenever the scorer computed it, 0 and negative values included", async () => {
    /** FAKE scorer: the reversing fake with added complexity −1, 0 and 1 for rollouts c0, c1, c2. */
    class AddedCcFakeScorer extends ReversingFakeScorer {
      override async *score(...args: Parameters<ReversingFakeScorer["score"]>): AsyncIterable<RolloutOutput> {
        for await (const out of super.score(...args)) {
          const addedCc = Number(out.id.slice(1)) - 1;
          yield { ...out, components: out.components && { ...out.components, addedCc } };
        }
      }
    }
    t = await startTestServer(new AddedCcFakeScorer());
    const response = await scoreBatch(t.client, {
      rollouts: [storedRollout("c0"), storedRollout("c1"), storedRollout("c2")],
    });
    expect(response.results.map((r) => r.components?.addedCc)).toEqual([-1, 0, 1]);
  });

  describe("from the real metrics scorer", () => {
    let pool: MetricsPool | undefined;
    beforeAll(() => {
      // The pool runs the BUILT worker, which the global setup builds (tests/setup/build-dist.ts).
      pool = new MetricsPool(1);
    });
    afterAll(async () => {
      await pool?.close();
    });

    it("CC(M) − CC(G) reaches the client, and EDIT_PLUS_CC subtracts λcc·max(0, added_cc)", async () => {
      const config = parseConfig({});
      const { wallTimeMs, memoryBytes, maxProcesses, maxFileBytes, maxOutputBytes } = config.limits.tests;
      const scorer = new ExecutingRolloutScorer({
        pool: pool as MetricsPool,
        sandbox: null, // metrics only: a program that parses passes
        tasks: TaskStore.fromTasks([]),
        reward: config.reward,
        limits: { wallTimeMs, memoryBytes, maxProcesses, maxFileBytes, maxOutputBytes },
        executionConcurrency: 1,
      });
      t = await startTestServer(scorer);
      const gold = "def f(x):\n    return abs(x)\n";
      const task = {
        corrupted: "def f(x):\n    return x\n",
        gold,
        tests: { style: { case: "assert" as const, value: { code: "def check(c): assert c(-1) == 1" } } },
        entryPoint: "f",
      };
      // CC(G) = 0; the rewrite adds `if x < 0:` (+1) and its `else:` (+1): added_cc = 2.
      const rewrite = "def f(x):\n    if x < 0:\n        return -x\n    else:\n        return x\n";
      const rollouts = [
        { id: "gold", completion: gold, taskRef: { case: "task" as const, value: task } },
        { id: "rewrite", completion: rewrite, taskRef: { case: "task" as const, value: task } },
      ];
      const full = await scoreBatch(t.client, { rollouts });
      const withCc = await scoreBatch(t.client, {
        rollouts,
        rewardOverride: { variant: RewardVariant.EDIT_PLUS_CC, lambdaCc: 0.25 },
      });
      expect(full.results.map((r) => r.components?.addedCc)).toEqual([0, 2]);
      expect(withCc.results.map((r) => r.components?.addedCc)).toEqual([0, 2]);
      const [fullGold, fullRewrite] = full.results;
      const [ccGold, ccRewrite] = withCc.results;
      expect(ccGold?.reward).toBe(fullGold?.reward);
      expect(ccRewrite?.reward).toBeCloseTo((fullRewrite?.reward as number) - 0.25 * 2, 12);
    });
  });
});
