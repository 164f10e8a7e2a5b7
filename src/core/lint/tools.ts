/**
 * The vocabulary every lint module shares: the analyzers, the languages they check and LintEval's alert
 * categories (§2.5). Its own file so that the alert shape (alert.ts) and the taxonomy (taxonomy.ts), which
 * both need these names, do not import each other.
 */

/** The analyzers, one per language. */
export const LINT_TOOLS = ["pylint", "clang-tidy", "pmd"] as const;
export type LintTool = (typeof LINT_TOOLS)[number];

export const LINT_LANGUAGES = ["python", "cpp", "java"] as const;
export type LintLanguage = (typeof LINT_LANGUAGES)[number];

/** The analyzer of each language. */
export const TOOL_OF_LANGUAGE: Readonly<Record<LintLanguage, LintTool>> = Object.freeze({
  python: "pylint",
  cpp: "clang-tidy",
  java: "pmd",
});

/** LintEval's alert categories (§2.5), in the order reports list them. */
export const ALERT_CATEGORIES = ["Error-prone", "Performance", "Refactor", "Style", "Other"] as const;
export type AlertCategory = (typeof ALERT_CATEGORIES)[number];
