/**
 * Skipping with a reason. Every skipped test must say why (tests/setup/skip-reporter.ts prints the list at
 * the end of the run), so a skip is never silent. Vitest keeps the note of `context.skip(note)` itself;
 * `test.skipIf(cond)` and `describe.skipIf(cond)` carry none, so tests and suites skip through the options
 * below instead: the reason travels in the task's meta, which a suite hands down to its tests.
 *
 *   describe("Docker backend", skipFor(DOCKER_SKIP_REASON), () => { ... });
 *   test("as root, ...", { ...skipUnless(isRoot, "runs only as root: ..."), timeout: 60_000 }, () => { ... });
 */
import type { TestOptions } from "vitest";

declare module "vitest" {
  interface TaskMeta {
    /** Why this test (or every test of this suite) is skipped: printed by the skip reporter. */
    skipReason?: string;
  }
}

/** Options that skip the test or suite with `reason` when `condition` holds, and run it otherwise. */
export function skipIf(condition: boolean, reason: string): TestOptions {
  return condition ? { skip: true, meta: { skipReason: reason } } : {};
}

/** Options that run the test or suite only when `condition` holds; otherwise it skips with `reason`. */
export function skipUnless(condition: boolean, reason: string): TestOptions {
  return skipIf(!condition, reason);
}

/** The skip options for a reason that may be absent: skip with it when there is one, run when there is none. */
export function skipFor(reason: string | undefined): TestOptions {
  return reason === undefined ? {} : skipIf(true, reason);
}
