/**
 * Writing an export: data files streamed row by row, replaced atomically, plus the manifest and the
 * format's registry file (dataset card, dataset_info.json).
 *
 * - Every file is written to `<file>.tmp-<pid>` beside its final path and renamed over it only when the
 *   whole export succeeded (`commit`), so a crash or a bad run never leaves a half-written file where a
 *   trainer would read it, and re-running an export simply replaces the previous one. `abort` removes the
 *   temporary files.
 * - Files of the previous export under the same name that this run no longer produces (a split that is
 *   now empty, a different format) are removed after the rename, so the directory always matches its
 *   manifest.
 * - JSONL rows are written through a stream with backpressure; Parquet rows are buffered into row groups
 *   of {@link PARQUET_ROW_GROUP_ROWS} and flushed to disk as each group is complete (hyparquet-writer's
 *   file writer), so memory does not grow with the number of rows.
 * - Registry files are rebuilt from every manifest under the output directory. A `README.md` that minedit
 *   did not write, or a `dataset_info.json` that is not a JSON object, stops the export before any data
 *   is written: they belong to someone else.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { SchemaElement } from "hyparquet";
import { fileWriter, ParquetWriter } from "hyparquet-writer";
import { ErrorCode, MineditError } from "../errors.js";
import { temporaryPath, writeFileAtomically } from "../io/atomic-write.js";
import {
  dataFilePath,
  type ExportFormat,
  type ExportManifest,
  MANIFEST_FILE,
  type ManifestFile,
  manifestPath,
} from "./format.js";
import { CARD_MARKER, datasetCard } from "./format-hf.js";
import { datasetInfoEntries, llamafactoryEntryName } from "./format-llamafactory.js";
import type { ExportKind } from "./records.js";

/** Rows per Parquet row group: small enough to bound memory, large enough for good compression. */
export const PARQUET_ROW_GROUP_ROWS = 1000;

const DATASET_INFO = "dataset_info.json";
const README = "README.md";

function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** A manifest read back from disk, or undefined when the file is missing or not a manifest. */
function parseManifest(text: string | undefined): ExportManifest | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<ExportManifest>;
    if (
      value.manifestVersion !== 1 ||
      typeof value.name !== "string" ||
      typeof value.format !== "string" ||
      !Array.isArray(value.files)
    ) {
      return undefined;
    }
    return value as ExportManifest;
  } catch {
    return undefined;
  }
}

/** Every manifest under `outDir` (one directory level down), in directory-name order. */
async function readManifests(outDir: string): Promise<ExportManifest[]> {
  const entries = await readdir(outDir, { withFileTypes: true });
  const manifests: ExportManifest[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const manifest = parseManifest(await readIfExists(join(outDir, entry.name, MANIFEST_FILE)));
    if (manifest !== undefined && manifest.name === entry.name) manifests.push(manifest);
  }
  return manifests;
}

/** Where rows of one split go until commit. */
interface RowSink {
  readonly rows: number;
  write(row: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
  discard(): Promise<void>;
}

class JsonlSink implements RowSink {
  rows = 0;
  private readonly stream: WriteStream;
  private failure: Error | undefined;

  constructor(private readonly path: string) {
    this.stream = createWriteStream(path, { encoding: "utf8" });
    this.stream.on("error", (error) => {
      this.failure ??= error;
    });
  }

  async write(row: Record<string, unknown>): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    this.rows += 1;
    if (!this.stream.write(`${JSON.stringify(row)}\n`)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.stream.off("drain", done);
          this.stream.off("error", done);
          resolve();
        };
        this.stream.on("drain", done);
        this.stream.on("error", done);
      });
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
    if (this.failure !== undefined) throw this.failure;
  }

  async discard(): Promise<void> {
    this.stream.destroy();
    await rm(this.path, { force: true });
  }
}

class ParquetSink implements RowSink {
  rows = 0;
  private readonly writer: ParquetWriter;
  private readonly columns: string[];
  private pending: Record<string, unknown>[] = [];

  constructor(
    private readonly path: string,
    schema: SchemaElement[],
  ) {
    this.writer = new ParquetWriter({ writer: fileWriter(path), schema, createdBy: "minedit export" });
    // Top-level columns: the root's direct children, in schema order.
    this.columns = topLevelColumns(schema);
  }

  async write(row: Record<string, unknown>): Promise<void> {
    this.rows += 1;
    this.pending.push(row);
    if (this.pending.length >= PARQUET_ROW_GROUP_ROWS) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    const columnData = this.columns.map((name) => ({ name, data: rows.map((r) => r[name] ?? null) }));
    await this.writer.write({ columnData, rowGroupSize: rows.length });
  }

  async close(): Promise<void> {
    await this.flush();
    await this.writer.finish();
  }

  async discard(): Promise<void> {
    this.pending = [];
    await rm(this.path, { force: true });
  }
}

/** Names of the root's children in a flattened Parquet schema (root first). */
export function topLevelColumns(schema: readonly SchemaElement[]): string[] {
  const names: string[] = [];
  let index = 1;
  const skip = (): void => {
    const element = schema[index] as SchemaElement;
    index += 1;
    for (let child = 0; child < (element.num_children ?? 0); child += 1) skip();
  };
  while (index < schema.length) {
    names.push((schema[index] as SchemaElement).name);
    skip();
  }
  return names;
}

/**
 * One export being written: `OUT/<name>/<split>.<ext>` per split, then the manifest and the registry.
 * Create with {@link ExportOutput.open}, which checks everything that could make the commit fail later.
 */
export class ExportOutput {
  private readonly sinks = new Map<string, { sink: RowSink; path: string }>();

  private constructor(
    private readonly outDir: string,
    private readonly name: string,
    private readonly format: ExportFormat,
    private readonly kind: ExportKind,
    private readonly previous: ExportManifest | undefined,
    private readonly datasetInfo: Record<string, unknown> | undefined,
  ) {}

  /**
   * Prepares `OUT/<name>/`. Fails (usage error) when a registry file there is not minedit's to rewrite.
   */
  static async open(
    outDir: string,
    name: string,
    format: ExportFormat,
    kind: ExportKind,
  ): Promise<ExportOutput> {
    const existing = await stat(outDir).catch(() => undefined);
    if (existing !== undefined && !existing.isDirectory()) throw usage(`--out ${outDir}: not a directory`);
    let datasetInfo: Record<string, unknown> | undefined;
    if (format.name === "hf") {
      const readme = await readIfExists(join(outDir, README));
      if (readme !== undefined && !readme.includes(CARD_MARKER)) {
        throw usage(
          `${join(outDir, README)} exists and was not written by minedit export; choose another --out ` +
            "(the dataset card is regenerated on every export)",
        );
      }
    }
    if (format.name === "llamafactory") {
      const text = await readIfExists(join(outDir, DATASET_INFO));
      if (text === undefined) datasetInfo = {};
      else {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (error) {
          throw usage(
            `${join(outDir, DATASET_INFO)}: invalid JSON (${(error as Error).message}); fix or remove it`,
          );
        }
        if (value === null || typeof value !== "object" || Array.isArray(value)) {
          throw usage(`${join(outDir, DATASET_INFO)}: expected a JSON object of dataset entries`);
        }
        datasetInfo = value as Record<string, unknown>;
      }
    }
    const previous = parseManifest(await readIfExists(join(outDir, manifestPath(name))));
    // Created only once the checks passed: a refused export leaves the directory as it was.
    await mkdir(join(outDir, name), { recursive: true });
    return new ExportOutput(outDir, name, format, kind, previous, datasetInfo);
  }

  /** Appends a row to a split's file (created on the first row: an empty split has no file). */
  async write(split: string, row: Record<string, unknown>): Promise<void> {
    let entry = this.sinks.get(split);
    if (entry === undefined) {
      const path = dataFilePath(this.name, split, this.format.extension);
      const tmp = temporaryPath(join(this.outDir, path));
      const sink =
        this.format.schema === undefined
          ? new JsonlSink(tmp)
          : new ParquetSink(tmp, this.format.schema(this.kind));
      entry = { sink, path };
      this.sinks.set(split, entry);
    }
    await entry.sink.write(row);
  }

  /** Rows written so far per split. */
  rowCounts(): Map<string, number> {
    return new Map([...this.sinks].map(([split, { sink }]) => [split, sink.rows]));
  }

  /**
   * Closes the data files and moves them into place, removes the previous export's leftovers, writes
   * the manifest, then the registry file. Files are listed in `splitOrder` (the order of `--splits`).
   * Returns the manifest written.
   */
  async commit(
    manifest: Omit<ExportManifest, "files">,
    splitOrder: readonly string[],
  ): Promise<ExportManifest> {
    const files: ManifestFile[] = [];
    const rank = (split: string) => splitOrder.indexOf(split);
    for (const [split, { sink, path }] of [...this.sinks].sort(([a], [b]) => rank(a) - rank(b))) {
      await sink.close();
      files.push({ split, path, rows: sink.rows });
    }
    for (const { path } of files) {
      const final = join(this.outDir, path);
      await rename(temporaryPath(final), final);
    }
    const kept = new Set(files.map((f) => f.path));
    for (const old of this.previous?.files ?? []) {
      // Only files of this export's own directory: a manifest is data, not a list of paths to trust.
      const safe = old.path.startsWith(`${this.name}/`) && !old.path.split("/").includes("..");
      if (safe && !kept.has(old.path)) await rm(join(this.outDir, old.path), { force: true });
    }
    const written: ExportManifest = { ...manifest, files };
    await writeFileAtomically(
      join(this.outDir, manifestPath(this.name)),
      `${JSON.stringify(written, null, 2)}\n`,
    );
    await this.writeRegistry(written);
    return written;
  }

  private async writeRegistry(manifest: ExportManifest): Promise<void> {
    if (this.format.name === "hf") {
      await writeFileAtomically(join(this.outDir, README), datasetCard(await readManifests(this.outDir)));
    }
    if (this.format.name === "llamafactory" && this.datasetInfo !== undefined) {
      // Other datasets' entries stay; this export's previous entries are replaced by its new ones.
      const info: Record<string, unknown> = {};
      const stale = new Set(
        (this.previous?.files ?? []).map((f) => llamafactoryEntryName(this.name, f.split)),
      );
      for (const [key, value] of Object.entries(this.datasetInfo)) {
        if (!stale.has(key)) info[key] = value;
      }
      Object.assign(info, datasetInfoEntries(manifest));
      await writeFileAtomically(join(this.outDir, DATASET_INFO), `${JSON.stringify(info, null, 2)}\n`);
    }
  }

  /** Removes every temporary file; the previous export (if any) stays as it was. */
  async abort(): Promise<void> {
    for (const { sink } of this.sinks.values()) await sink.discard().catch(() => {});
    this.sinks.clear();
  }
}
