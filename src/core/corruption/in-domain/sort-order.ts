/**
 * In-domain family 3, "Sort Order" (docs/tasks.md#corruption-families; paper A.1): invert a sort, `reverse=True`↔`reverse=False`.
 *
 * Sites are calls of the built-in `sorted(...)` and of any `.sort(...)` method:
 * - with a literal `reverse=True`/`reverse=False`: the literal flips (one token);
 * - without a `reverse` argument: `reverse=True` is added after the last argument (`sorted(xs, key=f)` →
 *   `sorted(xs, key=f, reverse=True)`), the paper's toggle from the implicit `False`;
 * - a computed `reverse=flag`, a `**kwargs` that might carry one, and `sorted(x for x in y)` (adding an
 *   argument would need the generator parenthesized) are left alone.
 */
import type { Node } from "web-tree-sitter";
import {
  builtinCallsTo,
  insertAfter,
  keywordArgument,
  methodCallsTo,
  replaceNode,
  syntaxChildren,
} from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const FLIP: Readonly<Record<string, string>> = { true: "False", false: "True" };

export const sortOrder: CorruptionFamily = {
  name: "sort_order",
  title: "Sort Order",
  domain: "in-domain",
  findSites(root) {
    const calls = [...builtinCallsTo(root, ["sorted"]), ...methodCallsTo(root, ["sort"])];
    calls.sort((a, b) => a.call.startIndex - b.call.startIndex);
    const sites: CorruptionSite[] = [];
    for (const { call, args } of calls) {
      const reverse = keywordArgument(args, "reverse")?.childForFieldName("value") ?? null;
      if (reverse !== null) {
        const flipped = FLIP[reverse.type];
        if (flipped !== undefined) sites.push(replaceNode(reverse, flipped));
        continue;
      }
      if (args.hasSplat || args.bareGenerator) continue;
      const list = call.childForFieldName("arguments");
      const last = list === null ? undefined : syntaxChildren(list).at(-1);
      if (last !== undefined) sites.push(insertAfter(last, ", reverse=True"));
      // `xs.sort()` takes no positional argument, so `reverse=True` alone is a valid call; `sorted()` is not.
      else if (list !== null && isMethodCall(call)) {
        sites.push({ start: list.startIndex + 1, end: list.startIndex + 1, replacement: "reverse=True" });
      }
    }
    return sites;
  },
};

function isMethodCall(call: Node): boolean {
  return call.childForFieldName("function")?.type === "attribute";
}
