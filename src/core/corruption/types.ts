/**
 * The shapes shared by the corruption engine (engine.ts), its 34 families (in-domain/, ood/) and the task
 * builder (docs/tasks.md#corruption-families). A family only *finds* the places it could corrupt; the engine chooses among them,
 * applies them as text edits and records each one, so the gold patch (the reversal) is known by
 * construction.
 */
import type { Node } from "web-tree-sitter";

/** Families used to build training and evaluation data, and the held-out ones (never in training). */
export type FamilyDomain = "in-domain" | "ood";

/**
 * One edit a family can make: replace `source.slice(start, end)` with `replacement`. Offsets are JS string
 * indices (UTF-16 code units), which is what web-tree-sitter reports for a string input.
 */
export type CorruptionSite = { start: number; end: number; replacement: string };

export interface CorruptionFamily {
  /** snake_case id used on the command line and in task files, e.g. `comparison_operators`. */
  readonly name: string;
  /** The family's name as docs/tasks.md#corruption-families and the over-editing paper write it, e.g. "Comparison operators". */
  readonly title: string;
  readonly domain: FamilyDomain;
  /**
   * Every site in the program, in source order (pure, deterministic). `root` is the tree-sitter `module`
   * node of `source`. Each site's edit alone must leave a program that still parses as Python 3.11 and
   * whose tokens differ from the original's (the engine checks both and drops sites that do not).
   */
  findSites(root: Node, source: string): CorruptionSite[];
}

/** A corruption as applied and recorded in a task row (`corruptions[]`); its reversal is the gold patch. */
export type AppliedCorruption = {
  family: string;
  /** 1-based line and 0-based column (UTF-16 units) of `start` in the GOLD program. */
  line: number;
  column: number;
  /** Offsets into the GOLD program. */
  start: number;
  end: number;
  /** Gold text at [start, end). */
  original: string;
  /** What replaced it in the corrupted program. */
  corrupted: string;
};

export type CorruptionResult =
  | { ok: true; program: string; applied: AppliedCorruption[] }
  /** Why nothing was produced, in words a report can show (e.g. no site for any requested family). */
  | { ok: false; reason: string };
