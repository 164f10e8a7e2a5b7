/**
 * In-domain family 1, "Comparison Operators" (docs/tasks.md#corruption-families; over-editing paper A.1): swap a relational operator
 * with its non-strict/strict or equality partner, `<`↔`<=`, `>`↔`>=`, `==`↔`!=`.
 *
 * Every operator of a comparison is a site, so the chain `a < b <= c` has two. Only these six operators:
 * `in`/`not in` and `is`/`is not` are membership and identity tests, not the relational swaps the paper
 * lists (and `==`↔`is` is the held-out "None comparison" family). One token changes.
 */
import { codeNodesOfType, replaceNode } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const PARTNER: Readonly<Record<string, string>> = {
  "<": "<=",
  "<=": "<",
  ">": ">=",
  ">=": ">",
  "==": "!=",
  "!=": "==",
};

export const comparisonOperators: CorruptionFamily = {
  name: "comparison_operators",
  title: "Comparison Operators",
  domain: "in-domain",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    for (const comparison of codeNodesOfType(root, "comparison_operator")) {
      for (const operator of comparison.childrenForFieldName("operators")) {
        const partner = operator === null ? undefined : PARTNER[operator.type];
        if (operator !== null && partner !== undefined) sites.push(replaceNode(operator, partner));
      }
    }
    return sites;
  },
};
