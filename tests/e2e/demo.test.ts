/**
 * The README's main job after setup: `minedit demo` serves on a free port, scores the demo batch over
 * gRPC with execution, prints one line per rollout, and stops (scripts/test.sh also runs the whole
 * quick-start script once, from npm install on).
 */
import { spawnSync } from "node:child_process";
import { beforeAll, expect, test } from "vitest";

beforeAll(() => {
  const build = spawnSync("npx", ["tsc", "-p", "tsconfig.json"], { stdio: "inherit" });
  if (build.status !== 0) throw new Error("build failed");
}, 300_000);

test("minedit demo scores the demo batch end to end", () => {
  const run = spawnSync("node", ["bin/minedit.js", "demo"], { encoding: "utf8", timeout: 180_000 });
  expect(run.status, run.stderr).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines).toHaveLength(24);
  const minimal = lines.filter((l) => l.includes("-minimal-fix"));
  expect(minimal).toHaveLength(4);
  for (const line of minimal) expect(line).toMatch(/PASSED\s+reward\s+0\.1000\s+tests (\d+)\/\1/);
  for (const line of lines.filter((l) => l.includes("-unchanged")))
    expect(line).toMatch(/FAILED_TESTS\s+reward\s+-0\.2000/);
  expect(lines.filter((l) => l.includes("(cached)")).length).toBeGreaterThan(0);
  expect(run.stderr).toMatch(/24 rollouts scored over gRPC/);
}, 200_000);

test("minedit serve --help explains the service", () => {
  const run = spawnSync("node", ["bin/minedit.js", "serve", "--help"], { encoding: "utf8" });
  expect(run.status).toBe(0);
  expect(run.stdout).toContain("RewardService");
  expect(run.stdout).toContain("--port");
});
