/**
 * The execution slots' line (src/scoring/execution-slots.ts): a freed slot goes to the waiter of smallest
 * `queued at − expected time`, so whatever is queued starts slowest first across calls, and a waiter is
 * overtaken only by newcomers expected to run longer than it has waited. The clock is set by hand.
 */
import { describe, expect, it } from "vitest";
import { Semaphore } from "../../src/scoring/execution-slots.js";

/** A semaphore of one slot on a hand clock; `take` queues a named waiter at time `at`. */
function line() {
  let clock = 0;
  const slots = new Semaphore(1, () => clock);
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  const take = (name: string, at: number, expectedMs: number, signal = new AbortController().signal) => {
    clock = at;
    return slots.acquire(signal, expectedMs).then((release) => {
      granted.push(name);
      releases.set(name, release);
    });
  };
  /** Releases `name`'s slot and lets the next grant settle. */
  const release = async (name: string) => {
    releases.get(name)?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { take, release, granted };
}

describe("execution slots", () => {
  it("grants a free slot at once, whatever the expected time", async () => {
    const { take, granted } = line();
    await take("first", 0, 0);
    expect(granted).toEqual(["first"]);
  });

  it("serves waiters that queued together slowest first, ties in arrival order", async () => {
    const { take, release, granted } = line();
    await take("running", 0, 0);
    void take("fast-a", 10, 20);
    void take("slow", 10, 900);
    void take("fast-b", 10, 20);
    void take("middle", 10, 300);
    for (const name of ["running", "slow", "middle", "fast-a", "fast-b"]) await release(name);
    expect(granted).toEqual(["running", "slow", "middle", "fast-a", "fast-b"]);
  });

  it("lets a later call's slow execution pass an earlier call's fast one (across calls)", async () => {
    const { take, release, granted } = line();
    await take("running", 0, 0);
    void take("call-1 fast", 100, 50); // key 50
    void take("call-2 slow", 400, 2000); // key −1600: queued later, expected 2 s
    for (const name of ["running", "call-2 slow", "call-1 fast"]) await release(name);
    expect(granted).toEqual(["running", "call-2 slow", "call-1 fast"]);
  });

  it("does not let a newcomer pass a waiter that has waited longer than the newcomer is slower", async () => {
    const { take, release, granted } = line();
    await take("running", 0, 0);
    void take("old fast", 0, 100); // key −100
    void take("new slow", 5000, 1000); // key 4000: 900 ms slower, but the old one waited 5 s
    for (const name of ["running", "old fast", "new slow"]) await release(name);
    expect(granted).toEqual(["running", "old fast", "new slow"]);
  });

  it("drops an aborted waiter from the line without using a slot", async () => {
    const { take, release, granted } = line();
    await take("running", 0, 0);
    const abort = new AbortController();
    const aborted = take("aborted", 1, 5000, abort.signal);
    void take("next", 2, 10);
    abort.abort();
    await aborted; // resolves with a no-op release
    granted.splice(granted.indexOf("aborted"), 1);
    await release("running");
    expect(granted).toEqual(["running", "next"]);
  });

  it("run() holds the slot for the work and refuses work whose call was cancelled meanwhile", async () => {
    let clock = 0;
    const slots = new Semaphore(1, () => clock);
    const abort = new AbortController();
    let finishFirst: () => void = () => {};
    const first = slots.run(new AbortController().signal, () => new Promise<void>((r) => (finishFirst = r)));
    clock = 1;
    let ran = false;
    const cancelled = expect(
      slots.run(abort.signal, async () => {
        ran = true;
      }),
    ).rejects.toThrow("cancelled");
    abort.abort();
    await new Promise((resolve) => setImmediate(resolve)); // the first work has started
    finishFirst();
    await first;
    await cancelled;
    expect(ran).toBe(false);
    // The slot is free again.
    await expect(slots.run(new AbortController().signal, async () => "ok")).resolves.toBe("ok");
  });
});
