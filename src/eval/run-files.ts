/**
 * Reading and writing a run directory (records.ts has the formats):
 *
 *   RUN/run.json          the manifest: what was evaluated, how, with which model and settings, how long
 *   RUN/journal.jsonl     the generation journal (journal.ts), unless --journal put it elsewhere
 *   RUN/tasks.jsonl       every task of the run (C, G, families, domain) and why it was excluded
 *   RUN/samples.jsonl     every scored sample of the denominator
 *   RUN/report.json|md|html   the report (`eval report` rebuilds it from the three files above)
 *   RUN/retention-*.jsonl the task rows of the retention suites, as the scoring engine loaded them
 *
 * Every file is written atomically (a temporary file and a rename), so an interrupted run leaves either
 * the previous file or the new one.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { EVAL_SAMPLES_FILE } from "../core/candidate-row.js";
import { ErrorCode, MineditError } from "../errors.js";
import { writeFileAtomically } from "../io/atomic-write.js";
import { fsReason } from "../io/inputs.js";
import { checkedJsonLines } from "../io/json-lines.js";
import {
  type RunManifest,
  RunManifestSchema,
  type SampleRecord,
  SampleRecordSchema,
  type TaskRecord,
  TaskRecordSchema,
} from "./records.js";

export const RUN_FILES = {
  manifest: "run.json",
  journal: "journal.jsonl",
  tasks: "tasks.jsonl",
  samples: EVAL_SAMPLES_FILE,
  reportJson: "report.json",
  reportMarkdown: "report.md",
  reportHtml: "report.html",
} as const;

/** A run directory's contents, as `eval report` and `eval compare` read them. */
export type RunFiles = { dir: string; manifest: RunManifest; tasks: TaskRecord[]; samples: SampleRecord[] };

function invalid(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw invalid(`${what}: cannot read ${path}: ${fsReason(error)}`);
  }
}

function parseLines<T>(text: string, path: string, schema: z.ZodType<T>): T[] {
  return checkedJsonLines(text, schema).map((checked) => {
    if ("reason" in checked) throw invalid(`${path}:${checked.line}: ${checked.reason}`);
    return checked.value;
  });
}

/**
 * Reads a run directory written by `eval run`.
 *
 * @throws MineditError `InvalidArgument` naming the file and line of anything unreadable.
 */
export async function readRun(dir: string): Promise<RunFiles> {
  const manifestPath = join(dir, RUN_FILES.manifest);
  let raw: unknown;
  try {
    raw = JSON.parse(await readText(manifestPath, "run"));
  } catch (error) {
    if (error instanceof MineditError) throw error;
    throw invalid(`${manifestPath}: invalid JSON: ${(error as Error).message}`);
  }
  const parsed = RunManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(
      `${manifestPath}: ${issue?.path.join(".") || "manifest"}: ${issue?.message ?? "invalid"} (a run directory of \`minedit eval run\`?)`,
    );
  }
  const tasksPath = join(dir, RUN_FILES.tasks);
  const samplesPath = join(dir, RUN_FILES.samples);
  return {
    dir,
    manifest: parsed.data,
    tasks: parseLines(await readText(tasksPath, "run"), tasksPath, TaskRecordSchema),
    samples: parseLines(await readText(samplesPath, "run"), samplesPath, SampleRecordSchema),
  };
}

/** JSONL of records, one per line. */
export function jsonLines(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}

/** Writes the three files `eval report` reads back. */
export async function writeRun(dir: string, files: Omit<RunFiles, "dir">): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileAtomically(join(dir, RUN_FILES.tasks), jsonLines(files.tasks));
  await writeFileAtomically(join(dir, RUN_FILES.samples), jsonLines(files.samples));
  await writeFileAtomically(join(dir, RUN_FILES.manifest), `${JSON.stringify(files.manifest, null, 2)}\n`);
}

/** Writes a report's three renderings: `<base>.json`, `<base>.md`, `<base>.html`. */
export async function writeReportFiles(
  dir: string,
  base: string,
  { report, markdown, html }: { report: unknown; markdown: string; html: string },
): Promise<{ json: string; markdown: string; html: string }> {
  await mkdir(dir, { recursive: true });
  const paths = {
    json: join(dir, `${base}.json`),
    markdown: join(dir, `${base}.md`),
    html: join(dir, `${base}.html`),
  };
  await writeFileAtomically(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFileAtomically(paths.markdown, markdown);
  await writeFileAtomically(paths.html, html);
  return paths;
}
