/**
 * The gold check of inline tasks: a stored task's gold runs against its tests before the store is served
 * (task-gate.ts), but an inline task arrives with its rollouts. Its gold runs once per task content,
 * alongside the task's first rollouts, and a gold that does not pass makes every rollout of the task
 * `INVALID_TASK` (no reward) instead of a group of identical failure rewards the trainer would learn
 * nothing from but noise (a runtime that lacks a library, a wrong expected value, tests that do not
 * compile).
 *
 * Verdicts are remembered in memory by content (a bounded map: a trainer sends the same few hundred
 * tasks over and over); a check the sandbox broke, or that was cancelled, is not remembered, and the
 * rollouts waiting on it keep their own outcomes. The gold's run itself is shared by the calls that need
 * it at once the way every execution is (the scorer's `runShared`): a call cancelled while it runs leaves
 * it to the others instead of taking their check with it.
 */
import type { TestOutcome } from "../runners/python.js";

/** What the check found: the gold passes, it does not (and how it failed), or it could not be told. */
export type GoldCheck = { kind: "valid" } | { kind: "invalid"; detail: string } | { kind: "unknown" };

/** Distinct tasks remembered (each a few dozen bytes). */
const REMEMBERED_TASKS = 65_536;

/** The check's reading of a gold run's outcome. */
export function goldCheckOf(outcome: TestOutcome): GoldCheck {
  if (outcome.verdict === "PASSED") return { kind: "valid" };
  // A sandbox fault says nothing of the task; tests the harness cannot use are the task's own fault.
  if (outcome.verdict === "INFRA_ERROR" && outcome.infraCause !== "unusable_tests")
    return { kind: "unknown" };
  const detail = outcome.detail.trim();
  return {
    kind: "invalid",
    detail: `the task's gold program does not pass its own tests (${outcome.verdict}${detail === "" ? "" : `: ${detail}`})`,
  };
}

export class InlineGoldChecks {
  /** Settled verdicts (valid or invalid), oldest first. */
  private readonly settled = new Map<string, GoldCheck>();

  /** The remembered verdict of the task with content key `key`, if it is settled. */
  known(key: string): GoldCheck | undefined {
    return this.settled.get(key);
  }

  /**
   * The verdict of the task with content key `key`: remembered, or found by `runGold` (this call's share
   * of the gold's run). `runGold` rejecting (the call cancelled) counts as unknown.
   */
  check(key: string, runGold: () => Promise<TestOutcome>): Promise<GoldCheck> {
    const known = this.settled.get(key);
    if (known !== undefined) return Promise.resolve(known);
    return runGold().then(
      (outcome) => this.remember(key, goldCheckOf(outcome)),
      (): GoldCheck => ({ kind: "unknown" }),
    );
  }

  private remember(key: string, verdict: GoldCheck): GoldCheck {
    if (verdict.kind === "unknown" || this.settled.has(key)) return verdict;
    if (this.settled.size >= REMEMBERED_TASKS) {
      this.settled.delete(this.settled.keys().next().value as string);
    }
    this.settled.set(key, verdict);
    return verdict;
  }
}
