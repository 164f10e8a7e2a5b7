/**
 * OOD family 7, "String Case Swap" (over-editing paper D.2): toggle a string case method.
 *
 * A site is a method call with no arguments named one of: `lower` ↔ `upper`, `islower` ↔ `isupper`,
 * `capitalize` ↔ `title`, and `casefold` → `upper` (casefold is the aggressive `lower`, so its opposite is
 * `upper`; `upper` itself maps back to `lower`, the common spelling). `swapcase` has no natural partner and
 * is left alone. A method that is referenced but not called (`key=str.lower`) is not a site.
 */
import { calleeSwapSites, methodCallsTo, onlyPositional } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

const SWAP: Record<string, string> = {
  lower: "upper",
  upper: "lower",
  islower: "isupper",
  isupper: "islower",
  capitalize: "title",
  title: "capitalize",
  casefold: "upper",
};

export const stringCaseSwap: CorruptionFamily = {
  name: "string_case_swap",
  title: "String Case Swap",
  domain: "ood",
  findSites: (root) => calleeSwapSites(root, methodCallsTo, SWAP, (args) => onlyPositional(args, 0)),
};
