/**
 * The Pylint adapter in the real sandbox (bwrap, and Docker's lint image) with the shipped configuration: known alerts on small files,
 * per-file results from one batched run, syntax errors as alerts, inert suppression pragmas, and the
 * line-shift invariance of matching.
 */
import { describe, expect, test } from "vitest";
import { PINNED_ANALYZER_VERSIONS } from "../../src/analyzers/analyzer.js";
import { neutralizePylintPragmas } from "../../src/analyzers/pylint.js";
import { diffAlerts } from "../../src/core/lint/alert.js";
import { LINT_BACKENDS } from "../sandbox/backends.js";
import { ruleLines, useLinter } from "./helpers.js";

const SAMPLE = `"""Sum of the input numbers."""
import os
import sys


def total(values, unused=[]):
    """Adds the values."""
    result = 0
    for i in range(len(values)):
        result += values[i]
    if result == None:
        return 0
    else:
        return result


print(total([int(x) for x in sys.stdin.read().split()]))
`;

describe.each(LINT_BACKENDS)("pylint (%s)", (_backend, createSandbox) => {
  const linter = useLinter(createSandbox);

  test("version is the pinned one and is described", async () => {
    const [version] = await linter().versions(["pylint"]);
    expect(version?.version).toBe(PINNED_ANALYZER_VERSIONS.pylint);
    expect(version?.detail).toMatch(/^pylint 2\.16\.2 \(astroid \S+, Python 3\.11\.\d+\)$/);
  });

  test("known alerts of a small file, with categories and sanitized messages", async () => {
    const [alerts = []] = await linter().analyze("python", [SAMPLE]);
    expect(ruleLines(alerts)).toEqual(
      [
        "2:W0611", // unused-import os
        "6:W0102", // dangerous-default-value
        "6:W0613", // unused-argument
        "9:C0200", // consider-using-enumerate
        "11:C0121", // singleton-comparison
        "11:R1705", // no-else-return
      ].sort(),
    );
    const unusedImport = alerts.find((a) => a.ruleId === "W0611");
    expect(unusedImport).toMatchObject({
      tool: "pylint",
      category: "Refactor",
      message: "Unused import os",
      sanitizedMessage: "Unused import os",
    });
    expect(alerts.find((a) => a.ruleId === "C0121")?.category).toBe("Style");
    expect(alerts.find((a) => a.ruleId === "R1705")?.category).toBe("Refactor");
    expect(alerts.find((a) => a.ruleId === "W0102")?.category).toBe("Error-prone");
  });

  test("files of one run keep their own alerts; a syntax error is an Error-prone alert", async () => {
    const clean = '"""Echo."""\nprint(input())\n';
    const broken = '"""Broken."""\nprint(input()\n';
    const [a = [], b = [], c = []] = await linter().analyze("python", [clean, broken, SAMPLE]);
    expect(a).toEqual([]);
    expect(b.map((x) => [x.ruleId, x.category])).toEqual([["E0001", "Error-prone"]]);
    expect(c).toHaveLength(6);
  });

  test("suppression pragmas are inert", async () => {
    const suppressed = SAMPLE.replace("import os", "import os  # pylint: disable=unused-import").replace(
      '"""Sum',
      '# pylint: skip-file\n"""Sum',
    );
    expect(neutralizePylintPragmas("x = 1  # pylint: disable=all")).toBe("x = 1  # pylint; disable=all");
    const [before = [], after = []] = await linter().analyze("python", [SAMPLE, suppressed]);
    const diff = diffAlerts(before, after);
    expect(diff.fixed).toEqual([]);
    expect(diff.introduced).toEqual([]);
  });

  test("blank lines inserted at the top shift every alert and fix or introduce none", async () => {
    const shifted = `\n\n\n${SAMPLE}`;
    const [before = [], after = []] = await linter().analyze("python", [SAMPLE, shifted]);
    expect(after.map((a) => a.line)).toEqual(before.map((a) => a.line + 3));
    const diff = diffAlerts(before, after);
    expect(diff.fixed).toEqual([]);
    expect(diff.introduced).toEqual([]);
    expect(diff.unchanged).toHaveLength(before.length);
  });

  test("a fix is seen as fixed, a new problem as introduced", async () => {
    const revised = SAMPLE.replace("import os\n", "").replace("if result == None:", "if result is None:");
    const added = revised.replace("    result = 0\n", "    result = 0\n    temp = 1\n");
    const [before = [], after = []] = await linter().analyze("python", [SAMPLE, added]);
    const diff = diffAlerts(before, after);
    expect(diff.fixed.map((a) => a.ruleId).sort()).toEqual(["C0121", "W0611"]);
    expect(diff.introduced.map((a) => [a.ruleId, a.message])).toEqual([["W0612", "Unused variable 'temp'"]]);
  });
});
