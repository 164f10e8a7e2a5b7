/**
 * OOD family 19, "Dict Iteration Variant" (over-editing paper D.2): swap `.items()`, `.keys()` and
 * `.values()` where the view is iterated.
 *
 * A site is a method call `.items()`, `.keys()` or `.values()` without arguments whose result is iterated:
 * the iterable of a `for` statement or of a comprehension's `for` clause, or a positional argument of a
 * built-in (not rebound by the program) that consumes an iterable (`list`, `tuple`, `set`, `frozenset`,
 * `sorted`, `reversed`, `sum`, `min`, `max`, `any`, `all`, `enumerate`, `zip`, `iter`, `map`, `filter`).
 * Membership tests (`k in d.keys()`) and `len(d.keys())` (the same for every view) are not iteration
 * here. Swaps: `keys` ↔ `values`, and `items` → `keys` or `values` (two sites; nothing turns into `items`,
 * whose pairs would rarely fit code written for single values).
 */
import type { Node } from "web-tree-sitter";
import { isBuiltinName, methodCallsTo, onlyPositional, replaceNode } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const SWAPS: Record<string, string[]> = { items: ["keys", "values"], keys: ["values"], values: ["keys"] };
const CONSUMERS = new Set([
  "list",
  "tuple",
  "set",
  "frozenset",
  "sorted",
  "reversed",
  "sum",
  "min",
  "max",
  "any",
  "all",
  "enumerate",
  "zip",
  "iter",
  "map",
  "filter",
]);

export const dictIterationVariant: CorruptionFamily = {
  name: "dict_iteration_variant",
  title: "Dict Iteration Variant",
  domain: "ood",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    for (const { call, name, args } of methodCallsTo(root, Object.keys(SWAPS))) {
      if (!onlyPositional(args, 0) || !isIterated(root, call)) continue;
      for (const swap of SWAPS[name.text] ?? []) sites.push(replaceNode(name, swap));
    }
    return sites;
  },
};

function isIterated(root: Node, call: Node): boolean {
  const parent = call.parent;
  if (parent === null) return false;
  if (parent.type === "for_statement" || parent.type === "for_in_clause") {
    return parent.childForFieldName("right")?.equals(call) ?? false;
  }
  const consumer = parent.type === "argument_list" ? parent.parent : null;
  const callee = consumer?.childForFieldName("function");
  return callee?.type === "identifier" && CONSUMERS.has(callee.text) && isBuiltinName(root, callee.text);
}
