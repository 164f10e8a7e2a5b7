/**
 * Lint alerts (docs/lint.md): one shape for the findings of Pylint, clang-tidy and PMD, the message sanitizer
 * that makes them comparable across edits, and the multiset matching that decides which alerts a
 * revision fixed and which it introduced.
 *
 * Matching follows LintEval §2.5/§3.2: two alerts are the same alert when their rule id and sanitized
 * message are equal. Line numbers never take part — inserting a blank line at the top of a file shifts
 * every alert but fixes none and introduces none.
 */
import { categoryOf } from "./taxonomy.js";
import type { AlertCategory, LintTool } from "./tools.js";

/** One finding of an analyzer on one file. */
export type Alert = {
  tool: LintTool;
  /** The tool's rule id: Pylint's message id (`W0611`), clang-tidy's check (`modernize-use-nullptr`), PMD's rule name (`UnusedLocalVariable`). */
  ruleId: string;
  /** From src/core/lint/taxonomy.ts. */
  category: AlertCategory;
  /** The tool's message, as printed. */
  message: string;
  /** {@link sanitizeMessage} of `message`: what matching compares. */
  sanitizedMessage: string;
  /** 1-based line the tool reported (for prompts and reports; never used for matching). */
  line: number;
};

/**
 * Builds an alert: category from the taxonomy, sanitized message from {@link sanitizeMessage}. `group`
 * is the tool's own grouping when it reports one (PMD's category), used for rules the taxonomy does not list.
 */
export function makeAlert(
  tool: LintTool,
  ruleId: string,
  message: string,
  line: number,
  group?: string,
): Alert {
  return {
    tool,
    ruleId,
    category: categoryOf(tool, ruleId, group),
    message,
    sanitizedMessage: sanitizeMessage(tool, message),
    line,
  };
}

/** Source-file extensions a message may name (a file name is location, not content). */
const SOURCE_FILE = String.raw`[\w.+-]+\.(?:py|pyi|c|cc|cpp|cxx|h|hh|hpp|hxx|java)`;

/**
 * Location noise removed from every message, in order, each with the `:line[:column]` that may follow:
 * - an absolute path of two or more segments (`/tmp/f0/main.cpp:12:5` → `<file>`); a `/` after a word
 *   character or a closing bracket is division, not a path (`(15/12)`, `a/b` stay);
 * - a relative path or bare name of a source file (`src/Main.java`, `main.py:3` → `<file>`);
 * - `line N`, `lines N-M`, `column N`, `col N` (Pylint's "Redefining name 'x' from outer scope (line 3)",
 *   "function already defined line 12") → `line <n>`.
 * Identifiers, quoted code, types and literal values are kept: they say which alert it is.
 */
const LOCATION_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/(?<![\w.)\]])\/(?:[\w.+-]+\/)+[\w.+-]+(?::\d+){0,2}/g, "<file>"],
  [new RegExp(String.raw`\b(?:[\w.+-]+/)*${SOURCE_FILE}(?::\d+){0,2}\b`, "g"), "<file>"],
  [/\b(lines?|columns?|col)\s+\d+(?:\s*[-–]\s*\d+)?/gi, "$1 <n>"],
];

/**
 * Measured values of threshold rules, per tool. Such an alert says "this function is too complex"; the
 * measured value changes with almost any edit of the function, but while the rule still fires it is the
 * same unresolved alert — keeping the value would count a partial simplification as one alert fixed and
 * one introduced. The threshold itself is kept (it is configuration, equal on both sides).
 */
const MEASURED_VALUES: Readonly<Record<LintTool, readonly (readonly [RegExp, string])[]>> = {
  // too-many-branches etc.: "Too many branches (15/12)"; too-many-lines: "Too many lines in module (1200/1000)".
  pylint: [[/\((\d+)\/(\d+)\)/g, "(<n>/$2)"]],
  // readability-function-cognitive-complexity: "function 'main' has cognitive complexity of 31 (threshold 25)".
  "clang-tidy": [[/\bcognitive complexity of \d+/g, "cognitive complexity of <n>"]],
  // CognitiveComplexity, CyclomaticComplexity, NPathComplexity: "… has a cognitive complexity of 17, current
  // threshold is 15", "… has a cyclomatic complexity of 12.", "… has an NPath complexity of 240, …".
  pmd: [[/\b(complexity of) \d+/gi, "$1 <n>"]],
};

/**
 * The message without location noise, for matching (docs/lint.md: "sanitizing removes line/column numbers and
 * file paths"): file paths and names (with a trailing `:line:col`), `line N` / `column N` references,
 * the measured value of threshold rules ({@link MEASURED_VALUES}), and runs of whitespace (collapsed to one
 * space, trimmed). Everything else — identifiers, quoted code, types, literal values — is kept, so
 * "Unused variable 'x'" and "Unused variable 'y'" stay different alerts.
 */
export function sanitizeMessage(tool: LintTool, message: string): string {
  let text = message;
  for (const [pattern, replacement] of LOCATION_PATTERNS) text = text.replace(pattern, replacement);
  for (const [pattern, replacement] of MEASURED_VALUES[tool]) text = text.replace(pattern, replacement);
  return text.replace(/\s+/g, " ").trim();
}

/** The matching key: rule id and sanitized message (never the line). */
export function alertKey(alert: Pick<Alert, "ruleId" | "sanitizedMessage">): string {
  return `${alert.ruleId}\u0000${alert.sanitizedMessage}`;
}

/** Result of {@link diffAlerts}. */
export type AlertDiff = {
  /** Original alerts with no counterpart in the revision (LintEval's Fixed_i). */
  fixed: Alert[];
  /** Revision alerts with no counterpart in the original (New_i). */
  introduced: Alert[];
  /** Matched pairs: the same alert before and after (its line may differ). */
  unchanged: { original: Alert; revised: Alert }[];
};

/**
 * Multiset difference of two alert lists on {@link alertKey} (docs/lint.md). With k original and m revised
 * alerts of one key, min(k, m) are unchanged, k − min fixed and m − min introduced. Within a key, alerts
 * are paired in line order (so a report pairs the nearest ones); the counts do not depend on it.
 */
export function diffAlerts(original: readonly Alert[], revised: readonly Alert[]): AlertDiff {
  const byLine = (a: Alert, b: Alert) => a.line - b.line;
  const pending = new Map<string, Alert[]>();
  for (const alert of [...original].sort(byLine)) {
    const key = alertKey(alert);
    const list = pending.get(key);
    if (list === undefined) pending.set(key, [alert]);
    else list.push(alert);
  }
  const introduced: Alert[] = [];
  const unchanged: AlertDiff["unchanged"] = [];
  for (const alert of [...revised].sort(byLine)) {
    const match = pending.get(alertKey(alert))?.shift();
    if (match === undefined) introduced.push(alert);
    else unchanged.push({ original: match, revised: alert });
  }
  const fixed = [...pending.values()].flat().sort(byLine);
  return { fixed, introduced, unchanged };
}
