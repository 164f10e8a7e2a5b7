/**
 * LlamaFactory (the trainer the over-editing paper used for SFT, rSFT and DPO, App. D.1): JSONL data
 * files plus entries in `OUT/dataset_info.json`, named `minedit_<name>_<split>`, so a training YAML says
 * `dataset_dir: OUT` and `dataset: minedit_sft_train`.
 *
 * | kind      | sharegpt (default)                                                     | alpaca                                   |
 * |-----------|------------------------------------------------------------------------|------------------------------------------|
 * | sft, rsft | `messages`: [user, assistant], `system`                                | `instruction`, `input` "", `output`, `system` |
 * | dpo       | `messages`: [user], `chosen`, `rejected`: assistant messages, `system` | `instruction`, `input`, `chosen`, `rejected`, `system` |
 *
 * The sharegpt rows use OpenAI-style `role`/`content` keys, declared through the entry's `tags`; the
 * system prompt is its own column (LlamaFactory's `system` column), preference entries set
 * `ranking: true`. GRPO is not offered: LlamaFactory has no rule-based RL reward. Extra columns (ids,
 * scores) are ignored by LlamaFactory and kept for analysis.
 *
 * Pure: no I/O.
 */
import type { ExportFormat, ExportManifest } from "./format.js";
import { type ExportRecord, jsonlRow } from "./records.js";

export const LLAMAFACTORY_STYLES = ["sharegpt", "alpaca"] as const;

/** The prefix of every dataset_info.json entry minedit writes (and so may replace or remove). */
export const LLAMAFACTORY_ENTRY_PREFIX = "minedit_";

function userContent(record: ExportRecord): string {
  return record.prompt.find((m) => m.role === "user")?.content ?? "";
}

function systemContent(record: ExportRecord): string {
  return record.prompt.find((m) => m.role === "system")?.content ?? "";
}

/** The LlamaFactory row of a record. */
export function llamafactoryRow(record: ExportRecord, style: string): Record<string, unknown> {
  const user = userContent(record);
  const body: Record<string, unknown> = {};
  if (style === "alpaca") {
    body.instruction = user;
    body.input = "";
    if (record.kind === "dpo") {
      body.chosen = record.chosen;
      body.rejected = record.rejected;
    } else if ("response" in record) {
      body.output = record.response;
    }
  } else if (record.kind === "dpo") {
    body.messages = [{ role: "user", content: user }];
    body.chosen = { role: "assistant", content: record.chosen };
    body.rejected = { role: "assistant", content: record.rejected };
  } else if ("response" in record) {
    body.messages = [
      { role: "user", content: user },
      { role: "assistant", content: record.response },
    ];
  }
  body.system = systemContent(record);
  return jsonlRow(body, record);
}

export const LLAMAFACTORY_FORMAT: ExportFormat = {
  name: "llamafactory",
  kinds: ["sft", "rsft", "dpo", "alq", "qa", "qa-prime"],
  styles: LLAMAFACTORY_STYLES,
  extension: "jsonl",
  row: llamafactoryRow,
};

/** The dataset_info.json key of one split of an export. */
export function llamafactoryEntryName(name: string, split: string): string {
  return `${LLAMAFACTORY_ENTRY_PREFIX}${name}_${split}`;
}

/** The dataset_info.json entries of one export: one per data file. */
export function datasetInfoEntries(manifest: ExportManifest): Record<string, unknown> {
  const ranking = manifest.kind === "dpo";
  const entries: Record<string, unknown> = {};
  for (const file of manifest.files) {
    const entry: Record<string, unknown> = { file_name: file.path };
    if (manifest.style === "alpaca") {
      if (ranking) entry.ranking = true;
      entry.columns = ranking
        ? { prompt: "instruction", query: "input", chosen: "chosen", rejected: "rejected", system: "system" }
        : { prompt: "instruction", query: "input", response: "output", system: "system" };
    } else {
      entry.formatting = "sharegpt";
      if (ranking) entry.ranking = true;
      entry.columns = ranking
        ? { messages: "messages", chosen: "chosen", rejected: "rejected", system: "system" }
        : { messages: "messages", system: "system" };
      entry.tags = { role_tag: "role", content_tag: "content", user_tag: "user", assistant_tag: "assistant" };
    }
    entries[llamafactoryEntryName(manifest.name, file.split)] = entry;
  }
  return entries;
}
