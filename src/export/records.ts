/**
 * Training records, independent of any file format: what one exported row says. The format modules
 * (format-*.ts) turn a record into the row shape their trainer reads.
 *
 * - `sft`: prompt → the gold program (the programmatic minimal repair), in a ```python block as the
 *   prompt asks.
 * - `rsft`: prompt → one kept candidate's completion, verbatim (that is what rejection sampling trains
 *   on), with its scores.
 * - `dpo`: prompt, chosen and rejected completions verbatim, and both sides' reward, distance to the
 *   reference repair, excess and verdict, so DPOP or weighted losses can use them.
 * - `grpo`: the prompt only; the task id is all the reward call needs.
 * - `alq`, `qa`, `qa-prime` (lint tasks, src/export/lint-export.ts): LintEval's A+L→A′ prompt → the
 *   refactored file, and the problem → the original (Q→A) or the refactored (Q→A′) solution, with the
 *   revision's alert counts and diff size.
 *
 * Pure: no I/O.
 */

import type { LintLanguage } from "../core/lint/tools.js";
import { type Message, promptId } from "../core/prompt/message.js";
import { type PromptStyle, promptMessages, pythonBlock } from "../core/prompt/repair-prompt.js";
import type { Verdict } from "../core/reward.js";
import type { ExportTask } from "./export-task.js";
import type { RevisionOrigin } from "./lint-selection.js";
import type { ScoredCandidate } from "./selection.js";

/** The corpora built from lint tasks (docs/export.md: A+L→A′, Q→A, Q→A′). */
export const LINT_EXPORT_KINDS = ["alq", "qa", "qa-prime"] as const;
export type LintExportKind = (typeof LINT_EXPORT_KINDS)[number];

export const EXPORT_KINDS = ["sft", "rsft", "dpo", "grpo", ...LINT_EXPORT_KINDS] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** Rule-based fixers whose output a lint corpus may take as a revision (`--fixer`). */
export const LINT_FIXERS = ["clang-tidy"] as const;
export type LintFixer = (typeof LINT_FIXERS)[number];

/** Whether a kind is built from lint tasks. */
export function isLintKind(kind: ExportKind): kind is LintExportKind {
  return (LINT_EXPORT_KINDS as readonly string[]).includes(kind);
}

/** The `prompt_style` of lint rows: their prompts are src/core/prompt/lint-prompt.ts's, not the repair prompt's. */
export const LINT_PROMPT_STYLE = "linteval";
export type RecordPromptStyle = PromptStyle | typeof LINT_PROMPT_STYLE;

/** What every record carries, whatever its kind. */
export type RecordBase = {
  taskId: string;
  problemId: string;
  /** {@link promptId} of `prompt`. */
  promptId: string;
  /** The export split (from `--splits`). */
  split: string;
  /** Position of the row within its split file, 0-based. */
  index: number;
  /** The task's own split label (`train`, `ood`, ...; empty when the task row has none). */
  taskSplit: string;
  source: string;
  families: string[];
  promptStyle: RecordPromptStyle;
  /** The system prompt and the user message. */
  prompt: Message[];
};

/** A candidate's scores as exported. */
export type CandidateScores = {
  reward: number | null;
  verdict: Verdict;
  /** d(M, G): distance to the reference repair (null without a program). */
  distance: number | null;
  /** e(M) = d(M, C) − d(G, C) (null without a program). */
  excess: number | null;
  testsPassed: number;
  testsTotal: number;
};

export type SftRecord = RecordBase & { kind: "sft"; response: string };
export type RsftRecord = RecordBase & {
  kind: "rsft";
  response: string;
  scores: CandidateScores;
  /** 0 for the smallest edit kept for the task, 1 for the next, ... */
  rank: number;
};
export type DpoRecord = RecordBase & {
  kind: "dpo";
  chosen: string;
  rejected: string;
  chosenScores: CandidateScores;
  rejectedScores: CandidateScores;
};
export type GrpoRecord = RecordBase & { kind: "grpo" };

/** What a lint row says about its answer: which revision it is, its alerts and its diff. */
export type LintColumns = {
  language: LintLanguage;
  /** `original` for Q→A rows; else where the kept revision came from. */
  revision: "original" | RevisionOrigin;
  /** |Orig|: alerts of the task's original file. */
  originalAlerts: number;
  /** Fixed and New of the answer against the original (0 and 0 for the original itself). */
  fixed: number;
  introduced: number;
  /** Added + deleted lines of the unified diff from the original. */
  diffLines: number;
  /** Token Levenshtein distance from the original (null when the tokenizer refused the file). */
  tokenDistance: number | null;
  /** The answer's test results; null for Q→A rows exported without running tests (the builder did). */
  testsPassed: number | null;
  testsTotal: number | null;
};
export type LintRecord = RecordBase & { kind: LintExportKind; response: string; lint: LintColumns };

export type ExportRecord = SftRecord | RsftRecord | DpoRecord | GrpoRecord | LintRecord;

/** The fields of a record that come from its task and placement. */
export function recordBase(
  task: ExportTask,
  promptStyle: PromptStyle,
  split: string,
  index: number,
): RecordBase {
  const prompt = promptMessages(task.statement, task.corrupted, promptStyle);
  return {
    taskId: task.taskId,
    problemId: task.problemId,
    promptId: promptId(prompt),
    split,
    index,
    taskSplit: task.taskSplit,
    source: task.source,
    families: task.families,
    promptStyle,
    prompt,
  };
}

export function scoresOf(c: ScoredCandidate): CandidateScores {
  return {
    reward: c.reward,
    verdict: c.verdict,
    distance: c.distance,
    excess: c.excess,
    testsPassed: c.testsPassed,
    testsTotal: c.testsTotal,
  };
}

export function sftRecord(base: RecordBase, task: ExportTask): SftRecord {
  return { ...base, kind: "sft", response: pythonBlock(task.gold) };
}

export function rsftRecord(base: RecordBase, candidate: ScoredCandidate, rank: number): RsftRecord {
  return { ...base, kind: "rsft", response: candidate.completion, scores: scoresOf(candidate), rank };
}

export function dpoRecord(base: RecordBase, chosen: ScoredCandidate, rejected: ScoredCandidate): DpoRecord {
  return {
    ...base,
    kind: "dpo",
    chosen: chosen.completion,
    rejected: rejected.completion,
    chosenScores: scoresOf(chosen),
    rejectedScores: scoresOf(rejected),
  };
}

export function grpoRecord(base: RecordBase): GrpoRecord {
  return { ...base, kind: "grpo" };
}

/** The assistant turn of a response. */
export function assistant(content: string): Message {
  return { role: "assistant", content };
}

/** The flat id and metadata columns every JSONL row carries (snake_case, as the datasets name them). */
export function metadataColumns(record: ExportRecord): Record<string, unknown> {
  return {
    task_id: record.taskId,
    problem_id: record.problemId,
    prompt_id: record.promptId,
    split: record.split,
    task_split: record.taskSplit,
    source: record.source,
    families: record.families,
    prompt_style: record.promptStyle,
  };
}

/** A candidate's scores as flat columns named `<prefix>reward`, `<prefix>distance`, ... */
export function scoreColumns(prefix: string, scores: CandidateScores): Record<string, unknown> {
  return {
    [`${prefix}reward`]: scores.reward,
    [`${prefix}verdict`]: scores.verdict,
    [`${prefix}distance`]: scores.distance,
    [`${prefix}excess`]: scores.excess,
    [`${prefix}tests_passed`]: scores.testsPassed,
    [`${prefix}tests_total`]: scores.testsTotal,
  };
}

/** A lint row's columns, snake_case. */
export function lintColumns(lint: LintColumns): Record<string, unknown> {
  return {
    language: lint.language,
    revision: lint.revision,
    original_alerts: lint.originalAlerts,
    fixed: lint.fixed,
    new: lint.introduced,
    net_fixed: lint.fixed - lint.introduced,
    diff_lines: lint.diffLines,
    token_distance: lint.tokenDistance,
    tests_passed: lint.testsPassed,
    tests_total: lint.testsTotal,
  };
}

/**
 * A JSONL row: the format's own columns (`body`), then the id and metadata columns every row carries and
 * the kind's score columns, in that order.
 */
export function jsonlRow(body: Record<string, unknown>, record: ExportRecord): Record<string, unknown> {
  return { ...body, ...metadataColumns(record), ...recordScoreColumns(record) };
}

/** The kind-specific score columns of a record (none for sft and grpo). */
export function recordScoreColumns(record: ExportRecord): Record<string, unknown> {
  switch (record.kind) {
    case "alq":
    case "qa":
    case "qa-prime":
      return lintColumns(record.lint);
    case "rsft":
      return { ...scoreColumns("", record.scores), rank: record.rank };
    case "dpo":
      return {
        ...scoreColumns("chosen_", record.chosenScores),
        ...scoreColumns("rejected_", record.rejectedScores),
      };
    default:
      return {};
  }
}
