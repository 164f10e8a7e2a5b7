/**
 * A task as the evaluation sees it: what to ask the model (the prompt messages), what to score the answer
 * against (the task id the scoring engine knows), and what to group the results by (its problem, domain
 * and corruption families). Three kinds:
 *
 * - `repair`: a repair task row (`minedit tasks build`): prompt = the export's repair prompt of the
 *   corrupted program (src/core/prompt/repair-prompt.ts, `--prompt generic|explicit`), exactly what training saw;
 * - `lint`: a lint task row (`kind: "lint_refactor"`): prompt = the A+L→A′ prompt of the lint corpora
 *   (src/core/prompt/lint-prompt.ts);
 * - `generation`: a plain generation problem of the performance-retention suites (retention.ts):
 *   statement → program, judged by its tests; the engine scores it as a repair task whose corrupted
 *   program is empty, so only the verdict means anything.
 *
 * The domain of a repair task is its row's `domain` (`in-domain`, `ood`, `mixed`, what `tasks build`
 * writes); without one, `split: "ood"` means `ood`, else the families decide (all in-domain → `in-domain`,
 * all held-out → `ood`, both → `mixed`), else `unknown`. Lint tasks are in domain `lint`, generation
 * problems in `retention:<suite>`.
 *
 * Pure: no I/O.
 */
import { familyByName } from "../core/corruption/registry.js";
import { alqMessages } from "../core/prompt/lint-prompt.js";
import type { Message } from "../core/prompt/message.js";
import { type PromptStyle, promptMessages } from "../core/prompt/repair-prompt.js";
import { ErrorCode, MineditError } from "../errors.js";
import { isLintTaskRow, parseLintTask } from "../scoring/lint-task.js";
import { parseStoredTask } from "../scoring/task-store.js";

export type EvalTaskKind = "repair" | "lint" | "generation";

/** One task of an evaluation. */
export type EvalTask = {
  taskId: string;
  kind: EvalTaskKind;
  /** Groups the variants of one problem: the unit the bootstrap resamples. */
  problemId: string;
  /** `in-domain`, `ood`, `mixed`, `unknown`, `lint` or `retention:<suite>` (see the module doc). */
  domain: string;
  /** Corruption families applied to build a repair task, in order (empty for the other kinds). */
  families: string[];
  /** The prompt, as chat messages (the completions API sends their text, see prompts.ts). */
  messages: Message[];
  /** The program the model starts from: C for repair, A for lint, empty for generation. */
  corrupted: string;
  /** The reference: G for repair, the canonical solution for generation, empty for lint. */
  gold: string;
  /** Lint tasks: the language; `python` otherwise. */
  language: string;
};

/** The domains a repair row may name. */
const ROW_DOMAINS = new Set(["in-domain", "ood", "mixed", "unknown"]);

function stringField(row: Record<string, unknown>, name: string): string | undefined {
  const value = row[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The domain of a repair task (see the module doc). */
export function repairDomain(
  rowDomain: string | undefined,
  split: string,
  families: readonly string[],
): string {
  if (rowDomain !== undefined && ROW_DOMAINS.has(rowDomain)) return rowDomain;
  if (split === "ood") return "ood";
  const domains = new Set(families.map((name) => familyByName(name)?.domain ?? "unknown"));
  if (domains.size === 0 || domains.has("unknown")) return "unknown";
  if (domains.size === 2) return "mixed";
  return [...domains][0] as string;
}

/**
 * The evaluation task of one task-file row (repair or lint), with its prompt in `style`.
 *
 * @throws MineditError `InvalidArgument` naming the field when the row is not a valid task.
 */
export function parseEvalTask(row: Record<string, unknown>, style: PromptStyle): EvalTask {
  if (isLintTaskRow(row)) {
    const task = parseLintTask(row);
    return {
      taskId: task.taskId,
      kind: "lint",
      problemId: task.problemId === "" ? task.taskId : task.problemId,
      domain: "lint",
      families: [],
      messages: alqMessages(task),
      corrupted: task.original,
      gold: "",
      language: task.language,
    };
  }
  const stored = parseStoredTask(row);
  const statement = stringField(row, "statement");
  if (statement === undefined || statement.trim() === "") {
    throw new MineditError(ErrorCode.InvalidArgument, "statement: missing (the prompt shows it)", {
      field: "statement",
    });
  }
  const corruptions = row.corruptions;
  const families = Array.isArray(corruptions)
    ? corruptions.flatMap((c) =>
        c !== null && typeof c === "object" && typeof (c as { family?: unknown }).family === "string"
          ? [(c as { family: string }).family]
          : [],
      )
    : [];
  return {
    taskId: stored.taskId,
    kind: "repair",
    problemId: stringField(row, "problem_id") ?? stored.taskId,
    domain: repairDomain(stringField(row, "domain"), stringField(row, "split") ?? "", families),
    families,
    messages: promptMessages(statement, stored.corrupted, style),
    corrupted: stored.corrupted,
    gold: stored.gold,
    language: "python",
  };
}

/**
 * The name of a task's exact family combination: its distinct families, sorted, joined by ` + `
 * (`comparison_operators + numeric_constants`); a family applied twice counts once. Empty without
 * families.
 */
export function familyCombination(families: readonly string[]): string {
  return [...new Set(families)].sort().join(" + ");
}

/**
 * A report's two family groupings of `items`, each made by `group` from a key function: `exact` puts an
 * item under its task's {@link familyCombination} (nowhere without families), `contains` under each of
 * its task's families.
 */
export function familyGroupings<T extends { task: { families: readonly string[] } }, R>(
  items: readonly T[],
  group: (items: readonly T[], keys: (item: T) => string[]) => R,
): { exact: R; contains: R } {
  return {
    exact: group(items, (item) =>
      item.task.families.length === 0 ? [] : [familyCombination(item.task.families)],
    ),
    contains: group(items, (item) => [...new Set(item.task.families)]),
  };
}
