/**
 * OOD family 15, "Any/All Swap" (over-editing paper D.2): `any(...)` ↔ `all(...)`.
 *
 * A site is a call of the bare name `any` or `all` with exactly one positional argument (an iterable or
 * a bare generator), when the program does not rebind the name; only the name changes.
 */
import { builtinCallsTo, calleeSwapSites, onlyPositional } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

const SWAP: Record<string, string> = { any: "all", all: "any" };

export const anyAllSwap: CorruptionFamily = {
  name: "any_all_swap",
  title: "Any/All Swap",
  domain: "ood",
  findSites: (root) => calleeSwapSites(root, builtinCallsTo, SWAP, (args) => onlyPositional(args, 1)),
};
