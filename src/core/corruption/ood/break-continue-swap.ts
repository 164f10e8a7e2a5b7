/**
 * OOD family 5, "Break/Continue Swap" (over-editing paper D.2): `break` ↔ `continue`.
 *
 * A site is a `break` or `continue` statement that belongs to a loop: the nearest enclosing `for` or
 * `while` holds it in its body (not in its `else:` clause, whose `break` belongs to an outer loop), with
 * no function, class or lambda boundary in between. Anywhere else the swapped statement would not compile.
 * Turning a `while True:` loop's only `break` into `continue` makes the program loop forever; that is a
 * real bug the sandbox's time limit reports as a failure, so it is kept.
 */
import type { Node } from "web-tree-sitter";
import { codeNodesOfType, replaceNode } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

const LOOPS = new Set(["for_statement", "while_statement"]);
const SCOPES = new Set(["function_definition", "class_definition", "lambda"]);

export const breakContinueSwap: CorruptionFamily = {
  name: "break_continue_swap",
  title: "Break/Continue Swap",
  domain: "ood",
  findSites(root) {
    return codeNodesOfType(root, "break_statement", "continue_statement")
      .filter(isInLoopBody)
      .map((statement) =>
        replaceNode(statement, statement.type === "break_statement" ? "continue" : "break"),
      );
  },
};

function isInLoopBody(statement: Node): boolean {
  let child = statement;
  for (let up = statement.parent; up !== null; child = up, up = up.parent) {
    if (SCOPES.has(up.type)) return false;
    if (LOOPS.has(up.type) && up.childForFieldName("body")?.equals(child)) return true;
  }
  return false;
}
