/**
 * In-domain family 9, "Copy Removal" (docs/tasks.md#corruption-families; paper A.1): drop a copy, so two names share one mutable
 * object ("Remove calls to .copy() methods, altering reference semantics").
 *
 * Sites, each replaced by the object it copied:
 * - `x.copy()` (any object; keyword arguments such as pandas' `deep=True` allowed) → `x`: the `.copy(...)`
 *   suffix is deleted;
 * - `x[:]` read as a value → `x` (not `x[:] = ...` or `del x[:]`, which write into the list in place);
 * - `list(x)` with `x` a name or attribute → `x`: the copying idiom (`list(range(n))`, `list(map(...))`
 *   convert rather than copy, and a call argument keeps them out);
 * - `copy.copy(x)` / `copy.deepcopy(x)` with the `copy` module imported, and bare `copy(x)` / `deepcopy(x)`
 *   imported from it, → `x` (parenthesized when `x` is not a primary).
 */
import type { Node } from "web-tree-sitter";
import {
  builtinCallsTo,
  callsTo,
  codeNodesOfType,
  deleteRange,
  methodCallsTo,
  nodesOfType,
  onlyPositional,
  replaceNode,
  syntaxChildren,
  unwrapCallSite,
} from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const copyRemoval: CorruptionFamily = {
  name: "copy_removal",
  title: "Copy Removal",
  domain: "in-domain",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    const fromCopy = namesImportedFromCopy(root);
    for (const found of methodCallsTo(root, ["copy", "deepcopy"])) {
      const { call, args } = found;
      const object = call.childForFieldName("function")?.childForFieldName("object") ?? null;
      if (object === null) continue;
      if (object.type === "identifier" && object.text === "copy" && fromCopy.module) {
        const site = unwrapCallSite(found, source);
        if (site !== null) sites.push(site);
      } else if (call.childForFieldName("function")?.childForFieldName("attribute")?.text === "copy") {
        if (args.positional.length === 0 && !args.hasSplat)
          sites.push(deleteRange(object.endIndex, call.endIndex));
      }
    }
    for (const found of callsTo(root, [...fromCopy.functions])) {
      const site = unwrapCallSite(found, source);
      if (site !== null) sites.push(site);
    }
    for (const { call, args } of builtinCallsTo(root, ["list"])) {
      const [copied] = args.positional;
      if (onlyPositional(args, 1) && (copied?.type === "identifier" || copied?.type === "attribute")) {
        sites.push(replaceNode(call, copied.text));
      }
    }
    for (const subscript of codeNodesOfType(root, "subscript")) {
      const value = subscript.childForFieldName("value");
      const indices = subscript.childrenForFieldName("subscript");
      const [whole] = indices;
      const isWholeSlice =
        indices.length === 1 && whole?.type === "slice" && syntaxChildren(whole).length === 0;
      if (value !== null && isWholeSlice && !isWritten(subscript)) {
        sites.push(deleteRange(value.endIndex, subscript.endIndex));
      }
    }
    return sites.sort((a, b) => a.start - b.start);
  },
};

/** Whether `import copy` is there, and which of `copy`/`deepcopy` are imported bare from it (by local name). */
function namesImportedFromCopy(root: Node): { module: boolean; functions: Set<string> } {
  const found = { module: false, functions: new Set<string>() };
  for (const statement of nodesOfType(root, "import_statement", "import_from_statement")) {
    if (statement.type === "import_statement") {
      found.module ||= statement.childrenForFieldName("name").some((name) => name?.text === "copy");
      continue;
    }
    if (statement.childForFieldName("module_name")?.text !== "copy") continue;
    for (const name of statement.childrenForFieldName("name")) {
      const imported = name?.type === "aliased_import" ? name.childForFieldName("name")?.text : name?.text;
      const local = name?.type === "aliased_import" ? name.childForFieldName("alias")?.text : name?.text;
      if ((imported === "copy" || imported === "deepcopy") && local !== undefined) found.functions.add(local);
    }
  }
  return found;
}

/** Whether the subscript is written to (an assignment target or `del`), not read. */
function isWritten(subscript: Node): boolean {
  let node = subscript;
  for (let up = subscript.parent; up !== null; node = up, up = up.parent) {
    if (up.type === "delete_statement") return true;
    if (up.type === "assignment" || up.type === "augmented_assignment" || up.type === "for_statement") {
      return up.childForFieldName("left")?.equals(node) ?? false;
    }
    if (!["pattern_list", "tuple_pattern", "list_pattern", "expression_list"].includes(up.type)) return false;
  }
  return false;
}
