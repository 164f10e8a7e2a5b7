/**
 * The README's main job after setup: `minedit demo` serves on a free port, scores the demo batch over
 * gRPC with execution, prints one line per rollout, and stops (scripts/test.sh also runs the whole
 * quick-start script once, from npm install on). The demo's "rewrite" rollout is checked on every
 * shipped demo task, not only the four the demo sends: it must pass and pay the edit penalty.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Client, credentials } from "@grpc/grpc-js";
import { expect, test } from "vitest";
import { serviceConfig, taskFiles } from "../../src/cli/service-options.js";
import { programTokens } from "../../src/core/normalize.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { Verdict } from "../../src/gen/minedit/v1/reward_pb.js";
import { demoRollouts, rewrittenProgram, scoreBatch } from "../../src/server/demo.js";
import { startService } from "../../src/server/service.js";
import { DOCKER_SKIP_REASON } from "../sandbox/backends.js";
import { skipFor } from "../setup/skip.js";

// `minedit demo` runs from dist/, built once by the global setup (tests/setup/build-dist.ts).

/** The reward printed on a demo line. */
const reward = (line: string) => Number(/reward\s+(-?\d+\.\d+)/.exec(line)?.[1]);

test("minedit demo scores the demo batch end to end", () => {
  const run = spawnSync("node", ["bin/minedit.js", "demo"], { encoding: "utf8", timeout: 180_000 });
  expect(run.status, run.stderr).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines).toHaveLength(28);
  const minimal = lines.filter((l) => l.includes("-minimal-fix"));
  expect(minimal).toHaveLength(4);
  for (const line of minimal) expect(line).toMatch(/PASSED\s+reward\s+0\.1000\s+tests (\d+)\/\1/);
  for (const line of lines.filter((l) => l.includes("-unchanged")))
    expect(line).toMatch(/FAILED_TESTS\s+reward\s+-0\.2000/);
  // The edit penalty: a rewrite passes every test and still earns less than the minimal fix.
  const rewrites = lines.filter((l) => l.includes("-rewrite"));
  expect(rewrites).toHaveLength(4);
  for (const line of rewrites) {
    expect(line).toMatch(/PASSED\s+reward\s+-?\d\.\d{4}\s+tests (\d+)\/\1/);
    expect(reward(line)).toBeLessThan(0.1);
  }
  expect(lines.filter((l) => l.includes("(cached)")).length).toBeGreaterThan(0);
  expect(run.stderr).toMatch(/28 rollouts scored over gRPC/);
  // The README's quick-start sample is what the demo really prints, line for line.
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const sample = readme.split("\n").filter((l) => /^t\d-[a-z-]+\s+[A-Z_]+\s+reward/.test(l));
  expect(sample.length).toBeGreaterThanOrEqual(7);
  for (const line of sample) expect(lines, "README sample line").toContain(line);
}, 200_000);

test("minedit demo --sandbox docker scores the demo batch exactly as the bwrap sandbox does", {
  ...skipFor(DOCKER_SKIP_REASON),
  timeout: 500_000,
}, () => {
  const lines = (sandbox: string) => {
    const run = spawnSync("node", ["bin/minedit.js", "demo", "--sandbox", sandbox], {
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(run.status, run.stderr).toBe(0);
    // Which rollout of a task runs and which reuses its result may differ: the verdicts and rewards may not.
    return run.stdout
      .trim()
      .split("\n")
      .map((l) => l.replace(/\s+\(cached\)$/, ""));
  };
  const docker = lines("docker");
  expect(docker).toHaveLength(28);
  expect(docker).toEqual(lines("bwrap"));
});

test("the rewrite rollout of every shipped demo task passes its tests and scores below 0.1", async () => {
  await loadPythonGrammar();
  const config = await serviceConfig({}, { port: 0 });
  const engine = await startService(config, taskFiles(config), true);
  const client = new Client(`${config.server.host}:${engine.server.port}`, credentials.createInsecure());
  try {
    const tasks = [...engine.tasks.values()];
    expect(tasks).toHaveLength(24);
    for (const task of tasks) {
      // A rewrite in tokens, not only in layout (else the reward check below could not fail for it).
      expect(programTokens(rewrittenProgram(task.gold)), task.taskId).not.toEqual(programTokens(task.gold));
    }
    const rollouts = tasks.flatMap(demoRollouts).filter((r) => r.id.endsWith("-rewrite"));
    expect(rollouts).toHaveLength(24);
    const response = await scoreBatch(client, rollouts);
    expect(response.results).toHaveLength(24);
    for (const result of response.results) {
      expect(Verdict[result.verdict], `${result.id}: ${result.detail}`).toBe("PASSED");
      expect(result.testsPassed, result.id).toBe(result.testsTotal);
      expect(result.reward, result.id).toBeLessThan(0.1);
    }
  } finally {
    client.close();
    await engine.close();
  }
}, 200_000);

test("minedit serve --help explains the service", () => {
  const run = spawnSync("node", ["bin/minedit.js", "serve", "--help"], { encoding: "utf8" });
  expect(run.status).toBe(0);
  expect(run.stdout).toContain("RewardService");
  expect(run.stdout).toContain("--port");
});
