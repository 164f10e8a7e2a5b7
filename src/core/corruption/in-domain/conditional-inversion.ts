/**
 * In-domain family 13, "Conditional Inversion" (docs/tasks.md#corruption-families; paper A.1): insert or remove `not` in a
 * condition.
 *
 * Conditions are those of `if`/`elif`/`while`, conditional expressions and comprehension filters
 * ({@link conditionsOf}). Inside one, the family looks at each operand of `and`/`or` (through nested
 * ones, and into parenthesized ones) and:
 * - removes `not` from a `not X` operand (`if not done:` → `if done:`);
 * - inserts `not` before an operand that binds tighter than `not` — a comparison, name, call, attribute,
 *   subscript, literal `True`/`False`, or a parenthesized expression — so exactly that operand is
 *   inverted: `if a and b:` → `if not a and b:` (`not` binds tighter than `and`). A whole `and`/`or`
 *   condition is not inverted: that needs parentheses around it, the operands are the one-token edits.
 * Other operands (a walrus, a lambda, an unparenthesized conditional expression) are left alone.
 */
import type { Node } from "web-tree-sitter";
import { conditionsOf, deleteRange, insertWordBefore, syntaxChildren } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const INVERTIBLE = new Set([
  "comparison_operator",
  "identifier",
  "call",
  "attribute",
  "subscript",
  "true",
  "false",
  "parenthesized_expression",
]);

export const conditionalInversion: CorruptionFamily = {
  name: "conditional_inversion",
  title: "Conditional Inversion",
  domain: "in-domain",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    const visit = (operand: Node): void => {
      if (operand.type === "boolean_operator") {
        for (const side of [operand.childForFieldName("left"), operand.childForFieldName("right")]) {
          if (side !== null) visit(side);
        }
        return;
      }
      if (operand.type === "not_operator") {
        const argument = operand.childForFieldName("argument");
        if (argument !== null) sites.push(deleteRange(operand.startIndex, argument.startIndex));
        return;
      }
      if (INVERTIBLE.has(operand.type)) sites.push(insertWordBefore(operand, source, "not"));
      const inner = operand.type === "parenthesized_expression" ? syntaxChildren(operand)[0] : undefined;
      if (inner?.type === "boolean_operator") visit(inner);
    };
    for (const condition of conditionsOf(root)) visit(condition);
    return sites.sort((a, b) => a.start - b.start);
  },
};
