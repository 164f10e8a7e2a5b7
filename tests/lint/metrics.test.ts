/**
 * The LintEval metrics and OmniCode's style score on a hand-computed example (docs/lint.md), including a
 * negative Reduction@P, per language and per category; and the unified-diff line count against GNU diff
 * (`diff -U0 --minimal`) as the oracle.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { Alert } from "../../src/core/lint/alert.js";
import {
  instanceCounts,
  type LintInstance,
  lintMetrics,
  styleScore,
  unifiedDiffLineCount,
} from "../../src/core/lint/metrics.js";
import type { AlertCategory } from "../../src/core/lint/tools.js";

/** An alert with an explicit category (the taxonomy is not under test here). */
function alert(ruleId: string, category: AlertCategory, line = 1, message = `message of ${ruleId}`): Alert {
  return { tool: "pylint", ruleId, category, message, sanitizedMessage: message, line };
}

// Instance 1 (python, passes): A, B, C → C (moved), D. Fixed {A, B} = 2, New {D} = 1, Lines 4.
// Instance 2 (cpp, passes): E, E → E, F, G, K. Fixed {E} = 1, New {F, G, K} = 3, Lines 6.
// Instance 3 (java, fails): H → nothing. Not in P. Lines 10.
// Instance 4 (python, passes): no alerts before or after. Lines 0.
const A = alert("A", "Style");
const B = alert("B", "Refactor");
const C = alert("C", "Style", 7);
const D = alert("D", "Style");
const E = alert("E", "Error-prone");
const F = alert("F", "Error-prone");
const G = alert("G", "Performance");
const K = alert("K", "Style");
const H = alert("H", "Performance");
const INSTANCES: LintInstance[] = [
  { language: "python", original: [A, B, C], revised: [{ ...C, line: 9 }, D], passed: true, diffLines: 4 },
  { language: "cpp", original: [E, { ...E, line: 5 }], revised: [E, F, G, K], passed: true, diffLines: 6 },
  { language: "java", original: [H], revised: [], passed: false, diffLines: 10 },
  { language: "python", original: [], revised: [], passed: true, diffLines: 0 },
];

describe("per instance", () => {
  test("counts and OmniCode's score", () => {
    const c1 = instanceCounts(INSTANCES[0]?.original ?? [], INSTANCES[0]?.revised ?? []);
    expect(c1).toEqual({ original: 3, fixed: 2, introduced: 1 });
    expect(styleScore(c1, true)).toBeCloseTo(1 / 3, 12);
    expect(styleScore(c1, false)).toBe(0);
    const c2 = instanceCounts(INSTANCES[1]?.original ?? [], INSTANCES[1]?.revised ?? []);
    expect(c2).toEqual({ original: 2, fixed: 1, introduced: 3 });
    expect(styleScore(c2, true)).toBe(0); // more introduced than fixed: floored at 0
    expect(styleScore({ original: 0, fixed: 0, introduced: 2 }, true)).toBe(0); // nothing to fix
    expect(styleScore({ original: 4, fixed: 4, introduced: 0 }, true)).toBe(1);
  });
});

describe("lintMetrics", () => {
  const report = lintMetrics(INSTANCES);

  test("overall: corpus-level denominators, a negative Reduction@P", () => {
    const m = report.overall;
    expect(m).toMatchObject({
      instances: 4,
      passed: 3,
      originalAlerts: 5,
      fixed: 3,
      introduced: 4,
      diffLines: 10,
    });
    expect(m.pass1).toBe(0.75); // 3 / 4
    expect(m.reductionAtP).toBeCloseTo(-0.2, 12); // (3 − 4) / 5
    expect(m.newAtP).toBeCloseTo(0.8, 12); // 4 / 5
    expect(m.deltaLineAtP).toBeCloseTo(10 / 3, 12); // (4 + 6 + 0) / 3
    expect(m.linePerFixAtP).toBeCloseTo(10 / 3, 12); // 10 / 3 fixed
    expect(m.styleScore).toBeCloseTo(1 / 12, 12); // (1/3 + 0 + 0 + 0) / 4
  });

  test("per language", () => {
    const python = report.byLanguage.python;
    expect(python).toMatchObject({ instances: 2, passed: 2, originalAlerts: 3, fixed: 2, introduced: 1 });
    expect(python?.reductionAtP).toBeCloseTo(1 / 3, 12);
    expect(python?.newAtP).toBeCloseTo(1 / 3, 12);
    expect(python?.deltaLineAtP).toBe(2);
    expect(python?.linePerFixAtP).toBe(2);
    expect(python?.styleScore).toBeCloseTo(1 / 6, 12);

    const cpp = report.byLanguage.cpp;
    expect(cpp?.reductionAtP).toBe(-1); // (1 − 3) / 2
    expect(cpp?.newAtP).toBe(1.5);
    expect(cpp?.deltaLineAtP).toBe(6);
    expect(cpp?.linePerFixAtP).toBe(6);
    expect(cpp?.styleScore).toBe(0);

    // Nothing passed: Pass@1 is 0 and every @P ratio is undefined, not 0.
    expect(report.byLanguage.java).toEqual({
      instances: 1,
      passed: 0,
      pass1: 0,
      originalAlerts: 0,
      fixed: 0,
      introduced: 0,
      diffLines: 0,
      reductionAtP: null,
      newAtP: null,
      deltaLineAtP: null,
      linePerFixAtP: null,
      styleScore: 0,
    });
  });

  test("per category: instances with an original alert of the category, counts of that category only", () => {
    // Style: instance 1 only (A, C → C, D): fixed A, new D. Instance 2 introduced K (Style) but had no
    // Style alert, so it is not in the Style subset.
    const style = report.byCategory.Style;
    expect(style).toMatchObject({ instances: 1, passed: 1, originalAlerts: 2, fixed: 1, introduced: 1 });
    expect(style.reductionAtP).toBe(0);
    expect(style.newAtP).toBe(0.5);
    expect(style.linePerFixAtP).toBe(4);
    expect(report.byCategory.Refactor).toMatchObject({
      originalAlerts: 1,
      fixed: 1,
      introduced: 0,
      reductionAtP: 1,
    });
    const errorProne = report.byCategory["Error-prone"];
    expect(errorProne).toMatchObject({
      instances: 1,
      originalAlerts: 2,
      fixed: 1,
      introduced: 1,
      reductionAtP: 0,
    });
    expect(report.byCategory.Performance).toMatchObject({
      instances: 1,
      passed: 0,
      pass1: 0,
      reductionAtP: null,
    });
    expect(report.byCategory.Other).toMatchObject({ instances: 0, pass1: null, styleScore: null });
  });

  test("an empty set has no defined ratio", () => {
    expect(lintMetrics([]).overall).toMatchObject({
      instances: 0,
      pass1: null,
      reductionAtP: null,
      styleScore: null,
    });
  });
});

describe("unifiedDiffLineCount", () => {
  test.each([
    ["", "", 0],
    ["a\n", "a\n", 0],
    ["a\nb\nc\n", "a\nc\n", 1],
    ["a\nb\nc\n", "a\nB\nc\n", 2],
    ["", "a\nb\n", 2],
    ["a\nb\n", "", 2],
    ["a\nb", "a\nb\n", 2], // the last line gains its newline: - b, + b
    ["\n\n\nx\n", "x\n", 3],
    ["a\nb\nc\nd\n", "d\nc\nb\na\n", 6],
  ])("%j → %j: %i", (a, b, expected) => {
    expect(unifiedDiffLineCount(a, b)).toBe(expected);
    expect(unifiedDiffLineCount(b, a)).toBe(expected);
  });

  const dir = mkdtempSync(join(tmpdir(), "minedit-diff-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** + and − lines of `diff -U0 --minimal` (headers and "\ No newline" markers excluded). */
  function gnuDiffCount(a: string, b: string): number {
    writeFileSync(join(dir, "a"), a);
    writeFileSync(join(dir, "b"), b);
    const out = spawnSync("diff", ["-U0", "--minimal", join(dir, "a"), join(dir, "b")], { encoding: "utf8" });
    if (out.status !== 0 && out.status !== 1) throw new Error(out.stderr);
    return out.stdout
      .split("\n")
      .filter(
        (line) =>
          (line.startsWith("+") && !line.startsWith("+++")) ||
          (line.startsWith("-") && !line.startsWith("---")),
      ).length;
  }

  test("equals GNU diff --minimal on random files", () => {
    // Deterministic pseudo-random files over a small line alphabet, so lines repeat and the LCS is not unique.
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const file = () => {
      const lines = Array.from({ length: Math.floor(next() * 25) }, () => "abcdef"[Math.floor(next() * 6)]);
      const text = lines.join("\n");
      return next() < 0.8 && text !== "" ? `${text}\n` : text;
    };
    for (let round = 0; round < 150; round++) {
      const a = file();
      const b = next() < 0.3 ? a.replace(/c/g, "x") : file();
      expect(unifiedDiffLineCount(a, b), JSON.stringify([a, b])).toBe(gnuDiffCount(a, b));
    }
  });
});
