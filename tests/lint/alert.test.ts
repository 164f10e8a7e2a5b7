/**
 * Alerts without the tools: message sanitization examples (location noise out, identifiers in) and the
 * multiset matching on (rule id, sanitized message) that never looks at lines.
 */
import { describe, expect, test } from "vitest";
import { type Alert, alertKey, diffAlerts, makeAlert, sanitizeMessage } from "../../src/core/lint/alert.js";

describe("sanitizeMessage", () => {
  test.each([
    // Pylint: line references, measured values of threshold rules, module files.
    [
      "pylint",
      "Redefining name 'total' from outer scope (line 3)",
      "Redefining name 'total' from outer scope (line <n>)",
    ],
    ["pylint", "function already defined line 12", "function already defined line <n>"],
    ["pylint", "Too many branches (15/12)", "Too many branches (<n>/12)"],
    ["pylint", "Too many lines in module (1200/1000)", "Too many lines in module (<n>/1000)"],
    ["pylint", "Unable to import 'src/0/main.py'", "Unable to import '<file>'"],
    ["pylint", "Unused variable 'x'", "Unused variable 'x'"],
    [
      "pylint",
      "Comparison 'x == None' should be 'x is None'",
      "Comparison 'x == None' should be 'x is None'",
    ],
    // clang-tidy: absolute paths with line:column, the measured cognitive complexity; types and quotes stay.
    [
      "clang-tidy",
      "'foo' declared at /tmp/src/0/main.cpp:12:5 is shadowed",
      "'foo' declared at <file> is shadowed",
    ],
    [
      "clang-tidy",
      "function 'main' has cognitive complexity of 31 (threshold 25)",
      "function 'main' has cognitive complexity of <n> (threshold 25)",
    ],
    [
      "clang-tidy",
      "narrowing conversion from 'std::vector<int>::size_type' (aka 'unsigned long') to signed type 'int'",
      "narrowing conversion from 'std::vector<int>::size_type' (aka 'unsigned long') to signed type 'int'",
    ],
    [
      "clang-tidy",
      "100005 is a magic number; consider replacing it with a named constant",
      "100005 is a magic number; consider replacing it with a named constant",
    ],
    ["clang-tidy", "result of 'a/b' is used", "result of 'a/b' is used"],
    // PMD: parse errors name the file, line and column; complexity values are measured.
    [
      "pmd",
      "ParseException: Parse exception in file 'src/1/Main.java' at line 2, column 18: Encountered \"{\".",
      "ParseException: Parse exception in file '<file>' at line <n>, column <n>: Encountered \"{\".",
    ],
    [
      "pmd",
      "The method 'main(String[])' has a cognitive complexity of 17, current threshold is 15",
      "The method 'main(String[])' has a cognitive complexity of <n>, current threshold is 15",
    ],
    [
      "pmd",
      "The method 'solve(int)' has an NPath complexity of 240, current threshold is 200",
      "The method 'solve(int)' has an NPath complexity of <n>, current threshold is 200",
    ],
    ["pmd", "Avoid unused local variables such as 'spare'.", "Avoid unused local variables such as 'spare'."],
    ["pmd", "  two\n  lines  ", "two lines"],
  ] as const)("%s: %s", (tool, message, expected) => {
    expect(sanitizeMessage(tool, message)).toBe(expected);
  });
});

const alert = (ruleId: string, message: string, line: number): Alert =>
  makeAlert("pylint", ruleId, message, line);

describe("diffAlerts", () => {
  test("matches on rule id and sanitized message, never the line", () => {
    const original = [alert("W0611", "Unused import os", 1), alert("W0612", "Unused variable 'x'", 5)];
    const revised = [alert("W0612", "Unused variable 'x'", 40), alert("W0611", "Unused import os", 9)];
    const diff = diffAlerts(original, revised);
    expect(diff.fixed).toEqual([]);
    expect(diff.introduced).toEqual([]);
    expect(diff.unchanged.map((p) => [p.original.line, p.revised.line])).toEqual([
      [1, 9],
      [5, 40],
    ]);
  });

  test("is a multiset difference: duplicates count one by one", () => {
    const dup = (line: number) =>
      alert("C0103", 'Variable name "n" doesn\'t conform to snake_case naming style', line);
    const original = [dup(1), dup(2), dup(3), alert("W0611", "Unused import os", 1)];
    const revised = [
      dup(7),
      alert("W0612", "Unused variable 'y'", 2),
      alert("W0612", "Unused variable 'y'", 3),
    ];
    const diff = diffAlerts(original, revised);
    expect(diff.unchanged.map((p) => [p.original.line, p.revised.line])).toEqual([[1, 7]]);
    expect(diff.fixed.map((a) => `${a.ruleId}@${a.line}`)).toEqual(["W0611@1", "C0103@2", "C0103@3"]);
    expect(diff.introduced.map((a) => `${a.ruleId}@${a.line}`)).toEqual(["W0612@2", "W0612@3"]);
  });

  test("different identifiers are different alerts; the same rule with a shifted line reference is the same", () => {
    const original = [
      alert("W0612", "Unused variable 'x'", 3),
      alert("W0621", "Redefining name 'a' from outer scope (line 2)", 8),
    ];
    const revised = [
      alert("W0612", "Unused variable 'z'", 3),
      alert("W0621", "Redefining name 'a' from outer scope (line 6)", 12),
    ];
    const diff = diffAlerts(original, revised);
    expect(diff.fixed.map((a) => a.message)).toEqual(["Unused variable 'x'"]);
    expect(diff.introduced.map((a) => a.message)).toEqual(["Unused variable 'z'"]);
    expect(diff.unchanged).toHaveLength(1);
  });

  test("the key is rule id and sanitized message", () => {
    const a = alert("W0611", "Unused import os", 1);
    expect(alertKey(a)).toBe("W0611\u0000Unused import os");
    expect(alertKey({ ruleId: "W0611", sanitizedMessage: "x" })).not.toBe(
      alertKey({ ruleId: "W0612", sanitizedMessage: "x" }),
    );
  });

  test("makeAlert classifies and sanitizes", () => {
    expect(
      makeAlert("clang-tidy", "performance-unnecessary-value-param", "the parameter 'v' is copied", 4),
    ).toEqual({
      tool: "clang-tidy",
      ruleId: "performance-unnecessary-value-param",
      category: "Performance",
      message: "the parameter 'v' is copied",
      sanitizedMessage: "the parameter 'v' is copied",
      line: 4,
    });
  });
});
