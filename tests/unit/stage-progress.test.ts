// The evaluation's stage progress (src/generation/stage-progress.ts) on the shared progress line
// (src/io/progress-line.ts): a bar, tokens/s, failures and an ETA on a terminal, cut to its width; plain
// lines every 5 s elsewhere, and no plain line for the final forced draw.
import { describe, expect, it } from "vitest";
import { formatDuration, StageProgress } from "../../src/generation/stage-progress.js";
import { PLAIN_INTERVAL_MS, type ProgressStream } from "../../src/io/progress-line.js";

function fakeStream(isTTY: boolean, columns = 120): ProgressStream & { written: string[] } {
  const written: string[] = [];
  return {
    isTTY,
    columns,
    written,
    write(chunk: string) {
      written.push(chunk);
      return true;
    },
  };
}

describe("StageProgress", () => {
  it("formats durations as 12s, 3m05s, 1h02m", () => {
    expect([formatDuration(12.4), formatDuration(185), formatDuration(3720), formatDuration(-3)]).toEqual([
      "12s",
      "3m05s",
      "1h02m",
      "0s",
    ]);
  });

  it("on a terminal: bar, counts, tokens/s, failures and ETA, redrawn in place, throttled, cut to the width", () => {
    let now = 0;
    const stream = fakeStream(true);
    const progress = new StageProgress(stream, "generate", "samples", () => now);
    now = 10_000;
    progress.update({ done: 25, total: 100, tokens: 5000, errors: 2 });
    expect(stream.written).toEqual([
      `\r\x1b[Kgenerate: [${"#".repeat(6)}${"-".repeat(18)}]  25%  25/100 samples, 500 tok/s, 2 failed, ETA 30s`,
    ]);
    now = 10_050; // within the terminal's 100 ms
    progress.update({ done: 26, total: 100 });
    expect(stream.written).toHaveLength(1);
    progress.update({ done: 100, total: 100 }, true); // forced: the final state, no ETA
    expect(stream.written[1]).toBe(`\r\x1b[Kgenerate: [${"#".repeat(24)}] 100%  100/100 samples`);
    progress.log("sample 7: HTTP 500");
    expect(stream.written.slice(2)).toEqual(["\r\x1b[K", "sample 7: HTTP 500\n"]);
    progress.clear(); // nothing drawn since the log: nothing to erase
    expect(stream.written).toHaveLength(4);

    const narrow = fakeStream(true, 20);
    const cut = new StageProgress(narrow, "score", "samples", () => now);
    cut.update({ done: 1, total: 2 }, true);
    // 19 characters: one short of the width, so the terminal never wraps it.
    expect(narrow.written).toEqual([`\r\x1b[Kscore: [${"#".repeat(11)}`]);
  });

  it("elsewhere: nothing for a short stage, a plain line every 5 s, and none for the forced final draw", () => {
    let now = 0;
    const stream = fakeStream(false);
    const progress = new StageProgress(stream, "score", "samples", () => now);
    now = 1000;
    progress.update({ done: 10, total: 40 });
    expect(stream.written).toEqual([]);
    now = PLAIN_INTERVAL_MS;
    progress.update({ done: 20, total: 40 });
    progress.update({ done: 40, total: 40 }, true);
    progress.clear();
    expect(stream.written).toEqual(["score: 50%, 20/40 samples, ETA 5s\n"]);
  });
});
