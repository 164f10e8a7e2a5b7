/**
 * Overload and drain at the admission bound (src/server/admission.ts), through a real grpc-js server and
 * client: a FAKE scorer whose rollouts finish when the test releases them stands in for slow executions.
 */
import { create } from "@bufbuild/protobuf";
import { status } from "@grpc/grpc-js";
import { afterEach, describe, expect, test } from "vitest";
import type { RewardOverride } from "../../src/config.js";
import { ServerConfigSchema } from "../../src/config.js";
import { ScoreStreamRequestSchema } from "../../src/gen/minedit/v1/reward_pb.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "../../src/scoring/rollout.js";
import { Admission } from "../../src/server/admission.js";
import { startOpenRlhfServer } from "../../src/server/openrlhf-http.js";
import {
  callError,
  collect,
  deferred,
  fakeOutput,
  GatedFakeScorer,
  scoreBatch,
  scoreStream,
  startTestServer,
  stopTestServer,
  type TestServer,
} from "./harness.js";

const ref = { case: "taskId" as const, value: "t" };
const batch = (prefix: string, n: number) => ({
  rollouts: Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, completion: "x", taskRef: ref })),
});

/** FAKE scorer that holds every rollout until `open()`, and records the most rollouts it held at once. */
class HoldingFakeScorer implements RolloutScorer {
  held = 0;
  maxHeld = 0;
  private readonly gate = deferred<void>();
  readonly first = deferred<void>();
  open(): void {
    this.gate.resolve();
  }
  async *score(rollouts: RolloutInput[], _o: RewardOverride | undefined, _signal: AbortSignal) {
    this.held += rollouts.length;
    this.maxHeld = Math.max(this.maxHeld, this.held);
    this.first.resolve();
    await this.gate.promise;
    for (const input of rollouts) {
      this.held -= 1;
      yield fakeOutput(input) as RolloutOutput;
    }
  }
}

let running: TestServer | undefined;
afterEach(async () => {
  await stopTestServer(running);
  running = undefined;
});

describe("overload", () => {
  test("beyond the bound: RESOURCE_EXHAUSTED with a retry hint; the scorer never holds more", async () => {
    const scorer = new HoldingFakeScorer();
    const admission = new Admission(scorer, { maxQueuedRollouts: 6, retryAfterMs: 1500 });
    running = await startTestServer(admission, { maxBatchRollouts: 8 });
    const client = running.client;
    const admitted = scoreBatch(client, batch("a", 4));
    await scorer.first.promise;

    const over = await callError(scoreBatch(client, batch("b", 3)));
    expect(over.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(over.details).toMatch(
      /overloaded: 4 rollouts queued.*server\.maxQueuedRollouts \(6\); retry in 1500 ms/,
    );
    expect(over.metadata.get("grpc-retry-pushback-ms")).toEqual(["1500"]);
    expect(over.metadata.get("minedit-error-code")).toEqual(["resource_exhausted"]);

    // A flood of 200 calls while the first holds its rollouts: what fits (2 more) is admitted, the rest is
    // refused at once instead of waiting in memory.
    let refusals = 0;
    const allRefused = deferred<void>();
    const flood = Array.from({ length: 200 }, (_, i) =>
      scoreBatch(client, batch(`f${i}-`, 1)).then(
        () => "ok",
        (error: { code: number }) => {
          refusals += 1;
          if (refusals === 198) allRefused.resolve();
          return error.code;
        },
      ),
    );
    // The admitted ones wait for the gate: once the refused ones have all answered, open it.
    await allRefused.promise;
    expect(admission.depth).toBeLessThanOrEqual(6);
    scorer.open();
    const outcomes = await Promise.all(flood);
    expect((await admitted).results).toHaveLength(4);
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(2);
    expect(outcomes.filter((o) => o === status.RESOURCE_EXHAUSTED)).toHaveLength(198);
    expect(scorer.maxHeld).toBeLessThanOrEqual(6);
    expect(admission.refused).toBe(199);
    expect(admission.depth).toBe(0);
  });

  test("a batch arriving when nothing is queued is admitted even when larger than the bound", async () => {
    const admission = new Admission(new GatedOpenScorer(), { maxQueuedRollouts: 2, retryAfterMs: 10 });
    running = await startTestServer(admission, { maxBatchRollouts: 8 });
    expect((await scoreBatch(running.client, batch("big", 5))).results).toHaveLength(5);
  });

  test("a ScoreStream message beyond the bound ends the stream with RESOURCE_EXHAUSTED", async () => {
    const scorer = new HoldingFakeScorer();
    const admission = new Admission(scorer, { maxQueuedRollouts: 3, retryAfterMs: 250 });
    running = await startTestServer(admission, { maxBatchRollouts: 8 });
    const held = scoreBatch(running.client, batch("a", 3));
    await scorer.first.promise;
    const stream = scoreStream(running.client);
    const results = collect(stream);
    stream.write(create(ScoreStreamRequestSchema, batch("s", 1)));
    const error = await callError(results);
    expect(error.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(error.metadata.get("grpc-retry-pushback-ms")).toEqual(["250"]);
    stream.end();
    scorer.open();
    expect((await held).results).toHaveLength(3);
  });
});

describe("overload on the OpenRLHF endpoint", () => {
  test("without a request budget: 429 with Retry-After and retry-after-ms", async () => {
    const scorer = new HoldingFakeScorer();
    const admission = new Admission(scorer, { maxQueuedRollouts: 1, retryAfterMs: 2500 });
    // With the default budget a full server is waited for instead (tests/server/openrlhf-http.test.ts).
    const config = {
      ...ServerConfigSchema.parse({ port: 0, openrlhfCoalesceMs: 0, openrlhfRequestBudgetMs: 0 }),
      openrlhfPort: 0,
    };
    const http = await startOpenRlhfServer({ config, scorer: admission, log: () => {} });
    try {
      const post = () =>
        fetch(`http://127.0.0.1:${http.port}/get_reward`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: ["p x"], prompts: ["p"], labels: ["t"] }),
        });
      const held = post();
      await scorer.first.promise;
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("3");
      expect(refused.headers.get("retry-after-ms")).toBe("2500");
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("resource_exhausted");
      scorer.open();
      expect((await held).status).toBe(200);
    } finally {
      await http.close();
    }
  });
});

describe("drain", () => {
  test("new calls UNAVAILABLE while draining; in-flight ones finish; cancelAll ends the rest with UNAVAILABLE", async () => {
    const scorer = new GatedFakeScorer();
    const admission = new Admission(scorer, { maxQueuedRollouts: 100, retryAfterMs: 10 });
    running = await startTestServer(admission, { maxBatchRollouts: 8 });
    const client = running.client;
    const finishing = scoreBatch(client, { rollouts: [{ id: "f", completion: "x", taskRef: ref }] });
    const stuck = scoreBatch(client, { rollouts: [{ id: "s", completion: "x", taskRef: ref }] });
    await scorer.started.promise;
    while (admission.calls < 2) await new Promise((resolve) => setImmediate(resolve));

    admission.drain();
    const refused = await callError(scoreBatch(client, batch("n", 1)));
    expect(refused.code).toBe(status.UNAVAILABLE);
    expect(refused.details).toMatch(/shutting down/);

    scorer.release("f");
    expect((await finishing).results[0]?.id).toBe("f");
    expect(await admission.idle(50)).toBe(false);
    admission.cancelAll();
    const cancelled = await callError(stuck);
    expect(cancelled.code).toBe(status.UNAVAILABLE);
    expect(cancelled.details).toMatch(/drain timeout/);
    expect(await admission.idle(1000)).toBe(true);
    expect(scorer.calls.find((c) => c.rollouts[0]?.id === "s")?.signal.aborted).toBe(true);
  });
});

/** FAKE scorer that answers at once. */
class GatedOpenScorer implements RolloutScorer {
  async *score(rollouts: RolloutInput[]) {
    for (const input of rollouts) yield fakeOutput(input);
  }
}
