/**
 * Shared by the analyzer tests: one {@link Linter} (and its sandbox) per test file, and the compact form
 * of an alert list the known-alert assertions compare.
 */
import { afterAll, beforeAll } from "vitest";
import { Linter } from "../../src/analyzers/linter.js";
import type { Alert } from "../../src/core/lint/alert.js";

/** A linter created before the file's tests and closed after them; call the result inside tests. */
export function useLinter(): () => Linter {
  let linter: Linter | undefined;
  beforeAll(async () => {
    linter = await Linter.create();
  });
  afterAll(async () => {
    await linter?.close();
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
