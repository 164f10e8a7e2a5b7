/**
 * The shipped seed problems: rebuilt from datasets/seed/src and verified by the build script (every
 * reference solution passes its tests, the tests fail a stub), and the committed problems.jsonl is what
 * the sources produce. The task sets made from them (the demo set included) are checked in
 * task-sets.test.ts.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";

test("datasets/seed is verified and up to date", () => {
  const run = spawnSync("python3", ["scripts/build-seed-dataset.py", "--check"], {
    encoding: "utf8",
    timeout: 170_000,
  });
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
}, 180_000);

test("at least 60 problems in all three test styles", () => {
  const problems = readFileSync("datasets/seed/problems.jsonl", "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(problems.length).toBeGreaterThanOrEqual(60);
  const styles = new Set(problems.map((p: { tests: { style: string } }) => p.tests.style));
  expect([...styles].sort()).toEqual(["assert", "stdio", "unittest"]);
});
