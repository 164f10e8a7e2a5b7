/**
 * Flags shared by the `minedit eval` subcommands: checked numbers and choices, and the bootstrap's
 * statistics flags (`--resamples`, `--bootstrap-seed`, `--level`, `--k`).
 */
import { DEFAULT_STATISTICS, type Statistics } from "../eval/report-schema.js";
import { usageError } from "./failures.js";
import { numberFlag } from "./scoring-flags.js";

export function integer(flag: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  if (!/^[+-]?\d+$/.test(text.trim()))
    throw usageError(`${flag}: expected an integer, got ${JSON.stringify(text)}`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    throw usageError(`${flag}: expected an integer ≥ ${min}, got ${text}`);
  return value;
}

export function fraction(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = numberFlag(flag, text);
  if (!(value > 0 && value < 1)) throw usageError(`${flag}: expected a number between 0 and 1, got ${text}`);
  return value;
}

export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw usageError(`${flag}: expected ${allowed.join(", ")}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}

export const STATISTICS_OPTIONS = {
  resamples: { type: "string" },
  "bootstrap-seed": { type: "string" },
  level: { type: "string" },
  k: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export type StatisticsValues = { resamples?: string; "bootstrap-seed"?: string; level?: string; k?: string };

export function statistics(values: StatisticsValues): { statistics: Statistics; ks: number[] } {
  const ks =
    values.k === undefined ? [5, 10] : values.k.split(",").map((part) => integer("--k", part.trim(), 1, 1));
  return {
    statistics: {
      ...DEFAULT_STATISTICS,
      resamples: integer("--resamples", values.resamples, DEFAULT_STATISTICS.resamples, 1),
      seed: integer(
        "--bootstrap-seed",
        values["bootstrap-seed"],
        DEFAULT_STATISTICS.seed,
        Number.MIN_SAFE_INTEGER,
      ),
      level: fraction("--level", values.level, DEFAULT_STATISTICS.level),
    },
    ks,
  };
}
