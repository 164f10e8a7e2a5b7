/**
 * The Python client package (clients/python) and its trainer adapters against the REAL service:
 * startService with the shipped demo tasks plus one task whose tests are unusable (so its rollouts get a
 * real INFRA_ERROR), the bubblewrap sandbox, token auth and the OpenRLHF HTTP endpoint on, all on free
 * loopback ports. Each Python test module (unittest) runs under Debian's /usr/bin/python3, which has the
 * python3-grpcio and python3-protobuf packages (scripts/ensure-system.sh installs them); the OpenRLHF
 * endpoint is also called from Node's fetch.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_TASK_FILE } from "../../src/cli/service-options.js";
import { parseConfig } from "../../src/config.js";
import { type RunningServer, startServer } from "../../src/server/server.js";
import { type Service, startService } from "../../src/server/service.js";
import { ReversingFakeScorer, selfSignedCertificate } from "../server/harness.js";

const PYTHON = "/usr/bin/python3";
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TESTS_DIR = join(ROOT, "clients/python/tests");
const TOKEN = "python-client-test-token";
const INFRA_TASK_ID = "test/unusable-tests";

let engine: Service;
/** The same engine with a short OpenRLHF request budget, for the at-scale test: 4,096 requests at once
 *  must all be answered (scored, or INFRA_ERROR at the budget) long before OpenRLHF's 180 s timeout. */
let tightEngine: Service;
const TIGHT_BUDGET_MS = 20_000;
/** A TLS gRPC server for the client's TLS option; its FAKE scorer answers "verdict:PASSED" with 0.1. */
let tlsServer: RunningServer;
let workDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const probe = spawnSync(PYTHON, ["-c", "import grpc, google.protobuf"], { encoding: "utf8" });
  if (probe.status !== 0) {
    throw new Error(
      `${PYTHON} cannot import grpc / google.protobuf (${probe.stderr.trim()}): install Debian's ` +
        "python3-grpcio and python3-protobuf (scripts/ensure-system.sh does it as root)",
    );
  }
  // The server runs its metrics pool from dist/, built once by the global setup (tests/setup/build-dist.ts).
  workDir = mkdtempSync(join(tmpdir(), "minedit-python-client-"));
  const infraTasks = join(workDir, "infra-tasks.jsonl");
  // Assert-style tests without check(candidate): unusable whatever the candidate, so INFRA_ERROR.
  writeFileSync(
    infraTasks,
    `${JSON.stringify({
      task_id: INFRA_TASK_ID,
      corrupted: "def f(x):\n    return x + 1\n",
      gold: "def f(x):\n    return x\n",
      entry_point: "f",
      tests: { style: "assert", code: "assert True\n" },
    })}\n`,
  );
  const config = parseConfig({
    server: { port: 0, authToken: TOKEN, openrlhfPort: 0 },
    pool: { threads: 1 },
    sandbox: { wallTimeMs: 5000, executionConcurrency: 2 },
    // The INFRA task's tests are unusable on purpose (its rollouts must reach clients as INFRA_ERROR);
    // the ground-truth gate would refuse it, so it is off for this engine.
    tasks: { gate: false },
  });
  engine = await startService(config, [DEFAULT_TASK_FILE, infraTasks], true);
  tightEngine = await startService(
    parseConfig({
      server: { port: 0, authToken: TOKEN, openrlhfPort: 0, openrlhfRequestBudgetMs: TIGHT_BUDGET_MS },
      pool: { threads: 1 },
      sandbox: { wallTimeMs: 5000, executionConcurrency: 2 },
    }),
    [DEFAULT_TASK_FILE],
    true,
  );
  const { certFile, keyFile } = selfSignedCertificate(workDir);
  tlsServer = await startServer({
    config: parseConfig({ server: { port: 0, tls: { certFile, keyFile } } }).server,
    scorer: new ReversingFakeScorer(),
  });
  env = {
    ...process.env,
    MINEDIT_TARGET: `127.0.0.1:${engine.server.port}`,
    MINEDIT_TOKEN: TOKEN,
    MINEDIT_OPENRLHF_URL: `http://127.0.0.1:${engine.openrlhf?.port}/get_reward`,
    MINEDIT_OPENRLHF_TIGHT_URL: `http://127.0.0.1:${tightEngine.openrlhf?.port}/get_reward`,
    MINEDIT_OPENRLHF_TIGHT_BUDGET_S: String(TIGHT_BUDGET_MS / 1000),
    MINEDIT_TASKS_FILE: DEFAULT_TASK_FILE,
    MINEDIT_INFRA_TASK_ID: INFRA_TASK_ID,
    MINEDIT_TLS_TARGET: `127.0.0.1:${tlsServer.port}`,
    MINEDIT_TLS_CA: certFile,
    PYTHONDONTWRITEBYTECODE: "1",
  };
}, 300_000);

afterAll(async () => {
  await Promise.all([engine?.close(), tightEngine?.close(), tlsServer?.close()]);
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

type UnittestRun = { status: number | null; output: string; ran: number };

/** Runs one unittest module with /usr/bin/python3 and returns its exit status and report. */
function runUnittest(module: string): Promise<UnittestRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ["-m", "unittest", "-v", module], { cwd: TESTS_DIR, env });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (status) => {
      const ran = Number(/^Ran (\d+) tests? in/m.exec(output)?.[1] ?? 0);
      resolve({ status, output, ran });
    });
  });
}

/** Every test of the module ran and passed: exit 0, "OK" without skips, the expected count. */
async function expectModulePasses(module: string, expectedTests: number): Promise<void> {
  const run = await runUnittest(module);
  if (run.status !== 0) throw new Error(`python -m unittest ${module} failed:\n${run.output}`);
  // The modules print what they measured (calls, latencies); MINEDIT_PY_VERBOSE=1 shows it.
  if (process.env.MINEDIT_PY_VERBOSE === "1") process.stdout.write(run.output);
  expect(run.output).toMatch(/^OK$/m);
  expect(run.output).not.toMatch(/skipped/);
  expect(run.ran).toBe(expectedTests);
}

describe("Python client against the real server", () => {
  test("sync + async clients: batch, stream, deadline, retries on UNAVAILABLE, token auth, health", async () => {
    await expectModulePasses("test_client", 14);
  });

  test("adapters: TRL, verl (per sample and batch), verifiers rubric, INFRA_ERROR mapping", async () => {
    await expectModulePasses("test_adapters", 12);
  });

  test("TRL contract: GRPOTrainer 1.9/1.6/1.5/0.27, AsyncGRPOTrainer, masking, two ranks", async () => {
    await expectModulePasses("test_contract_trl", 26);
  });

  test("coalescing: concurrent one-rollout callers share a few ScoreBatch calls, errors stay per caller", async () => {
    await expectModulePasses("test_coalesce", 13);
  });

  test("verl contract: 0.9 reward loop (8 workers, coalesced), rate_limited, 0.6.1 batch/prime/naive, configs", async () => {
    await expectModulePasses("test_contract_verl", 24);
  });

  test("verifiers / PRIME-RL contract: v0 rubric (dict + pydantic messages), load_environment, v1 taskset loader + scoring, INFRA_ERROR masking, coalescing", async () => {
    await expectModulePasses("test_contract_verifiers", 29);
  });

  test("TLS: trusted root certificates connect, plaintext to a TLS server does not", async () => {
    await expectModulePasses("test_tls", 2);
  });

  test("examples: TRL and verifiers --check runs, the verl reward file loaded by path", async () => {
    await expectModulePasses("test_examples", 4);
  });

  test("OpenRLHF endpoint from Python urllib", async () => {
    await expectModulePasses("test_openrlhf_http", 5);
  });

  test("OpenRLHF contract: v0.9.0-v0.11.0 argparse on the examples, v0.11.0 reward client, 128 concurrent, 4,096 at once within the budget, inline labels", async () => {
    await expectModulePasses("test_contract_openrlhf", 24);
  }, 600_000);

  test("several servers (docs/deploy.md): round_robin over a list of addresses, an ipv4: list, a DNS name with two A records", async () => {
    // Self-contained: its own two gRPC servers and a DNS server of its own on loopback.
    await expectModulePasses("test_round_robin", 5);
  });

  test("slime contract: v0.3.1 argparse + custom-config on the example, group-rm and per-sample rm on slime's loop, remove_sample + group normalization, inline tasks, coalescing", async () => {
    await expectModulePasses("test_contract_slime", 13);
  });

  test("AReaL contract: v1.0.4 workflow resolution + GroupedRolloutWorkflow, masked rows keep alignment (zero loss mask, group mean), rejected groups, reward_fn in the 15 s process pool, coalescing", async () => {
    await expectModulePasses("test_contract_areal", 12);
  });

  test("NeMo-RL contract: v0.7.0 register_env + create_env, example launcher and YAML on grpo_math_1B, calculate_rewards sync and per-sample async (coalesced), group-mean → zero GRPO advantage, inline tasks", async () => {
    await expectModulePasses("test_contract_nemo_rl", 12);
  });

  test("ROLL contract: v0.3.0 Cluster loading (async actor), example config keys, rollout loop per prompt (coalesced) and opt level 0, group-mean → zero grpo advantage, expand mode, inline tasks", async () => {
    await expectModulePasses("test_contract_roll", 12);
  });

  test("SkyRL contract: minedit env in the generator's env thread pool, masked samples leave the loss", async () => {
    await expectModulePasses("test_contract_skyrl", 11);
  });

  test("rLLM contract: MineditEvaluator in the agent flow engine, ERROR episodes compact-filtered", async () => {
    await expectModulePasses("test_contract_rllm", 11);
  });

  test("ART contract: gather_trajectory_groups (as_completed groups, max_exceptions drop), GRPO advantages, example rollout + train step, inline tasks, coalescing", async () => {
    await expectModulePasses("test_contract_art", 12);
  });
});

describe("OpenRLHF endpoint from Node fetch", () => {
  const url = () => `http://127.0.0.1:${engine.openrlhf?.port}/get_reward`;
  const post = (body: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
    fetch(url(), { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

  test("scores a request as OpenRLHF sends it", async () => {
    const prompt = "Repair this program.\n";
    const response = await post(
      JSON.stringify({
        query: [`${prompt}\`\`\`python\ndef f(x):\n    return x\n\`\`\``],
        prompts: [prompt],
        labels: [INFRA_TASK_ID],
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const body = (await response.json()) as { rewards: number[]; extra_logs: Record<string, number[]> };
    expect(body.rewards).toEqual([-0.2]); // reward.failureReward: a sandbox fault never beats a failure
    expect(body.extra_logs.infra_error).toEqual([1]);
  });

  test("malformed JSON is 400, no token 401", async () => {
    const malformed = await post("[1, 2");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("invalid_argument");
    const unauthenticated = await post("{}", {});
    expect(unauthenticated.status).toBe(401);
  });
});

describe("generated Python stubs", () => {
  test("clients/python/minedit_client/_gen is what generate.sh makes from proto/ today", () => {
    const out = join(workDir, "gen");
    execFileSync("bash", [join(ROOT, "clients/python/generate.sh"), out], { stdio: "pipe" });
    for (const file of [
      "__init__.py",
      "minedit/__init__.py",
      "minedit/v1/__init__.py",
      "minedit/v1/reward_pb2.py",
    ].concat(["minedit/v1/reward_pb2_grpc.py"])) {
      const committed = readFileSync(join(ROOT, "clients/python/minedit_client/_gen", file), "utf8");
      expect(readFileSync(join(out, file), "utf8"), `${file}: run clients/python/generate.sh`).toBe(
        committed,
      );
    }
  });
});
