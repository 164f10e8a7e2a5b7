/**
 * verl Parquet, with real nested columns (not JSON strings), as verl's own data preprocessing writes:
 *
 * grpo (read by `verl.trainer.main_ppo`, `data.prompt_key=prompt`):
 *   data_source   string                       "minedit"
 *   prompt        list<struct<role, content>>  [system, user]
 *   ability       string                       "code"
 *   reward_model  struct<style, ground_truth>  {"rule", task_id}: verl hands ground_truth to the reward
 *                                              function, which sends it to the minedit server as task_id
 *   extra_info    struct<task_id, problem_id, prompt_id, split, index: int64, task_split, source,
 *                        prompt_style, families: list<string>>
 *
 * sft, rsft (read by verl's multi-turn SFT dataset, `data.multiturn.enable=true
 * data.multiturn.messages_key=messages`, which trains on the assistant turn):
 *   messages      list<struct<role, content>>  [system, user, assistant]
 *   data_source, ability as above
 *   extra_info    as above; rsft adds reward, verdict, distance, excess: double/string,
 *                 tests_passed, tests_total, rank: int64
 *
 * Every field is OPTIONAL (nullable) and lists use the standard three-level LIST layout
 * (`<name>` LIST → repeated `list` → `element`), which is what pyarrow writes by default, so these files
 * concatenate with other verl datasets. DPO is not offered: verl has no offline preference trainer.
 *
 * Pure: no I/O.
 */
import type { SchemaElement } from "hyparquet";
import type { Message } from "../core/prompt/message.js";
import type { ExportFormat } from "./format.js";
import { type ExportKind, type ExportRecord, lintColumns } from "./records.js";

/** `data_source` of every row: verl groups validation metrics by it. */
export const VERL_DATA_SOURCE = "minedit";
/** `ability` of every row. */
export const VERL_ABILITY = "code";

type Field = SchemaElement[];

function stringField(name: string): Field {
  return [
    {
      name,
      type: "BYTE_ARRAY",
      converted_type: "UTF8",
      logical_type: { type: "STRING" },
      repetition_type: "OPTIONAL",
    },
  ];
}

function doubleField(name: string): Field {
  return [{ name, type: "DOUBLE", repetition_type: "OPTIONAL" }];
}

function int64Field(name: string): Field {
  return [{ name, type: "INT64", repetition_type: "OPTIONAL" }];
}

function structField(name: string, fields: Field[]): Field {
  return [{ name, repetition_type: "OPTIONAL", num_children: fields.length }, ...fields.flat()];
}

/** A LIST of `element` (whose first schema element is renamed `element`). */
function listField(name: string, element: Field): Field {
  const [head, ...rest] = element as [SchemaElement, ...SchemaElement[]];
  return [
    {
      name,
      repetition_type: "OPTIONAL",
      converted_type: "LIST",
      logical_type: { type: "LIST" },
      num_children: 1,
    },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    { ...head, name: "element" },
    ...rest,
  ];
}

const messagesField = (name: string) =>
  listField(name, structField("element", [stringField("role"), stringField("content")]));

function extraInfoField(kind: ExportKind): Field {
  const fields = [
    stringField("task_id"),
    stringField("problem_id"),
    stringField("prompt_id"),
    stringField("split"),
    int64Field("index"),
    stringField("task_split"),
    stringField("source"),
    stringField("prompt_style"),
    listField("families", stringField("element")),
  ];
  if (kind === "alq" || kind === "qa" || kind === "qa-prime") {
    fields.push(
      stringField("language"),
      stringField("revision"),
      int64Field("original_alerts"),
      int64Field("fixed"),
      int64Field("new"),
      int64Field("net_fixed"),
      int64Field("diff_lines"),
      int64Field("token_distance"),
      int64Field("tests_passed"),
      int64Field("tests_total"),
    );
  }
  if (kind === "rsft") {
    fields.push(
      doubleField("reward"),
      stringField("verdict"),
      doubleField("distance"),
      doubleField("excess"),
      int64Field("tests_passed"),
      int64Field("tests_total"),
      int64Field("rank"),
    );
  }
  return structField("extra_info", fields);
}

/** The Parquet schema of a kind (root element first, as hyparquet-writer takes it). */
export function verlSchema(kind: ExportKind): SchemaElement[] {
  const columns: Field[] =
    kind === "grpo"
      ? [
          stringField("data_source"),
          messagesField("prompt"),
          stringField("ability"),
          structField("reward_model", [stringField("style"), stringField("ground_truth")]),
          extraInfoField(kind),
        ]
      : [messagesField("messages"), stringField("data_source"), stringField("ability"), extraInfoField(kind)];
  return [{ name: "root", num_children: columns.length }, ...columns.flat()];
}

function messageStructs(messages: readonly Message[]): { role: string; content: string }[] {
  return messages.map(({ role, content }) => ({ role, content }));
}

/** The verl row of a record: nested values matching {@link verlSchema}; int64 fields are bigints. */
export function verlRow(record: ExportRecord): Record<string, unknown> {
  const extraInfo: Record<string, unknown> = {
    task_id: record.taskId,
    problem_id: record.problemId,
    prompt_id: record.promptId,
    split: record.split,
    index: BigInt(record.index),
    task_split: record.taskSplit,
    source: record.source,
    prompt_style: record.promptStyle,
    families: record.families,
  };
  switch (record.kind) {
    case "grpo":
      return {
        data_source: VERL_DATA_SOURCE,
        prompt: messageStructs(record.prompt),
        ability: VERL_ABILITY,
        reward_model: { style: "rule", ground_truth: record.taskId },
        extra_info: extraInfo,
      };
    case "rsft":
      Object.assign(extraInfo, {
        reward: record.scores.reward,
        verdict: record.scores.verdict,
        distance: record.scores.distance,
        excess: record.scores.excess,
        tests_passed: BigInt(record.scores.testsPassed),
        tests_total: BigInt(record.scores.testsTotal),
        rank: BigInt(record.rank),
      });
      return sftRow(record, extraInfo);
    case "sft":
      return sftRow(record, extraInfo);
    case "alq":
    case "qa":
    case "qa-prime":
      for (const [key, value] of Object.entries(lintColumns(record.lint))) {
        extraInfo[key] = typeof value === "number" ? BigInt(value) : value;
      }
      return sftRow(record, extraInfo);
    case "dpo":
      throw new Error("verl has no DPO rows (checked before export starts)");
  }
}

function sftRow(record: ExportRecord & { response: string }, extraInfo: Record<string, unknown>) {
  return {
    messages: messageStructs([...record.prompt, { role: "assistant", content: record.response }]),
    data_source: VERL_DATA_SOURCE,
    ability: VERL_ABILITY,
    extra_info: extraInfo,
  };
}

export const VERL_FORMAT: ExportFormat = {
  name: "verl",
  kinds: ["sft", "rsft", "grpo", "alq", "qa", "qa-prime"],
  styles: ["conversational"],
  extension: "parquet",
  row: (record) => verlRow(record),
  schema: verlSchema,
};
