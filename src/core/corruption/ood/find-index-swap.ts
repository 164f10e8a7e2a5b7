/**
 * OOD family 14, "Find/Index Swap" (over-editing paper D.2): `s.find(...)` ↔ `s.index(...)`.
 *
 * A site is a method call named `find`, `index`, `rfind` or `rindex` with one to three positional
 * arguments (`sub[, start[, end]]`) and nothing else; `rfind` ↔ `rindex` is the same swap from the right.
 * The swap turns "-1 when absent" into "ValueError when absent" and back. A list's `.index` cannot be
 * told apart from a string's and stays a site (the corrupted program then raises AttributeError).
 */
import { calleeSwapSites, methodCallsTo, onlyPositional } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

const SWAP: Record<string, string> = { find: "index", index: "find", rfind: "rindex", rindex: "rfind" };

export const findIndexSwap: CorruptionFamily = {
  name: "find_index_swap",
  title: "Find/Index Swap",
  domain: "ood",
  findSites: (root) =>
    calleeSwapSites(root, methodCallsTo, SWAP, (args) => onlyPositional(args, 1, 3) && !args.bareGenerator),
};
