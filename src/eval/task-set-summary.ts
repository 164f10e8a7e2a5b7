/**
 * The composition of a run's evaluated repair tasks, as the over-editing paper's Tables 7 and 8 give it:
 * executable lines and tokens per function of the gold programs (src/core/task-stats.ts
 * `functionMeasures`, the definitions of `minedit tasks stats`), and the gold patch's raw token edit
 * distance Levenshtein(tokens(G), tokens(C)) per task in the run's distance scope.
 *
 * Pure (callers `await loadPythonGrammar()` first).
 */
import type { DistanceScope } from "../config.js";
import { tokenLevenshtein } from "../core/distance.js";
import { programTokens } from "../core/normalize.js";
import { functionMeasures, summarize } from "../core/task-stats.js";
import type { TaskRecord } from "./records.js";
import type { RunReport } from "./report-schema.js";

/** Tables 7–8 over the evaluated repair tasks. */
export function taskSetSummary(tasks: readonly TaskRecord[], scope: DistanceScope): RunReport["task_set"] {
  const lines: number[] = [];
  const tokens: number[] = [];
  const goldEdits: number[] = [];
  for (const task of tasks) {
    if (task.kind !== "repair" || task.excluded !== null) continue;
    for (const measure of functionMeasures(task.gold)) {
      lines.push(measure.executableLines);
      tokens.push(measure.tokens);
    }
    goldEdits.push(tokenLevenshtein(programTokens(task.gold, scope), programTokens(task.corrupted, scope)));
  }
  return {
    executable_lines: summarize(lines),
    tokens: summarize(tokens),
    gold_token_edits: summarize(goldEdits),
  };
}
