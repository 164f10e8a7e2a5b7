/**
 * One export run: read the tasks, (rsft/dpo) stream and score the candidates, select, build records,
 * write them through the format into the output, and count everything that was kept or skipped and why.
 *
 * - sft and grpo stream the task file: each task is checked (its C and G must be Python 3.11, checked by
 *   the metrics workers in batches), placed in its split and written, so memory does not grow with the
 *   file.
 * - rsft and dpo load the tasks (the scorer looks them up by id), then stream the candidates in batches:
 *   every completion is scored, folded into its task's selector (which keeps O(k) candidates), and a task
 *   is finished and written as soon as it has `perTask` scored candidates; tasks with fewer are finished
 *   at the end, in order of first appearance. Results are folded in input order, so the output is the
 *   same on every run.
 * - A bad row (unreadable, invalid, unknown task) is reported with its position and skipped; it is
 *   counted by reason in the summary. Tasks marked `ood` are left out unless `includeOod`.
 */
import type { Config } from "../config.js";
import { REWARD_DEFINITION_VERSION } from "../core/reward.js";
import { taskIdOf, taskKey } from "../core/task-file.js";
import { isMineditError } from "../errors.js";
import type { RowSource } from "../io/inputs.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { TaskStore } from "../scoring/task-store.js";
import type { MetricsPool } from "../workers/metrics-pool.js";
import { type CandidateJob, CandidateScorer } from "./candidate-scorer.js";
import { parseCandidateRow } from "./candidates.js";
import { type ExportTask, OOD_SPLIT, parseExportTask } from "./export-task.js";
import type { ExportFormat, ExportManifest } from "./format.js";
import type { ExportOutput } from "./output.js";
import type { PromptStyle } from "./prompt.js";
import {
  dpoRecord,
  type ExportKind,
  type ExportRecord,
  grpoRecord,
  recordBase,
  rsftRecord,
  sftRecord,
} from "./records.js";
import {
  DpoSelector,
  NO_PAIR_REASONS,
  type NoPairReason,
  type RejectedMode,
  RsftSelector,
  type ScoredCandidate,
} from "./selection.js";
import { assignSplit, type SplitWeight } from "./splits.js";
import type { ExportSummary } from "./summary.js";

/** Tasks checked per metrics call, and candidates scored per batch. */
const TASK_BATCH = 256;
const CANDIDATE_BATCH = 256;

export type ExportSettings = {
  kind: ExportKind;
  format: ExportFormat;
  style: string;
  prompt: PromptStyle;
  name: string;
  splits: readonly SplitWeight[];
  splitSpec: string;
  seed: number;
  includeOod: boolean;
  /** rsft/dpo: candidates scored per task at most (the paper's N = 8). */
  perTask: number;
  /** rsft: passing candidates kept per task (the paper's k = 3). */
  keep: number;
  rejected: RejectedMode;
  config: Config;
  mineditVersion: string;
};

export type ExportDeps = {
  pool: MetricsPool;
  /** Needed for rsft/dpo (the candidates' tests run in it). */
  sandbox: Sandbox | null;
  output: ExportOutput;
  /** Reports one bad row or warning (progress-safe). */
  report(message: string): void;
  /** Called as work progresses: items done, and the source being read. */
  progress(done: number, source: RowSource): void;
  signal: AbortSignal;
};

function emptySummary(): ExportSummary {
  return {
    tasks: { read: 0, used: 0, ood: 0, bad: 0, withoutCandidates: 0 },
    badRows: {},
    candidates: { rows: 0, completions: 0, scored: 0, verdicts: {}, overLimit: 0, forOodTasks: 0 },
    selection: { tasksWithRows: 0, rows: 0, noRows: {} },
    rowsPerSplit: {},
  };
}

function bump(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

/** A task waiting for its programs to be checked by the workers. */
type PendingTask = { task: ExportTask; where: string };

class Exporter {
  readonly summary = emptySummary();
  /** Rows written so far per split: the next row's `index`. */
  private readonly indexes = new Map<string, number>();
  /** Tasks left out as OOD, so a candidate for one is "left out", not "unknown". */
  private readonly oodTasks = new Set<string>();
  /** Task ids whose rows were bad, with where and why, so candidates for them are reported as such. */
  private readonly rejectedTasks = new Map<string, string>();
  private done = 0;

  constructor(
    private readonly settings: ExportSettings,
    private readonly deps: ExportDeps,
  ) {}

  private bad(where: string, reason: string, category: string): void {
    this.deps.report(`${where}: ${reason}`);
    bump(this.summary.badRows, category);
  }

  private tick(source: RowSource): void {
    this.done += 1;
    this.deps.progress(this.done, source);
  }

  /** Parses task rows; yields valid, non-excluded tasks in batches whose programs the workers checked. */
  private async *taskBatches(sources: readonly RowSource[]): AsyncGenerator<PendingTask[]> {
    const seen = new Map<string, string>();
    let pending: PendingTask[] = [];
    for (const source of sources) {
      for await (const item of source.rows()) {
        this.tick(source);
        if ("error" in item) {
          this.bad(item.where, item.error, "unreadable task row");
          this.summary.tasks.bad += 1;
          continue;
        }
        this.summary.tasks.read += 1;
        let task: ExportTask;
        try {
          task = parseExportTask(item.row);
        } catch (error) {
          const reason = errorText(error);
          this.bad(item.where, reason, "invalid task row");
          this.summary.tasks.bad += 1;
          const id = taskIdOf(item.row);
          if (id !== undefined) this.rejectedTasks.set(taskKey(id), `${item.where}: ${reason}`);
          continue;
        }
        const first = seen.get(task.taskId);
        if (first !== undefined) {
          this.bad(
            item.where,
            `duplicate task_id "${task.taskId}" (first at ${first}): skipped`,
            "duplicate task_id",
          );
          this.summary.tasks.bad += 1;
          continue;
        }
        seen.set(task.taskId, item.where);
        if (task.taskSplit === OOD_SPLIT && !this.settings.includeOod) {
          this.summary.tasks.ood += 1;
          this.oodTasks.add(task.taskId);
          continue;
        }
        pending.push({ task, where: item.where });
        if (pending.length >= TASK_BATCH) {
          yield await this.checked(pending);
          pending = [];
        }
      }
    }
    if (pending.length > 0) yield await this.checked(pending);
  }

  /** Keeps the tasks whose corrupted and gold programs are Python 3.11 (checked by the workers). */
  private async checked(batch: PendingTask[]): Promise<PendingTask[]> {
    const results = await this.deps.pool.score(
      batch.map(({ task }) => ({
        corrupted: task.corrupted,
        gold: task.gold,
        completion: "",
        config: this.settings.config.reward,
      })),
    );
    return batch.filter(({ task, where }, index) => {
      const result = results[index];
      if (result === undefined || result.ok) return true;
      this.bad(where, `task "${task.taskId}": ${result.message}`, "task program is not Python 3.11");
      this.summary.tasks.bad += 1;
      this.rejectedTasks.set(task.taskId, `${where}: ${result.message}`);
      return false;
    });
  }

  private placement(task: ExportTask): { split: string; index: number } {
    const split = assignSplit(task.problemId, this.settings.splits, this.settings.seed);
    const index = this.indexes.get(split) ?? 0;
    this.indexes.set(split, index + 1);
    return { split, index };
  }

  private async write(record: ExportRecord): Promise<void> {
    await this.deps.output.write(record.split, this.settings.format.row(record, this.settings.style));
    bump(this.summary.rowsPerSplit, record.split);
  }

  /** sft / grpo: one row per task, straight from the task file. */
  async exportTasks(taskSources: readonly RowSource[]): Promise<void> {
    for await (const batch of this.taskBatches(taskSources)) {
      for (const { task } of batch) {
        this.summary.tasks.used += 1;
        const { split, index } = this.placement(task);
        const base = recordBase(task, this.settings.prompt, split, index);
        await this.write(this.settings.kind === "sft" ? sftRecord(base, task) : grpoRecord(base));
      }
    }
  }

  /** rsft / dpo: score the candidates of each task and write the selected rows. */
  async exportCandidates(taskSources: readonly RowSource[], candidates: RowSource): Promise<void> {
    const tasks = new Map<string, ExportTask>();
    for await (const batch of this.taskBatches(taskSources)) {
      for (const { task } of batch) tasks.set(task.taskId, task);
    }
    this.done = 0;
    const sandbox = this.deps.sandbox;
    if (sandbox === null) throw new Error("internal error: rsft/dpo need a sandbox");
    const scorer = new CandidateScorer(
      this.deps.pool,
      sandbox,
      TaskStore.fromTasks(tasks.values()),
      this.settings.config,
      this.deps.signal,
    );

    type State = {
      task: ExportTask;
      selector: RsftSelector | DpoSelector;
      submitted: number;
      scored: number;
    };
    const states = new Map<string, State>();
    const finished = new Set<string>();
    let jobs: (CandidateJob & { taskId: string })[] = [];

    const finish = async (state: State) => {
      states.delete(state.task.taskId);
      finished.add(state.task.taskId);
      await this.writeSelection(state.task, state.selector);
    };

    const submit = async () => {
      const batch = jobs;
      jobs = [];
      if (batch.length === 0) return;
      const scored = await scorer.score(batch, () => this.tick(candidates));
      for (const [index, candidate] of scored.entries()) {
        const state = states.get((batch[index] as { taskId: string }).taskId) as State;
        this.countVerdict(candidate);
        state.selector.add(candidate);
        state.scored += 1;
        if (state.scored === this.settings.perTask) await finish(state);
      }
    };

    for await (const item of candidates.rows()) {
      if ("error" in item) {
        this.bad(item.where, item.error, "unreadable candidate row");
        continue;
      }
      let row: ReturnType<typeof parseCandidateRow>;
      try {
        row = parseCandidateRow(item.row);
      } catch (error) {
        this.bad(item.where, errorText(error), "invalid candidate row");
        continue;
      }
      this.summary.candidates.rows += 1;
      this.summary.candidates.completions += row.completions.length;
      const task = tasks.get(row.taskId);
      if (task === undefined) {
        if (this.oodTasks.has(row.taskId)) {
          this.summary.candidates.forOodTasks += row.completions.length;
        } else {
          const rejected = this.rejectedTasks.get(row.taskId);
          this.bad(
            item.where,
            rejected === undefined
              ? `unknown task_id "${row.taskId}" (not in the task file)`
              : `task_id "${row.taskId}" refers to a bad task row (${rejected})`,
            rejected === undefined ? "unknown task_id" : "task row was bad",
          );
        }
        continue;
      }
      let state = states.get(row.taskId);
      if (state === undefined && !finished.has(row.taskId)) {
        state = {
          task,
          selector:
            this.settings.kind === "rsft"
              ? new RsftSelector(this.settings.keep)
              : new DpoSelector(this.settings.rejected),
          submitted: 0,
          scored: 0,
        };
        states.set(row.taskId, state);
      }
      for (const completion of row.completions) {
        if (state === undefined || state.submitted >= this.settings.perTask) {
          this.summary.candidates.overLimit += 1;
          continue;
        }
        jobs.push({ task, completion, order: state.submitted, taskId: row.taskId });
        state.submitted += 1;
      }
      if (jobs.length >= CANDIDATE_BATCH) await submit();
    }
    await submit();
    for (const state of [...states.values()]) await finish(state);
    for (const taskId of tasks.keys()) if (!finished.has(taskId)) this.summary.tasks.withoutCandidates += 1;
  }

  private countVerdict(candidate: ScoredCandidate): void {
    this.summary.candidates.scored += 1;
    bump(this.summary.candidates.verdicts, candidate.verdict);
  }

  private async writeSelection(task: ExportTask, selector: RsftSelector | DpoSelector): Promise<void> {
    this.summary.tasks.used += 1;
    const selection = this.summary.selection;
    if (selector instanceof RsftSelector) {
      const kept = selector.selected();
      if (kept.length === 0) {
        bump(selection.noRows, NO_PAIR_REASONS.noPassing);
        return;
      }
      selection.tasksWithRows += 1;
      for (const [rank, candidate] of kept.entries()) {
        const { split, index } = this.placement(task);
        await this.write(rsftRecord(recordBase(task, this.settings.prompt, split, index), candidate, rank));
        selection.rows += 1;
      }
      return;
    }
    const result = selector.pair();
    if (!result.ok) {
      bump(selection.noRows, NO_PAIR_REASONS[result.reason as NoPairReason]);
      return;
    }
    selection.tasksWithRows += 1;
    const { split, index } = this.placement(task);
    const base = recordBase(task, this.settings.prompt, split, index);
    await this.write(dpoRecord(base, result.pair.chosen, result.pair.rejected));
    selection.rows += 1;
  }
}

/** The message of a validation error; anything else is a bug and propagates. */
function errorText(error: unknown): string {
  if (isMineditError(error)) return error.rawMessage;
  throw error;
}

/**
 * Runs an export into `deps.output` (not committed: the caller commits or aborts). Returns the summary
 * and the manifest to commit.
 */
export async function runExport(
  settings: ExportSettings,
  taskSources: readonly RowSource[],
  candidates: RowSource | undefined,
  deps: ExportDeps,
): Promise<{ summary: ExportSummary; manifest: Omit<ExportManifest, "files"> }> {
  const exporter = new Exporter(settings, deps);
  if (settings.kind === "sft" || settings.kind === "grpo") {
    await exporter.exportTasks(taskSources);
  } else {
    if (candidates === undefined) throw new Error("internal error: rsft/dpo need candidates");
    await exporter.exportCandidates(taskSources, candidates);
  }
  const manifest: Omit<ExportManifest, "files"> = {
    manifestVersion: 1,
    mineditVersion: settings.mineditVersion,
    name: settings.name,
    kind: settings.kind,
    format: settings.format.name,
    style: settings.style,
    prompt: settings.prompt,
    splits: { spec: settings.splitSpec, seed: settings.seed },
    includeOod: settings.includeOod,
  };
  if (settings.kind === "rsft") {
    manifest.selection = { perTask: settings.perTask, keep: settings.keep };
    manifest.rewardVersion = REWARD_DEFINITION_VERSION;
  } else if (settings.kind === "dpo") {
    manifest.selection = { perTask: settings.perTask, rejected: settings.rejected };
    manifest.rewardVersion = REWARD_DEFINITION_VERSION;
  }
  return { summary: exporter.summary, manifest };
}
