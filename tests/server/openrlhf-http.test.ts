import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { DEFAULT_TASK_FILE, serviceConfig } from "../../src/cli/service-options.js";
import { parseConfig, type RewardOverride, type ServerConfig, ServerConfigSchema } from "../../src/config.js";
import { ErrorCode, isMineditError, MineditError } from "../../src/errors.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "../../src/scoring/rollout.js";
import { type ScoringEngine, startScoringEngine } from "../../src/scoring/scoring-engine.js";
import { Admission } from "../../src/server/admission.js";
import { type RunningHttpServer, startOpenRlhfServer } from "../../src/server/openrlhf-http.js";
import { splitQuery, suffixPrefixOverlap } from "../../src/server/openrlhf-protocol.js";
import { slimeBudgetMs } from "../../src/server/slime-protocol.js";
import {
  deferred,
  fakeOutput,
  ReversingFakeScorer,
  type ScoreCall,
  SignalWaitingFakeScorer,
  selfSignedCertificate,
} from "./harness.js";

let running: RunningHttpServer | undefined;
let logs: string[] = [];

async function start(
  scorer: RolloutScorer,
  overrides: Partial<ServerConfig> = {},
  failureReward?: number,
): Promise<string> {
  const config = ServerConfigSchema.parse({ port: 0, maxBatchRollouts: 8, ...overrides });
  running = await startOpenRlhfServer({
    config: { ...config, openrlhfPort: 0 },
    scorer,
    ...(failureReward === undefined ? {} : { failureReward }),
    log: (line) => logs.push(line),
  });
  return `http://127.0.0.1:${running.port}/get_reward`;
}

afterEach(async () => {
  await running?.close();
  running = undefined;
  logs = [];
});

const PROMPT = "<s>[INST] repair [/INST]";
const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });

type Answer = {
  rewards: number[];
  scores: number[];
  extra_logs: Record<string, number[]>;
  verdicts: string[];
  error?: { code: string; message: string; field?: string };
};
const answer = async (response: Response) => (await response.json()) as Answer;
/** OpenRLHF ≥ 0.9.1's request: one sample. */
const single = (completion: string, label: string | number = "t") => ({
  query: [`${PROMPT}${completion}`],
  prompts: [PROMPT],
  labels: [label],
});

/** FAKE scorer that throws NotFound for the task id "missing", as the engine does, before scoring. */
class TaskCheckingFakeScorer extends ReversingFakeScorer {
  override async *score(
    rollouts: RolloutInput[],
    override: RewardOverride | undefined,
    signal: AbortSignal,
  ): AsyncIterable<RolloutOutput> {
    const index = rollouts.findIndex((r) => r.task.kind === "stored" && r.task.taskId === "missing");
    if (index >= 0) {
      this.calls.push({ rollouts, override, signal });
      throw new MineditError(ErrorCode.NotFound, `rollouts[${index}].task_id: unknown task "missing"`, {
        field: `rollouts[${index}].task_id`,
      });
    }
    yield* super.score(rollouts, override, signal);
  }
}

/** FAKE scorer whose rollouts finish when the test releases their completion text, or stop on abort. */
class CompletionGatedFakeScorer implements RolloutScorer {
  readonly calls: ScoreCall[] = [];
  readonly started = deferred<void>();
  readonly aborted = deferred<unknown>();
  private readonly gates = new Map<string, ReturnType<typeof deferred<void>>>();
  private gate(completion: string) {
    let gate = this.gates.get(completion);
    if (gate === undefined) {
      gate = deferred<void>();
      this.gates.set(completion, gate);
    }
    return gate;
  }
  release(completion: string): void {
    this.gate(completion).resolve();
  }
  async *score(rollouts: RolloutInput[], override: RewardOverride | undefined, signal: AbortSignal) {
    this.calls.push({ rollouts, override, signal });
    this.started.resolve();
    const abort = new Promise<"abort">((resolve) =>
      signal.addEventListener("abort", () => resolve("abort"), { once: true }),
    );
    const pending = new Map(rollouts.map((r) => [r.id, this.gate(r.completion).promise.then(() => r)]));
    while (pending.size > 0) {
      const next = await Promise.race([abort, ...pending.values()]);
      if (next === "abort") {
        this.aborted.resolve(signal.reason);
        return;
      }
      pending.delete(next.id);
      yield fakeOutput(next);
    }
  }
}

describe("OpenRLHF endpoint", () => {
  test("rewards in request order; in a batched request an INFRA_ERROR takes the mean of its task's scored samples", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer);
    // The fake scorer reads the verdict from the completion: PASSED 0.1, FAILED_TESTS -0.2, INFRA null.
    const completions = [
      "verdict:PASSED",
      "verdict:FAILED_TESTS",
      "verdict:INFRA_ERROR",
      "verdict:INFRA_ERROR",
    ];
    const response = await post(url, {
      query: completions.map((c) => `BOS${PROMPT}${c}`),
      prompts: completions.map(() => PROMPT),
      labels: ["task/a", "task/a", "task/a", 7],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      rewards: number[];
      scores: number[];
      extra_logs: Record<string, number[]>;
      verdicts: string[];
    };
    expect(body.rewards[0]).toBe(0.1);
    expect(body.rewards[1]).toBe(-0.2);
    expect(body.rewards[2]).toBeCloseTo((0.1 - 0.2) / 2, 12);
    expect(body.rewards[3]).toBe(-0.2); // no scored sample of task 7 in the request: reward.failureReward
    expect(body.scores).toEqual([1, 0, 0.5, 0]);
    expect(body.extra_logs.infra_error).toEqual([0, 0, 1, 1]);
    expect(body.extra_logs.prompt_fallback).toEqual([0, 0, 0, 0]);
    expect(body.extra_logs.excess).toEqual([0, 0, 0, 0]);
    expect(body.verdicts).toEqual(["PASSED", "FAILED_TESTS", "INFRA_ERROR", "INFRA_ERROR"]);
    // The response is what follows the prompt; the label is the stored task id; one scorer call.
    expect(scorer.calls).toHaveLength(1);
    expect(scorer.calls[0]?.rollouts.map((r) => [r.completion, r.task])).toEqual([
      ["verdict:PASSED", { kind: "stored", taskId: "task/a" }],
      ["verdict:FAILED_TESTS", { kind: "stored", taskId: "task/a" }],
      ["verdict:INFRA_ERROR", { kind: "stored", taskId: "task/a" }],
      ["verdict:INFRA_ERROR", { kind: "stored", taskId: "7" }],
    ]);
  });

  test("a body over server.maxReceiveMessageBytes and a batch over maxBatchRollouts are 413", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer, { maxReceiveMessageBytes: 1024 });
    const big = await post(url, { query: ["x".repeat(4096)], prompts: [""], labels: ["t"] });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe("resource_exhausted");
    const many = Array.from({ length: 9 }, () => "q");
    const tooMany = await post(url, { query: many, prompts: many.map(() => ""), labels: many });
    expect(tooMany.status).toBe(413);
    expect(((await tooMany.json()) as { error: { message: string } }).error.message).toMatch(/limit of 8/);
    expect(scorer.calls).toHaveLength(0);
  });

  test("a client that hangs up stops the request's scoring", async () => {
    const scorer = new SignalWaitingFakeScorer();
    const url = await start(scorer);
    const controller = new AbortController();
    const pending = fetch(url, {
      method: "POST",
      body: JSON.stringify({ query: ["p x"], prompts: ["p"], labels: ["t"] }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await scorer.started.promise;
    controller.abort();
    const reason = await scorer.aborted.promise;
    expect(isMineditError(reason) && reason.code).toBe(ErrorCode.Cancelled);
    await pending;
  });

  test("close() aborts requests in flight", async () => {
    const scorer = new SignalWaitingFakeScorer();
    const url = await start(scorer);
    const pending = post(url, { query: ["p x"], prompts: ["p"], labels: ["t"] }).catch((e: unknown) => e);
    await scorer.started.promise;
    await running?.close();
    running = undefined;
    expect(isMineditError(await scorer.aborted.promise)).toBe(true);
    await pending;
  });

  test("a taken port is Unavailable naming server.openrlhfPort", async () => {
    await start(new ReversingFakeScorer());
    const config = ServerConfigSchema.parse({});
    const error = await startOpenRlhfServer({
      config: { ...config, openrlhfPort: running?.port ?? 0 },
      scorer: new ReversingFakeScorer(),
    }).catch((e: unknown) => e);
    expect(isMineditError(error) && error.code).toBe(ErrorCode.Unavailable);
    expect(String(error)).toMatch(/server\.openrlhfPort/);
  });
});

describe("the prompt split (OpenRLHF may left-truncate the prompt; decode(encode(x)) may differ from x)", () => {
  const chat =
    "<|im_start|>system\nYou repair programs.<|im_end|>\n<|im_start|>user\nRepair the program.<|im_end|>\n<|im_start|>assistant\n";

  test("exact, left-truncated, at the prompt's last line, else the whole query — never refused", () => {
    expect(splitQuery(`<s>${chat}answer`, chat)).toEqual({ completion: "answer", split: "exact" });
    expect(splitQuery(`${chat.slice(30)}answer`, chat)).toEqual({ completion: "answer", split: "truncated" });
    const reencoded = chat.replace("You repair", "You  repair");
    expect(splitQuery(`${reencoded}answer<|im_end|>`, chat)).toEqual({
      completion: "answer<|im_end|>",
      split: "last_line",
    });
    expect(splitQuery("something else entirely", chat)).toEqual({
      completion: "something else entirely",
      split: "whole_query",
    });
    // A chance overlap of a few characters is not a truncated prompt.
    expect(splitQuery("\nanswer", "prompt ending in a newline\n").split).toBe("whole_query");
    // A fence is never the marker: it would cut at the response's own code block.
    const fenced = "Repair:\n```python\nx = 1\n```";
    expect(splitQuery("Repair (re-encoded):\n```python\ny = 2\n```", fenced).split).toBe("whole_query");
  });

  test("suffixPrefixOverlap agrees with the quadratic definition", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const word = () =>
      Array.from({ length: Math.floor(random() * 12) }, () => "ab"[Math.floor(random() * 2)]).join("");
    for (let n = 0; n < 2000; n++) {
      const [text, next] = [word(), word()];
      let expected = 0;
      for (let k = Math.min(text.length, next.length); k > 0; k--) {
        if (text.endsWith(next.slice(0, k))) {
          expected = k;
          break;
        }
      }
      expect(suffixPrefixOverlap(text, next), `${text} / ${next}`).toBe(expected);
    }
    expect(suffixPrefixOverlap("x".repeat(200_000), `${"x".repeat(100_000)}y`)).toBe(100_000);
  });

  test("the scorer gets the response of each rule; fallbacks are flagged in extra_logs and logged", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer);
    const reencoded = chat.replace("You repair", "You  repair");
    const response = await post(url, {
      query: [`${chat}verdict:PASSED`, `${chat.slice(30)}verdict:PASSED`, `${reencoded}verdict:PASSED`, "q"],
      prompts: [chat, chat, chat, chat],
      labels: ["t", "t", "t", "t"],
    });
    expect(response.status).toBe(200);
    const body = await answer(response);
    expect(body.extra_logs.prompt_fallback).toEqual([0, 1, 1, 1]);
    expect(scorer.calls[0]?.rollouts.map((r) => r.completion)).toEqual([
      "verdict:PASSED",
      "verdict:PASSED",
      "verdict:PASSED",
      "q",
    ]);
    expect(running?.stats().promptFallbacks).toEqual({ truncated: 1, lastLine: 1, wholeQuery: 1 });
    expect(logs.join("\n")).toMatch(
      /3 prompts not found verbatim in the query \(1 left-truncated, 1 split at the prompt's last line, 1 scored whole; 3 since start\)/,
    );
  });
});

describe("labels", () => {
  test('an empty label (OpenRLHF without --label_key sends "") is a 400 saying which flag to pass, logged', async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer);
    const response = await post(url, single("verdict:PASSED", ""));
    expect(response.status).toBe(400);
    const { error } = await answer(response);
    expect(error?.field).toBe("labels[0]");
    expect(error?.message).toMatch(/--data\.label_key label .*--label_key label/);
    expect(logs).toEqual([
      expect.stringMatching(
        /^minedit openrlhf endpoint: answered 400 invalid_argument: labels\[0\]: empty task id/,
      ),
    ]);
    expect(scorer.calls).toHaveLength(0);
  });

  test("an unknown task id fails only its own request of a coalesced batch, naming the label, logged", async () => {
    const scorer = new TaskCheckingFakeScorer();
    const url = await start(scorer, { openrlhfCoalesceMs: 10_000, openrlhfCoalesceMaxRollouts: 3 });
    const [ok, missing, alsoOk] = await Promise.all([
      post(url, single("verdict:PASSED", "a")),
      post(url, single("verdict:PASSED", "missing")),
      post(url, single("verdict:FAILED_TESTS", "b")),
    ]);
    expect([ok.status, missing.status, alsoOk.status]).toEqual([200, 400, 200]);
    expect((await answer(ok)).rewards).toEqual([0.1]);
    expect((await answer(alsoOk)).rewards).toEqual([-0.2]);
    const { error } = await answer(missing);
    expect(error?.field).toBe("labels[0]");
    expect(error?.message).toMatch(/^labels\[0\]: unknown task "missing" \(the label must be a task id/);
    expect(
      logs.some((line) => /answered 400 not_found: labels\[0\]: unknown task "missing"/.test(line)),
    ).toBe(true);
    // The whole window first, then the window without the request that named an unknown task.
    expect(scorer.calls.map((c) => c.rollouts.length)).toEqual([3, 2]);
  });
});

describe("coalescing concurrent requests (OpenRLHF >= 0.9.1 sends one sample per request)", () => {
  const verdictOf = (i: number) => (i % 3 === 0 ? "FAILED_TESTS" : "PASSED");

  test("N concurrent single-sample requests are scored in one scorer call; each gets its own answer", async () => {
    const n = 64;
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer, { openrlhfCoalesceMs: 10_000, openrlhfCoalesceMaxRollouts: n });
    const responses = await Promise.all(
      Array.from({ length: n }, (_, i) => post(url, single(`verdict:${verdictOf(i)}`, `task/${i % 8}`))),
    );
    const bodies = await Promise.all(responses.map(answer));
    bodies.forEach((body, i) => {
      expect(body.verdicts).toEqual([verdictOf(i)]);
      expect(body.rewards).toEqual([verdictOf(i) === "PASSED" ? 0.1 : -0.2]);
      expect(Object.keys(body.extra_logs)).toEqual(Object.keys(bodies[0]?.extra_logs ?? {}));
    });
    expect(scorer.calls).toHaveLength(1);
    expect(scorer.calls[0]?.rollouts).toHaveLength(n);
    expect(new Set(scorer.calls[0]?.rollouts.map((r) => r.id)).size).toBe(n);
    expect(running?.stats()).toMatchObject({ requests: n, samples: n, scorerCalls: 1 });
  });

  test("with the default 20 ms window few calls; with 0 ms one call per request", async () => {
    const n = 32;
    for (const [windowMs, most] of [
      [20, n / 2],
      [0, n],
    ] as const) {
      const scorer = new ReversingFakeScorer();
      const url = await start(scorer, windowMs === 20 ? {} : { openrlhfCoalesceMs: windowMs });
      const bodies = await Promise.all(
        Array.from({ length: n }, (_, i) => post(url, single(`verdict:${verdictOf(i)}`)).then(answer)),
      );
      expect(bodies.map((b) => b.verdicts[0])).toEqual(Array.from({ length: n }, (_, i) => verdictOf(i)));
      if (windowMs === 0) expect(scorer.calls).toHaveLength(n);
      else expect(scorer.calls.length).toBeLessThanOrEqual(most);
      await running?.close();
      running = undefined;
    }
  });

  test("a window stops at openrlhfCoalesceMaxRollouts; a larger request is scored alone", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer, { openrlhfCoalesceMs: 10_000, openrlhfCoalesceMaxRollouts: 4 });
    await Promise.all(Array.from({ length: 8 }, () => post(url, single("verdict:PASSED"))));
    expect(scorer.calls.map((c) => c.rollouts.length)).toEqual([4, 4]);
    const six = Array.from({ length: 6 }, () => `${PROMPT}verdict:PASSED`);
    const response = await post(url, {
      query: six,
      prompts: six.map(() => PROMPT),
      labels: six.map(() => "t"),
    });
    expect((await answer(response)).rewards).toHaveLength(6);
    expect(scorer.calls.map((c) => c.rollouts.length)).toEqual([4, 4, 6]);
  });

  test("a client that hangs up abandons its own request; the shared call goes on until nobody waits", async () => {
    const scorer = new CompletionGatedFakeScorer();
    const url = await start(scorer, { openrlhfCoalesceMs: 10_000, openrlhfCoalesceMaxRollouts: 2 });
    const leaving = new AbortController();
    const gone = post(url, single("a"), leaving.signal).catch((error: unknown) => error);
    const staying = post(url, single("b"));
    await scorer.started.promise;
    const call = scorer.calls[0] as ScoreCall;
    expect(call.rollouts).toHaveLength(2);
    leaving.abort();
    await gone;
    await vi.waitFor(() => expect(running?.stats().abandoned).toBe(1));
    expect(call.signal.aborted).toBe(false);
    scorer.release("b");
    const response = await staying;
    expect(response.status).toBe(200);
    expect((await answer(response)).rewards).toEqual([0.1]);
    // Nobody waits for sample "a" any more: now the call is cancelled.
    const reason = await scorer.aborted.promise;
    expect(isMineditError(reason) && reason.code).toBe(ErrorCode.Cancelled);
  });

  test("a request abandoned while its window is open never reaches the scorer", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer, { openrlhfCoalesceMs: 10_000 });
    const leaving = new AbortController();
    const gone = post(url, single("verdict:PASSED"), leaving.signal).catch((error: unknown) => error);
    await vi.waitFor(() => expect(running?.stats().requests).toBe(1));
    leaving.abort();
    await gone;
    await vi.waitFor(() => expect(running?.stats().abandoned).toBe(1));
    expect(scorer.calls).toHaveLength(0);
  });
});

describe("inline tasks in the label (a dataset column holding the task itself)", () => {
  const task = {
    corrupted: "def f(x):\n    return x + 1\n",
    gold: "def f(x):\n    return x\n",
    entry_point: "f",
    tests: { style: "assert", code: "def check(candidate):\n    assert candidate(2) == 2\n" },
  };

  test("an object or a JSON string is an inline task; its runtime is kept when named, left to the scorer when not", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer, { openrlhfCoalesceMs: 10_000, openrlhfCoalesceMaxRollouts: 4 });
    const responses = await Promise.all([
      post(url, single("verdict:PASSED", task as never)),
      post(url, single("verdict:PASSED", JSON.stringify(task))),
      post(url, single("verdict:FAILED_TESTS", JSON.stringify({ ...task, runtime: "bigcodebench" }))),
      post(url, single("verdict:PASSED", "a-stored-id")),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const [call] = scorer.calls;
    const tasks = call?.rollouts.map((r) => r.task);
    expect(tasks?.[0]).toEqual({
      kind: "inline",
      corrupted: task.corrupted,
      gold: task.gold,
      entryPoint: "f",
      tests: { style: "assert", code: task.tests.code, entryPoint: "f" },
    });
    expect(tasks?.[1]).toEqual(tasks?.[0]);
    expect(tasks?.[2]).toMatchObject({ kind: "inline", corrupted: task.corrupted, runtime: "bigcodebench" });
    expect(tasks?.[3]).toEqual({ kind: "stored", taskId: "a-stored-id" });
    // The same inline task is one GRPO group (its duplicate completions run once); another runtime is not.
    const groups = call?.rollouts.map((r) => r.groupId) ?? [];
    expect(groups[0]).toBe(groups[1]);
    expect(new Set(groups).size).toBe(3);
  });

  test("a malformed inline label is a 400 naming labels[i], before anything is scored", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer);
    for (const [label, message] of [
      ['{"corrupted": ', /labels\[0\]: starts like an inline task but is not JSON/],
      [JSON.stringify({ gold: "x" }), /labels\[0\]\.corrupted: inline task: /],
      [JSON.stringify({ corrupted: "x", gold: "y" }), /labels\[0\]: inline task: no tests/],
      [JSON.stringify({ ...task, runtime: "nope" }), /labels\[0\]: inline task: .*unknown runtime "nope"/],
    ] as const) {
      const response = await post(url, single("verdict:PASSED", label));
      expect(response.status, label).toBe(400);
      expect((await answer(response)).error?.message).toMatch(message);
    }
    expect(scorer.calls).toHaveLength(0);
  });
});

describe("slime's remote_rm on the same port (POST /slime/reward)", () => {
  const slimeUrl = (url: string) => url.replace("/get_reward", "/slime/reward");
  const sample = (response: string, label: unknown = "t") => ({ prompt: PROMPT, response, label });

  test("one sample per request: a bare reward, or an object with ?format=object; coalesced with the others", async () => {
    const scorer = new ReversingFakeScorer();
    const url = slimeUrl(await start(scorer, { openrlhfCoalesceMs: 10_000, openrlhfCoalesceMaxRollouts: 3 }));
    const [passed, failed, infra] = await Promise.all([
      post(url, sample("verdict:PASSED")),
      post(`${url}?format=object`, sample("verdict:FAILED_TESTS")),
      post(`${url}?format=object`, sample("verdict:INFRA_ERROR")),
    ]);
    expect([passed.status, failed.status, infra.status]).toEqual([200, 200, 200]);
    expect(passed.headers.get("content-type")).toBe("application/json");
    expect(await passed.json()).toBe(0.1);
    expect(await failed.json()).toEqual({
      score: -0.2,
      verdict: "FAILED_TESTS",
      passed: 0,
      infra_error: 0,
      invalid_task: 0,
    });
    // No remove_sample over HTTP: the failure reward, never above a failed repair, and flagged.
    expect(await infra.json()).toEqual({
      score: -0.2,
      verdict: "INFRA_ERROR",
      passed: 0,
      infra_error: 1,
      invalid_task: 0,
    });
    // The response is the completion as it is (no prompt split); the three shared one scorer call.
    expect(scorer.calls).toHaveLength(1);
    expect(scorer.calls[0]?.rollouts.map((r) => r.completion).sort()).toEqual([
      "verdict:FAILED_TESTS",
      "verdict:INFRA_ERROR",
      "verdict:PASSED",
    ]);
  });

  test("a missing label (slime without --label-key sends null) is a 400 naming the flag; other paths are 404", async () => {
    const scorer = new ReversingFakeScorer();
    const base = await start(scorer);
    for (const label of [null, ""]) {
      const response = await post(slimeUrl(base), sample("verdict:PASSED", label));
      expect(response.status).toBe(400);
      expect((await answer(response)).error?.message).toMatch(/^label: no task: .*--label-key label/);
    }
    const noResponse = await post(slimeUrl(base), { prompt: PROMPT, label: "t" });
    expect(noResponse.status).toBe(400);
    expect((await answer(noResponse)).error?.field).toBe("response");
    const elsewhere = await post(base.replace("/get_reward", "/reward"), sample("x"));
    expect(elsewhere.status).toBe(404);
    expect((await answer(elsewhere)).error?.message).toMatch(/\/get_reward \(OpenRLHF\) or \/slime\/reward/);
    expect(scorer.calls).toHaveLength(0);
  });

  test("its budget is capped below slime's 120 s per attempt, even when the server's is longer or off", async () => {
    expect([150_000, 0, 60_000].map(slimeBudgetMs)).toEqual([100_000, 100_000, 60_000]);
    // ...and it is the budget the endpoint applies to a slime request.
    const scorer = new SignalWaitingFakeScorer();
    const url = slimeUrl(await start(scorer, { openrlhfRequestBudgetMs: 300 }));
    const response = await post(url, sample("verdict:PASSED"));
    expect(await response.json()).toBe(-0.2);
    expect(running?.stats().overBudget).toBe(1);
    expect(logs).toEqual([expect.stringMatching(/openrlhfRequestBudgetMs = 300 ms/)]);
  });
});

describe("the request budget (OpenRLHF waits 180 s, then retries blindly and finally trains on None)", () => {
  test("a sample not scored within server.openrlhfRequestBudgetMs is answered INFRA_ERROR in time, and logged", async () => {
    const scorer = new SignalWaitingFakeScorer();
    const url = await start(scorer, { openrlhfRequestBudgetMs: 300 });
    const started = performance.now();
    const response = await post(url, single("verdict:PASSED"));
    const seconds = (performance.now() - started) / 1000;
    expect(response.status).toBe(200);
    const body = await answer(response);
    expect(body.rewards).toEqual([-0.2]);
    expect(body.extra_logs.infra_error).toEqual([1]);
    expect(body.verdicts).toEqual(["INFRA_ERROR"]);
    expect(seconds).toBeGreaterThanOrEqual(0.29);
    // The budget stopped the scoring it gave up on.
    await scorer.aborted.promise;
    expect(running?.stats()).toMatchObject({ overBudget: 1, infraErrors: 1 });
    expect(logs).toEqual([
      expect.stringMatching(
        /1 sample not scored within the request budget \(server.openrlhfRequestBudgetMs = 300 ms\): answered INFRA_ERROR \(reward -0.2\)/,
      ),
    ]);
  });

  test("a full server makes a request wait inside its budget instead of answering 429; without a budget it is 429", async () => {
    for (const budget of [60_000, 0]) {
      const inner = new CompletionGatedFakeScorer();
      const admission = new Admission(inner, { maxQueuedRollouts: 1, retryAfterMs: 50 });
      const url = await start(admission, { openrlhfRequestBudgetMs: budget, openrlhfCoalesceMs: 0 });
      const first = post(url, single("verdict:PASSED#1"));
      await inner.started.promise;
      const second = post(url, single("verdict:FAILED_TESTS#2"));
      await vi.waitFor(() => expect(admission.refused).toBeGreaterThanOrEqual(budget === 0 ? 1 : 2), {
        timeout: 5_000,
      });
      inner.release("verdict:PASSED#1");
      inner.release("verdict:FAILED_TESTS#2");
      expect((await first).status).toBe(200);
      const answerOfSecond = await second;
      if (budget === 0) {
        expect(answerOfSecond.status).toBe(429);
        expect(answerOfSecond.headers.get("retry-after-ms")).toBe("50");
      } else {
        expect(answerOfSecond.status).toBe(200);
        expect((await answer(answerOfSecond)).verdicts).toEqual(["PASSED"]);
        expect(running?.stats().overloadWaits).toBeGreaterThanOrEqual(2);
        expect(running?.stats().overBudget).toBe(0);
      }
      await running?.close();
      running = undefined;
      logs = [];
    }
  });

  test("the default budget is below OpenRLHF's fixed 180 s request timeout", () => {
    const budget = ServerConfigSchema.parse({}).openrlhfRequestBudgetMs;
    expect(budget).toBeGreaterThan(0);
    expect(budget).toBeLessThan(180_000);
  });
});

describe("INFRA_ERROR and empty shards", () => {
  test("a single sample's INFRA_ERROR gets reward.failureReward, or server.openrlhfInfraErrorReward; flagged and logged", async () => {
    for (const [overrides, failureReward, expected] of [
      [{}, undefined, -0.2],
      [{}, -0.3, -0.3],
      [{ openrlhfInfraErrorReward: -1 }, -0.3, -1],
    ] as const) {
      const url = await start(new ReversingFakeScorer(), overrides, failureReward);
      const body = await answer(await post(url, single("verdict:INFRA_ERROR")));
      expect(body.rewards).toEqual([expected]);
      expect(body.scores).toEqual([0]);
      expect(body.extra_logs.infra_error).toEqual([1]);
      expect(body.verdicts).toEqual(["INFRA_ERROR"]);
      expect(running?.stats().infraErrors).toBe(1);
      expect(logs).toEqual([
        expect.stringMatching(new RegExp(`1 INFRA_ERROR .*reward ${expected} .*; 1 since start\\)`)),
      ]);
      await running?.close();
      running = undefined;
      logs = [];
    }
  });

  test("an empty request (a second --reward.remote_url's shard) is 200 with empty lists, no scoring", async () => {
    const scorer = new ReversingFakeScorer();
    const url = await start(scorer);
    const response = await post(url, { query: [], prompts: [], labels: [] });
    expect(response.status).toBe(200);
    const body = await answer(response);
    expect(body.rewards).toEqual([]);
    expect(body.scores).toEqual([]);
    expect(Object.values(body.extra_logs).every((v) => Array.isArray(v) && v.length === 0)).toBe(true);
    expect(Object.keys(body.extra_logs)).toContain("infra_error");
    expect(scorer.calls).toHaveLength(0);
  });
});

describe("OpenRLHF endpoint in front of a real engine (no execution)", () => {
  let engine: ScoringEngine;
  type Task = { task_id: string; gold: string };
  const task = JSON.parse(readFileSync(DEFAULT_TASK_FILE, "utf8").split("\n")[0] as string) as Task;
  beforeAll(async () => {
    // The engine's metrics pool runs dist/workers/, built by the global setup (tests/setup/build-dist.ts).
    engine = await startScoringEngine(parseConfig({ pool: { threads: 1 } }), [DEFAULT_TASK_FILE], false);
  });
  afterAll(async () => {
    await engine?.close();
  });

  test("an unfenced correct answer ending in <|im_end|> passes: the scorer strips the end of turn", async () => {
    const url = await start(engine.scorer);
    const chat = "<|im_start|>user\nRepair the program.<|im_end|>\n<|im_start|>assistant\n";
    const body = await answer(
      await post(url, { query: [`${chat}${task.gold}<|im_end|>`], prompts: [chat], labels: [task.task_id] }),
    );
    expect(body.verdicts).toEqual(["PASSED"]);
    expect(body.rewards).toEqual([0.1]);
  });
});

describe("configuration", () => {
  test("off by default; `server.openrlhfPort` or `--openrlhf-port` turns it on; bad ports are refused", async () => {
    expect(parseConfig({}).server.openrlhfPort).toBeUndefined();
    expect(parseConfig({ server: { openrlhfPort: 5000 } }).server.openrlhfPort).toBe(5000);
    expect((await serviceConfig({ "openrlhf-port": "0" })).server.openrlhfPort).toBe(0);
    expect(() => parseConfig({ server: { openrlhfPort: 70000 } })).toThrow(/server\.openrlhfPort/);
    const server = parseConfig({}).server;
    expect([server.openrlhfCoalesceMs, server.openrlhfCoalesceMaxRollouts]).toEqual([20, 512]);
    expect(server.openrlhfInfraErrorReward).toBeUndefined();
    expect(() => parseConfig({ server: { openrlhfCoalesceMs: -1 } })).toThrow(/server\.openrlhfCoalesceMs/);
    await expect(serviceConfig({ "openrlhf-port": "x" })).rejects.toThrow(
      /--openrlhf-port: expected an integer/,
    );
  });
});

describe("OpenRLHF endpoint over TLS", () => {
  let dir = "";
  let certFile = "";
  let keyFile = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "minedit-openrlhf-tls-"));
    ({ certFile, keyFile } = selfSignedCertificate(dir));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("serves HTTPS with the gRPC server's certificate when server.tls is set", async () => {
    await start(new ReversingFakeScorer(), { tls: { certFile, keyFile } });
    const body = JSON.stringify({ query: ["p verdict:PASSED"], prompts: ["p"], labels: ["t"] });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: "127.0.0.1",
          port: running?.port,
          path: "/get_reward",
          method: "POST",
          ca: readFileSync(certFile),
        },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.text) as { rewards: number[] }).rewards).toEqual([0.1]);
  });
});
