/** RunDeadline (src/sandbox/run-deadline.ts): the wall-time limit, an abort, and a setup bound of its own. */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { RunDeadline } from "../../src/sandbox/run-deadline.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("RunDeadline", () => {
  test("kills at the wall-time limit, counted from now", () => {
    const kill = vi.fn();
    const deadline = new RunDeadline(1000, undefined, kill);
    vi.advanceTimersByTime(999);
    expect(kill).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect([kill.mock.calls.length, deadline.timedOut, deadline.cancelled]).toEqual([1, true, false]);
  });

  test("with a setup bound, the wall-time limit counts from started()", () => {
    const kill = vi.fn();
    const deadline = new RunDeadline(1000, undefined, kill, { setupMs: 60_000 });
    vi.advanceTimersByTime(30_000); // a slow daemon making the container
    deadline.started();
    vi.advanceTimersByTime(999);
    expect(kill).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect([deadline.timedOut, deadline.setupTimedOut]).toEqual([true, false]);
  });

  test("setup past its bound kills as a setup timeout, never a run timeout", () => {
    const kill = vi.fn();
    const deadline = new RunDeadline(1000, undefined, kill, { setupMs: 60_000 });
    vi.advanceTimersByTime(60_000);
    expect([kill.mock.calls.length, deadline.setupTimedOut, deadline.timedOut]).toEqual([1, true, false]);
  });

  test("an abort cancels, during setup too; dispose stops both", () => {
    const abort = new AbortController();
    const kill = vi.fn();
    const deadline = new RunDeadline(1000, abort.signal, kill, { setupMs: 60_000 });
    abort.abort();
    expect([kill.mock.calls.length, deadline.cancelled]).toEqual([1, true]);
    const quiet = vi.fn();
    const other = new RunDeadline(1000, new AbortController().signal, quiet, { setupMs: 5 });
    other.dispose();
    vi.advanceTimersByTime(100_000);
    expect(quiet).not.toHaveBeenCalled();
  });
});
