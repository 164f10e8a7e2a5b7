/**
 * Prompts of the lint corpora (docs/export.md, LintEval §4.4 and Appendix A.4):
 *
 * - A+L→A′ (`alq`): the LintEval refactoring prompt — the source file A, its lint alerts L, and the four
 *   requirements of §3.1 (preserve functionality, reduce alerts, avoid new alerts, edit minimally) — with
 *   the refactored file A′ as the answer.
 * - Q→A (`qa`) and Q→A′ (`qa-prime`): the problem statement alone (no file, no alerts), answered with
 *   the original or the refactored solution. The two share one prompt, so their rows of one task share a
 *   `prompt_id`.
 *
 * The paper's Appendix A.4 is summarized, not quoted, in the source we have (it lists the parts: code,
 * lint alerts, explicit requirements for functionality, alert reduction, new-alert avoidance and minimal
 * edits), so the wording below is ours, built from exactly those parts in that order. Alerts are listed
 * as the analyzer reported them, with their line (the model needs to find them; matching never uses it).
 *
 * Pure: no I/O.
 */
import type { Alert } from "../lint/alert.js";
import type { LintLanguage } from "../lint/tools.js";
import type { Message } from "./message.js";

/**
 * What the prompts read of a lint task (src/scoring/lint-task.ts's `LintTask` has these and more): the
 * prompts sit below the task store, so they name only the fields they use.
 */
export type LintPromptTask = {
  language: LintLanguage;
  statement: string;
  original: string;
  alerts: readonly Alert[];
  /** Only the style matters here: a stdio program, or Python tests of a function or module. */
  tests: { style: string };
  /** Python assert-style tests: the function handed to `check`; empty otherwise. */
  entryPoint: string;
};

/** Human names of the languages, for prompts. */
export const LANGUAGE_NAMES: Readonly<Record<LintLanguage, string>> = {
  python: "Python",
  cpp: "C++",
  java: "Java",
};

/** Info strings of the code fences. */
export const FENCE_TAGS: Readonly<Record<LintLanguage, string>> = {
  python: "python",
  cpp: "cpp",
  java: "java",
};

/** The analyzer of each language as prompts name it. */
const ANALYZER_NAMES: Readonly<Record<LintLanguage, string>> = {
  python: "Pylint",
  cpp: "clang-tidy",
  java: "PMD",
};

/** The four requirements (LintEval §3.1's evaluation dimensions, as instructions). */
export const LINT_REQUIREMENTS: readonly string[] = [
  "Preserve functionality: the refactored code must behave exactly like the original and pass the same tests.",
  "Reduce alerts: resolve as many of the listed lint alerts as possible.",
  "Avoid new alerts: do not introduce any new lint alerts.",
  "Minimal edits: change only what is needed to resolve the alerts; keep the rest of the code as it is.",
];

/** `program` in a fence with the language's info string, the closing fence on its own line. */
export function codeBlock(language: LintLanguage, program: string): string {
  return `\`\`\`${FENCE_TAGS[language]}\n${program.endsWith("\n") ? program : `${program}\n`}\`\`\``;
}

/** One alert line: `- line 4: [modernize-use-using] use 'using' instead of 'typedef' (Style)`. */
export function alertLine(alert: Alert): string {
  return `- line ${alert.line}: [${alert.ruleId}] ${alert.message} (${alert.category})`;
}

/** The A+L→A′ prompt of a task. */
export function alqMessages(task: LintPromptTask): Message[] {
  const name = LANGUAGE_NAMES[task.language];
  const analyzer = ANALYZER_NAMES[task.language];
  const alerts = [...task.alerts].sort((a, b) => a.line - b.line);
  const user = [
    `The following ${name} file passes all of its tests, but the static analyzer ${analyzer} reports ` +
      `${alerts.length === 1 ? "1 lint alert" : `${alerts.length} lint alerts`} on it.`,
    "",
    "Code:",
    codeBlock(task.language, task.original),
    "",
    "Lint alerts:",
    ...alerts.map(alertLine),
    "",
    "Refactor the code to resolve the lint alerts. Requirements:",
    ...LINT_REQUIREMENTS.map((text, i) => `${i + 1}. ${text}`),
    "",
    `Return the complete refactored file in a single \`\`\`${FENCE_TAGS[task.language]} code block.`,
  ].join("\n");
  return [
    {
      role: "system",
      content: `You are an expert ${name} developer who refactors code to fix static-analysis alerts.`,
    },
    { role: "user", content: user },
  ];
}

/** What the solution must be: a stdio program, or a Python function. */
function solutionForm(task: LintPromptTask): string {
  if (task.tests.style === "stdio") {
    const java = task.language === "java" ? " (a class with a `main` method)" : "";
    return `Write a complete program${java} that reads from standard input and writes to standard output.`;
  }
  return task.entryPoint === ""
    ? "Write the complete module."
    : `Implement the function \`${task.entryPoint}\` (with any helpers it needs).`;
}

/** The Q→A and Q→A′ prompt of a task: the problem only. */
export function qaMessages(task: LintPromptTask): Message[] {
  const name = LANGUAGE_NAMES[task.language];
  const user = [
    `Solve the following programming problem in ${name}.`,
    "",
    task.statement.trim(),
    "",
    solutionForm(task),
    "",
    `Return the complete solution in a single \`\`\`${FENCE_TAGS[task.language]} code block.`,
  ].join("\n");
  return [
    { role: "system", content: `You are an expert ${name} programmer.` },
    { role: "user", content: user },
  ];
}
