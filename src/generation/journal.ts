/**
 * The generation journal: an append-only JSONL file of every generation request's outcome, one line per
 * sample, addressed by the sample's key (sampling.ts `sampleKey`: hash of endpoint, model, API, sampling
 * parameters, prompt and sample index).
 *
 * - A sample whose key has an `ok` line is never requested again: a run that was interrupted resumes
 *   where it stopped, and nothing is paid for twice.
 * - A failed request (after its retries) is written as an `error` line, so the report counts it as an
 *   API error; it is asked again by the next run (a failure costs nothing), whose outcome, a later line,
 *   replaces it. The last line of a key wins, except that an `ok` line is never replaced by an error.
 * - Each request's lines are written with one `appendFile` call after the response arrived; a kill can
 *   only tear the file's last line, which is dropped (and cut off) when the journal is opened again.
 *
 * Line format (version 1), keys in this order:
 *   {"v":1,"key":"<sha256>","task_id":"…","sample":0,"status":"ok","text":"…","reasoning":null,
 *    "finish_reason":"stop","truncated":false,"usage":{"prompt_tokens":…,"completion_tokens":…,
 *    "reasoning_tokens":null},"request_samples":1,"latency_ms":812,"attempts":1,"response_id":"…",
 *    "model":"…","endpoint":"…","api":"chat","created":"2025-01-01T00:00:00.000Z"}
 *   {"v":1,"key":…,"task_id":…,"sample":…,"status":"error","error":{"status":503,"message":"…"},
 *    "latency_ms":…,"attempts":7,"model":…,"endpoint":…,"api":…,"created":…}
 * `usage` is the request's (shared by its `request_samples` samples; null when the server sent none).
 */
import { mkdir, open, readFile, truncate } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { ErrorCode, MineditError } from "../errors.js";
import { fsReason } from "../io/inputs.js";
import { checkedJsonLines } from "../io/json-lines.js";

/** The journal line format version. */
export const JOURNAL_VERSION = 1;

const UsageSchema = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  reasoning_tokens: z.number().nullable(),
});

const Common = {
  v: z.literal(JOURNAL_VERSION),
  key: z.string().regex(/^[0-9a-f]{64}$/),
  task_id: z.string().min(1),
  sample: z.number().int().min(0),
  latency_ms: z.number().min(0),
  attempts: z.number().int().min(1),
  model: z.string(),
  endpoint: z.string(),
  api: z.string(),
  created: z.string(),
};

const OkLineSchema = z.object({
  ...Common,
  status: z.literal("ok"),
  text: z.string(),
  reasoning: z.string().nullable(),
  finish_reason: z.string().nullable(),
  truncated: z.boolean(),
  usage: UsageSchema.nullable(),
  request_samples: z.number().int().min(1),
  response_id: z.string().nullable(),
});

const ErrorLineSchema = z.object({
  ...Common,
  status: z.literal("error"),
  error: z.object({ status: z.number().nullable(), message: z.string() }),
});

export const JournalLineSchema = z.discriminatedUnion("status", [OkLineSchema, ErrorLineSchema]);
export type JournalLine = z.output<typeof JournalLineSchema>;
export type OkLine = z.output<typeof OkLineSchema>;

/** What opening a journal found. */
export type JournalState = {
  /** The outcome of each key (see the module doc for which line wins). */
  entries: Map<string, JournalLine>;
  /** Lines that could not be read (not JSON, or not a journal line), with their line numbers. */
  badLines: { line: number; reason: string }[];
  /** A torn last line was cut off (an interrupted write). */
  repaired: boolean;
};

/** Folds one line into the entries: the last line of a key wins, but an error never replaces an ok. */
export function recordLine(entries: Map<string, JournalLine>, line: JournalLine): void {
  const previous = entries.get(line.key);
  if (previous?.status === "ok" && line.status === "error") return;
  entries.set(line.key, line);
}

/** An append-only journal file. */
export class Journal {
  private constructor(
    readonly path: string,
    readonly state: JournalState,
  ) {}

  /**
   * Opens (or creates) the journal at `path`, reads it, and cuts off a torn last line so that the next
   * append starts on a line of its own.
   *
   * @throws MineditError `InvalidArgument` when the file cannot be read or written.
   */
  static async open(path: string): Promise<Journal> {
    let text = "";
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") {
        throw new MineditError(ErrorCode.InvalidArgument, `journal ${path}: cannot read: ${fsReason(error)}`);
      }
    }
    let repaired = false;
    if (text !== "" && !text.endsWith("\n")) {
      const keep = text.lastIndexOf("\n") + 1;
      await truncate(path, Buffer.byteLength(text.slice(0, keep), "utf8"));
      text = text.slice(0, keep);
      repaired = true;
    }
    try {
      await mkdir(dirname(path), { recursive: true });
      const handle = await open(path, "a");
      await handle.close();
    } catch (error) {
      throw new MineditError(ErrorCode.InvalidArgument, `journal ${path}: cannot write: ${fsReason(error)}`);
    }
    return new Journal(path, { ...parseJournal(text), repaired });
  }

  /** The ok line of `key`, if the journal has one. */
  done(key: string): OkLine | undefined {
    const entry = this.state.entries.get(key);
    return entry?.status === "ok" ? entry : undefined;
  }

  /** Appends the lines of one request in one write, and records them. */
  async append(lines: readonly JournalLine[]): Promise<void> {
    if (lines.length === 0) return;
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join("");
    const handle = await open(this.path, "a");
    try {
      await handle.appendFile(text, "utf8");
    } finally {
      await handle.close();
    }
    for (const line of lines) recordLine(this.state.entries, line);
  }
}

/** Reads a journal's text (complete lines). */
export function parseJournal(text: string): Omit<JournalState, "repaired"> {
  const entries = new Map<string, JournalLine>();
  const badLines: JournalState["badLines"] = [];
  for (const checked of checkedJsonLines(text, JournalLineSchema)) {
    if ("reason" in checked) badLines.push(checked);
    else recordLine(entries, checked.value);
  }
  return { entries, badLines };
}
