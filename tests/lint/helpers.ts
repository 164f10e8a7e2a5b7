/**
 * Shared by the analyzer tests: one {@link Linter} (and its sandbox) per test file, and the compact form
 * of an alert list the known-alert assertions compare.
 */
import { afterAll, beforeAll } from "vitest";
import { Linter } from "../../src/analyzers/linter.js";
import type { Alert } from "../../src/core/lint/alert.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";

/**
 * A linter created before the file's (or the describe block's) tests and closed after them, in a sandbox
 * from `createSandbox` (closed with it) or its own bwrap one; call the result inside tests.
 */
export function useLinter(createSandbox?: () => Promise<Sandbox>): () => Linter {
  let linter: Linter | undefined;
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = createSandbox === undefined ? undefined : await createSandbox();
    linter = await Linter.create(sandbox === undefined ? {} : { sandbox });
  }, 60_000);
  afterAll(async () => {
    await linter?.close();
    await sandbox?.close();
  });
  return () => {
    if (linter === undefined) throw new Error("the linter is not created yet");
    return linter;
  };
}

/** `line:ruleId` of each alert, sorted: what a known-alert test compares. */
export function ruleLines(alerts: readonly Pick<Alert, "ruleId" | "line">[]): string[] {
  return alerts.map((a) => `${a.line}:${a.ruleId}`).sort();
}
