/**
 * What an output format is: which kinds it can hold, which row styles it offers, and how a record becomes
 * one of its rows. One module per format (format-hf.ts, format-llamafactory.ts, format-verl.ts,
 * format-openrlhf.ts) implements it; the writers in output.ts do the I/O.
 *
 * Layout, the same for every format: `OUT/<name>/<split>.<jsonl|parquet>` plus `OUT/<name>/
 * minedit-export.json` (the manifest: what was exported, how, and how many rows), where `<name>` is
 * `--name` (default: the kind). Formats with a registry file add it at `OUT/` (the HF dataset card
 * `README.md`, LlamaFactory's `dataset_info.json`), built from every manifest under `OUT/`, so exporting
 * several kinds into one directory gives one dataset with several configs.
 *
 * Pure: no I/O.
 */
import type { SchemaElement } from "hyparquet";
import type { ExportKind, ExportRecord, RecordPromptStyle } from "./records.js";
import type { RejectedMode } from "./selection.js";
import type { ExportSummary, LintExportSummary } from "./summary.js";

export const FORMAT_NAMES = ["hf", "llamafactory", "verl", "openrlhf"] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

/** The manifest file written beside each export's data files. */
export const MANIFEST_FILE = "minedit-export.json";

/** One data file of an export, path relative to the output directory. */
export type ManifestFile = { split: string; path: string; rows: number };

/** `OUT/<name>/minedit-export.json`: enough to rebuild the registry files and to audit an export. */
export type ExportManifest = {
  /** Version of this manifest's shape. */
  manifestVersion: 1;
  mineditVersion: string;
  name: string;
  kind: ExportKind;
  format: FormatName;
  style: string;
  prompt: RecordPromptStyle;
  splits: { spec: string; seed: number };
  includeOod: boolean;
  /** rsft/dpo only. */
  selection?: { perTask: number; keep?: number; rejected?: RejectedMode };
  /** The reward definition the candidates were scored with (rsft/dpo only). */
  rewardVersion?: string;
  files: ManifestFile[];
  /** What was kept and skipped, and why (the counts the CLI prints). */
  summary?: ExportSummary | LintExportSummary;
};

export type ExportFormat = {
  name: FormatName;
  /** Kinds this format can hold, with the trainer that reads each. */
  kinds: readonly ExportKind[];
  /** Row styles; the first is the default. */
  styles: readonly string[];
  extension: "jsonl" | "parquet";
  /** The row of a record, as a plain JSON-able object (Parquet: nested values matching `schema`). */
  row(record: ExportRecord, style: string): Record<string, unknown>;
  /** Parquet formats: the file schema of a kind (flattened Parquet schema, root first). */
  schema?(kind: ExportKind): SchemaElement[];
};

/** The relative path of a split's data file. */
export function dataFilePath(name: string, split: string, extension: string): string {
  return `${name}/${split}.${extension}`;
}

/** The manifest's relative path. */
export function manifestPath(name: string): string {
  return `${name}/${MANIFEST_FILE}`;
}

/** Export names become directory names and config names. */
export const EXPORT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
