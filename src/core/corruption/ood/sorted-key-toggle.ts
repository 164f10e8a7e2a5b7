/**
 * OOD family 10, "Sorted Key Toggle" (over-editing paper D.2): add or remove a `key=` argument of
 * `sorted(...)` or `xs.sort(...)`.
 *
 * - A call whose `key=` is a name or a dotted name (`key=len`, `key=str.lower`, `key=counts.get`) loses
 *   it, with the comma that separated it. A lambda or call key is not removed: the paper's family toggles
 *   `key=len`, and restoring a lambda would be a gold patch of a dozen tokens, far from the one-or-two-token
 *   repairs its tasks have (paper A.2).
 * - A call without one gains `key=len` after its last argument (`sorted(words)` → `sorted(words, key=len)`,
 *   `xs.sort()` → `xs.sort(key=len)`); a bare generator argument gets its own parentheses first, as
 *   Python requires (`sorted(w for w in ws)` → `sorted((w for w in ws), key=len)`).
 * Sites: calls of the built-in `sorted` (not rebound by the program) with at least one positional
 * argument, and method calls `.sort` with none (list.sort takes keywords only). Calls with `*args` or
 * `**kwargs` are skipped: a `key` may hide in them.
 */
import type { Node } from "web-tree-sitter";
import {
  builtinCallsTo,
  deleteRange,
  type FoundCall,
  insertAfter,
  keywordArgument,
  methodCallsTo,
  replaceNode,
} from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const sortedKeyToggle: CorruptionFamily = {
  name: "sorted_key_toggle",
  title: "Sorted Key Toggle",
  domain: "ood",
  findSites(root, source) {
    const calls = [
      ...builtinCallsTo(root, ["sorted"]).filter(({ args }) => args.positional.length > 0),
      ...methodCallsTo(root, ["sort"]).filter(({ args }) => args.positional.length === 0),
    ].sort((a, b) => a.call.startIndex - b.call.startIndex);
    const sites: CorruptionSite[] = [];
    for (const found of calls) {
      if (found.args.hasSplat) continue;
      const key = keywordArgument(found.args, "key");
      if (key === null) sites.push(addedKey(found, source));
      else if (isDottedName(key.childForFieldName("value"))) sites.push(removedArgument(found, key));
    }
    return sites;
  },
};

function addedKey({ call, args }: FoundCall, source: string): CorruptionSite {
  const list = call.childForFieldName("arguments");
  if (list === null) throw new Error("a call node always has arguments");
  if (args.bareGenerator)
    return replaceNode(list, `(${source.slice(list.startIndex, list.endIndex)}, key=len)`);
  const last = [...args.positional, ...args.keywords].sort((a, b) => b.endIndex - a.endIndex)[0];
  if (last === undefined)
    return { start: list.startIndex + 1, end: list.startIndex + 1, replacement: "key=len" };
  return insertAfter(last, ", key=len");
}

/**
 * Removes `argument` with one comma next to it: the one before it, else the one after it (a first argument
 * followed by others, or a sole argument with a trailing comma, `xs.sort(key=f,)`).
 */
function removedArgument({ call, args }: FoundCall, argument: Node): CorruptionSite {
  const all = [...args.positional, ...args.keywords].sort((a, b) => a.startIndex - b.startIndex);
  const index = all.findIndex((node) => node.equals(argument));
  const before = all[index - 1];
  if (before !== undefined) return deleteRange(before.endIndex, argument.endIndex);
  const end = all[index + 1]?.startIndex ?? call.childForFieldName("arguments")?.lastChild?.startIndex;
  return deleteRange(argument.startIndex, end ?? argument.endIndex);
}

function isDottedName(node: Node | null): boolean {
  if (node?.type === "identifier") return true;
  return node?.type === "attribute" && isDottedName(node.childForFieldName("object"));
}
