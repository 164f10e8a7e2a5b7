/**
 * The performance-retention suites: BigCodeBench's instruct prompts read at run time from
 * MINEDIT_DATA_DIR (never copied into the repository: tests/setup/external-data.ts; skipped, with that
 * reason, without it), LiveCodeBench's released rows (a small
 * fixture written like the release: public tests as JSON, private ones base64 + zlib + pickle), and one
 * suite run end to end through the sandbox: canonical solutions as the "model" pass, a wrong answer fails,
 * and Pass@1 counts both.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import {
  BIGCODEBENCH_INSTRUCTION,
  functionalCheck,
  LIVECODEBENCH_SYSTEM,
  loadBigCodeBench,
  loadLiveCodeBench,
  unpickleString,
} from "../../src/eval/retention.js";
import type { StdIo } from "../../src/io/std-io.js";
import { bigCodeBenchFile } from "../setup/external-data.js";
import { skipFor } from "../setup/skip.js";

const ROOT = join(import.meta.dirname, "..", "..");
/** BigCodeBench's release file (MINEDIT_DATA_DIR), or why it is not on this machine. */
const BCB = bigCodeBenchFile();
const BIGCODEBENCH = BCB.value ?? "";
const LIVECODEBENCH = join(ROOT, "tests", "fixtures", "eval", "livecodebench.jsonl");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "minedit-eval-retention-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function captured(): { io: StdIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  const sink = (append: (s: string) => void) =>
    ({
      write(chunk: string | Uint8Array) {
        append(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
        return true;
      },
    }) as unknown as StdIo["stdout"];
  return {
    io: {
      stdin: process.stdin,
      stdout: sink((s) => {
        out += s;
      }),
      stderr: sink((s) => {
        err += s;
      }),
    },
    out: () => out,
    err: () => err,
  };
}

describe("BigCodeBench", () => {
  it("takes the standard-library problems, lists the others as needing the runtime", {
    ...skipFor(BCB.reason),
    timeout: 60_000,
  }, async () => {
    const set = await loadBigCodeBench(BIGCODEBENCH, { runtimeInstalled: false, limit: 200 });
    expect(set.tasks.length + set.excluded.length).toBe(200);
    expect(set.tasks.length).toBeGreaterThan(30);
    expect(set.excluded.every((e) => /bigcodebench task runtime is not installed/.test(e.reason))).toBe(true);
    const first = set.tasks[0];
    expect(first?.taskId).toBe("bigcodebench/BigCodeBench/0");
    expect(first?.domain).toBe("retention:bigcodebench");
    expect(first?.messages).toHaveLength(1);
    expect(first?.messages[0]?.content.startsWith(`${BIGCODEBENCH_INSTRUCTION}\n\`\`\`\n`)).toBe(true);
    expect(set.rows[0]).toMatchObject({
      corrupted: "",
      tests: { style: "unittest" },
      source: "bigcodebench",
    });
    expect(set.rows.every((r) => r.runtime === undefined)).toBe(true);

    const all = await loadBigCodeBench(BIGCODEBENCH, { runtimeInstalled: true, limit: 50 });
    expect(all.excluded).toEqual([]);
    expect(all.tasks).toHaveLength(50);
    expect(all.rows.some((r) => r.runtime === "bigcodebench")).toBe(true);
  });

  it("runs end to end: gated, generated from candidates, scored in the sandbox", {
    ...skipFor(BCB.reason),
    timeout: 120_000,
  }, async () => {
    // The first 6 problems: canonical solutions, and a wrong program for BigCodeBench/1 (standard library).
    const rows = gunzipSync(readFileSync(BIGCODEBENCH))
      .toString("utf8")
      .split("\n")
      .slice(0, 6)
      .map((l) => JSON.parse(l) as Record<string, string>);
    const candidates = rows.map((r, i) => ({
      task_id: `bigcodebench/${r.task_id}`,
      completion:
        i === 1
          ? "```python\ndef task_func(*args, **kwargs):\n    return None\n```"
          : `\`\`\`python\n${r.complete_prompt}${r.canonical_solution}\n\`\`\``,
    }));
    const file = join(dir, "bcb-candidates.jsonl");
    writeFileSync(file, candidates.map((c) => JSON.stringify(c)).join("\n"));
    writeFileSync(join(dir, "config.json"), JSON.stringify({ tasks: { gateCacheDir: join(dir, "gate") } }));
    const out = join(dir, "bcb-run");
    const { io, err } = captured();
    const status = await main(
      [
        "eval",
        "run",
        "--bigcodebench",
        BIGCODEBENCH,
        "--bigcodebench-limit",
        "6",
        "--wall-time-ms",
        "4000",
        "--candidates",
        file,
        "--out",
        out,
        "--resamples",
        "200",
        "--config",
        join(dir, "config.json"),
        "--concurrency",
        "2",
        "--threads",
        "1",
      ],
      io,
    );
    expect(status, err()).toBe(0);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    const suite = report.runs[0].retention.bigcodebench;
    const evaluated = report.runs[0].tasks.evaluated as number;
    expect(suite.tasks).toBe(evaluated);
    // Every task the gate served passes with its canonical solution, except the one wrong answer.
    expect(suite.outcomes.PASSED).toBe(evaluated - 1);
    expect(suite.pass_at_1.estimate).toBeCloseTo((evaluated - 1) / evaluated, 12);
    expect(report.runs[0].tasks.excluded.length).toBe(6 - evaluated);
    expect(report.runs[0].tasks.excluded.map((e: { task_id: string }) => e.task_id)).not.toContain(
      "bigcodebench/BigCodeBench/1",
    );
  });
});

describe("LiveCodeBench", () => {
  it("reads the release's fields, decodes the compressed private tests, and builds stdio and functional tests", async () => {
    const set = await loadLiveCodeBench(LIVECODEBENCH);
    expect(set.gated).toBe(false);
    expect(set.tasks.map((t) => t.taskId)).toEqual([
      "livecodebench/fixture-stdin-1",
      "livecodebench/fixture-functional-2",
    ]);
    expect(set.excluded).toEqual([expect.objectContaining({ reason: "no test cases" })]);
    expect(set.tasks[0]?.messages[0]).toEqual({ role: "system", content: LIVECODEBENCH_SYSTEM });
    expect(set.tasks[0]?.messages[1]?.content).toContain("Read the inputs from stdin");
    expect(set.tasks[1]?.messages[1]?.content).toContain("class Solution:\n    def countPairs");
    expect(set.rows[0]?.tests).toEqual({
      style: "stdio",
      cases: [
        { input: "2\n4 5\n", output: "9\n" },
        { input: "3\n1 2 3\n", output: "6\n" },
        { input: "1\n-5\n", output: "-5\n" },
      ],
    });
    expect(set.rows[1]).toMatchObject({ entry_point: "Solution", tests: { style: "assert" } });
  });

  it("generates a functional check that CPython runs against a right and a wrong solution", () => {
    const check = functionalCheck("countPairs", [
      { input: "[-1,1,2,3,1]\n2", output: "3", testtype: "functional" },
      { input: "[5]\n1", output: "0", testtype: "functional" },
    ]);
    const right =
      "class Solution:\n    def countPairs(self, nums, target):\n        return sum(1 for i in range(len(nums)) for j in range(i + 1, len(nums)) if nums[i] + nums[j] < target)\n";
    const wrong = "class Solution:\n    def countPairs(self, nums, target):\n        return 0\n";
    const runs = [right, wrong].map(
      (program) =>
        spawnSync("python3", ["-c", `${program}\n${check}\ncheck(Solution)\n`], { encoding: "utf8" }).status,
    );
    expect(runs).toEqual([0, 1]);
  });

  it("refuses pickles that are not a plain string", () => {
    // pickle.dumps("hi", protocol=4) and pickle.dumps([1], protocol=4)
    expect(unpickleString(Buffer.from("80049506000000000000008c026869942e", "hex"))).toBe("hi");
    expect(() => unpickleString(Buffer.from("80049506000000000000005d944b01612e", "hex"))).toThrow(
      /not a pickled string/,
    );
  });
});
