/**
 * Small helpers over tree-sitter nodes, shared by the converters that turn tree-sitter-python's concrete
 * syntax tree into CPython's AST. tree-sitter is permissive where CPython is not, so every converter
 * rejects what CPython 3.11 rejects by calling `reject`.
 */
import type { Node } from "web-tree-sitter";
import { PySyntaxError } from "./syntax-error.js";

/** Children that carry syntax: comments and backslash continuations are "extras" that can appear anywhere. */
export function childrenOf(node: Node): Node[] {
  const out: Node[] = [];
  for (const child of node.children) {
    if (child !== null && child.type !== "comment" && child.type !== "line_continuation") out.push(child);
  }
  return out;
}

/** Named children without extras. */
export function namedChildrenOf(node: Node): Node[] {
  const out: Node[] = [];
  for (const child of node.namedChildren) {
    if (child !== null && child.type !== "comment" && child.type !== "line_continuation") out.push(child);
  }
  return out;
}

export function field(node: Node, name: string): Node | null {
  return node.childForFieldName(name);
}

export function requiredField(node: Node, name: string): Node {
  const child = node.childForFieldName(name);
  if (child === null) reject(node, `missing ${name} in ${node.type}`);
  return child;
}

/** Whether an anonymous token (e.g. `async`, `,`, `*`) is among the node's direct children. */
export function hasToken(node: Node, token: string): boolean {
  for (const child of node.children)
    if (child !== null && !child.isNamed && child.type === token) return true;
  return false;
}

export function reject(node: Node, message: string): never {
  throw new PySyntaxError(
    `invalid syntax: ${message} at line ${node.startPosition.row + 1}`,
    node.startIndex,
  );
}
