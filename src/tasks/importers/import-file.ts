/**
 * The importers' entry points: detect a source file's format from its field names, import one row, or
 * stream a whole file (JSONL, or a single JSON array; either may be gzip-compressed, as BigCodeBench
 * publishes its data) into problems, with every row that cannot be imported reported by line and reason
 * while the others still import.
 */
import { createReadStream } from "node:fs";
import { open, readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { createGunzip, gunzipSync } from "node:zlib";
import { loadPythonGrammar } from "../../core/python/grammar.js";
import { jsonTypeName } from "../../core/task-file.js";
import { ErrorCode, isMineditError, MineditError } from "../../errors.js";
import { jsonlLines } from "../../io/inputs.js";
import { runtimeForLibraries } from "../../sandbox/runtime-for-libraries.js";
import { importBigCodeBench } from "./bigcodebench.js";
import { importCorrupted } from "./corrupted.js";
import { DEEPCODER_STATEMENT_FIELDS, DEEPCODER_TESTS_FIELDS, importDeepCoder } from "./deepcoder.js";
import { firstPresent, type SourceRow } from "./fields.js";
import { importHumanEval } from "./humaneval.js";
import { JsonSyntaxError, parseLosslessJson, parseLosslessJsonArray, toPlainJson } from "./json-lossless.js";
import { importMbpp } from "./mbpp.js";
import { importMinedit } from "./minedit.js";
import type { ImportedRow, ImportFormat, Problem } from "./types.js";
import { IMPORT_FORMATS } from "./types.js";

const IMPORTERS: Record<ImportFormat, (row: SourceRow) => Problem> = {
  minedit: importMinedit,
  bigcodebench: importBigCodeBench,
  humaneval: importHumanEval,
  mbpp: importMbpp,
  deepcoder: importDeepCoder,
  corrupted: importCorrupted,
};

/** Whether `name` is one of {@link IMPORT_FORMATS} (for `--format`). */
export function isImportFormat(name: string): name is ImportFormat {
  return (IMPORT_FORMATS as readonly string[]).includes(name);
}

const has = (row: SourceRow, name: string) => Object.hasOwn(row, name);

/**
 * The format of a row, from its field names, or null. Tried in this order, because sources copy each
 * other's fields:
 *
 * 1. `corrupted` — `corrupted_solution` (such rows often keep their source's `prompt`, `test`, …);
 * 2. `minedit` — `problem_id`, `solution`, and `tests` an object with a `style`;
 * 3. `bigcodebench` — `complete_prompt` or `instruct_prompt` (it also has HumanEval's `test`,
 *    `canonical_solution` and `entry_point`);
 * 4. `humaneval` — `prompt`, `canonical_solution`, `test` and `entry_point`;
 * 5. `mbpp` — `test_list`;
 * 6. `deepcoder` — `tests`, `input_output` or `test_cases`, with `problem`, `question` or `prompt`.
 */
export function detectFormat(row: SourceRow): ImportFormat | null {
  if (has(row, "corrupted_solution")) return "corrupted";
  const tests = row.tests;
  if (
    has(row, "problem_id") &&
    has(row, "solution") &&
    tests !== null &&
    typeof tests === "object" &&
    "style" in tests
  ) {
    return "minedit";
  }
  if (has(row, "complete_prompt") || has(row, "instruct_prompt")) return "bigcodebench";
  if (["prompt", "canonical_solution", "test", "entry_point"].every((name) => has(row, name)))
    return "humaneval";
  if (has(row, "test_list")) return "mbpp";
  if (
    firstPresent(row, DEEPCODER_TESTS_FIELDS) !== undefined &&
    firstPresent(row, DEEPCODER_STATEMENT_FIELDS) !== undefined
  ) {
    return "deepcoder";
  }
  return null;
}

/**
 * Imports one row (already parsed from JSON) of the given format, with the task runtime its libraries
 * need (src/sandbox/runtime-for-libraries.ts). Pure apart from needing the Python grammar: `await loadPythonGrammar()` first.
 *
 * @throws MineditError `InvalidArgument` whose `rawMessage` is the reason, naming the field.
 */
export function importRow(format: ImportFormat, row: SourceRow): Problem {
  const problem = IMPORTERS[format](row);
  return { ...problem, runtime: problem.runtime ?? runtimeForLibraries(problem.libraries ?? []) };
}

/**
 * Streams the problems of a source file: JSONL read line by line (blank lines skipped), or, when the
 * first non-blank character is `[`, one JSON array read whole; a gzip file (told by its first bytes, not
 * its name) is decompressed as it is read. The format is `format`, else detected
 * from the first row that is a JSON object. Rows that cannot be imported come out as `{line, error}`
 * (bad JSON, not an object, a missing or ill-typed field, a program that does not parse, unusable
 * tests, a problem id already imported from an earlier row); the rest as `{line, problem}`.
 *
 * @throws MineditError `InvalidArgument` when the format cannot be detected, `NotFound` when the file
 *   cannot be read.
 */
export async function* importFile(path: string, format?: ImportFormat): AsyncGenerator<ImportedRow> {
  await loadPythonGrammar();
  const seen = new Map<string, number>();
  let detected: ImportFormat | undefined = format;
  const importAt = (line: number, row: SourceRow, lossless: () => unknown): ImportedRow => {
    if (detected === undefined) {
      const found = detectFormat(row);
      if (found === null) {
        const fields = Object.keys(row).slice(0, 12).join(", ");
        throw new MineditError(
          ErrorCode.InvalidArgument,
          `${path}:${line}: cannot tell the format from the fields (${fields}); pass one of ${IMPORT_FORMATS.join(", ")}`,
        );
      }
      detected = found;
    }
    let problem: Problem;
    try {
      problem = importRow(detected, detected === "deepcoder" ? withLosslessTests(row, lossless) : row);
    } catch (error) {
      return { line, error: reason(error) };
    }
    const first = seen.get(problem.problemId);
    if (first !== undefined)
      return { line, error: `duplicate problem id "${problem.problemId}" (first at line ${first})` };
    seen.set(problem.problemId, line);
    return { line, problem };
  };

  const gzipped = await isGzip(path);
  if (await startsWithArray(path, gzipped)) {
    let elements: ReturnType<typeof parseLosslessJsonArray>;
    try {
      const bytes = await readFile(path);
      elements = parseLosslessJsonArray(stripBom((gzipped ? gunzipSync(bytes) : bytes).toString("utf8")));
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw unreadable(path, error);
      yield { line: error.line, error: `invalid JSON: ${error.message}` };
      return;
    }
    for (const { line, value } of elements) {
      const row = toPlainJson(value);
      if (row === null || typeof row !== "object" || Array.isArray(row)) {
        yield { line, error: `expected a JSON object, got ${jsonTypeName(row)}` };
        continue;
      }
      yield importAt(line, row as SourceRow, () => value);
    }
    return;
  }

  const input = openText(path, gzipped);
  try {
    for await (const { line: lineNumber, text: line } of jsonlLines(input)) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        yield { line: lineNumber, error: `invalid JSON: ${reason(error)}` };
        continue;
      }
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        yield { line: lineNumber, error: `expected a JSON object, got ${jsonTypeName(value)}` };
        continue;
      }
      yield importAt(lineNumber, value as SourceRow, () => parseLosslessJson(line));
    }
  } finally {
    // A consumer that stops early (or a format that cannot be detected) must not leave the file open.
    input.destroy();
  }
}

/**
 * DeepCoder rows whose tests are an object in the row (not a JSON string) get that object re-read
 * losslessly from the row's text, so that function-call arguments keep exact ints and floats.
 */
function withLosslessTests(row: SourceRow, lossless: () => unknown): SourceRow {
  const field = firstPresent(row, DEEPCODER_TESTS_FIELDS);
  if (field === undefined || row[field] === null || typeof row[field] !== "object") return row;
  const exact = lossless() as Record<string, unknown>;
  return { ...row, [field]: exact[field] };
}

/** Whether the file starts with gzip's magic bytes. */
async function isGzip(path: string): Promise<boolean> {
  const handle = await openForReading(path);
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** A source file's text, decompressed when it is gzip (for reading it outside {@link importFile}). */
export async function openSourceText(path: string): Promise<Readable> {
  return openText(path, await isGzip(path));
}

/** The file's text, decompressed when `gzipped` (a corrupt gzip stream errors the stream). */
function openText(path: string, gzipped: boolean): Readable {
  if (!gzipped) return createReadStream(path, "utf8");
  const file = createReadStream(path);
  const text = file.pipe(createGunzip());
  text.setEncoding("utf8");
  file.on("error", (error) => text.destroy(error));
  text.on("close", () => file.destroy());
  return text;
}

async function startsWithArray(path: string, gzipped: boolean): Promise<boolean> {
  const input = openText(path, gzipped);
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      const first = stripBom(chunk).trimStart()[0];
      if (first !== undefined) return first === "[";
    }
    return false;
  } catch (error) {
    throw unreadable(path, error);
  } finally {
    input.destroy();
  }
}

async function openForReading(path: string) {
  try {
    return await open(path, "r");
  } catch (error) {
    throw unreadable(path, error);
  }
}

function unreadable(path: string, error: unknown): MineditError {
  return new MineditError(ErrorCode.NotFound, `cannot read ${path}: ${reason(error)}`);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function reason(error: unknown): string {
  if (isMineditError(error)) return error.rawMessage;
  return error instanceof Error ? error.message : String(error);
}
