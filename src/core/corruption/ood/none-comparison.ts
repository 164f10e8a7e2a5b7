/**
 * OOD family 20, "None Equality Operator" (over-editing paper D.2): toggle a comparison with `None`
 * between equality and identity: `==` ↔ `is`, `!=` ↔ `is not`.
 *
 * A site is one of those four operators in a comparison where an operand next to it is the literal
 * `None` (either side; each operator of a chain on its own). Spaces are added where a word operator
 * would otherwise touch its operands (`x==None` → `x is None`).
 * For ordinary values `x == None` and `x is None` agree, so most of these corruptions do not change what
 * a program computes and the task builder's "corrupted program must fail" check rejects them; they bite
 * only where `__eq__` is overridden. This is the paper's definition, kept as written.
 */
import { codeNodesOfType } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const SWAP: Record<string, string> = { "==": "is", "!=": "is not", is: "==", "is not": "!=" };

export const noneComparison: CorruptionFamily = {
  name: "none_comparison",
  title: "None Equality Operator",
  domain: "ood",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const comparison of codeNodesOfType(root, "comparison_operator")) {
      // Operands and operators alternate (comments aside): `a < b == None` is a, <, b, ==, None.
      const parts = comparison.children.filter((child) => child !== null && child.type !== "comment");
      parts.forEach((operator, i) => {
        const swapped = operator === null ? undefined : SWAP[operator.type];
        if (operator === null || swapped === undefined) return;
        if (parts[i - 1]?.type !== "none" && parts[i + 1]?.type !== "none") return;
        const spaceBefore = /\s/.test(source[operator.startIndex - 1] ?? " ") ? "" : " ";
        const spaceAfter = /\s/.test(source[operator.endIndex] ?? " ") ? "" : " ";
        sites.push({
          start: operator.startIndex,
          end: operator.endIndex,
          replacement: spaceBefore + swapped + spaceAfter,
        });
      });
    }
    return sites;
  },
};
