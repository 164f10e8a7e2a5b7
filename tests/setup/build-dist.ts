/**
 * Vitest global setup: builds `dist/` once, before any test file runs, so that every test that spawns the
 * built CLI (`bin/minedit.js` → `dist/`) or a worker from `dist/workers/` runs the code as it is now. No test
 * file builds on its own: parallel `beforeAll` builds raced the files that read `dist/`, and "build when a
 * file is missing" checks let the suite test stale code. A failed build fails the whole run, with tsc's
 * output, before a single test runs.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export default function buildDist(): void {
  const started = Date.now();
  const build = spawnSync("npm", ["run", "--silent", "build"], { cwd: ROOT, encoding: "utf8" });
  if (build.error !== undefined || build.status !== 0) {
    const output = `${build.stdout ?? ""}${build.stderr ?? ""}`.trim();
    throw new Error(
      `the test run needs dist/ and \`npm run build\` failed (${build.error?.message ?? `exit ${build.status}`}); no test ran:\n${output}`,
    );
  }
  process.stderr.write(`global setup: built dist/ with \`npm run build\` in ${Date.now() - started} ms\n`);
}
