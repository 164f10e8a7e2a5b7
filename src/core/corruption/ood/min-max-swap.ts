/**
 * OOD family 1, "Min/Max Swap" (over-editing paper D.2): swap the built-ins `min` and `max`.
 *
 * A site is a call of the bare name `min` or `max` with at least one argument (`min()` is a TypeError
 * anyway); only the callee name changes, so `max(a, key=f)` becomes `min(a, key=f)`. Method calls
 * (`x.max()`) are not the built-ins and are left alone, and so are calls of a `min`/`max` the program
 * binds itself (a `def max`, an import, an assignment).
 */
import { builtinCallsTo, type CallArguments, calleeSwapSites } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

const SWAP: Record<string, string> = { min: "max", max: "min" };

/** `min()` and `max()` with no argument raise TypeError whichever is called. */
function hasArguments(args: CallArguments): boolean {
  return args.positional.length + args.keywords.length > 0 || args.hasSplat;
}

export const minMaxSwap: CorruptionFamily = {
  name: "min_max_swap",
  title: "Min/Max Swap",
  domain: "ood",
  findSites: (root) => calleeSwapSites(root, builtinCallsTo, SWAP, hasArguments),
};
