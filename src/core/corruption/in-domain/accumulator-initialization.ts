/**
 * In-domain family 4, "Accumulator Initialization" (docs/tasks.md#corruption-families; paper A.1): start an accumulator from the
 * wrong value, `0`→`1`, `[]`→`[0]`.
 *
 * An accumulator is a variable given an initial value by a plain `name = INIT` statement and then updated
 * inside a `for`/`while` loop found in a later statement of the same block (the loop may sit inside an
 * `if`/`with`/`try`). "Updated" means, within the loop: `name OP= ...`, `name = <expression using name>`,
 * `name[k] = ...` / `name[k] OP= ...`, or a method call `name.m(...)` (`append`, `add`, `update`...).
 * A variable tested by a `while` condition is that loop's counter, not an accumulator, and is skipped.
 * The initial values and what they become (the smallest edit that makes the start visibly wrong):
 * - `0` → `1`, `0.0` → `1.0` (any spelling of zero);
 * - `1` → `0` when the loop multiplies (`name *= ...`): a product accumulator's neutral start;
 * - `[]` / `list()` → `[0]`, `{}` / `dict()` → `{0: 0}`, `set()` → `{0}`: one stray element;
 * - `""` → `" "` (same quotes and prefix; triple-quoted strings are left alone).
 */
import type { Node } from "web-tree-sitter";
import { codeNodesOfType, isBuiltinName, nodesOfType, replaceNode, syntaxChildren } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const accumulatorInitialization: CorruptionFamily = {
  name: "accumulator_initialization",
  title: "Accumulator Initialization",
  domain: "in-domain",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    for (const block of [root, ...codeNodesOfType(root, "block")]) {
      const statements = syntaxChildren(block);
      statements.forEach((statement, index) => {
        const assignment =
          statement.type === "expression_statement" ? syntaxChildren(statement)[0] : undefined;
        if (assignment?.type !== "assignment") return;
        const name = assignment.childForFieldName("left");
        const value = assignment.childForFieldName("right");
        if (name?.type !== "identifier" || value === null) return;
        const loops = statements
          .slice(index + 1)
          .flatMap((later) => nodesOfType(later, "for_statement", "while_statement"));
        // `i = 0` ... `while i < n: i += 1` is the loop's counter, not something it accumulates.
        if (loops.some((loop) => isTestedBy(loop, name.text))) return;
        const updates = loops.flatMap((loop) => updatesOf(loop, name.text));
        if (updates.length === 0) return;
        const replacement = corruptedStart(root, value, updates);
        if (replacement !== null) sites.push(replaceNode(value, replacement));
      });
    }
    return sites;
  },
};

/** The nodes inside `loop` that update the variable `name` (see the module comment). */
function updatesOf(loop: Node, name: string): Node[] {
  const isName = (node: Node | null) => node?.type === "identifier" && node.text === name;
  const isNameOrItem = (node: Node | null) =>
    isName(node) || (node?.type === "subscript" && isName(node.childForFieldName("value")));
  return nodesOfType(loop, "augmented_assignment", "assignment", "call").filter((node) => {
    if (node.type === "augmented_assignment") return isNameOrItem(node.childForFieldName("left"));
    if (node.type === "assignment") {
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      if (left?.type === "subscript") return isNameOrItem(left);
      return isName(left) && right !== null && nodesOfType(right, "identifier").some(isName);
    }
    const callee = node.childForFieldName("function");
    return callee?.type === "attribute" && isName(callee.childForFieldName("object"));
  });
}

/** What the initial value `value` becomes, or null when it is not an accumulator start this family knows. */
function corruptedStart(root: Node, value: Node, updates: Node[]): string | null {
  switch (value.type) {
    case "integer":
      if (/^0[0_]*$|^0[xXoObB]0*$/.test(value.text)) return "1";
      return value.text === "1" && updates.some(isMultiplication) ? "0" : null;
    case "float":
      return /^0*\.0*$/.test(value.text) ? "1.0" : null;
    case "list":
      return syntaxChildren(value).length === 0 ? "[0]" : null;
    case "dictionary":
      return syntaxChildren(value).length === 0 ? "{0: 0}" : null;
    case "string": {
      // An empty, non-triple-quoted literal: string_start and string_end only, e.g. `""`, `b''`.
      const start = value.namedChildren[0];
      if (syntaxChildren(value).length !== 2 || start == null || /"""|'''/.test(start.text)) return null;
      return `${start.text} ${start.text.slice(-1)}`;
    }
    case "call": {
      const callee = value.childForFieldName("function");
      const empty = syntaxChildren(value.childForFieldName("arguments") ?? value).length === 0;
      if (callee?.type !== "identifier" || !empty || !isBuiltinName(root, callee.text)) return null;
      return { list: "[0]", dict: "{0: 0}", set: "{0}" }[callee.text as "list" | "dict" | "set"] ?? null;
    }
    default:
      return null;
  }
}

function isMultiplication(update: Node): boolean {
  return update.type === "augmented_assignment" && update.childForFieldName("operator")?.type === "*=";
}

function isTestedBy(loop: Node, name: string): boolean {
  const condition = loop.type === "while_statement" ? loop.childForFieldName("condition") : null;
  return condition !== null && nodesOfType(condition, "identifier").some((id) => id.text === name);
}
