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
import type { AsyncBuffer } from "hyparquet";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from "hyparquet";
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
 * Non-blank lines of a JSONL stream with their 1-based physical line numbers; read lazily, a chunk at a
 * time. A line ends at `\n`, `\r\n` or a lone `\r` (as Node's readline splits them, which this replaces:
 * its per-line events cost as much as parsing the line), a UTF-8 BOM at the start is dropped, and blank
 * lines are skipped but counted.
 */
export async function* jsonlLines(stream: Readable): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new StringDecoder("utf8");
  let line = 0;
  let rest = "";
  /** The previous chunk ended with `\r`: a `\n` starting this one belongs to that line break. */
  let afterCr = false;
  const lines: { line: number; text: string }[] = [];
  const take = (raw: string) => {
    line += 1;
    const text = line === 1 && raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
    if (text.trim() !== "") lines.push({ line, text });
  };
  for await (const chunk of stream) {
    let text = rest + (typeof chunk === "string" ? chunk : decoder.write(chunk as Buffer));
    if (afterCr && text.charCodeAt(0) === 10) text = text.slice(1);
    afterCr = false;
    let start = 0;
    if (text.indexOf("\r") < 0) {
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
        take(text.slice(start, end));
        start = end + 1;
      }
    } else {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        take(text.slice(start, i));
        if (c === 13) {
          if (i + 1 === text.length) afterCr = true;
          else if (text.charCodeAt(i + 1) === 10) i += 1;
        }
        start = i + 1;
      }
    }
    rest = text.slice(start);
    yield* lines;
    lines.length = 0;
  }
  rest += decoder.end();
  if (afterCr && rest.charCodeAt(0) === 10) rest = rest.slice(1);
  if (rest !== "") take(rest);
  yield* lines;
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
 * @throws MineditError `InvalidArgument` when the file is not readable Parquet.
 */
export async function parquetSource(path: string, columns: readonly string[]): Promise<RowSource> {
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
