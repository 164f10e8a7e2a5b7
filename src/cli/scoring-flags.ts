/**
 * The flags that configure scoring — reward, sandbox limits, workers — shared by every command that scores
 * (`score`, `export`), and how they are laid over a `--config` file into one validated {@link Config}.
 */
import { readFile } from "node:fs/promises";
import { type Config, parseConfig } from "../config.js";
import { isMineditError } from "../errors.js";
import { usageError as usage } from "./failures.js";

const MIB = 1024 * 1024;

/** The flags that configure scoring (reward, sandbox, workers), shared by every command that scores. */
export const SCORING_OPTIONS = {
  config: { type: "string" },
  variant: { type: "string" },
  "lambda-exec": { type: "string" },
  "lambda-edit": { type: "string" },
  "lambda-cc": { type: "string" },
  "failure-reward": { type: "string" },
  scope: { type: "string" },
  "wall-time-ms": { type: "string" },
  "cpu-time-ms": { type: "string" },
  "memory-mb": { type: "string" },
  concurrency: { type: "string" },
  threads: { type: "string" },
} as const;

/** The values of {@link SCORING_OPTIONS}, as `parseArgs` returns them. */
export type ScoringFlagValues = { [K in keyof typeof SCORING_OPTIONS]?: string };

/** The flags of {@link SCORING_OPTIONS} that set the repair reward (`reward.*`). */
export const REPAIR_REWARD_FLAGS = [
  "variant",
  "lambda-exec",
  "lambda-edit",
  "lambda-cc",
  "failure-reward",
  "scope",
] as const satisfies readonly (keyof typeof SCORING_OPTIONS)[];

/** The scoring flags a command was given, out of all its parsed `values`: what {@link buildConfig} reads. */
export function scoringFlagValues(values: ScoringFlagValues): ScoringFlagValues {
  const keys = Object.keys(SCORING_OPTIONS) as (keyof typeof SCORING_OPTIONS)[];
  return Object.fromEntries(keys.filter((key) => values[key] !== undefined).map((key) => [key, values[key]]));
}

/** Which flag sets which config field, to point error messages at what the user typed. */
const FLAG_FIELDS = [
  ["--variant", "reward.variant"],
  ["--lambda-exec", "reward.lambdaExec"],
  ["--lambda-edit", "reward.lambdaEdit"],
  ["--lambda-cc", "reward.lambdaCc"],
  ["--failure-reward", "reward.failureReward"],
  ["--scope", "reward.scope"],
  ["--wall-time-ms", "sandbox.wallTimeMs"],
  ["--cpu-time-ms", "sandbox.cpuTimeMs"],
  ["--memory-mb", "sandbox.memoryBytes"],
  ["--concurrency", "sandbox.executionConcurrency"],
  ["--threads", "pool.threads"],
] as const;

/** `minedit score --help`. */

/** A strict decimal number: `Number("")` is 0 and `Number("0x10")` is 16, neither of which a flag means. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function numberFlag(flag: string, text: string): number {
  if (!NUMBER.test(text.trim())) throw usage(`${flag}: expected a number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `--config` file, then the flags on top, validated by {@link parseConfig}. */
export async function buildConfig(values: ScoringFlagValues): Promise<Config> {
  let raw: unknown = {};
  if (values.config !== undefined) {
    let text: string;
    try {
      text = await readFile(values.config, "utf8");
    } catch (error) {
      // Imported here, not at the top: the input readers are not needed to parse flags or print a help.
      const { fsReason } = await import("../io/inputs.js");
      throw usage(`--config: cannot read ${values.config}: ${fsReason(error)}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw usage(
        `--config ${values.config}: invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const reward: Record<string, unknown> = {};
  if (values.variant !== undefined) reward.variant = values.variant;
  if (values["lambda-exec"] !== undefined)
    reward.lambdaExec = numberFlag("--lambda-exec", values["lambda-exec"]);
  if (values["lambda-edit"] !== undefined)
    reward.lambdaEdit = numberFlag("--lambda-edit", values["lambda-edit"]);
  if (values["lambda-cc"] !== undefined) reward.lambdaCc = numberFlag("--lambda-cc", values["lambda-cc"]);
  if (values["failure-reward"] !== undefined) {
    reward.failureReward = numberFlag("--failure-reward", values["failure-reward"]);
  }
  if (values.scope !== undefined) reward.scope = values.scope;
  const pool: Record<string, unknown> = {};
  if (values.threads !== undefined) pool.threads = numberFlag("--threads", values.threads);
  const sandbox: Record<string, unknown> = {};
  if (values["wall-time-ms"] !== undefined) {
    sandbox.wallTimeMs = numberFlag("--wall-time-ms", values["wall-time-ms"]);
  }
  if (values["cpu-time-ms"] !== undefined) {
    sandbox.cpuTimeMs = numberFlag("--cpu-time-ms", values["cpu-time-ms"]);
  }
  if (values["memory-mb"] !== undefined) {
    // Whole bytes, so a fractional MiB count (0.5) is a valid limit rather than a type error.
    sandbox.memoryBytes = Math.round(numberFlag("--memory-mb", values["memory-mb"]) * MIB);
  }
  if (values.concurrency !== undefined) {
    sandbox.executionConcurrency = numberFlag("--concurrency", values.concurrency);
  }
  // Overlay only onto objects: if the file's `reward` is, say, a string, leave it for parseConfig to name.
  if (isPlainObject(raw)) {
    const merged: Record<string, unknown> = { ...raw };
    for (const [section, flags] of [
      ["reward", reward],
      ["pool", pool],
      ["sandbox", sandbox],
    ] as const) {
      const base = merged[section];
      if (Object.keys(flags).length > 0 && (base === undefined || isPlainObject(base))) {
        merged[section] = { ...base, ...flags };
      }
    }
    raw = merged;
  }
  try {
    return parseConfig(raw);
  } catch (error) {
    if (!isMineditError(error)) throw error;
    const flags = FLAG_FIELDS.filter(
      ([flag, field]) => flagGiven(values, flag) && error.rawMessage.includes(`${field}:`),
    );
    const source =
      flags.length > 0
        ? ` (from ${flags.map(([flag]) => flag).join(", ")})`
        : values.config !== undefined
          ? ` (in ${values.config})`
          : "";
    throw usage(`invalid configuration: ${error.rawMessage}${source}`);
  }
}

function flagGiven(values: ScoringFlagValues, flag: string): boolean {
  return values[flag.slice(2) as keyof ScoringFlagValues] !== undefined;
}
