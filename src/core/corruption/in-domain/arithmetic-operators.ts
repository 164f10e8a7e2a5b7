/**
 * In-domain family 5, "Arithmetic Operators" (docs/tasks.md#corruption-families; paper A.1): substitute an arithmetic operator,
 * `+`↔`-`, `*`↔`//`, `/`↔`*`.
 *
 * Sites are the operators of binary expressions and of augmented assignments (`+=`↔`-=` and so on):
 * `+` → `-`, `-` → `+`, `*` → `//` and `*` → `/` (two sites), `//` → `*`, `/` → `*`. One token changes.
 * An operation with an operand that visibly is a string or sequence ({@link isVisiblySequence}: a literal,
 * a slice, `str(...)`, `"".join(...)`...) is left alone: there `+` and `*` concatenate or repeat, and
 * `"-" * 3` → `"-" // 3` is a type error on sight, not the numeric slip the family models.
 */
import { codeNodesOfType, isVisiblySequence, replaceNode } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const SUBSTITUTES: Readonly<Record<string, readonly string[]>> = {
  "+": ["-"],
  "-": ["+"],
  "*": ["//", "/"],
  "//": ["*"],
  "/": ["*"],
};

export const arithmeticOperators: CorruptionFamily = {
  name: "arithmetic_operators",
  title: "Arithmetic Operators",
  domain: "in-domain",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    for (const node of codeNodesOfType(root, "binary_operator", "augmented_assignment")) {
      const operator = node.childForFieldName("operator");
      if (operator === null || isVisiblySequence(node.childForFieldName("right"))) continue;
      if (node.type === "binary_operator" && isVisiblySequence(node.childForFieldName("left"))) continue;
      // An augmented operator is the binary one followed by `=`.
      const augmented = node.type === "augmented_assignment";
      const base = augmented ? operator.type.slice(0, -1) : operator.type;
      for (const substitute of SUBSTITUTES[base] ?? []) {
        sites.push(replaceNode(operator, augmented ? `${substitute}=` : substitute));
      }
    }
    return sites;
  },
};
