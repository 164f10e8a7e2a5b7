import { readFileSync } from "node:fs";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Client, credentials } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PINNED_ANALYZER_VERSIONS } from "../../src/analyzers/analyzer.js";
import { parseConfig } from "../../src/config.js";
import {
  LintLanguage,
  type RolloutResult,
  type ScoreBatchRequestSchema,
  Verdict,
} from "../../src/gen/minedit/v1/reward_pb.js";
import { type Service, startService } from "../../src/server/service.js";
import { DOCKER_SKIP_REASON } from "../sandbox/backends.js";
import { scoreBatch } from "../server/harness.js";
import { skipFor } from "../setup/skip.js";

const TASK_FILE = new URL("../fixtures/lint/tasks.jsonl", import.meta.url).pathname;
type Row = { task_id: string; language: string; original: string; alerts: unknown[] };
const rows = readFileSync(TASK_FILE, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Row);
const task = (language: string) => rows.find((r) => r.language === language) as Row;
const fence = (language: string, code: string) => `Here you go:\n\`\`\`${language}\n${code}\`\`\`\n`;
const stored = (language: string) => ({ case: "taskId" as const, value: task(language).task_id });

// Revisions of the fixture's originals (hand-written; their alerts were checked with the analyzers).
const PY_FIXED = `"""Sum of the input numbers."""
import sys


def total(values):
    """Adds the values."""
    return sum(values)


print(total([int(x) for x in sys.stdin.read().split()]))
`;
const PY_BROKEN = PY_FIXED.replace("return sum(values)", "return sum(values) + 1");
const CPP_FIXED = `#include <bits/stdc++.h>
using namespace std;

using ll = long long;

int main() {
    int n = 0;
    cin >> n;
    ll s = 0;
    for (int i = 0; i < n; i++) {
        ll x = 0;
        cin >> x;
        s += x;
    }
    cout << s << '\\n';
    return 0;
}
`;
const CPP_NO_COMPILE = CPP_FIXED.replace("ll s = 0;", "ll s = 0");
const JAVA_FIXED = `import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += in.nextLong();
        }
        System.out.println(s);
    }
}
`;

const pyTests = {
  style: {
    case: "stdio" as const,
    value: {
      cases: [
        { input: "1 2 3\n", output: "6\n" },
        { input: "-7\n", output: "-7\n" },
      ],
    },
  },
};

/** One batch of every kind of lint rollout (and a repair one). */
const BATCH: MessageInitShape<typeof ScoreBatchRequestSchema> = {
  rollouts: [
    { id: "py-orig", completion: fence("python", task("python").original), taskRef: stored("python") },
    { id: "py-fixed", completion: fence("python", PY_FIXED), taskRef: stored("python") },
    { id: "py-fixed-again", completion: fence("py", PY_FIXED), taskRef: stored("python") },
    { id: "py-broken", completion: fence("python", PY_BROKEN), taskRef: stored("python") },
    { id: "py-unparsable", completion: fence("python", "def f(:\n"), taskRef: stored("python") },
    {
      id: "py-inline",
      completion: fence("python", PY_FIXED),
      taskRef: {
        case: "lintTask",
        value: { language: LintLanguage.PYTHON, original: task("python").original, tests: pyTests },
      },
    },
    { id: "cpp-fixed", completion: fence("cpp", CPP_FIXED), taskRef: stored("cpp") },
    { id: "cpp-no-compile", completion: fence("cpp", CPP_NO_COMPILE), taskRef: stored("cpp") },
    { id: "java-fixed", completion: fence("java", JAVA_FIXED), taskRef: stored("java") },
    {
      id: "repair",
      completion: fence("python", "n = int(input())\nprint(n * 2)\n"),
      taskRef: {
        case: "task",
        value: {
          corrupted: "n = int(input())\nprint(n * 3)\n",
          gold: "n = int(input())\nprint(n * 2)\n",
          tests: { style: { case: "stdio", value: { cases: [{ input: "2\n", output: "4\n" }] } } },
        },
      },
    },
  ],
};

/** The results of {@link BATCH} scored by the service `client` talks to, by rollout id. */
async function scoreOn(client: Client): Promise<Map<string, RolloutResult>> {
  const response = await scoreBatch(client, BATCH, { call: { deadline: Date.now() + 600_000 } });
  return new Map(response.results.map((r) => [r.id, r]));
}

let engine: Service;
let client: Client;
let byId: Map<string, RolloutResult>;

beforeAll(async () => {
  // The metrics pool's worker (used by the repair rollout) runs from dist/, built by the global setup.
  const config = parseConfig({
    server: { port: 0 },
    pool: { threads: 1 },
    sandbox: { executionConcurrency: 2 },
  });
  engine = await startService(config, [TASK_FILE], true);
  client = new Client(`127.0.0.1:${engine.server.port}`, credentials.createInsecure());
  byId = await scoreOn(client);
}, 900_000);

afterAll(async () => {
  client?.close();
  await engine?.close();
});

const result = (id: string) => byId.get(id) as RolloutResult;

describe("ScoreBatch with lint tasks", () => {
  test("the stored lint tasks loaded beside no repair tasks", () => {
    expect(engine.tasks.lintSize).toBe(3);
    expect(engine.tasks.size).toBe(0);
  });

  test("Python: the original unchanged scores λexec exactly, with all its alerts left", () => {
    const r = result("py-orig");
    expect(r).toMatchObject({ verdict: Verdict.PASSED, reward: 0.1 });
    expect(r.testsPassed).toBe(r.testsTotal);
    expect(r.lintComponents).toMatchObject({ alertsFixed: 0, alertsNew: 0, dEdit: 0, net: 0 });
    expect(r.lintComponents?.alertsOriginal).toBe(task("python").alerts.length);
    expect(r.components).toBeUndefined();
    expect(r.rewardVersion).toMatch(/^minedit-lint-reward\/1;/);
    expect(r.rewardVersion).toContain(`analyzer=pylint-${PINNED_ANALYZER_VERSIONS.pylint}`);
  });

  test("Python: a revision that fixes every alert and passes scores higher, by the formula", () => {
    const r = result("py-fixed");
    const c = r.lintComponents;
    expect(r.verdict).toBe(Verdict.PASSED);
    expect(c).toMatchObject({ alertsOriginal: 4, alertsFixed: 4, alertsNew: 0, net: 1 });
    expect(c?.dEdit).toBeGreaterThan(0);
    expect(r.reward).toBeCloseTo(0.1 + 1.0 - 0.25 * (c?.dEdit ?? 0), 12);
    expect(r.reward as number).toBeGreaterThan(result("py-orig").reward as number);
    // The identical revision ran once.
    expect([r.cached, result("py-fixed-again").cached].sort()).toEqual([false, true]);
    expect(result("py-fixed-again").reward).toBe(r.reward);
  });

  test("Python: a revision that breaks the tests gets −0.2 and FAILED_TESTS; unparsable is UNPARSABLE", () => {
    expect(result("py-broken")).toMatchObject({ verdict: Verdict.FAILED_TESTS, reward: -0.2 });
    expect(result("py-broken").lintComponents).toBeUndefined();
    expect(result("py-unparsable")).toMatchObject({ verdict: Verdict.UNPARSABLE, reward: -0.2 });
  });

  test("an inline lint task scores like the stored one", () => {
    const r = result("py-inline");
    expect(r.verdict).toBe(Verdict.PASSED);
    expect(r.lintComponents).toEqual(result("py-fixed").lintComponents);
    expect(r.reward).toBe(result("py-fixed").reward);
  });

  test("C++: the fixed revision passes with alerts fixed; one that does not compile is COMPILE_ERROR", () => {
    const fixed = result("cpp-fixed");
    expect(fixed.verdict).toBe(Verdict.PASSED);
    expect(fixed.testsPassed).toBe(fixed.testsTotal);
    expect(fixed.lintComponents).toMatchObject({ alertsOriginal: 6, alertsFixed: 3, alertsNew: 0, net: 0.5 });
    expect(fixed.reward).toBeCloseTo(0.1 + 0.5 - 0.25 * (fixed.lintComponents?.dEdit ?? 0), 12);
    expect(fixed.rewardVersion).toContain(`analyzer=clang-tidy-${PINNED_ANALYZER_VERSIONS["clang-tidy"]}`);
    const broken = result("cpp-no-compile");
    expect(broken).toMatchObject({ verdict: Verdict.COMPILE_ERROR, reward: -0.2 });
    expect(broken.detail).toMatch(/compile error/);
    expect(broken.lintComponents).toBeUndefined();
  });

  test("Java: the fixed revision passes with one alert fixed and none new", () => {
    const r = result("java-fixed");
    expect(r.verdict).toBe(Verdict.PASSED);
    expect(r.lintComponents).toMatchObject({ alertsOriginal: 5, alertsFixed: 1, alertsNew: 0, net: 0.2 });
    expect(r.reward as number).toBeGreaterThan(0.1);
  });

  test("a repair rollout in the same batch is scored by the repair reward", () => {
    const r = result("repair");
    expect(r).toMatchObject({ verdict: Verdict.PASSED, reward: 0.1 });
    expect(r.components?.excess).toBe(0);
    expect(r.lintComponents).toBeUndefined();
    expect(r.rewardVersion).toMatch(/^minedit-reward\/2;/);
  });
});

/**
 * The same batch through `serve --sandbox docker`: the analyzers in fresh containers of the lint image, the
 * revisions' tests in warm containers of the stdlib, cpp and java images (scripts/ensure-docker.sh builds
 * them), every rollout scored exactly as on bwrap.
 */
describe("ScoreBatch with lint tasks on the Docker backend", skipFor(DOCKER_SKIP_REASON), () => {
  test("every rollout gets the verdict, tests, reward and lint components it gets on bwrap", async () => {
    const config = parseConfig({
      server: { port: 0 },
      pool: { threads: 1 },
      sandbox: { executionConcurrency: 2, backend: "docker" },
    });
    const docker = await startService(config, [TASK_FILE], true);
    const dockerClient = new Client(`127.0.0.1:${docker.server.port}`, credentials.createInsecure());
    try {
      const onDocker = await scoreOn(dockerClient);
      const view = (r: RolloutResult | undefined) => ({
        verdict: r?.verdict,
        reward: r?.reward,
        testsPassed: r?.testsPassed,
        testsTotal: r?.testsTotal,
        lintComponents: r?.lintComponents,
      });
      expect(onDocker.size).toBe(byId.size);
      for (const id of byId.keys()) expect(view(onDocker.get(id)), id).toEqual(view(byId.get(id)));
    } finally {
      dockerClient.close();
      await docker.close();
    }
  }, 900_000);
});
