/**
 * Row sources for the exporter: JSONL files (or stdin) read line by line, and Parquet files (verl's
 * generation output) read one row group at a time, both yielding one parsed JSON object per row with
 * its position for error messages (`FILE:LINE` for JSONL, `FILE:row N` for Parquet).
 */
import type { AsyncBuffer } from "hyparquet";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from "hyparquet";
import { type Input, jsonlLines } from "../cli/score.js";
import { parseJsonObject } from "../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";

/** One row of a source: the object, or why the row could not be read as one. */
export type SourceRow = { where: string; row: Record<string, unknown> } | { where: string; error: string };

export type RowSource = {
  name: string;
  /** Size of the input in progress units (bytes for JSONL files, rows for Parquet); unknown for stdin. */
  size: number | undefined;
  /** Progress so far, in the same unit as `size`. */
  position(): number | undefined;
  rows(): AsyncIterable<SourceRow>;
  close(): Promise<void>;
};

/** A JSONL input opened by the CLI: each non-blank line is a row. */
export function jsonlSource(input: Input): RowSource {
  return {
    name: input.name,
    size: input.size,
    position: () => input.bytesRead(),
    async *rows() {
      for await (const { line, text } of jsonlLines(input.stream)) {
        const where = `${input.name}:${line}`;
        try {
          yield { where, row: parseJsonObject(text) };
        } catch (error) {
          if (!isMineditError(error)) throw error;
          yield { where, error: error.rawMessage };
        }
      }
    },
    close: () => input.close(),
  };
}

/** The columns a candidates row is read from; other columns of a Parquet file are not decoded. */
const CANDIDATE_COLUMNS = ["task_id", "extra_info", "reward_model", "completion", "completions", "responses"];

/**
 * A Parquet input, read one row group at a time (memory is bounded by the largest row group), decoding
 * only the candidate columns.
 *
 * @throws MineditError `InvalidArgument` when the file is not readable Parquet.
 */
export async function parquetSource(path: string): Promise<RowSource> {
  let file: AsyncBuffer;
  let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
  try {
    file = await asyncBufferFromFile(path);
    metadata = await parquetMetadataAsync(file);
  } catch (error) {
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `cannot read ${path} as Parquet: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const present = new Set(parquetSchema(metadata).children.map((child) => child.element.name));
  const columns = CANDIDATE_COLUMNS.filter((name) => present.has(name));
  const total = Number(metadata.num_rows);
  let done = 0;
  return {
    name: path,
    size: total,
    position: () => done,
    async *rows() {
      let start = 0;
      for (const group of metadata.row_groups) {
        const end = start + Number(group.num_rows);
        const objects = await parquetReadObjects({ file, metadata, columns, rowStart: start, rowEnd: end });
        for (const [offset, row] of objects.entries()) {
          done = start + offset + 1;
          yield { where: `${path}:row ${start + offset + 1}`, row: row as Record<string, unknown> };
        }
        start = end;
      }
    },
    close: async () => {},
  };
}
