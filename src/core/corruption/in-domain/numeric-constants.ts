/**
 * In-domain family 11, "Numeric Constants" (docs/tasks.md#corruption-families; paper A.1): adjust a number, integers by ±1 and
 * floats by ±0.1.
 *
 * Every integer and float literal in code is a site in each direction (one token changes), spelled like
 * the original ({@link shiftIntegerLiteral}: `0x1F` → `0x20`, `1_000` → `1_001`; {@link shiftFloatLiteral}:
 * `0.25` → `0.35`, computed in decimal). A literal never goes below zero, and a negated one (`-1`,
 * `-0.5`) never reaches zero, so the sign of the written number never flips (`-0` would only be an odd
 * spelling of `0`). Skipped: imaginary literals, floats with an exponent (`1e-9` is a tolerance or a
 * scale, where ±0.1 is not a small nudge), and literals inside f-string fields (as for all families).
 */
import type { Node } from "web-tree-sitter";
import { codeNodesOfType, replaceNode, shiftFloatLiteral, shiftIntegerLiteral } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const numericConstants: CorruptionFamily = {
  name: "numeric_constants",
  title: "Numeric Constants",
  domain: "in-domain",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    for (const literal of codeNodesOfType(root, "integer", "float")) {
      const shift = literal.type === "integer" ? shiftIntegerLiteral : shiftFloatLiteral;
      for (const delta of [1, -1]) {
        const shifted = shift(literal.text, delta);
        if (shifted !== null && !(isNegated(literal) && isZero(shifted)))
          sites.push(replaceNode(literal, shifted));
      }
    }
    return sites;
  },
};

function isNegated(literal: Node): boolean {
  const parent = literal.parent;
  return parent?.type === "unary_operator" && parent.childForFieldName("operator")?.type === "-";
}

function isZero(spelled: string): boolean {
  return /^(0[xXoObB])?[0_.]*$/.test(spelled);
}
