/**
 * Executions under way, joined by content key across scoring calls. Per-sample trainers (verl's reward
 * loop, OpenRLHF's one request per sample) send a GRPO group's identical completions in separate calls a
 * few milliseconds apart; the result cache (result-cache.ts) answers the later ones only once the first
 * run has finished, so without this each would run the same tests again while the first is still queued
 * or running. A joined run gives every caller the outcome one run gives, as identical rollouts of one call
 * share a run (rollout-scorer.ts).
 *
 * A caller that goes away (its call cancelled or past its deadline) stops waiting at once; the run itself
 * is stopped only when no caller waits for it any more, and is then forgotten, so a later call starts a
 * new one rather than joining a run being stopped.
 */
import { ErrorCode, MineditError } from "../errors.js";

type Run<T> = { readonly done: Promise<T>; readonly stop: AbortController; waiters: number };

export class SharedRuns<T> {
  private readonly runs = new Map<string, Run<T>>();

  /** Runs under way (or queued for a slot). */
  get size(): number {
    return this.runs.size;
  }

  /**
   * The outcome of the run named `key`: the one under way, joined (`joined: true`), else a new one,
   * `start(signal)`, whose signal aborts once every caller's `signal` has. Rejects with MineditError
   * Cancelled as soon as this caller's `signal` aborts, and with the run's own error if it fails.
   */
  run(
    key: string,
    signal: AbortSignal,
    start: (signal: AbortSignal) => Promise<T>,
  ): Promise<{ value: T; joined: boolean }> {
    if (signal.aborted) {
      return Promise.reject(
        new MineditError(ErrorCode.Cancelled, "the call was cancelled before the tests ran"),
      );
    }
    let run = this.runs.get(key);
    const joined = run !== undefined;
    if (run === undefined) {
      const stop = new AbortController();
      const created: Run<T> = { done: start(stop.signal), stop, waiters: 0 };
      const forget = () => {
        if (this.runs.get(key) === created) this.runs.delete(key);
      };
      created.done.then(forget, forget);
      this.runs.set(key, created);
      run = created;
    }
    const shared = run;
    shared.waiters += 1;
    return new Promise((resolve, reject) => {
      const leave = () => {
        shared.waiters -= 1;
        if (shared.waiters === 0) {
          // Nobody waits for it: forgotten first, so no later call joins a run being stopped.
          if (this.runs.get(key) === shared) this.runs.delete(key);
          shared.stop.abort(signal.reason);
        }
        reject(new MineditError(ErrorCode.Cancelled, "the call was cancelled"));
      };
      signal.addEventListener("abort", leave, { once: true });
      shared.done.then(
        (value) => {
          if (signal.aborted) return;
          signal.removeEventListener("abort", leave);
          resolve({ value, joined });
        },
        (error: unknown) => {
          if (signal.aborted) return;
          signal.removeEventListener("abort", leave);
          reject(error);
        },
      );
    });
  }
}
