/**
 * The lint corpora (docs/export.md; issue 6 item 6): `alq` (A+L→A′), `qa` (Q→A) and `qa-prime` (Q→A′) from lint
 * tasks (src/scoring/lint-task.ts) and candidate revisions — completions of a teacher model (the candidate
 * shapes of rsft, src/core/candidate-row.ts) and/or the rule-based fixer `clang-tidy --fix` (C++ tasks).
 *
 * For each task every candidate is judged (src/export/lint-selection.ts): its program is extracted from
 * the completion (docs/reward.md#from-completion-to-program-m's rules: the last fenced block), its tests run in the sandbox, and a passing
 * one is analyzed with the task language's pinned analyzer; the original file is analyzed again in the
 * same run, so Fixed and New compare two analyses of one tool version and configuration. The original's
 * fresh alerts must equal the task's stored ones (the L the prompt shows): a task built under another
 * analyzer version or configuration is reported as bad rather than trained on with alerts that do not
 * match what the analyzer says now. The best qualifying revision becomes the task's row.
 *
 * `qa` needs no revision: its answer is the original file, which passed its tests when the task was
 * built. Given candidates or a fixer, `qa` is restricted to the tasks that have a kept revision, so Q→A,
 * Q→A′ and A+L→A′ train on the same problems (LintEval §4.4 compares them that way).
 *
 * Splits are by problem with the same rule as the other exports (src/export/splits.ts). Tasks and
 * candidates are held in memory: lint sets are thousands of files, not millions.
 */

import type { Linter } from "../analyzers/linter.js";
import { DEFAULT_END_OF_TURN_MARKERS } from "../config.js";
import { tokenLevenshtein } from "../core/distance.js";
import { extractProgram } from "../core/extract-program.js";
import { type Alert, diffAlerts } from "../core/lint/alert.js";
import { instanceCounts, unifiedDiffLineCount } from "../core/lint/metrics.js";
import { LINT_LANGUAGES, type LintLanguage, TOOL_OF_LANGUAGE } from "../core/lint/tools.js";
import { mapConcurrent } from "../core/map-concurrent.js";
import { alqMessages, codeBlock, qaMessages } from "../core/prompt/lint-prompt.js";
import { promptId } from "../core/prompt/message.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import { PySyntaxError } from "../core/python/syntax-error.js";
import { TokenizeError } from "../core/python/tokenize.js";
import { sourceTokens } from "../core/tokens/source-tokens.js";
import type { RowSource } from "../io/inputs.js";
import { runLintTests } from "../lint/build-tasks.js";
import { clangTidyFix } from "../lint/clang-tidy-fix.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";
import { isLintTaskRow, type LintTask, parseLintTask } from "../scoring/lint-task.js";
import { bump, ExportRun, type RunDeps, type RunSettings, runManifest } from "./export-run.js";
import type { ExportManifest } from "./format.js";
import { type LintCandidate, type RevisionOrigin, selectLintRevision } from "./lint-selection.js";
import {
  LINT_PROMPT_STYLE,
  type LintColumns,
  type LintExportKind,
  type LintFixer,
  type LintRecord,
} from "./records.js";
import type { LintExportSummary } from "./summary.js";

/** The rule-based fixers `--fixer` offers. */

export type LintExportSettings = RunSettings & {
  kind: LintExportKind;
  fixer: LintFixer | null;
  /** Limits of one test run (LintEval: 10 s, 1 GiB). */
  limits: ExecutionLimits;
  /** Test, fixer and analyzer runs at once. */
  concurrency: number;
};

/** `progress` counts work items: task rows read, then candidates judged (source null). */
export type LintExportDeps = RunDeps<RowSource | null> & {
  /** Needed unless the export is `qa` without candidates. */
  sandbox: Sandbox | null;
  linter: Linter | null;
};

/** Why a task gave no row. */
export const LINT_NO_ROW = {
  noCandidates: "no candidates",
  noneQualified: "no candidate passed its tests and reduced alerts",
  staleAlerts: "stored alerts differ from the installed analyzer's (rebuild the task)",
} as const;

function emptySummary(): LintExportSummary {
  return {
    tasks: { read: 0, used: 0, ood: 0, bad: 0 },
    badRows: {},
    candidates: { rows: 0, teacher: 0, fixer: 0, fixerNotApplicable: 0, qualified: 0, rejected: {} },
    selection: { tasksWithRows: 0, rows: 0, noRows: {} },
    rowsPerSplit: {},
  };
}

/** A candidate while it is being judged. */
type Pending = LintCandidate & { task: LintTask; alerts: Alert[] | null };

/** Files per analyzer call (PMD pays its JVM start once per call). */
const ANALYZE_CHUNK = 8;

/** Token distance of two files, or null when the tokenizer refuses one of them. */
function tokenDistance(language: LintLanguage, a: string, b: string): number | null {
  try {
    return tokenLevenshtein(sourceTokens(language, a), sourceTokens(language, b));
  } catch (error) {
    if (error instanceof PySyntaxError || error instanceof TokenizeError) {
      return null;
    }
    throw error;
  }
}

class LintExporter extends ExportRun<LintExportSummary, RowSource | null> {
  constructor(
    private readonly settings: LintExportSettings,
    private readonly deps: LintExportDeps,
  ) {
    super(emptySummary(), settings, deps);
  }

  /** Reads, validates and de-duplicates the task rows; leaves out OOD tasks unless asked. */
  async lintTasks(sources: readonly RowSource[]): Promise<Map<string, LintTask>> {
    const tasks = new Map<string, LintTask>();
    const rows = this.readTasks(sources, (row) => {
      if (!isLintTaskRow(row)) {
        return {
          reason: 'not a lint task (no "kind": "lint_refactor"; build them with `minedit lint tasks`)',
          category: "not a lint task",
        };
      }
      const task = parseLintTask(row);
      return { task, taskId: task.taskId, split: task.split };
    });
    for await (const { task } of rows) tasks.set(task.taskId, task);
    return tasks;
  }

  /** Teacher completions per task id, in file order. */
  async readCandidates(source: RowSource, tasks: Map<string, LintTask>): Promise<Map<string, string[]>> {
    const byTask = new Map<string, string[]>();
    for await (const { row, where } of this.readCandidateRows(source)) {
      if (!tasks.has(row.taskId)) {
        this.bad(
          where,
          `unknown task_id "${row.taskId}" (not a lint task of the task files)`,
          "unknown task_id",
        );
        continue;
      }
      this.summary.candidates.rows += 1;
      this.summary.candidates.teacher += row.completions.length;
      const list = byTask.get(row.taskId);
      if (list === undefined) byTask.set(row.taskId, [...row.completions]);
      else list.push(...row.completions);
    }
    return byTask;
  }

  private async writeRow(task: LintTask, response: string, lint: LintColumns): Promise<void> {
    const prompt = this.settings.kind === "alq" ? alqMessages(task) : qaMessages(task);
    const { split, index } = this.placement(task.problemId);
    const record: LintRecord = {
      kind: this.settings.kind,
      taskId: task.taskId,
      problemId: task.problemId === "" ? task.taskId : task.problemId,
      promptId: promptId(prompt),
      split,
      index,
      taskSplit: task.split,
      source: task.source,
      families: [],
      promptStyle: LINT_PROMPT_STYLE,
      prompt,
      response,
      lint,
    };
    await this.write(record);
    this.summary.selection.rows += 1;
    this.summary.selection.tasksWithRows += 1;
  }

  /** `qa` without candidates: every task's original file. */
  async exportOriginals(tasks: Map<string, LintTask>): Promise<void> {
    for (const task of tasks.values()) {
      this.summary.tasks.used += 1;
      await this.writeRow(task, codeBlock(task.language, task.original), {
        language: task.language,
        revision: "original",
        originalAlerts: task.alerts.length,
        fixed: 0,
        introduced: 0,
        diffLines: 0,
        tokenDistance: 0,
        testsPassed: null,
        testsTotal: null,
      });
    }
  }

  /** Judges the candidates of every task and writes the rows of the tasks with a kept revision. */
  async exportRevisions(tasks: Map<string, LintTask>, teacher: Map<string, string[]>): Promise<void> {
    const { sandbox, linter, signal } = this.deps;
    if (sandbox === null || linter === null) throw new Error("internal error: revisions need a sandbox");
    const { fixer, concurrency, limits } = this.settings;
    this.done = 0;

    // Candidates, in order: the teacher's completions, then the fixer's output.
    const pending = new Map<string, Pending[]>();
    const add = (task: LintTask, origin: RevisionOrigin, program: string | null) => {
      let list = pending.get(task.taskId);
      if (list === undefined) {
        list = [];
        pending.set(task.taskId, list);
      }
      list.push({
        task,
        origin,
        order: list.length,
        program,
        verdict: null,
        testsPassed: 0,
        testsTotal: 0,
        counts: null,
        diffLines: null,
        tokenDistance: null,
        alerts: null,
      });
    };
    for (const task of tasks.values()) {
      for (const completion of teacher.get(task.taskId) ?? []) {
        const extracted = extractProgram(completion, DEFAULT_END_OF_TURN_MARKERS);
        add(task, "teacher", extracted.kind === "code" ? extracted.program : null);
      }
    }
    if (fixer === "clang-tidy") {
      const cpp = [...tasks.values()].filter((task) => task.language === "cpp");
      this.summary.candidates.fixerNotApplicable = tasks.size - cpp.length;
      const fixed = await mapConcurrent(cpp, concurrency, async (task) => {
        const program = await clangTidyFix(sandbox, task.original, signal);
        this.tick(null);
        return program;
      });
      cpp.forEach((task, i) => {
        add(task, "clang-tidy", fixed[i] as string);
      });
      this.summary.candidates.fixer = cpp.length;
    }
    // Restore task order (the fixer's candidates were added after every teacher one).
    const all = [...tasks.values()].flatMap((task) => pending.get(task.taskId) ?? []);

    // Tests, for candidates with a program that changes something.
    const toTest = all.filter((c) => c.program !== null && c.program !== c.task.original);
    await mapConcurrent(toTest, concurrency, async (c) => {
      const outcome = await runLintTests(
        sandbox,
        c.task.language,
        c.program as string,
        c.task.tests,
        limits,
        signal,
      );
      c.verdict = outcome.verdict;
      c.testsPassed = outcome.testsPassed;
      c.testsTotal = outcome.testsTotal;
      this.tick(null);
    });

    // Analysis: each language's originals with candidates, and the passing candidates.
    const passing = toTest.filter((c) => c.verdict === "PASSED");
    const withCandidates = [...tasks.values()].filter((task) => pending.has(task.taskId));
    const fresh = new Map<string, Alert[]>();
    for (const language of LINT_LANGUAGES) {
      const originals = withCandidates.filter((t) => t.language === language);
      const revisions = passing.filter((c) => c.task.language === language);
      if (originals.length === 0) continue;
      const tool = TOOL_OF_LANGUAGE[language];
      const { version } = await linter.version(tool, signal);
      const files = [...originals.map((t) => t.original), ...revisions.map((c) => c.program as string)];
      const results: Alert[][] = [];
      for (let i = 0; i < files.length; i += ANALYZE_CHUNK) {
        results.push(...(await linter.analyze(language, files.slice(i, i + ANALYZE_CHUNK), signal)));
        for (let j = i; j < Math.min(files.length, i + ANALYZE_CHUNK); j += 1) this.tick(null);
      }
      originals.forEach((task, i) => {
        const stored = task.analyzers[tool];
        const now = results[i] ?? [];
        const diff = diffAlerts(task.alerts, now);
        if (stored !== undefined && stored !== version) {
          this.deps.report(
            `task "${task.taskId}": ${LINT_NO_ROW.staleAlerts}: alerts from ${tool} ${stored}, installed ${version}`,
          );
          return;
        }
        if (diff.fixed.length === 0 && diff.introduced.length === 0) {
          fresh.set(task.taskId, now);
          return;
        }
        this.deps.report(
          `task "${task.taskId}": ${LINT_NO_ROW.staleAlerts}: ${diff.fixed.length} stored alerts not found, ` +
            `${diff.introduced.length} new`,
        );
      });
      revisions.forEach((c, i) => {
        c.alerts = results[originals.length + i] ?? [];
      });
    }

    for (const task of tasks.values()) {
      this.summary.tasks.used += 1;
      const candidates = pending.get(task.taskId);
      if (candidates === undefined) {
        bump(this.summary.selection.noRows, LINT_NO_ROW.noCandidates);
        continue;
      }
      const original = fresh.get(task.taskId);
      if (original === undefined) {
        bump(this.summary.selection.noRows, LINT_NO_ROW.staleAlerts);
        continue;
      }
      for (const c of candidates) {
        if (c.alerts === null) continue;
        c.counts = instanceCounts(original, c.alerts);
        c.diffLines = unifiedDiffLineCount(task.original, c.program as string);
        c.tokenDistance = tokenDistance(task.language, task.original, c.program as string);
      }
      const selection = selectLintRevision(candidates, task.original);
      this.summary.candidates.qualified += selection.qualified;
      for (const [reason, n] of Object.entries(selection.rejected)) {
        bump(this.summary.candidates.rejected, reason, n);
      }
      const chosen = selection.chosen;
      if (chosen === null) {
        bump(this.summary.selection.noRows, LINT_NO_ROW.noneQualified);
        continue;
      }
      const qa = this.settings.kind === "qa";
      const program = qa ? task.original : (chosen.program as string);
      await this.writeRow(task, codeBlock(task.language, program), {
        language: task.language,
        revision: qa ? "original" : chosen.origin,
        originalAlerts: original.length,
        fixed: qa ? 0 : chosen.counts.fixed,
        introduced: qa ? 0 : chosen.counts.introduced,
        diffLines: qa ? 0 : chosen.diffLines,
        tokenDistance: qa ? 0 : chosen.tokenDistance,
        testsPassed: qa ? null : chosen.testsPassed,
        testsTotal: qa ? null : chosen.testsTotal,
      });
    }
  }
}

/**
 * Runs a lint export into `deps.output` (not committed: the caller commits or aborts). `candidates` is
 * the teacher file (optional); with neither it nor a fixer only `qa` can be exported.
 */
export async function runLintExport(
  settings: LintExportSettings,
  taskSources: readonly RowSource[],
  candidates: RowSource | undefined,
  deps: LintExportDeps,
): Promise<{ summary: LintExportSummary; manifest: Omit<ExportManifest, "files"> }> {
  // The Python tokens of the token distance come from the parser (src/core/normalize.ts).
  await loadPythonGrammar();
  const exporter = new LintExporter(settings, deps);
  const tasks = await exporter.lintTasks(taskSources);
  const teacher =
    candidates === undefined ? new Map<string, string[]>() : await exporter.readCandidates(candidates, tasks);
  if (candidates === undefined && settings.fixer === null) {
    if (settings.kind !== "qa")
      throw new Error(`internal error: ${settings.kind} needs candidates or a fixer`);
    await exporter.exportOriginals(tasks);
  } else {
    await exporter.exportRevisions(tasks, teacher);
  }
  return { summary: exporter.summary, manifest: runManifest(settings, LINT_PROMPT_STYLE) };
}
