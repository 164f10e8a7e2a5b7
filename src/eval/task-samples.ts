/**
 * A run's evaluated tasks joined with their scored samples, and the problem groups the bootstrap
 * resamples: what every metric of the evaluation is computed from.
 *
 * Pure: no I/O.
 */
import type { BootstrapOptions } from "../core/eval/bootstrap.js";
import type { SampleRecord, TaskRecord } from "./records.js";

/** One evaluated task and its samples. */
export type TaskSamples = { task: TaskRecord; samples: SampleRecord[] };

export type MetricsOptions = {
  bootstrap: Required<BootstrapOptions>;
  /** The k of the pass@k to report besides pass@1 (those ≤ n are used). */
  ks: readonly number[];
};

/** The tasks of a run joined with their samples, in task order; excluded tasks left out. */
export function joinSamples(tasks: readonly TaskRecord[], samples: readonly SampleRecord[]): TaskSamples[] {
  const byTask = new Map<string, SampleRecord[]>();
  for (const sample of samples) {
    let list = byTask.get(sample.task_id);
    if (list === undefined) {
      list = [];
      byTask.set(sample.task_id, list);
    }
    list.push(sample);
  }
  return tasks
    .filter((task) => task.excluded === null)
    .map((task) => ({
      task,
      samples: [...(byTask.get(task.task_id) ?? [])].sort((a, b) => a.sample - b.sample),
    }));
}

/** Tasks grouped by problem, in first-appearance order: the bootstrap's groups. */
export function byProblem<T extends { task: TaskRecord }>(items: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    let group = groups.get(item.task.problem_id);
    if (group === undefined) {
      group = [];
      groups.set(item.task.problem_id, group);
    }
    group.push(item);
  }
  return [...groups.values()];
}
