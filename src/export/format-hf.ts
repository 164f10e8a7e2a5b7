/**
 * Hugging Face / TRL JSONL (TRL's "Dataset formats and types"), one row per line:
 *
 * | kind      | conversational (default)                                   | standard                     |
 * |-----------|------------------------------------------------------------|------------------------------|
 * | sft, rsft | `prompt`: [system, user] messages, `completion`: [assistant] | `prompt`, `completion` text |
 * | dpo       | `prompt`, `chosen`: [assistant], `rejected`: [assistant]    | `prompt`, `chosen`, `rejected` text |
 * | grpo      | `prompt`                                                   | `prompt` text                |
 *
 * SFT is written as prompt-completion (not `messages`) so TRL's SFTTrainer computes the loss on the
 * completion only, as LlamaFactory does by default and as the paper trained. Every row also carries
 * `task_id`, `problem_id`, `prompt_id`, `split`, `task_split`, `source`, `families`, `prompt_style` and,
 * for rsft/dpo, the scores; TRL passes the extra columns of a GRPO dataset to reward functions as keyword
 * arguments, which is how a reward function gets `task_id`.
 *
 * The dataset card `OUT/README.md` lists every hf export under OUT as a config (`configs:` in its YAML
 * header), so `load_dataset("OUT", "<name>")` loads it with its splits.
 *
 * Pure: no I/O.
 */

import { type Message, promptText } from "../core/prompt/message.js";
import type { ExportFormat, ExportManifest } from "./format.js";
import { assistant, EXPORT_KINDS, type ExportRecord, jsonlRow } from "./records.js";

export const HF_STYLES = ["conversational", "standard"] as const;

/**
 * A record's prompt and a reply in one of {@link HF_STYLES} (TRL's and OpenRLHF's alike): chat messages
 * (`conversational`), or plain text for trainers not told to apply a chat template (`standard`).
 */
export function styledTurns(
  record: ExportRecord,
  style: string,
): { prompt: Message[] | string; reply(content: string): Message[] | string } {
  const conversational = style !== "standard";
  return {
    prompt: conversational ? record.prompt : promptText(record.prompt),
    reply: (content) => (conversational ? [assistant(content)] : content),
  };
}

/** The TRL row of a record. */
export function hfRow(record: ExportRecord, style: string): Record<string, unknown> {
  const { prompt, reply } = styledTurns(record, style);
  const body: Record<string, unknown> = { prompt };
  switch (record.kind) {
    case "sft":
    case "rsft":
    case "alq":
    case "qa":
    case "qa-prime":
      body.completion = reply(record.response);
      break;
    case "dpo":
      body.chosen = reply(record.chosen);
      body.rejected = reply(record.rejected);
      break;
    case "grpo":
      break;
  }
  return jsonlRow(body, record);
}

export const HF_FORMAT: ExportFormat = {
  name: "hf",
  kinds: EXPORT_KINDS,
  styles: HF_STYLES,
  extension: "jsonl",
  row: hfRow,
};

const KIND_TITLES: Readonly<Record<ExportManifest["kind"], string>> = {
  sft: "SFT on the programmatic minimal repair (prompt → gold program)",
  rsft: "rejection-sampled SFT (prompt → the passing samples closest to the reference repair)",
  dpo: "DPO / DPOP preference pairs (smallest-edit passing sample preferred)",
  grpo: "GRPO prompts (prompt only; rewards come from the minedit server by task_id)",
  alq: "A+L→A′ (LintEval): a file and its lint alerts → the refactored file",
  qa: "Q→A (LintEval): problem → the original solution",
  "qa-prime": "Q→A′ (LintEval): problem → the refactored solution",
};

const TRL_COMMANDS: Readonly<Record<ExportManifest["kind"], string>> = {
  sft: "trl sft --model_name_or_path MODEL --dataset_name OUT --dataset_config NAME --output_dir runs/sft",
  rsft: "trl sft --model_name_or_path MODEL --dataset_name OUT --dataset_config NAME --output_dir runs/rsft",
  dpo: "trl dpo --model_name_or_path MODEL --dataset_name OUT --dataset_config NAME --beta 0.1 --output_dir runs/dpo",
  grpo: 'GRPOTrainer(..., train_dataset=load_dataset(OUT, NAME, split="train"), reward_funcs=<minedit reward function>)',
  alq: "trl sft --model_name_or_path MODEL --dataset_name OUT --dataset_config NAME --output_dir runs/alq",
  qa: "trl sft --model_name_or_path MODEL --dataset_name OUT --dataset_config NAME --output_dir runs/qa",
  "qa-prime":
    "trl sft --model_name_or_path MODEL --dataset_name OUT --dataset_config NAME --output_dir runs/qa-prime",
};

function columnsOf(manifest: ExportManifest): string {
  const conversational = manifest.style !== "standard";
  const text = conversational ? "messages" : "text";
  const meta =
    "`task_id`, `problem_id`, `prompt_id`, `split`, `task_split`, `source`, `families`, `prompt_style`";
  const scores = "`reward`, `verdict`, `distance` (d(M, G)), `excess` (e(M)), `tests_passed`, `tests_total`";
  switch (manifest.kind) {
    case "sft":
      return `\`prompt\` (${text}), \`completion\` (${text}: the gold program); ${meta}`;
    case "rsft":
      return `\`prompt\` (${text}), \`completion\` (${text}: a sampled repair); ${meta}; ${scores}, \`rank\``;
    case "dpo":
      return (
        `\`prompt\` (${text}), \`chosen\`, \`rejected\` (${text}); ${meta}; for each side (\`chosen_\`, ` +
        "`rejected_`): `reward`, `verdict`, `distance`, `excess`, `tests_passed`, `tests_total`"
      );
    case "grpo":
      return `\`prompt\` (${text}); ${meta}`;
    case "alq":
    case "qa":
    case "qa-prime":
      return (
        `\`prompt\` (${text}), \`completion\` (${text}: ${manifest.kind === "qa" ? "the original" : "the refactored"} ` +
        `file); ${meta}; \`language\`, \`revision\`, \`original_alerts\`, \`fixed\`, \`new\`, \`net_fixed\`, ` +
        "`diff_lines`, `token_distance`, `tests_passed`, `tests_total`"
      );
  }
}

/** The first line after a card's YAML header: a README.md without it was not written by minedit. */
export const CARD_MARKER =
  "<!-- written by minedit export; regenerated on every export into this directory -->";

/** YAML double-quoted scalar: JSON string syntax is valid YAML. */
const q = (s: string) => JSON.stringify(s);

/**
 * The dataset card for the hf exports under one directory, sorted by name. The YAML header's `configs`
 * is what `datasets` reads; the body documents each config for a person.
 */
export function datasetCard(manifests: readonly ExportManifest[]): string {
  const hf = [...manifests].filter((m) => m.format === "hf").sort((a, b) => a.name.localeCompare(b.name));
  const yaml = ["---", "configs:"];
  for (const m of hf) {
    yaml.push(`- config_name: ${q(m.name)}`, "  data_files:");
    for (const file of m.files) yaml.push(`  - split: ${q(file.split)}`, `    path: ${q(file.path)}`);
  }
  yaml.push("tags:", `- ${q("minedit")}`, `- ${q("code-repair")}`, `- ${q("minimal-edit")}`, "---");

  const body = [
    CARD_MARKER,
    "",
    "# minedit training data",
    "",
    "Exported by `minedit export` from repair tasks (a corrupted program, its tests and the known minimal",
    "repair). The prompts are the over-editing paper's repair prompt (system prompt, specification,",
    "corrupted program, request); splits are made by problem, so no problem appears in two splits.",
    'Load a config with `datasets.load_dataset("<this directory>", "<config>")`.',
    "",
  ];
  for (const m of hf) {
    body.push(`## \`${m.name}\`: ${KIND_TITLES[m.kind]}`, "");
    body.push(
      `- kind \`${m.kind}\`, ${m.style} rows, ${m.prompt} prompt, splits \`${m.splits.spec}\` (seed ${m.splits.seed})` +
        `${m.includeOod ? ", OOD tasks included" : ""}`,
    );
    if (m.selection !== undefined) {
      const parts = [`${m.selection.perTask} candidates per task`];
      if (m.selection.keep !== undefined) parts.push(`${m.selection.keep} kept`);
      if (m.selection.rejected !== undefined) parts.push(`rejected: ${m.selection.rejected}`);
      body.push(`- selection: ${parts.join(", ")}`);
    }
    body.push(`- columns: ${columnsOf(m)}`);
    body.push(`- files: ${m.files.map((f) => `\`${f.path}\` (${f.split}, ${f.rows} rows)`).join(", ")}`);
    body.push(`- train: \`${TRL_COMMANDS[m.kind].replace("NAME", m.name)}\``, "");
  }
  return `${yaml.join("\n")}\n${body.join("\n")}\n`;
}
