/**
 * Splits by problem (docs/export.md): every variant of one problem lands in the same split, so a corrupted
 * version of a problem seen in training never shows up in evaluation.
 *
 * The split of a problem is a pure function of (seed, problem_id): the first 48 bits of
 * SHA-256("minedit-split", seed, problem_id) as a number u in [0, 1), placed on the cumulative weights.
 * Consequences, all deliberate:
 * - no state and no pass over the data: rows can be streamed and written as they come;
 * - a problem's split does not depend on which other problems are in the file, so adding problems later
 *   (or exporting a subset) never moves an existing one;
 * - the realized fractions follow the weights only statistically (a binomial draw per problem); with few
 *   problems they can be off, and a small split can even be empty.
 *
 * Pure: no I/O.
 */
import { createHash } from "node:crypto";
import { ErrorCode, MineditError } from "../errors.js";

/** A split name and its share of the problems. */
export type SplitWeight = { name: string; weight: number };

/** Split names become file names and config names: keep them to a portable alphabet. */
const SPLIT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** How far from 1 the weights may sum (decimal fractions such as 0.7 + 0.2 + 0.1 are not exact). */
const SUM_TOLERANCE = 1e-9;

function invalid(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message, { field: "splits" });
}

/**
 * Parses `train=0.9,test=0.1`. Names are unique and portable, weights are positive decimal numbers that
 * sum to 1 (a typo like `0.9,0.01` is an error, not silently renormalized).
 *
 * @throws MineditError `InvalidArgument` saying what is wrong.
 */
export function parseSplitSpec(spec: string): SplitWeight[] {
  const parts = spec.split(",").map((part) => part.trim());
  const splits: SplitWeight[] = [];
  for (const part of parts) {
    const match = /^([^=]+)=(.+)$/.exec(part);
    if (match === null) throw invalid(`expected NAME=WEIGHT, got ${JSON.stringify(part)}`);
    const name = (match[1] as string).trim();
    const text = (match[2] as string).trim();
    if (!SPLIT_NAME.test(name)) {
      throw invalid(`split name ${JSON.stringify(name)}: use letters, digits, '_', '-' and '.'`);
    }
    if (splits.some((s) => s.name === name)) throw invalid(`split ${JSON.stringify(name)} is given twice`);
    if (!/^(\d+\.?\d*|\.\d+)$/.test(text) || !(Number(text) > 0)) {
      throw invalid(`split ${name}: weight must be a positive number, got ${JSON.stringify(text)}`);
    }
    splits.push({ name, weight: Number(text) });
  }
  const sum = splits.reduce((total, s) => total + s.weight, 0);
  if (Math.abs(sum - 1) > SUM_TOLERANCE) {
    throw invalid(`weights must sum to 1, they sum to ${Number(sum.toPrecision(12))}`);
  }
  return splits;
}

/** The position of a problem on [0, 1): 48 bits of its keyed hash (exact in a double). */
export function problemPosition(problemId: string, seed: number): number {
  const digest = createHash("sha256").update(`minedit-split\u0000${seed}\u0000${problemId}`, "utf8").digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/** The split of a problem under `splits` (non-empty, weights summing to 1) and `seed`. */
export function assignSplit(problemId: string, splits: readonly SplitWeight[], seed: number): string {
  const u = problemPosition(problemId, seed);
  let cumulative = 0;
  for (const split of splits) {
    cumulative += split.weight;
    if (u < cumulative) return split.name;
  }
  // Rounding can leave the cumulative sum a hair under 1: the last split takes the remainder.
  return (splits[splits.length - 1] as SplitWeight).name;
}
