/**
 * In-domain family 10, "Boolean Constants" (docs/tasks.md#corruption-families; paper A.1): flip a boolean literal, `True`↔`False`.
 * Every `True`/`False` in code is a site (keyword arguments, defaults, returns, `while True:` alike);
 * one token changes.
 */
import { codeNodesOfType, replaceNode } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

export const booleanConstants: CorruptionFamily = {
  name: "boolean_constants",
  title: "Boolean Constants",
  domain: "in-domain",
  findSites(root) {
    return codeNodesOfType(root, "true", "false").map((node) =>
      replaceNode(node, node.type === "true" ? "False" : "True"),
    );
  },
};
