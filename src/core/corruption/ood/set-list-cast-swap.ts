/**
 * OOD family 11, "Set/List Cast Swap" (over-editing paper D.2): `set(x)` ↔ `list(x)`.
 *
 * A site is a call of the built-in `set` or `list` (not rebound by the program) with exactly one
 * positional argument (a cast); only the name changes. The empty constructors `set()` / `list()` are not
 * casts and are left alone (starting a collection with the wrong type is accumulator initialization, an
 * in-domain family).
 */
import { builtinCallsTo, calleeSwapSites, onlyPositional } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

const SWAP: Record<string, string> = { set: "list", list: "set" };

export const setListCastSwap: CorruptionFamily = {
  name: "set_list_cast_swap",
  title: "Set/List Cast Swap",
  domain: "ood",
  findSites: (root) => calleeSwapSites(root, builtinCallsTo, SWAP, (args) => onlyPositional(args, 1)),
};
