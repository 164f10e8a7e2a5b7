/**
 * OpenRLHF JSONL, with the keys its CLIs are pointed at:
 *
 * | kind      | keys                                   | flags                                                   |
 * |-----------|----------------------------------------|---------------------------------------------------------|
 * | sft, rsft | `input`, `output`                      | `--input_key input --output_key output`                 |
 * | dpo       | `prompt`, `chosen`, `rejected`         | `--prompt_key prompt --chosen_key chosen --rejected_key rejected` |
 * | grpo      | `input`, `label` (the task id)         | `--input_key input --label_key label`                   |
 *
 * Conversational (default): `input`/`prompt` are [system, user] message lists and `output`/`chosen`/
 * `rejected` are [assistant] lists, for `--apply_chat_template` (OpenRLHF renders `input + output` through
 * the tokenizer's chat template and trains on the part after the prompt). Standard: plain strings, for runs
 * without a chat template. For GRPO, OpenRLHF sends `label` to the remote reward endpoint with each
 * sample, so the task id is all the reward call needs. Extra columns (ids, scores) are ignored by
 * OpenRLHF.
 *
 * Pure: no I/O.
 */

import type { ExportFormat } from "./format.js";
import { HF_STYLES, styledTurns } from "./format-hf.js";
import { EXPORT_KINDS, type ExportRecord, jsonlRow } from "./records.js";

/** The OpenRLHF row of a record. */
export function openrlhfRow(record: ExportRecord, style: string): Record<string, unknown> {
  const { prompt, reply } = styledTurns(record, style);
  let body: Record<string, unknown>;
  switch (record.kind) {
    case "sft":
    case "rsft":
    case "alq":
    case "qa":
    case "qa-prime":
      body = { input: prompt, output: reply(record.response) };
      break;
    case "dpo":
      body = { prompt, chosen: reply(record.chosen), rejected: reply(record.rejected) };
      break;
    case "grpo":
      body = { input: prompt, label: record.taskId };
      break;
  }
  return jsonlRow(body, record);
}

export const OPENRLHF_FORMAT: ExportFormat = {
  name: "openrlhf",
  kinds: EXPORT_KINDS,
  styles: HF_STYLES,
  extension: "jsonl",
  row: openrlhfRow,
};
