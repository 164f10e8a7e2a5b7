/**
 * The work of `minedit tasks build` and `minedit tasks stats` on flags tasks.ts has parsed: plan and run
 * the build (src/tasks/build-job.ts), or read a task set's report (src/tasks/task-set.ts).
 */

import { stat } from "node:fs/promises";
import { parseConfig } from "../config.js";
import {
  type CorruptionMix,
  defaultCorruptionMix,
  mixWeights,
  parseCorruptionCount,
  parseCorruptionMix,
  parseFamilySpec,
} from "../core/corruption/registry.js";
import { isMineditError } from "../errors.js";
import { formatJson, jsonReportPath, taskSetPaths } from "../io/report-files.js";
import type { StdIo } from "../io/std-io.js";
import { executionLimits } from "../scoring/limits.js";
import type { BuildOptions } from "../tasks/build.js";
import { runTaskBuild, type TaskBuildRequest } from "../tasks/build-job.js";
import { isImportFormat } from "../tasks/importers/import-file.js";
import { IMPORT_FORMATS, type ImportFormat } from "../tasks/importers/types.js";
import { reportTaskFile } from "../tasks/task-set.js";
import { commandFailure, EXIT, usageError } from "./failures.js";
import { type BuildValues, EXIT_INTERRUPTED, type StatsValues } from "./tasks-flags.js";

const usage = usageError;
const failure = (io: StdIo, command: string, error: unknown) => commandFailure(io, `tasks ${command}`, error);

// ---- build -------------------------------------------------------------------------------------------

function integerFlag(flag: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  if (!/^[+-]?\d+$/.test(text.trim()))
    throw usage(`--${flag}: expected an integer, got ${JSON.stringify(text)}`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    throw usage(`--${flag}: expected an integer ≥ ${min}, got ${text}`);
  return value;
}

/** The build the flags ask for; throws usage errors. */
function planBuild(values: BuildValues, positionals: string[]): TaskBuildRequest {
  if (positionals.length > 0) throw usage(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.source === undefined) throw usage("missing --source FILE (the problem source)");
  if (values.out === undefined) throw usage("missing --out FILE (the task file to write)");
  let format: ImportFormat | undefined;
  if (values.format !== undefined) {
    if (!isImportFormat(values.format)) {
      throw usage(`--format: unknown format "${values.format}" (formats: ${IMPORT_FORMATS.join(", ")})`);
    }
    format = values.format;
  }
  let families: BuildOptions["families"];
  let corruptions: BuildOptions["corruptions"];
  try {
    families = parseFamilySpec(values.families ?? "in-domain");
  } catch (error) {
    throw usage(`--families: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    corruptions = parseCorruptionCount(values.corruptions ?? "1-2");
  } catch (error) {
    throw usage(`--corruptions: ${error instanceof Error ? error.message : String(error)}`);
  }
  let mix: CorruptionMix;
  try {
    mix = values.mix === undefined ? defaultCorruptionMix(families) : parseCorruptionMix(values.mix);
    mixWeights(mix, families, corruptions);
  } catch (error) {
    throw usage(`--mix: ${error instanceof Error ? error.message : String(error)}`);
  }
  const variants = integerFlag("variants", values.variants, 1, 1);
  const candidates = integerFlag("candidates", values.candidates, 4 * variants, 1);
  if (candidates < variants)
    throw usage(`--candidates (${candidates}) must be at least --variants (${variants})`);
  const seed = integerFlag("seed", values.seed, 0, Number.MIN_SAFE_INTEGER);
  const split = values.split ?? "test";
  if (!/^[A-Za-z0-9._-]+$/.test(split)) {
    throw usage(
      `--split: expected letters, digits, ".", "_" or "-" (it is part of the task ids), got "${split}"`,
    );
  }
  const sandboxFields: Record<string, unknown> = {};
  if (values.concurrency !== undefined) {
    sandboxFields.executionConcurrency = integerFlag("concurrency", values.concurrency, 1, 1);
  }
  if (values["wall-time-ms"] !== undefined) {
    sandboxFields.wallTimeMs = integerFlag("wall-time-ms", values["wall-time-ms"], 1, 1);
  }
  if (values["cpu-time-ms"] !== undefined) {
    sandboxFields.cpuTimeMs = integerFlag("cpu-time-ms", values["cpu-time-ms"], 0, 0);
  }
  const config = parseConfig({ sandbox: sandboxFields });
  const paths = taskSetPaths(values.out);
  const report =
    values.report === undefined
      ? { markdown: paths.reportMarkdown, json: paths.reportJson }
      : { markdown: values.report, json: jsonReportPath(values.report) };
  return {
    source: values.source,
    ...(format === undefined ? {} : { format }),
    families,
    mix,
    corruptions,
    variants,
    candidates,
    seed,
    split,
    out: values.out,
    ...(values.only === undefined ? {} : { onlyFile: values.only }),
    concurrency: config.sandbox.executionConcurrency,
    limits: executionLimits(config),
    sandboxConfig: config.sandbox,
    report,
  };
}

/** Runs `minedit tasks build` with its parsed flags; returns the exit code. Never throws. */
export async function buildTasks(values: BuildValues, positionals: string[], io: StdIo): Promise<number> {
  try {
    const outcome = await runTaskBuild(planBuild(values, positionals), io);
    if (outcome.interrupted) return EXIT_INTERRUPTED;
    return outcome.badRows > 0 ? EXIT.badRows : EXIT.ok;
  } catch (error) {
    return failure(io, "build", error);
  }
}

// ---- stats -------------------------------------------------------------------------------------------

/** Runs `minedit tasks stats` with its parsed flags; returns the exit code. Never throws. */
export async function reportTasks(values: StatsValues, positionals: string[], io: StdIo): Promise<number> {
  try {
    if (positionals.length !== 1) {
      throw usage(positionals.length === 0 ? "missing FILE (a task file)" : "expected one FILE");
    }
    const file = positionals[0] as string;
    try {
      if (!(await stat(file)).isFile()) throw usage(`${file} is not a file`);
    } catch (error) {
      if (isMineditError(error)) throw error;
      throw usage(`cannot read ${file}: no such file`);
    }
    const { report, markdown, bad } = await reportTaskFile(file, values.log);
    for (const message of bad) io.stderr.write(`${message}\n`);
    io.stdout.write(values.json === true ? formatJson(report) : markdown);
    return bad.length > 0 ? EXIT.badRows : EXIT.ok;
  } catch (error) {
    return failure(io, "stats", error);
  }
}
