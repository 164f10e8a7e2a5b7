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
import type { PromptStyle } from "../core/prompt/repair-prompt.js";
import { REWARD_DEFINITION_VERSION } from "../core/reward.js";
import { taskIdOf, taskKey } from "../core/task-file.js";
import type { RowSource } from "../io/inputs.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { TaskStore } from "../scoring/task-store.js";
import type { MetricsPool } from "../workers/metrics-pool.js";
import { type CandidateJob, CandidateScorer } from "./candidate-scorer.js";
import { bump, ExportRun, type RunDeps, type RunSettings, runManifest } from "./export-run.js";
import { type ExportTask, parseExportTask } from "./export-task.js";
import type { ExportManifest } from "./format.js";
import type { CandidateGenerator } from "./generated-candidates.js";
import { dpoRecord, type ExportKind, grpoRecord, recordBase, rsftRecord, sftRecord } from "./records.js";
import {
  DpoSelector,
  NO_PAIR_REASONS,
  type NoPairReason,
  type RejectedMode,
  RsftSelector,
  type ScoredCandidate,
} from "./selection.js";
import type { ExportSummary } from "./summary.js";

/** Tasks checked per metrics call, and candidates scored per batch. */
const TASK_BATCH = 256;
const CANDIDATE_BATCH = 256;

export type ExportSettings = RunSettings & {
  kind: ExportKind;
  prompt: PromptStyle;
  /** rsft/dpo: candidates scored per task at most (the paper's N = 8). */
  perTask: number;
  /** rsft: passing candidates kept per task (the paper's k = 3). */
  keep: number;
  rejected: RejectedMode;
  config: Config;
};

export type ExportDeps = RunDeps<RowSource> & {
  pool: MetricsPool;
  /** Needed for rsft/dpo (the candidates' tests run in it). */
  sandbox: Sandbox | null;
  /** rsft/dpo with `--generate`: samples the candidates once the tasks are loaded (instead of a file). */
  generator?: Pick<CandidateGenerator, "generate">;
};

function emptySummary(): ExportSummary {
  return {
    tasks: { read: 0, used: 0, ood: 0, bad: 0, withoutCandidates: 0 },
    badRows: {},
    candidates: {
      rows: 0,
      completions: 0,
      scored: 0,
      verdicts: {},
      overLimit: 0,
      forOodTasks: 0,
      unavailable: {},
    },
    generation: null,
    selection: { tasksWithRows: 0, rows: 0, noRows: {}, complete: 0 },
    rowsPerSplit: {},
  };
}

/** A task waiting for its programs to be checked by the workers. */
type PendingTask = { task: ExportTask; where: string };

class Exporter extends ExportRun<ExportSummary, RowSource> {
  /** Task ids whose rows were bad, with where and why, so candidates for them are reported as such. */
  private readonly rejectedTasks = new Map<string, string>();

  constructor(
    private readonly settings: ExportSettings,
    private readonly deps: ExportDeps,
  ) {
    super(emptySummary(), settings, deps);
  }

  /** Parses task rows; yields valid, non-excluded tasks in batches whose programs the workers checked. */
  private async *taskBatches(sources: readonly RowSource[]): AsyncGenerator<PendingTask[]> {
    let pending: PendingTask[] = [];
    const tasks = this.readTasks(
      sources,
      (row) => {
        const task = parseExportTask(row);
        return { task, taskId: task.taskId, split: task.taskSplit };
      },
      (row, where, reason) => {
        const id = taskIdOf(row);
        if (id !== undefined) this.rejectedTasks.set(taskKey(id), `${where}: ${reason}`);
      },
    );
    for await (const { task, where } of tasks) {
      pending.push({ task, where });
      if (pending.length >= TASK_BATCH) {
        yield await this.checked(pending);
        pending = [];
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

  /** sft / grpo: one row per task, straight from the task file. */
  async exportTasks(taskSources: readonly RowSource[]): Promise<void> {
    for await (const batch of this.taskBatches(taskSources)) {
      for (const { task } of batch) {
        this.summary.tasks.used += 1;
        const { split, index } = this.placement(task.problemId);
        const base = recordBase(task, this.settings.prompt, split, index);
        await this.write(this.settings.kind === "sft" ? sftRecord(base, task) : grpoRecord(base));
      }
    }
  }

  /**
   * rsft / dpo: score the candidates of each task and write the selected rows. The candidates are a file,
   * or (null) sampled by `deps.generator` for the tasks that were loaded.
   */
  async exportCandidates(taskSources: readonly RowSource[], file: RowSource | null): Promise<void> {
    const tasks = new Map<string, ExportTask>();
    for await (const batch of this.taskBatches(taskSources)) {
      for (const { task } of batch) tasks.set(task.taskId, task);
    }
    let candidates: RowSource;
    if (file !== null) {
      candidates = file;
    } else {
      if (this.deps.generator === undefined)
        throw new Error("internal error: no candidates and no generator");
      const generated = await this.deps.generator.generate([...tasks.values()], this.deps.signal);
      const g = generated.generation;
      this.summary.generation = {
        reused: g.reused,
        asked: g.asked,
        generated: g.generated,
        failed: g.failed,
        requests: g.requests,
        completionTokens: g.completionTokens,
      };
      candidates = generated.rows;
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
    /** Samples without a completion, by task and reason (a task with nothing else gets no row for that reason). */
    const unavailable = new Map<string, Record<string, number>>();
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

    for await (const item of this.readCandidateRows(candidates)) {
      const { row } = item;
      this.summary.candidates.rows += 1;
      this.summary.candidates.completions += row.completions.length;
      for (const reason of row.unavailable) {
        bump(this.summary.candidates.unavailable, reason);
        const reasons = unavailable.get(row.taskId) ?? {};
        bump(reasons, reason);
        unavailable.set(row.taskId, reasons);
      }
      if (row.completions.length === 0) continue;
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
    for (const taskId of tasks.keys()) {
      if (finished.has(taskId)) continue;
      const reasons = unavailable.get(taskId);
      if (reasons === undefined) {
        this.summary.tasks.withoutCandidates += 1;
        continue;
      }
      // Every sample of the task failed: it is used, and gets no row for that reason.
      this.summary.tasks.used += 1;
      bump(this.summary.selection.noRows, unavailableReason(reasons));
    }
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
      if (kept.length === this.settings.keep) selection.complete += 1;
      for (const [rank, candidate] of kept.entries()) {
        const { split, index } = this.placement(task.problemId);
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
    const { split, index } = this.placement(task.problemId);
    const base = recordBase(task, this.settings.prompt, split, index);
    await this.write(dpoRecord(base, result.pair.chosen, result.pair.rejected));
    selection.rows += 1;
  }
}

/** Why a task whose every sample lacks a completion has no row: "no completion (API error 8)". */
function unavailableReason(reasons: Record<string, number>): string {
  const parts = Object.entries(reasons).map(([reason, n]) => `${reason} ${n}`);
  return `no completion (${parts.join(", ")})`;
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
    if (candidates === undefined && deps.generator === undefined)
      throw new Error("internal error: rsft/dpo need candidates");
    await exporter.exportCandidates(taskSources, candidates ?? null);
  }
  const manifest = runManifest(settings, settings.prompt);
  if (settings.kind === "rsft") {
    manifest.selection = { perTask: settings.perTask, keep: settings.keep };
    manifest.rewardVersion = REWARD_DEFINITION_VERSION;
  } else if (settings.kind === "dpo") {
    manifest.selection = { perTask: settings.perTask, rejected: settings.rejected };
    manifest.rewardVersion = REWARD_DEFINITION_VERSION;
  }
  return { summary: exporter.summary, manifest };
}
