/**
 * What every importer produces from its own source format (docs/tasks.md#corruption-families "Sources to import"): a problem the
 * task builder can corrupt, run and store. Field names follow the task rows of datasets/ (snake_case in
 * JSON, camelCase here).
 */
import type { RuntimeName } from "../../sandbox/runtimes.js";

/** The tests of a problem, as stored in task rows (`tests` field; see src/scoring/task-store.ts). */
export type ProblemTests =
  /** BigCodeBench: a `TestCases(unittest.TestCase)` class run in the program's namespace. */
  | { style: "unittest"; code: string }
  /** HumanEval: `def check(candidate)`, called as `check(<entry_point>)` in the program's namespace. */
  | { style: "assert"; code: string }
  /** DeepCoder / CodeContests: stdin → expected stdout cases. */
  | { style: "stdio"; cases: { input: string; output: string }[]; float_tolerance?: number };

/** The source formats, in the order `detectFormat` tries them (see src/tasks/importers/import-file.ts). */
export const IMPORT_FORMATS = [
  "corrupted",
  "minedit",
  "bigcodebench",
  "humaneval",
  "mbpp",
  "deepcoder",
] as const;

export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export type Problem = {
  /** Stable id from the source (`task_id`, `problem_id`, …), prefixed with the format, e.g. `humaneval/HumanEval/0`. */
  problemId: string;
  /** The natural-language specification shown to the model. */
  statement: string;
  /**
   * The name the tests call, defined at the top level of `solution` (empty for stdio programs). For
   * LeetCode-style DeepCoder rows (`class Solution` with method `fn_name`) it is `Solution`: the
   * generated `check(candidate)` calls `candidate().<fn_name>(...)`.
   */
  entryPoint: string;
  /** The complete, correct program (the gold repair G). */
  solution: string;
  tests: ProblemTests;
  /** The format it was imported from. */
  source: ImportFormat;
  /**
   * Top-level modules the solution and the tests import (relative imports excluded), together with the
   * libraries the source declares (BigCodeBench `libs`); sorted, no duplicates. With
   * `isStandardLibraryModule` (src/core/python/stdlib-modules.ts) it tells which problems need packages installed in the
   * sandbox. Every importer sets it (optional only so that hand-built problems may leave it out).
   */
  libraries?: string[];
  /**
   * The task runtime its tests run in (src/sandbox/runtimes.ts): set by {@link importRow} from
   * `libraries` (src/sandbox/runtime-for-libraries.ts) — `stdlib` when every library is standard, else `bigcodebench`.
   */
  runtime?: RuntimeName;
  /** Already-corrupted sources only: the corrupted program and the families the source names. */
  corrupted?: { program: string; families: string[] };
};

/** One input row's outcome: a problem, or why the row could not be imported (1-based line number). */
export type ImportedRow = { line: number; problem: Problem } | { line: number; error: string };
