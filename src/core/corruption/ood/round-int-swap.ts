/**
 * OOD family 12, "Round/Int Swap" (over-editing paper D.2): `round(x)` ↔ `int(x)`.
 *
 * A site is a call of the built-in `round` or `int` (not rebound by the program) with exactly one
 * positional argument; only the name changes. `round(x, n)` and `int(s, base)` are other operations and
 * are left alone, and so is `int` of a string literal (`int("12")`), where `round` could only raise. An
 * `int` of a string held in a variable cannot be told apart from a number and stays a site (the corrupted
 * program then raises TypeError).
 */
import { builtinCallsTo, type CallArguments, calleeSwapSites, onlyPositional } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

const SWAP: Record<string, string> = { round: "int", int: "round" };
const STRING_LITERALS = new Set(["string", "concatenated_string"]);

/** One positional argument that is not a string literal: `round(x, n)`, `int(s, base)` are other operations. */
function isOneNumber(args: CallArguments): boolean {
  return (
    onlyPositional(args, 1) && !args.bareGenerator && !STRING_LITERALS.has(args.positional[0]?.type ?? "")
  );
}

export const roundIntSwap: CorruptionFamily = {
  name: "round_int_swap",
  title: "Round/Int Swap",
  domain: "ood",
  findSites: (root) => calleeSwapSites(root, builtinCallsTo, SWAP, isOneNumber),
};
