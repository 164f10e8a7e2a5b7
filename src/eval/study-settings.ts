/**
 * The settings of a study (`minedit eval study`, docs/eval.md "Studies"): who was evaluated how — model,
 * prompt, reasoning, size — and with what result. A setting comes from a run directory (its manifest and
 * samples) or from a row of a summary file: published per-setting results such as a paper's table
 * (datasets/published/), so baselines sit in the same tables and figures as one's own runs.
 *
 * Summary files are CSV (a header row, RFC 4180 quoting) or JSONL (one object per line). Columns:
 *
 *   model      required  the model's name
 *   prompt     required  the prompt style (generic, explicit, paper-generic, …)
 *   pass1      required  Pass@1 over the setting's tasks, in [0, 1]
 *   excess     optional  mean excess edit distance over passing repairs
 *   added_cc   optional  mean added cognitive complexity over passing repairs
 *   over_edit  optional  share of passing repairs with excess > 0, in [0, 1]
 *   reasoning  optional  effort (`high`, `low`, …), `on`/`true`, or `off`/`false`/empty (none)
 *   size       optional  parameters in billions (else read from the model name, e.g. "14B")
 *   tasks (or n), samples (or k), temperature   optional  task count, samples per task, temperature
 *   label, note, source           optional  a display label; free text (kept, not used)
 *
 * Pure: no I/O (the study job reads the files).
 */
import { ErrorCode, MineditError } from "../errors.js";
import type { SamplingParams } from "../generation/sampling.js";
import { jsonLines } from "../io/json-lines.js";
import { reasoningLabel } from "./run-name.js";

/** An estimate with its interval when one is known (published rows usually have none). */
export type MetricValue = { estimate: number; low: number | null; high: number | null };

/** The four numbers a setting is summarized by (the paper's Tables 17 and 18). */
export type SettingMetrics = {
  pass1: MetricValue | null;
  excess: MetricValue | null;
  added_cc: MetricValue | null;
  over_edit: MetricValue | null;
};

/** Who was evaluated how. */
export type SettingIdentity = {
  model: string;
  /** The prompt style as given. */
  prompt: string;
  /** Effort or "on"; null: no reasoning. */
  reasoning: string | null;
  /** Billions of parameters; null when unknown. */
  size: number | null;
};

/** One setting as a summary file gives it. */
export type SummaryRow = SettingIdentity & {
  /** FILE:LINE, for messages and the study's sources. */
  source: string;
  label: string | null;
  metrics: SettingMetrics;
  tasks: number | null;
  samples: number | null;
  temperature: number | null;
};

const REASONING_OFF = new Set(["", "off", "false", "no", "none", "0"]);
const REASONING_ON = new Set(["on", "true", "yes", "1"]);

/** A reasoning column or flag's value, normalized: null (none), "on", or the effort in lower case. */
export function normalizeReasoning(value: string | boolean | null | undefined): string | null {
  if (value === null || value === undefined || value === false) return null;
  if (value === true) return "on";
  const text = value.trim().toLowerCase();
  if (REASONING_OFF.has(text)) return null;
  return REASONING_ON.has(text) ? "on" : text;
}

/**
 * A run's reasoning from the parameters it was sampled with (run.json's `params`): `reasoning_effort`
 * (flag or extra body), OpenRouter's `reasoning` object or a template's `enable_thinking` switch, as
 * run-name.ts reads them; "on" when only switched on, null when none is set or it is switched off.
 */
export function reasoningOfParams(params: SamplingParams): string | null {
  const label = reasoningLabel(params);
  if (label === null || label.startsWith("no ")) return null;
  return normalizeReasoning(label === "reasoning" || label === "thinking" ? "on" : label);
}

// A size token: digits, optionally decimals, then B, not preceded by a letter (so "A3B", an
// active-parameter count in "30B-A3B", is not taken for the size) nor followed by a letter or digit.
const SIZE_TOKEN = /(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)[bB](?![A-Za-z0-9])/;

/** The parameter count a model's name states ("Qwen2.5-Coder-14B-Instruct" → 14), or null. */
export function sizeFromModelName(model: string): number | null {
  const match = SIZE_TOKEN.exec(model);
  return match === null ? null : Number(match[1]);
}

/** The model's series: its name with the size replaced by `*` ("Qwen2.5-Coder-*-Instruct"); null without a size. */
export function modelSeries(model: string): string | null {
  return SIZE_TOKEN.test(model) ? model.replace(SIZE_TOKEN, "*") : null;
}

/**
 * The prompt a setting is grouped and paired by: the paper's own prompt texts (`paper-generic`,
 * `paper-explicit`) count as the style they reproduce — unless `pair` names the prompt itself, so that
 * `--pair paper-generic,generic` compares the paper's text with minedit's.
 */
export function promptGroup(prompt: string, pair: readonly string[] = []): string {
  return pair.includes(prompt) ? prompt : prompt.replace(/^paper-/, "");
}

/** How a setting is named in tables and figures: "model · prompt · reasoning". */
export function settingName(identity: SettingIdentity): string {
  return [identity.model, identity.prompt, identity.reasoning].filter((p) => p !== null).join(" · ");
}

/** The key that makes two settings the same: model, prompt, reasoning and size. */
export function settingKey(identity: SettingIdentity): string {
  return JSON.stringify([identity.model, identity.prompt, identity.reasoning, identity.size]);
}

function invalid(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

/** The fields of a CSV text: a header row and records, with RFC 4180 quotes (`""` inside a quoted field). */
function csvRecords(text: string, path: string): { line: number; fields: string[] }[] {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === "")) records.push({ line: recordLine, fields });
    fields = [];
    field = "";
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else {
        if (c === "\n") line += 1;
        field += c;
      }
      i += 1;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      fields.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i += 1;
      endRecord();
      line += 1;
      recordLine = line;
    } else field += c;
    i += 1;
  }
  if (quoted) throw invalid(`${path}:${recordLine}: a quoted field is not closed`);
  if (field !== "" || fields.length > 0) endRecord();
  return records;
}

function objectsOf(text: string, path: string): { line: number; row: Record<string, unknown> }[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{")) {
    return jsonLines(text).map((json) => {
      if ("error" in json) throw invalid(`${path}:${json.line}: not JSON (${json.error})`);
      const { line, value } = json;
      if (value === null || typeof value !== "object" || Array.isArray(value))
        throw invalid(`${path}:${line}: a summary row must be a JSON object`);
      return { line, row: value as Record<string, unknown> };
    });
  }
  const [header, ...records] = csvRecords(text, path);
  if (header === undefined) return [];
  const names = header.fields.map((name) => name.trim().toLowerCase());
  return records.map((record) => {
    if (record.fields.length !== names.length)
      throw invalid(
        `${path}:${record.line}: ${record.fields.length} fields where the header has ${names.length}`,
      );
    return { line: record.line, row: Object.fromEntries(names.map((n, i) => [n, record.fields[i]])) };
  });
}

/**
 * The settings of a summary file's text (CSV, or JSONL when the text starts with `{`). Throws a usage
 * error naming FILE:LINE and the column for a missing required column, a number that is not one, or a
 * share outside [0, 1].
 */
export function parseSummaryRows(text: string, path: string): SummaryRow[] {
  return objectsOf(text, path).map(({ line, row }) => {
    const at = `${path}:${line}`;
    const textOf = (name: string, required: boolean): string | null => {
      const value = row[name];
      if (value === undefined || value === null || value === "") {
        if (required) throw invalid(`${at}: column "${name}" is required`);
        return null;
      }
      if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
        throw invalid(`${at}: column "${name}" must be text or a number`);
      return String(value).trim();
    };
    const numberOf = (name: string, required: boolean, range?: [number, number]): number | null => {
      const value = textOf(name, required);
      if (value === null) return null;
      const n = Number(value);
      if (value === "" || !Number.isFinite(n))
        throw invalid(`${at}: column "${name}" is not a number: "${value}"`);
      if (range !== undefined && (n < range[0] || n > range[1]))
        throw invalid(`${at}: column "${name}" must be in [${range[0]}, ${range[1]}], got ${n}`);
      return n;
    };
    const point = (n: number | null): MetricValue | null =>
      n === null ? null : { estimate: n, low: null, high: null };
    const model = textOf("model", true) as string;
    const reasoningValue = row.reasoning;
    const size = numberOf("size", false, [0, Number.MAX_SAFE_INTEGER]);
    return {
      source: at,
      model,
      prompt: textOf("prompt", true) as string,
      reasoning: normalizeReasoning(
        typeof reasoningValue === "boolean" ? reasoningValue : textOf("reasoning", false),
      ),
      size: size ?? sizeFromModelName(model),
      label: textOf("label", false),
      metrics: {
        pass1: point(numberOf("pass1", true, [0, 1])),
        excess: point(numberOf("excess", false)),
        added_cc: point(numberOf("added_cc", false)),
        over_edit: point(numberOf("over_edit", false, [0, 1])),
      },
      // `n` (tasks) and `k` (samples per task) are the names papers' tables often use.
      tasks:
        numberOf("tasks", false, [0, Number.MAX_SAFE_INTEGER]) ??
        numberOf("n", false, [0, Number.MAX_SAFE_INTEGER]),
      samples:
        numberOf("samples", false, [1, Number.MAX_SAFE_INTEGER]) ??
        numberOf("k", false, [1, Number.MAX_SAFE_INTEGER]),
      temperature: numberOf("temperature", false, [0, Number.MAX_SAFE_INTEGER]),
    };
  });
}
