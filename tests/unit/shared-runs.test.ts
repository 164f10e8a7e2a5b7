import { describe, expect, it } from "vitest";
import { isMineditError } from "../../src/errors.js";
import { SharedRuns } from "../../src/scoring/shared-runs.js";

/** A run the test finishes by hand, recording the signal it was started with. */
function controllable<T>() {
  const started: AbortSignal[] = [];
  let finish: (value: T) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const start = (signal: AbortSignal) => {
    started.push(signal);
    return new Promise<T>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { started, start, finish: (v: T) => finish(v), fail: (e: Error) => fail(e) };
}

const cancelled = (error: unknown) => isMineditError(error) && error.code === "canceled";

describe("SharedRuns", () => {
  it("a second caller of the same key joins the run under way: one start, both get its value", async () => {
    const runs = new SharedRuns<string>();
    const run = controllable<string>();
    const first = runs.run("k", new AbortController().signal, run.start);
    const second = runs.run("k", new AbortController().signal, run.start);
    expect(run.started).toHaveLength(1);
    run.finish("PASSED");
    expect(await first).toEqual({ value: "PASSED", joined: false });
    expect(await second).toEqual({ value: "PASSED", joined: true });
    expect(runs.size).toBe(0);
  });

  it("a finished run is forgotten: the next caller starts a new one; other keys never share", async () => {
    const runs = new SharedRuns<number>();
    const a = controllable<number>();
    const b = controllable<number>();
    const one = runs.run("a", new AbortController().signal, a.start);
    const other = runs.run("b", new AbortController().signal, b.start);
    expect([a.started.length, b.started.length]).toEqual([1, 1]);
    a.finish(1);
    b.finish(2);
    expect([(await one).value, (await other).value]).toEqual([1, 2]);
    const again = controllable<number>();
    const next = runs.run("a", new AbortController().signal, again.start);
    expect(again.started).toHaveLength(1);
    again.finish(3);
    expect(await next).toEqual({ value: 3, joined: false });
  });

  it("a caller that leaves stops waiting at once; the run goes on for the others, unstopped", async () => {
    const runs = new SharedRuns<string>();
    const run = controllable<string>();
    const leaving = new AbortController();
    const first = runs.run("k", leaving.signal, run.start);
    const second = runs.run("k", new AbortController().signal, run.start);
    leaving.abort();
    await expect(first).rejects.toSatisfy(cancelled);
    expect(run.started[0]?.aborted).toBe(false);
    run.finish("PASSED");
    expect(await second).toEqual({ value: "PASSED", joined: true });
  });

  it("the run is stopped when its last caller leaves, and a later caller starts a new one", async () => {
    const runs = new SharedRuns<string>();
    const run = controllable<string>();
    const callers = [new AbortController(), new AbortController()];
    const waiting = callers.map((c) => runs.run("k", c.signal, run.start));
    callers[0]?.abort();
    expect(run.started[0]?.aborted).toBe(false);
    callers[1]?.abort();
    expect(run.started[0]?.aborted).toBe(true);
    for (const w of waiting) await expect(w).rejects.toSatisfy(cancelled);
    expect(runs.size).toBe(0);
    const fresh = controllable<string>();
    const later = runs.run("k", new AbortController().signal, fresh.start);
    expect(fresh.started).toHaveLength(1);
    fresh.finish("FAILED_TESTS");
    expect(await later).toEqual({ value: "FAILED_TESTS", joined: false });
    // The stopped run ending late changes nothing.
    run.fail(new Error("stopped"));
  });

  it("a run's failure reaches every caller; an already-cancelled caller starts nothing", async () => {
    const runs = new SharedRuns<string>();
    const run = controllable<string>();
    const first = runs.run("k", new AbortController().signal, run.start);
    const second = runs.run("k", new AbortController().signal, run.start);
    run.fail(new Error("the sandbox broke"));
    await expect(first).rejects.toThrow("the sandbox broke");
    await expect(second).rejects.toThrow("the sandbox broke");
    expect(runs.size).toBe(0);
    const gone = new AbortController();
    gone.abort();
    const never = controllable<string>();
    await expect(runs.run("k", gone.signal, never.start)).rejects.toSatisfy(cancelled);
    expect(never.started).toHaveLength(0);
  });
});
