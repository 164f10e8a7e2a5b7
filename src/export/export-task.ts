/**
 * A task row as the exporter reads it: the service's task row (`parseStoredTask`, so a file `minedit
 * serve` loads is exactly a file this exports, and a GRPO row's `task_id` resolves on the server) plus the
 * fields a prompt and a split need: `statement`, `problem_id`, `split`, `source`, `corruptions`.
 *
 * - `problem_id` groups the variants (corruptions) of one problem, so splits never separate them. A row
 *   without it is its own problem (`problem_id` = `task_id`).
 * - `split` is the split the task was built for (`minedit tasks build --split`); only the value `ood`
 *   matters here: held-out tasks stay out of training exports unless asked for.
 *
 * Pure: no I/O.
 */
import { z } from "zod";
import { ErrorCode, MineditError } from "../errors.js";
import { parseStoredTask, type StoredTask } from "../scoring/task-store.js";

/** A task ready to export. */
export type ExportTask = StoredTask & {
  statement: string;
  problemId: string;
  /** The task's own split label (`train`, `ood`, ...), empty when the row has none. */
  taskSplit: string;
  source: string;
  /** Corruption families applied to build the task, in order (empty when the row does not say). */
  families: string[];
};

/** The split label of held-out tasks (docs/tasks.md#corruption-families: OOD families never build training data). */
export const OOD_SPLIT = "ood";

const ExportFieldsSchema = z.object({
  statement: z.string({ error: "expected a string" }).refine((s) => s.trim() !== "", {
    message: "must not be empty (the prompt shows it)",
  }),
  problem_id: z.string({ error: "expected a string" }).min(1, { message: "must not be empty" }).optional(),
  split: z.string({ error: "expected a string" }).optional(),
  source: z.string({ error: "expected a string" }).optional(),
  corruptions: z
    .array(z.object({ family: z.string({ error: "expected a string" }) }), {
      error: "expected a list of {family, ...} objects",
    })
    .optional(),
});

/**
 * Validates one task row for export.
 *
 * @throws MineditError `InvalidArgument` naming the field (`statement: must not be empty ...`).
 */
export function parseExportTask(row: Record<string, unknown>): ExportTask {
  const stored = parseStoredTask(row);
  const parsed = ExportFieldsSchema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") ?? "";
    const top = issue?.path[0];
    const message =
      issue === undefined
        ? "invalid task"
        : typeof top === "string" && !Object.hasOwn(row, top)
          ? "missing field"
          : issue.message;
    throw new MineditError(ErrorCode.InvalidArgument, `${field || "row"}: ${message}`, { field });
  }
  const { statement, problem_id, split, source, corruptions } = parsed.data;
  return {
    ...stored,
    statement,
    problemId: problem_id ?? stored.taskId,
    taskSplit: split ?? "",
    source: source ?? "",
    families: (corruptions ?? []).map((c) => c.family),
  };
}
