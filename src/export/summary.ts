/**
 * What an export did, for the manifest and for the user: every task, candidate and row kept or skipped is
 * counted by reason ({@link ExportSummary} for the repair kinds, {@link LintExportSummary} for the lint
 * corpora), and the text `minedit export` prints at the end.
 *
 * Pure: no I/O.
 */
import { VERDICTS, type Verdict } from "../core/reward.js";

/** The counts both summaries share (export-run.ts keeps them); every skip is counted by reason. */
export type SummaryCounts = {
  tasks: { read: number; used: number; ood: number; bad: number };
  /** Bad rows by reason, across the task and candidate files. */
  badRows: Record<string, number>;
  /** Tasks that gave rows, the rows, and the tasks that gave none by reason. */
  selection: { tasksWithRows: number; rows: number; noRows: Record<string, number> };
  rowsPerSplit: Record<string, number>;
};

/** What happened, for the summary and the manifest; every skip is counted by reason. */
export type ExportSummary = SummaryCounts & {
  tasks: { withoutCandidates: number };
  /** rsft: tasks that gave `keep` rows (k passing candidates). */
  selection: { complete: number };
  /** `--generate`: the samples of this export's tasks (reused from the journal, asked, generated, failed). */
  generation: {
    reused: number;
    asked: number;
    generated: number;
    failed: number;
    requests: number;
    completionTokens: number;
  } | null;
  candidates: {
    rows: number;
    completions: number;
    scored: number;
    verdicts: Partial<Record<Verdict, number>>;
    /** Completions past `perTask` for their task. */
    overLimit: number;
    /** Completions of tasks left out as OOD. */
    forOodTasks: number;
    /** Samples without a completion, by reason (API error, missing): counted, never scored. */
    unavailable: Record<string, number>;
  };
};

/** What happened; every skip is counted by reason. */
export type LintExportSummary = SummaryCounts & {
  candidates: {
    rows: number;
    /** Teacher completions, and fixer outputs. */
    teacher: number;
    fixer: number;
    /** Fixer not run: the task is not C++. */
    fixerNotApplicable: number;
    /** Candidates that passed and reduced alerts (each task's best one became its row). */
    qualified: number;
    rejected: Record<string, number>;
  };
};

/** The verdicts of a summary in the canonical order, as `PASSED 3, FAILED_TESTS 1`. */
export function verdictList(verdicts: Partial<Record<Verdict, number>>): string {
  return VERDICTS.filter((v) => verdicts[v] !== undefined)
    .map((v) => `${v} ${verdicts[v]}`)
    .join(", ");
}

/** What a summary's first line names: the export and how it was written. */
export type SummaryHeading = {
  kind: string;
  format: { name: string };
  style: string;
  name: string;
};

/** `1 row`, `2 rows`. */
function plural(n: number, word: string): string {
  return `${n} ${n === 1 ? word : `${word}s`}`;
}

function counts(record: Record<string, number>): string {
  return Object.entries(record)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
}

export function summaryText(
  settings: SummaryHeading & { prompt: string; perTask: number; keep?: number },
  summary: ExportSummary,
  files: readonly { path: string; rows: number }[],
  outDir: string,
  seconds: number,
): string {
  const { tasks, candidates, selection } = summary;
  const lines = heading(settings, `${settings.prompt} prompt`, summary, outDir, seconds);
  if (settings.kind === "rsft" || settings.kind === "dpo") {
    const skipped: string[] = [];
    if (candidates.overLimit > 0) skipped.push(`${candidates.overLimit} over --per-task ${settings.perTask}`);
    if (candidates.forOodTasks > 0) skipped.push(`${candidates.forOodTasks} for OOD tasks`);
    const without = Object.values(candidates.unavailable).reduce((a, b) => a + b, 0);
    if (summary.generation !== null) {
      const g = summary.generation;
      lines.push(
        `  generated: ${g.generated} of ${g.asked} sample(s) asked in ${plural(g.requests, "request")} ` +
          `(${g.reused} already in the journal, ${g.failed} failed after retries)`,
      );
    }
    lines.push(
      `  candidates: ${candidates.completions} in ${candidates.rows} rows; ${candidates.scored} scored ` +
        `(${verdictList(candidates.verdicts) || "none"})${skipped.length > 0 ? `; skipped: ${skipped.join(", ")}` : ""}` +
        (without > 0 ? `; without a completion: ${counts(candidates.unavailable)}` : ""),
    );
    if (tasks.withoutCandidates > 0)
      lines.push(`  ${plural(tasks.withoutCandidates, "task")} had no candidates`);
    const none = Object.values(selection.noRows).reduce((a, b) => a + b, 0);
    const what = settings.kind === "rsft" ? "rows" : "pairs";
    const complete =
      settings.kind === "rsft" && settings.keep !== undefined
        ? ` (${selection.complete} with ${settings.keep} passing, ${selection.tasksWithRows - selection.complete} with fewer)`
        : "";
    lines.push(
      `  ${what}: ${selection.rows} from ${plural(selection.tasksWithRows, "task")}${complete}` +
        (none > 0
          ? `; ${plural(none, "task")} without ${settings.kind === "rsft" ? "a row" : "a valid pair"} (${counts(selection.noRows)})`
          : ""),
    );
    const infra = candidates.verdicts.INFRA_ERROR ?? 0;
    if (infra > 0) {
      lines.push(
        `  warning: ${infra} candidates hit a sandbox fault (INFRA_ERROR) and were not counted as passing or failing`,
      );
    }
  }
  return `${[...lines, ...footer(summary.badRows, files)].join("\n")}\n`;
}

export function lintSummaryText(
  settings: SummaryHeading & { fixer: string | null },
  summary: LintExportSummary,
  files: readonly { path: string; rows: number }[],
  outDir: string,
  seconds: number,
): string {
  const { candidates, selection } = summary;
  const lines = heading(settings, "LintEval prompt", summary, outDir, seconds);
  const judged = candidates.teacher + candidates.fixer;
  if (judged > 0 || settings.fixer !== null) {
    const sources = [`${candidates.teacher} from the teacher file (${candidates.rows} rows)`];
    if (settings.fixer !== null) {
      sources.push(
        `${candidates.fixer} from ${settings.fixer} --fix` +
          (candidates.fixerNotApplicable > 0
            ? ` (not applicable to ${plural(candidates.fixerNotApplicable, "task")})`
            : ""),
      );
    }
    const rejected = Object.values(candidates.rejected).reduce((a, b) => a + b, 0);
    lines.push(
      `  revisions: ${judged} (${sources.join(", ")}); ${candidates.qualified} passed and reduced alerts`,
    );
    if (rejected > 0) lines.push(`  rejected: ${rejected} (${counts(candidates.rejected)})`);
  }
  const none = Object.values(selection.noRows).reduce((a, b) => a + b, 0);
  lines.push(
    `  rows: ${selection.rows} from ${plural(selection.tasksWithRows, "task")}` +
      (none > 0 ? `; ${plural(none, "task")} without a row (${counts(selection.noRows)})` : ""),
  );
  return `${[...lines, ...footer(summary.badRows, files)].join("\n")}\n`;
}

/** The first lines of both summaries: what was exported, how and where, and what became of the tasks. */
function heading(
  settings: SummaryHeading,
  prompt: string,
  { tasks }: SummaryCounts,
  outDir: string,
  seconds: number,
): string[] {
  return [
    `minedit export: ${settings.kind} as ${settings.format.name} (${settings.style}, ${prompt}) ` +
      `into ${outDir}/${settings.name}, ${seconds.toFixed(2)} s`,
    `  tasks: ${tasks.read} read, ${tasks.used} used, ${tasks.ood} left out as OOD, ${tasks.bad} bad`,
  ];
}

/** The last lines of both summaries: the bad rows skipped, and the files written. */
function footer(badRows: Record<string, number>, files: readonly { path: string; rows: number }[]): string[] {
  const lines: string[] = [];
  const bad = Object.values(badRows).reduce((a, b) => a + b, 0);
  if (bad > 0) lines.push(`  bad rows: ${bad} skipped (${counts(badRows)})`);
  lines.push(
    files.length === 0
      ? "  files: none (no rows)"
      : `  files: ${files.map((f) => `${f.path} (${plural(f.rows, "row")})`).join(", ")}`,
  );
  return lines;
}
