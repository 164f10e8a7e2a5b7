/**
 * The lint task builder (issue 6 item 7; docs/lint.md): from source files that pass their tests to lint tasks
 * (`kind: "lint_refactor"`), the instances of linter-guided refactoring. As in LintEval §2.1–2.3, a task
 * is a file that is correct (it passes its tests, run here in the sandbox) and has at least one alert of
 * the language's pinned analyzer; files that fail their tests or have nothing to fix are counted by
 * reason and left out.
 *
 * Inputs are rows `{"problem_id", "statement", "solution", "tests", "entry_point"?, "language"?,
 * "source"?}`: the shipped Python seed problems (datasets/seed/problems.jsonl) and the C++/Java seed
 * programs (datasets/lint/{cpp,java}.jsonl). Output rows:
 *
 *   {"task_id", "kind": "lint_refactor", "language", "problem_id", "statement", "original", "alerts",
 *    "tests", "entry_point", "analyzers": {tool: version}, "split", "source"}
 *
 * `tests` is copied from the input after validation (the task-store shapes: unittest / assert / stdio for
 * Python, stdio for C++ and Java). `task_id` is `<problem_id>:lint` — one lint task per source file.
 */

import { basename } from "node:path";
import { z } from "zod";
import type { Linter } from "../analyzers/linter.js";
import type { Alert } from "../core/lint/alert.js";
import {
  ALERT_CATEGORIES,
  type AlertCategory,
  LINT_LANGUAGES,
  type LintLanguage,
  type LintTool,
  TOOL_OF_LANGUAGE,
} from "../core/lint/tools.js";
import { mapConcurrent } from "../core/map-concurrent.js";
import { table } from "../core/task-stats.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { runCppTests } from "../runners/cpp.js";
import { runJavaTests } from "../runners/java.js";
import { type PythonTests, runPythonTests, type TestOutcome } from "../runners/python.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import { LINT_TASK_KIND, type LintTask } from "../scoring/lint-task.js";
import { TestsRowSchema, testsFromRow } from "../scoring/tests-row.js";

/** A source file with tests, validated. */
export type LintSource = {
  problemId: string;
  language: LintLanguage;
  statement: string;
  solution: string;
  /** As the runners take them. */
  tests: PythonTests;
  entryPoint: string;
  source: string;
};

/** The task id of a problem's lint task. */
export function lintTaskId(problemId: string): string {
  return `${problemId}:lint`;
}

function invalid(message: string, field: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message, { field });
}

const SourceFieldsSchema = z.object({
  problem_id: z.string({ error: "expected a string" }).min(1, { message: "must not be empty" }),
  statement: z
    .string({ error: "expected a string" })
    .refine((s) => s.trim() !== "", { message: "must not be empty (the prompts show it)" }),
  solution: z
    .string({ error: "expected a string" })
    .refine((s) => s.trim() !== "", { message: "must not be empty" }),
  entry_point: z.string({ error: "expected a string" }).optional(),
  language: z.enum(LINT_LANGUAGES, { error: `expected one of ${LINT_LANGUAGES.join(", ")}` }).optional(),
  source: z.string({ error: "expected a string" }).optional(),
  tests: TestsRowSchema,
});

/**
 * Validates one source row. `language` is the language asked for: a row that names another one is
 * invalid; a row without `language` needs one (`null`: `--language all`). `fileName` is the `source` of
 * rows that do not name theirs.
 *
 * @throws MineditError `InvalidArgument` naming the field.
 */
export function parseLintSource(
  row: Record<string, unknown>,
  language: LintLanguage | null,
  fileName: string,
): LintSource {
  const parsed = SourceFieldsSchema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") ?? "";
    const top = issue?.path[0];
    const message =
      typeof top === "string" && !Object.hasOwn(row, top) ? "missing field" : (issue?.message ?? "invalid");
    throw invalid(`${field || "row"}: ${message}`, field);
  }
  const data = parsed.data;
  const rowLanguage = data.language ?? language;
  if (rowLanguage === null) {
    throw invalid('missing field "language" (needed with --language all)', "language");
  }
  if (language !== null && rowLanguage !== language) {
    throw invalid(`language: the row is ${rowLanguage}, but ${language} was asked for`, "language");
  }
  const entryPoint = data.entry_point ?? "";
  const tests = testsFromRow(data.tests, entryPoint);
  if (rowLanguage !== "python" && tests.style !== "stdio") {
    throw invalid(`tests.style: ${rowLanguage} programs take stdio tests only`, "tests.style");
  }
  return {
    problemId: data.problem_id,
    language: rowLanguage,
    statement: data.statement,
    solution: data.solution,
    tests,
    entryPoint,
    source: data.source ?? basename(fileName),
  };
}

/**
 * Runs `program` against `tests` with the language's runner (Python: the three styles; C++ and Java:
 * compile, then stdin/stdout cases). Never throws for what the program does.
 */
export function runLintTests(
  sandbox: Sandbox,
  language: LintLanguage,
  program: string,
  tests: PythonTests,
  limits: ExecutionLimits,
  signal?: AbortSignal,
): Promise<TestOutcome> {
  if (language === "python") return runPythonTests(sandbox, program, tests, limits, signal);
  if (tests.style !== "stdio") {
    throw new MineditError(ErrorCode.InvalidArgument, `${language} programs take stdio tests only`);
  }
  const run = language === "cpp" ? runCppTests : runJavaTests;
  return run(sandbox, program, tests, limits, signal);
}

/** Why a source file did not become a task. */
export const SKIP_REASONS = {
  noAlerts: "no alerts (nothing to refactor)",
  infra: "sandbox fault while running the tests (INFRA_ERROR)",
} as const;

/** `solution fails its tests (FAILED_TESTS)`, one reason per verdict. */
export function failingReason(outcome: TestOutcome): string {
  return `solution fails its tests (${outcome.verdict})`;
}

export type BuildLintTasksOptions = {
  sandbox: Sandbox;
  linter: Linter;
  limits: ExecutionLimits;
  /** Test runs at once. */
  concurrency: number;
  /** The split label of a problem. */
  splitOf(problemId: string): string;
  signal?: AbortSignal;
  /** Files finished (kept or skipped) so far. */
  onProgress?(done: number): void;
  /** One skipped file, with its reason and detail (for the log). */
  onSkip?(source: LintSource, reason: string, detail: string): void;
};

/** Files analyzed per Linter call: enough for PMD to amortize its JVM start, small enough for progress. */
const ANALYZE_CHUNK = 8;

/**
 * Builds the lint tasks of `sources` (all of one language or several): runs each solution's tests, then
 * the analyzer on the passing ones; keeps those with at least one alert. Returns the tasks in input order
 * and the skipped files counted by reason.
 */
export async function buildLintTasks(
  sources: readonly LintSource[],
  options: BuildLintTasksOptions,
): Promise<{ tasks: LintTask[]; skipped: Record<string, number> }> {
  const skipped: Record<string, number> = {};
  let done = 0;
  const finish = (n = 1) => {
    done += n;
    options.onProgress?.(done);
  };
  const skip = (source: LintSource, reason: string, detail: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
    options.onSkip?.(source, reason, detail);
    finish();
  };

  const outcomes = await mapConcurrent(sources, options.concurrency, async (source) => {
    const outcome = await runLintTests(
      options.sandbox,
      source.language,
      source.solution,
      source.tests,
      options.limits,
      options.signal,
    );
    if (outcome.verdict === "PASSED") return true;
    skip(
      source,
      outcome.verdict === "INFRA_ERROR" ? SKIP_REASONS.infra : failingReason(outcome),
      outcome.detail,
    );
    return false;
  });
  const passing = sources.filter((_, i) => outcomes[i] === true);

  const alerts = new Map<LintSource, Alert[]>();
  for (const language of LINT_LANGUAGES) {
    const ofLanguage = passing.filter((s) => s.language === language);
    for (let i = 0; i < ofLanguage.length; i += ANALYZE_CHUNK) {
      const chunk = ofLanguage.slice(i, i + ANALYZE_CHUNK);
      const found = await options.linter.analyze(
        language,
        chunk.map((s) => s.solution),
        options.signal,
      );
      chunk.forEach((source, j) => {
        const list = found[j] ?? [];
        if (list.length === 0) skip(source, SKIP_REASONS.noAlerts, "");
        else {
          alerts.set(source, list);
          finish();
        }
      });
    }
  }

  const versions = new Map<LintTool, string>();
  for (const language of new Set(passing.map((s) => s.language))) {
    const tool = TOOL_OF_LANGUAGE[language];
    versions.set(tool, (await options.linter.version(tool, options.signal)).version);
  }
  const tasks: LintTask[] = [];
  for (const source of sources) {
    const found = alerts.get(source);
    if (found === undefined) continue;
    const tool = TOOL_OF_LANGUAGE[source.language];
    tasks.push({
      taskId: lintTaskId(source.problemId),
      kind: LINT_TASK_KIND,
      language: source.language,
      problemId: source.problemId,
      statement: source.statement,
      original: source.solution,
      alerts: found,
      tests: source.tests,
      entryPoint: source.entryPoint,
      analyzers: { [tool]: versions.get(tool) as string },
      split: options.splitOf(source.problemId),
      source: source.source,
    });
  }
  return { tasks, skipped };
}

// ---- report ------------------------------------------------------------------------------------------

/** Alerts of one count table: total and per category. */
export type CategoryCounts = Record<AlertCategory, number>;

function emptyCategories(): CategoryCounts {
  return Object.fromEntries(ALERT_CATEGORIES.map((c) => [c, 0])) as CategoryCounts;
}

export type LintTaskReport = {
  analyzers: Record<string, string>;
  sources: string[];
  files: {
    read: number;
    bad: number;
    badReasons: Record<string, number>;
    kept: number;
    skipped: Record<string, number>;
  };
  languages: {
    language: LintLanguage;
    tasks: number;
    alerts: number;
    meanAlertsPerTask: number | null;
    categories: CategoryCounts;
  }[];
  /** Alerts per category over all tasks, and the number of tasks with at least one of the category. */
  categories: { category: AlertCategory; alerts: number; tasks: number }[];
  /** Alerts per rule, most frequent first (ties: tool, then rule id). */
  rules: { tool: LintTool; ruleId: string; category: AlertCategory; alerts: number; tasks: number }[];
  /** Alerts per task, in task order. */
  perFile: {
    taskId: string;
    language: LintLanguage;
    split: string;
    alerts: number;
    categories: CategoryCounts;
  }[];
  splits: Record<string, number>;
};

/** The report of a built set (pure). */
export function lintTaskReport(
  tasks: readonly LintTask[],
  context: {
    analyzers: Record<string, string>;
    sources: string[];
    read: number;
    badReasons: Record<string, number>;
    skipped: Record<string, number>;
  },
): LintTaskReport {
  const rules = new Map<string, LintTaskReport["rules"][number] & { seen: Set<string> }>();
  const categoryTasks = emptyCategories();
  const categoryAlerts = emptyCategories();
  const splits: Record<string, number> = {};
  const perFile = tasks.map((task) => {
    const categories = emptyCategories();
    for (const alert of task.alerts) {
      categories[alert.category] += 1;
      categoryAlerts[alert.category] += 1;
      const key = `${alert.tool}\u0000${alert.ruleId}`;
      let rule = rules.get(key);
      if (rule === undefined) {
        rule = {
          tool: alert.tool,
          ruleId: alert.ruleId,
          category: alert.category,
          alerts: 0,
          tasks: 0,
          seen: new Set(),
        };
        rules.set(key, rule);
      }
      rule.alerts += 1;
      if (!rule.seen.has(task.taskId)) {
        rule.seen.add(task.taskId);
        rule.tasks += 1;
      }
    }
    for (const c of ALERT_CATEGORIES) if (categories[c] > 0) categoryTasks[c] += 1;
    splits[task.split] = (splits[task.split] ?? 0) + 1;
    return {
      taskId: task.taskId,
      language: task.language,
      split: task.split,
      alerts: task.alerts.length,
      categories,
    };
  });
  const languages = LINT_LANGUAGES.flatMap((language) => {
    const files = perFile.filter((f) => f.language === language);
    if (files.length === 0) return [];
    const categories = emptyCategories();
    for (const f of files) for (const c of ALERT_CATEGORIES) categories[c] += f.categories[c];
    const alerts = files.reduce((sum, f) => sum + f.alerts, 0);
    return [{ language, tasks: files.length, alerts, meanAlertsPerTask: alerts / files.length, categories }];
  });
  const bad = Object.values(context.badReasons).reduce((a, b) => a + b, 0);
  return {
    analyzers: context.analyzers,
    sources: context.sources,
    files: {
      read: context.read,
      bad,
      badReasons: context.badReasons,
      kept: tasks.length,
      skipped: context.skipped,
    },
    languages,
    categories: ALERT_CATEGORIES.map((category) => ({
      category,
      alerts: categoryAlerts[category],
      tasks: categoryTasks[category],
    })),
    rules: [...rules.values()]
      .map(({ seen: _seen, ...rule }) => rule)
      .sort(
        (a, b) => b.alerts - a.alerts || a.tool.localeCompare(b.tool) || a.ruleId.localeCompare(b.ruleId),
      ),
    perFile,
    splits,
  };
}

/** The report as Markdown. */
export function renderLintTaskReport(report: LintTaskReport, title: string): string {
  const { files } = report;
  const skippedTotal = Object.values(files.skipped).reduce((a, b) => a + b, 0);
  const lines = [
    `# Lint tasks: ${title}`,
    "",
    `Analyzers: ${
      Object.entries(report.analyzers)
        .map(([tool, version]) => `${tool} ${version}`)
        .join(", ") || "none ran"
    }. Sources: ${report.sources.join(", ")}.`,
    "",
    `${files.read} source files read: ${files.kept} lint tasks, ${skippedTotal} skipped, ${files.bad} bad rows.`,
    "",
  ];
  for (const [reason, n] of Object.entries(files.skipped)) lines.push(`- skipped, ${reason}: ${n}`);
  for (const [reason, n] of Object.entries(files.badReasons)) lines.push(`- bad row, ${reason}: ${n}`);
  lines.push(
    `- splits: ${
      Object.entries(report.splits)
        .map(([split, n]) => `${split} ${n}`)
        .join(", ") || "none"
    }`,
  );
  lines.push("", "## Per language", "");
  lines.push(
    table(
      ["language", "tasks", "alerts", "alerts/task", ...ALERT_CATEGORIES],
      report.languages.map((l) => [
        l.language,
        String(l.tasks),
        String(l.alerts),
        (l.meanAlertsPerTask ?? 0).toFixed(1),
        ...ALERT_CATEGORIES.map((c) => String(l.categories[c])),
      ]),
    ),
  );
  lines.push("", "## Per category", "");
  lines.push(
    table(
      ["category", "alerts", "tasks with one"],
      report.categories.map((c) => [c.category, String(c.alerts), String(c.tasks)]),
    ),
  );
  lines.push("", "## Per rule", "");
  lines.push(
    table(
      ["rule", "tool", "category", "alerts", "tasks"],
      report.rules.map((r) => [`\`${r.ruleId}\``, r.tool, r.category, String(r.alerts), String(r.tasks)]),
      3,
    ),
  );
  lines.push("", "## Per file", "");
  lines.push(
    table(
      ["task", "language", "split", "alerts", ...ALERT_CATEGORIES],
      report.perFile.map((f) => [
        `\`${f.taskId}\``,
        f.language,
        f.split,
        String(f.alerts),
        ...ALERT_CATEGORIES.map((c) => String(f.categories[c])),
      ]),
      3,
    ),
  );
  return `${lines.join("\n")}\n`;
}

/** The message of a validation error; anything else propagates. */
export function validationMessage(error: unknown): string {
  if (isMineditError(error) && error.code === ErrorCode.InvalidArgument) return error.rawMessage;
  throw error;
}
