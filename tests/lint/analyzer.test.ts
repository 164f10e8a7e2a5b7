/**
 * The analyzer plumbing without the tools: report parsers on captured output, version parsing and the
 * pin check, the same-length neutralization of suppression markers, and batched runs.
 */
import { describe, expect, test } from "vitest";
import {
  checkPinnedVersion,
  inRuns,
  neutralize,
  PINNED_ANALYZER_VERSIONS,
} from "../../src/analyzers/analyzer.js";
import { parseClangTidyOutput, parseClangTidyVersion } from "../../src/analyzers/clang-tidy.js";
import { parsePmdJson, parsePmdVersion } from "../../src/analyzers/pmd.js";
import { parsePylintJson, parsePylintVersion } from "../../src/analyzers/pylint.js";
import { ErrorCode } from "../../src/errors.js";

const fail = () => new Error("unparsable");

describe("report parsers", () => {
  test("pylint JSON: per path, unknown paths ignored", () => {
    const report = JSON.stringify([
      { "message-id": "W0611", message: "Unused import os", line: 2, path: "src/1/main.py" },
      { "message-id": "C0114", message: "Missing module docstring", line: 1, path: "src/0/main.py" },
      { "message-id": "C0114", message: "Missing module docstring", line: 1, path: "elsewhere.py" },
    ]);
    const [a = [], b = []] = parsePylintJson(report, ["src/0/main.py", "src/1/main.py"]);
    expect(a.map((x) => x.ruleId)).toEqual(["C0114"]);
    expect(b).toEqual([
      {
        tool: "pylint",
        ruleId: "W0611",
        category: "Refactor",
        message: "Unused import os",
        sanitizedMessage: "Unused import os",
        line: 2,
      },
    ]);
    expect(() => parsePylintJson("{}", [])).toThrow(/not an array/);
  });

  test("clang-tidy text: diagnostics only, first name of several, other files ignored", () => {
    const stdout = [
      "/tmp/src/0/main.cpp:5:7: warning: 100005 is a magic number; consider replacing it with a named constant [readability-magic-numbers]",
      "int a[100005];",
      "      ^",
      "/tmp/src/0/main.cpp:5:1: warning: do not declare C-style arrays [modernize-avoid-c-arrays,cppcoreguidelines-avoid-c-arrays]",
      "/tmp/src/0/main.cpp:9:3: note: this note is not an alert",
      "/usr/include/c++/12/bits/stl_vector.h:3:1: warning: in a header [readability-magic-numbers]",
      "/tmp/src/0/main.cpp:12:10: error: use of undeclared identifier 'x' [clang-diagnostic-error]",
    ].join("\n");
    const [alerts = []] = parseClangTidyOutput(stdout, ["src/0/main.cpp"]);
    expect(alerts.map((a) => [a.line, a.ruleId, a.category])).toEqual([
      [5, "readability-magic-numbers", "Style"],
      [5, "modernize-avoid-c-arrays", "Refactor"],
      [12, "clang-diagnostic-error", "Error-prone"],
    ]);
  });

  test("PMD JSON: violations and suppressed ones, processing errors, configuration errors throw", () => {
    const violation = (rule: string, line: number, ruleset: string) => ({
      beginline: line,
      description: `about ${rule}`,
      rule,
      ruleset,
    });
    const report = {
      files: [
        { filename: "src/0/Main.java", violations: [violation("UnusedLocalVariable", 9, "Best Practices")] },
      ],
      suppressedViolations: [
        { filename: "src/0/Main.java", violations: [violation("ShortVariable", 3, "Code Style")] },
        { filename: "src/1/Main.java", violations: [violation("SomeNewRule", 4, "Performance")] },
      ],
      processingErrors: [
        { filename: "src/1/Main.java", message: "ParseException: at line 7, column 2: Encountered x\nmore" },
      ],
      configurationErrors: [],
    };
    const [a = [], b = []] = parsePmdJson(JSON.stringify(report), ["src/0/Main.java", "src/1/Main.java"]);
    expect(a.map((x) => [x.line, x.ruleId, x.category])).toEqual([
      [3, "ShortVariable", "Style"],
      [9, "UnusedLocalVariable", "Refactor"],
    ]);
    // A rule the taxonomy does not list falls back to the category PMD reported.
    expect(b.map((x) => [x.line, x.ruleId, x.category, x.message])).toEqual([
      [4, "SomeNewRule", "Performance", "about SomeNewRule"],
      [7, "ProcessingError", "Error-prone", "ParseException: at line 7, column 2: Encountered x"],
    ]);
    expect(() =>
      parsePmdJson(JSON.stringify({ ...report, configurationErrors: [{ rule: "X", message: "bad" }] }), []),
    ).toThrow(/configuration errors/);
  });
});

describe("versions", () => {
  test("parsed from the tools' own output", () => {
    expect(
      parsePylintVersion("pylint 2.16.2\nastroid 2.14.2\nPython 3.11.2 (main, Apr 28 2025)\n", fail),
    ).toEqual({
      tool: "pylint",
      version: "2.16.2",
      detail: "pylint 2.16.2 (astroid 2.14.2, Python 3.11.2)",
    });
    expect(parseClangTidyVersion("Debian LLVM version 14.0.6\n  Optimized build.\n", fail)).toEqual({
      tool: "clang-tidy",
      version: "14.0.6",
      detail: "clang-tidy (Debian LLVM version 14.0.6)",
    });
    const pmd =
      "  ████\nPMD 7.28.0 (79726f0e, 2026-09-25T07:52:15Z)\nJava version: 17.0.15, vendor: Debian, runtime: /usr/lib/jvm\n";
    expect(parsePmdVersion(pmd, fail)).toEqual({
      tool: "pmd",
      version: "7.28.0",
      detail: "PMD 7.28.0 on Java 17.0.15 (Debian)",
    });
    expect(() => parsePmdVersion("nothing", fail)).toThrow("unparsable");
  });

  test("a version other than the pin is refused", () => {
    expect(() =>
      checkPinnedVersion({ tool: "pylint", version: PINNED_ANALYZER_VERSIONS.pylint, detail: "" }),
    ).not.toThrow();
    expect(() => checkPinnedVersion({ tool: "pylint", version: "3.0.0", detail: "" })).toThrow(
      expect.objectContaining({ code: ErrorCode.FailedPrecondition }),
    );
  });
});

describe("plumbing", () => {
  test("neutralize keeps every position", () => {
    const source = "a = 1  # pylint: disable=x\nb = 2\n";
    const out = neutralize(source, /\bpylint:/g, "pylint;");
    expect(out).toBe("a = 1  # pylint; disable=x\nb = 2\n");
    expect(out.length).toBe(source.length);
    expect(() => neutralize("NOLINT", /NOLINT/g, "X")).toThrow();
  });

  test("inRuns keeps input order, bounds concurrency, stops after a failure", async () => {
    let running = 0;
    let peak = 0;
    const out = await inRuns([1, 2, 3, 4, 5, 6, 7], 2, 2, async (chunk) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5 * (8 - (chunk[0] ?? 0))));
      running -= 1;
      return chunk.map((x) => x * 10);
    });
    expect(out).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(peak).toBe(2);
    const started: number[] = [];
    await expect(
      inRuns([1, 2, 3, 4], 1, 1, async ([x = 0]) => {
        started.push(x);
        if (x === 2) throw new Error("boom");
        return [x];
      }),
    ).rejects.toThrow("boom");
    expect(started).toEqual([1, 2]);
    expect(await inRuns([], 4, 3, async () => [1])).toEqual([]);
  });
});
