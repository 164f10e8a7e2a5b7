/**
 * In-domain family 7, "List Indexing" (docs/tasks.md#corruption-families; paper A.1): an off-by-one in a list or array index,
 * `x[i]` → `x[i + 1]` / `x[i - 1]`.
 *
 * A site is the index of a subscript with a single, integer-valued index (not a slice, not `a[i, j]`,
 * not inside a type annotation), shifted by {@link offByOneSites}: `x[0]` → `x[1]`, `x[i + 1]` → `x[i]` /
 * `x[i + 2]`, `x[i]` → `x[i + 1]` / `x[i - 1]`. Negative literal indices (`x[-1]`) are left to the held-out
 * "negative index shift" family, and `0` never becomes `-1` (that would count from the other end).
 *
 * Python cannot tell a list from a dict statically, so the index must *look* like an integer, which keeps
 * `counts[word]` and `row["name"]` out: an integer literal; a call of `len`/`int`/`ord`/`round`; `+ - * //
 * %` arithmetic with such an operand; or a name known to hold an integer — a `for` target over `range(...)`,
 * the counter of `for i, x in enumerate(...)`, a name assigned or incremented with an integer expression,
 * or a conventional index name (`i`, `j`, `k`, `idx`, `index`, `pos`, `mid`, `lo`, `hi`).
 */
import type { Node } from "web-tree-sitter";
import { codeNodesOfType, decimalIntValue, isBuiltinName, offByOneSites, syntaxChildren } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const CONVENTIONAL_INDEX_NAMES = ["i", "j", "k", "idx", "index", "pos", "mid", "lo", "hi"];
const INT_FUNCTIONS = new Set(["len", "int", "ord", "round"]);
const INT_OPERATORS = new Set(["+", "-", "*", "//", "%"]);

export const listIndexing: CorruptionFamily = {
  name: "list_indexing",
  title: "List Indexing",
  domain: "in-domain",
  findSites(root, source) {
    const names = intNames(root);
    const sites: CorruptionSite[] = [];
    for (const subscript of codeNodesOfType(root, "subscript")) {
      const indices = subscript.childrenForFieldName("subscript").filter((index) => index !== null);
      const [index] = indices;
      if (indices.length !== 1 || index === undefined || index.type === "slice" || inAnnotation(subscript))
        continue;
      if (!isIntExpression(root, index, names) || (decimalIntValue(index) ?? 0) < 0) continue;
      sites.push(...offByOneSites(index, source));
    }
    return sites;
  },
};

function isIntExpression(root: Node, node: Node, names: ReadonlySet<string>): boolean {
  switch (node.type) {
    case "integer":
      return !/[jJ]$/.test(node.text);
    case "identifier":
      return names.has(node.text);
    case "unary_operator":
    case "parenthesized_expression": {
      const inner = node.childForFieldName("argument") ?? syntaxChildren(node)[0];
      return inner !== undefined && inner !== null && isIntExpression(root, inner, names);
    }
    case "call": {
      const callee = node.childForFieldName("function");
      return (
        callee?.type === "identifier" && INT_FUNCTIONS.has(callee.text) && isBuiltinName(root, callee.text)
      );
    }
    case "binary_operator": {
      const operator = node.childForFieldName("operator")?.type ?? "";
      const operands = [node.childForFieldName("left"), node.childForFieldName("right")];
      return (
        INT_OPERATORS.has(operator) && operands.some((o) => o !== null && isIntExpression(root, o, names))
      );
    }
    default:
      return false;
  }
}

/** Names that hold integers (see the module comment), gathered in one pass in source order. */
function intNames(root: Node): Set<string> {
  const names = new Set(CONVENTIONAL_INDEX_NAMES);
  for (const node of codeNodesOfType(
    root,
    "for_statement",
    "for_in_clause",
    "assignment",
    "augmented_assignment",
  )) {
    const left = node.childForFieldName("left");
    const right = node.childForFieldName("right");
    if (left === null || right === null) continue;
    if (node.type === "for_statement" || node.type === "for_in_clause") {
      const callee = right.type === "call" ? right.childForFieldName("function")?.text : undefined;
      if (callee === "range" && left.type === "identifier") names.add(left.text);
      const counter = syntaxChildren(left)[0];
      if (callee === "enumerate" && left.type === "pattern_list" && counter?.type === "identifier") {
        names.add(counter.text);
      }
    } else if (left.type === "identifier" && isIntExpression(root, right, names)) {
      names.add(left.text);
    }
  }
  return names;
}

function inAnnotation(node: Node): boolean {
  for (let up = node.parent; up !== null; up = up.parent) if (up.type === "type") return true;
  return false;
}
