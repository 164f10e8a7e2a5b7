/**
 * Test outcomes remembered across scoring calls, by content: GRPO repeats completions across steps (a
 * policy that has found the minimal repair emits it again and again), and a task's tests give a program
 * the same verdict every time. Bounded by an estimate of the bytes held, least recently used out first.
 *
 * Only verdicts a re-run would repeat are kept: never TIMEOUT (it depends on the machine's load) and
 * never INFRA_ERROR (the sandbox, not the program).
 */
import type { TestOutcome } from "../runners/python.js";

/** Whether an outcome may be reused for an identical execution later. */
export function isReusable(outcome: TestOutcome): boolean {
  return outcome.verdict !== "TIMEOUT" && outcome.verdict !== "INFRA_ERROR";
}

export class ResultCache {
  private readonly entries = new Map<string, { outcome: TestOutcome; bytes: number }>();
  private bytes = 0;

  /** `maxBytes`: the estimated size the cache may hold; 0 keeps nothing. */
  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The estimated bytes held. */
  get heldBytes(): number {
    return this.bytes;
  }

  get(key: string): TestOutcome | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.outcome;
  }

  /** Keeps `outcome` if it is reusable and fits; evicts the least recently used to make room. */
  set(key: string, outcome: TestOutcome): void {
    if (!isReusable(outcome)) return;
    // Strings are UTF-16 in memory; the fixed part covers the object and the numbers.
    const bytes = 2 * (key.length + outcome.detail.length + outcome.stderrTail.length) + 256;
    if (bytes > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    while (this.bytes + bytes > this.maxBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.bytes -= (this.entries.get(oldest.value) as { bytes: number }).bytes;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { outcome, bytes });
    this.bytes += bytes;
  }
}
