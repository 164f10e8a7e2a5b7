/**
 * OOD family 13, "Comprehension Filter Removal" (over-editing paper D.2): drop one `if` clause of a
 * comprehension.
 *
 * Sites: every `if` clause of a list, set or dict comprehension, and of a generator expression (the same
 * `comprehension` construct in Python's grammar, so we include it). Each clause is its own site, removed
 * with the whitespace before it: `[x for x in xs if x > 0]` → `[x for x in xs]`.
 */
import { codeNodesOfType, deleteRange } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const comprehensionFilterRemoval: CorruptionFamily = {
  name: "comprehension_filter_removal",
  title: "Comprehension Filter Removal",
  domain: "ood",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    const comprehensions = codeNodesOfType(
      root,
      "list_comprehension",
      "set_comprehension",
      "dictionary_comprehension",
      "generator_expression",
    );
    for (const comprehension of comprehensions) {
      for (const clause of comprehension.namedChildren) {
        // A clause always follows the `for` clause it filters, so it has a previous sibling.
        const before = clause?.type === "if_clause" ? clause.previousSibling : null;
        if (clause != null && before !== null) {
          sites.push(deleteRange(before.endIndex, clause.endIndex));
        }
      }
    }
    return sites.sort((a, b) => a.start - b.start);
  },
};
