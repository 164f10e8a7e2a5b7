/**
 * The flags of `minedit tasks build` and `minedit tasks stats`, shared by the parsing (tasks.ts, light,
 * with the help) and the work (tasks-run.ts, imported once the flags are valid).
 */
import type { FlagValues } from "./failures.js";

export { EXIT_INTERRUPTED } from "../errors.js";

export const BUILD_OPTIONS = {
  source: { type: "string" },
  format: { type: "string" },
  out: { type: "string" },
  families: { type: "string" },
  mix: { type: "string" },
  corruptions: { type: "string" },
  variants: { type: "string" },
  candidates: { type: "string" },
  seed: { type: "string" },
  split: { type: "string" },
  only: { type: "string" },
  report: { type: "string" },
  concurrency: { type: "string" },
  "wall-time-ms": { type: "string" },
  "cpu-time-ms": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export type BuildValues = FlagValues<typeof BUILD_OPTIONS>;

export const STATS_OPTIONS = {
  json: { type: "boolean" },
  log: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export type StatsValues = FlagValues<typeof STATS_OPTIONS>;
