/**
 * The skeleton every export run shares, repair (run-export.ts) and lint corpora (lint-export.ts) alike:
 * read the task rows (unreadable, invalid, duplicate and OOD rows are reported and counted by reason),
 * read the candidate rows (core/candidate-row.ts's shapes), place each row in its split by problem
 * (splits.ts), write it through the format, count it, and describe the run in the manifest. What the two
 * really do differently — which task rows they parse, how candidates are judged and selected, which
 * records they build — stays in their own modules.
 */
import { type CandidateRow, parseCandidateRow } from "../core/candidate-row.js";
import { isMineditError } from "../errors.js";
import type { RowSource } from "../io/inputs.js";
import { OOD_SPLIT } from "./export-task.js";
import type { ExportFormat, ExportManifest } from "./format.js";
import type { ExportOutput } from "./output.js";
import type { ExportKind, ExportRecord, RecordPromptStyle } from "./records.js";
import { assignSplit, type SplitWeight } from "./splits.js";
import type { SummaryCounts } from "./summary.js";

/** The settings every export has: what to write, how, and how to split it. */
export type RunSettings = {
  kind: ExportKind;
  format: ExportFormat;
  style: string;
  name: string;
  splits: readonly SplitWeight[];
  splitSpec: string;
  seed: number;
  includeOod: boolean;
  mineditVersion: string;
};

/** What every export run is handed: where rows go, and where reports and progress go. */
export type RunDeps<Source> = {
  output: ExportOutput;
  /** Reports one bad row or warning (progress-safe). */
  report(message: string): void;
  /** Called as work progresses: items done, and the source being read. */
  progress(done: number, source: Source): void;
  signal: AbortSignal;
};

/** What a task parser makes of one row: a task (with its id and the split it was built for), or why not. */
export type ParsedTask<T> = { task: T; taskId: string; split: string } | { reason: string; category: string };

export function bump(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

/** The message of a validation error; anything else is a bug and propagates. */
export function errorText(error: unknown): string {
  if (isMineditError(error)) return error.rawMessage;
  throw error;
}

/** The manifest of a run, but for its files (the output adds them when it commits). */
export function runManifest(settings: RunSettings, prompt: RecordPromptStyle): Omit<ExportManifest, "files"> {
  return {
    manifestVersion: 1,
    mineditVersion: settings.mineditVersion,
    name: settings.name,
    kind: settings.kind,
    format: settings.format.name,
    style: settings.style,
    prompt,
    splits: { spec: settings.splitSpec, seed: settings.seed },
    includeOod: settings.includeOod,
  };
}

/** One export run's shared state and steps; run-export.ts and lint-export.ts extend it. */
export abstract class ExportRun<Summary extends SummaryCounts, Source extends RowSource | null> {
  /** Rows written so far per split: the next row's `index`. */
  private readonly indexes = new Map<string, number>();
  /** Tasks left out as OOD, so a candidate for one is "left out", not "unknown". */
  protected readonly oodTasks = new Set<string>();
  protected done = 0;

  constructor(
    readonly summary: Summary,
    private readonly base: RunSettings,
    protected readonly runDeps: RunDeps<Source>,
  ) {}

  protected bad(where: string, reason: string, category: string): void {
    this.runDeps.report(`${where}: ${reason}`);
    bump(this.summary.badRows, category);
  }

  protected tick(source: Source | RowSource): void {
    this.done += 1;
    this.runDeps.progress(this.done, source as Source);
  }

  /**
   * The tasks of the task files, in order: each row parsed by `parse` (which throws a validation error for
   * an invalid row; `onInvalid` learns of it), duplicates of an earlier task id and, unless asked for, OOD
   * tasks left out; every skipped row counted.
   */
  protected async *readTasks<T>(
    sources: readonly RowSource[],
    parse: (row: Record<string, unknown>) => ParsedTask<T>,
    onInvalid: (row: Record<string, unknown>, where: string, reason: string) => void = () => {},
  ): AsyncGenerator<{ task: T; where: string }> {
    const seen = new Map<string, string>();
    for (const source of sources) {
      for await (const item of source.rows()) {
        this.tick(source);
        if ("error" in item) {
          this.bad(item.where, item.error, "unreadable task row");
          this.summary.tasks.bad += 1;
          continue;
        }
        this.summary.tasks.read += 1;
        let parsed: ParsedTask<T>;
        try {
          parsed = parse(item.row);
        } catch (error) {
          const reason = errorText(error);
          this.bad(item.where, reason, "invalid task row");
          this.summary.tasks.bad += 1;
          onInvalid(item.row, item.where, reason);
          continue;
        }
        if ("reason" in parsed) {
          this.bad(item.where, parsed.reason, parsed.category);
          this.summary.tasks.bad += 1;
          continue;
        }
        const first = seen.get(parsed.taskId);
        if (first !== undefined) {
          this.bad(
            item.where,
            `duplicate task_id "${parsed.taskId}" (first at ${first}): skipped`,
            "duplicate task_id",
          );
          this.summary.tasks.bad += 1;
          continue;
        }
        seen.set(parsed.taskId, item.where);
        if (parsed.split === OOD_SPLIT && !this.base.includeOod) {
          this.summary.tasks.ood += 1;
          this.oodTasks.add(parsed.taskId);
          continue;
        }
        yield { task: parsed.task, where: item.where };
      }
    }
  }

  /** The rows of a candidates file that parse; unreadable and invalid rows are reported and counted. */
  protected async *readCandidateRows(
    source: RowSource,
  ): AsyncGenerator<{ row: CandidateRow; where: string }> {
    for await (const item of source.rows()) {
      this.tick(source);
      if ("error" in item) {
        this.bad(item.where, item.error, "unreadable candidate row");
        continue;
      }
      let row: CandidateRow;
      try {
        row = parseCandidateRow(item.row);
      } catch (error) {
        this.bad(item.where, errorText(error), "invalid candidate row");
        continue;
      }
      yield { row, where: item.where };
    }
  }

  /** The split of a problem (a hash of seed and problem id) and the next row index in it. */
  protected placement(problemId: string): { split: string; index: number } {
    const split = assignSplit(problemId, this.base.splits, this.base.seed);
    const index = this.indexes.get(split) ?? 0;
    this.indexes.set(split, index + 1);
    return { split, index };
  }

  /** Writes a record as a row of the format, in its split. */
  protected async write(record: ExportRecord): Promise<void> {
    await this.runDeps.output.write(record.split, this.base.format.row(record, this.base.style));
    bump(this.summary.rowsPerSplit, record.split);
  }
}
