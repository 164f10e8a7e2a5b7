/**
 * Reading minedit's inputs, for every command and capability: a path (or `-` for stdin) opened before any
 * work starts, so a missing file is reported at once; JSONL read lazily line by line (blank lines skipped
 * but counted, so line numbers are those an editor shows; a UTF-8 BOM ignored); and row sources that
 * yield one parsed JSON object per row with its position for error messages (`FILE:LINE` for JSONL,
 * `FILE:row N` for Parquet — verl's generation output — read one row group at a time).
 */

import { open, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { AsyncBuffer, FileMetaData } from "hyparquet";
import { completeLinesEnd, jsonlLinesOf, type NumberedLine } from "../core/jsonl-text.js";
import { parseJsonObject } from "../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";

/** An opened JSONL input: a file, or stdin for `-`. */
export type Input = {
  /** Name used in messages (`rows.jsonl:12: ...`). */
  name: string;
  stream: Readable;
  /** Size in bytes when it is a regular file, for the progress bar. */
  size: number | undefined;
  bytesRead(): number | undefined;
  close(): Promise<void>;
};

/** Why a file could not be read, in words (`no such file`, `is a directory`, ...). */
export function fsReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory";
  if (code === "EACCES") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}

function unreadable(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

/**
 * Opens an input now, so a missing file is a usage error before any work starts. `what` names the input
 * in messages (`--tasks: cannot read x.jsonl: no such file`); `stdin` is what `-` reads.
 *
 * @throws MineditError `InvalidArgument` when the path cannot be read or is a directory.
 */
export async function openInput(path: string, stdin: Readable, what: string): Promise<Input> {
  if (path === "-") {
    return {
      name: "<stdin>",
      stream: stdin,
      size: undefined,
      bytesRead: () => undefined,
      close: async () => {},
    };
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw unreadable(`${what}: cannot read ${path}: ${fsReason(error)}`);
  }
  const stat = await handle.stat();
  if (stat.isDirectory()) {
    await handle.close();
    throw unreadable(`${what}: cannot read ${path}: is a directory`);
  }
  const stream = handle.createReadStream();
  return {
    name: path,
    stream,
    size: stat.isFile() ? stat.size : undefined,
    bytesRead: () => stream.bytesRead,
    close: async () => {
      stream.destroy();
    },
  };
}

/**
 * Non-blank lines of a JSONL stream with their 1-based physical line numbers (core/jsonl-text.ts: `\n`,
 * `\r\n` and a lone `\r` end a line, a BOM is dropped, blank lines are skipped but counted); read lazily,
 * a chunk at a time.
 */
export async function* jsonlLines(stream: Readable): AsyncGenerator<NumberedLine> {
  const decoder = new StringDecoder("utf8");
  let line = 1;
  let rest = "";
  const lines: NumberedLine[] = [];
  for await (const chunk of stream) {
    const text = rest + (typeof chunk === "string" ? chunk : decoder.write(chunk as Buffer));
    const end = completeLinesEnd(text);
    line = jsonlLinesOf(text.slice(0, end), line, lines);
    rest = text.slice(end);
    yield* lines;
    lines.length = 0;
  }
  jsonlLinesOf(rest + decoder.end(), line, lines);
  yield* lines;
}

/** A batch of a JSONL stream's bytes: whole lines, the first of them line `firstLine` of the stream. */
export type JsonlBatch = { bytes: Uint8Array; firstLine: number };

/** Beyond this many bytes a batch is cut at the next line end, however few lines it has. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * The bytes of a JSONL stream in batches of whole lines, at least `linesPerBatch` lines each (but the
 * last, or when they exceed 16 MiB), undecoded: for a reader that hands them to another thread to decode
 * and read (`minedit score --no-exec`), so that this thread only looks for line ends. A batch is cut after the last `\n` of the
 * chunk that completes it. Each batch is a fresh buffer of its own, so it can be transferred, and knows
 * the number of its first line, counted as {@link jsonlLines} counts them.
 */
export async function* jsonlByteBatches(stream: Readable, linesPerBatch: number): AsyncGenerator<JsonlBatch> {
  let pending: Uint8Array[] = [];
  let size = 0;
  let newlines = 0;
  let line = 1;
  /** The pending bytes up to `end` of the last pending chunk as one batch; the rest stays pending. */
  const cut = (end: number): JsonlBatch => {
    const last = pending[pending.length - 1] as Uint8Array;
    const bytes = new Uint8Array(size - (last.length - end));
    let at = 0;
    for (const chunk of pending.slice(0, -1)) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    bytes.set(last.subarray(0, end), at);
    const batch = { bytes, firstLine: line };
    // Every `\n` counted so far is in this batch (it is cut at or after the last one); only `\r` line
    // ends need the batch counted again.
    line += bytes.indexOf(13) < 0 ? newlines : lineEnds(bytes);
    pending = end < last.length ? [last.subarray(end)] : [];
    size -= bytes.length;
    newlines = 0;
    return batch;
  };
  for await (const data of stream) {
    const chunk: Uint8Array = typeof data === "string" ? Buffer.from(data) : (data as Buffer);
    pending.push(chunk);
    size += chunk.length;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) newlines += 1;
    if (newlines >= linesPerBatch) {
      yield cut(chunk.lastIndexOf(10) + 1);
    } else if (size > MAX_BATCH_BYTES) {
      // Long lines, or lines ended by a lone `\r` only (old Mac files): cut after the chunk's last line end.
      const end = Math.max(chunk.lastIndexOf(10) + 1, lastLoneCrEnd(chunk));
      if (end > 0) yield cut(end);
    }
  }
  if (size > 0) {
    pending.push(new Uint8Array(0));
    yield cut(0);
  }
}

/** How many lines end in `bytes`, which has a `\r` (`\n`, `\r\n`, lone `\r`; a final `\r` counts as one). */
function lineEnds(bytes: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 10) count += 1;
    else if (c === 13) {
      count += 1;
      if (bytes[i + 1] === 10) i += 1;
    }
  }
  return count;
}

/** The offset after the last `\r` of `bytes` that surely ends a line (a byte other than `\n` follows), or 0. */
function lastLoneCrEnd(bytes: Uint8Array): number {
  for (let i = bytes.length - 2; i >= 0; i--) if (bytes[i] === 13 && bytes[i + 1] !== 10) return i + 1;
  return 0;
}

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

/** A JSONL input: each non-blank line is a row. */
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

/**
 * A Parquet input, read one row group at a time (memory is bounded by the largest row group), decoding
 * only `columns` (those the file has; the others are absent from the rows).
 *
 * The Parquet reader is imported here, on first use: most inputs are JSONL, and every command that reads
 * any input would otherwise pay for loading it at start.
 *
 * @throws MineditError `InvalidArgument` when the file is not readable Parquet.
 */
export async function parquetSource(path: string, columns: readonly string[]): Promise<RowSource> {
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } = await import(
    "hyparquet"
  );
  let file: AsyncBuffer;
  let metadata: FileMetaData;
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
  const decoded = columns.filter((name) => present.has(name));
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
        const objects = await parquetReadObjects({
          file,
          metadata,
          columns: decoded,
          rowStart: start,
          rowEnd: end,
        });
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

/**
 * Opens a row source: Parquet when `parquetColumns` is given and the path ends in `.parquet`, otherwise
 * JSONL (a file, or stdin for `-`).
 *
 * @throws MineditError `InvalidArgument` naming `what` when the input cannot be read.
 */
export async function openRowSource(
  path: string,
  stdin: Readable,
  what: string,
  parquetColumns?: readonly string[],
): Promise<RowSource> {
  if (parquetColumns !== undefined && path.endsWith(".parquet")) {
    try {
      await stat(path);
    } catch (error) {
      throw unreadable(`${what}: cannot read ${path}: ${fsReason(error)}`);
    }
    try {
      return await parquetSource(path, parquetColumns);
    } catch (error) {
      if (isMineditError(error)) throw unreadable(`${what}: ${error.rawMessage}`);
      throw error;
    }
  }
  return jsonlSource(await openInput(path, stdin, what));
}
