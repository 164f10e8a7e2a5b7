/**
 * Which modules a Python program imports, from its AST (src/core/python/ast.ts): what tells the task
 * runtime a program needs (src/sandbox/runtime-for-libraries.ts), for the importers and for inline tasks
 * alike.
 */
import type { Module, Stmt } from "./ast.js";

/**
 * Calls `visit` on every AST node under `node` (objects with a string `type`), parents before children,
 * fields in declaration order (so the callee of a call comes before its arguments).
 */
export function walkAst(node: unknown, visit: (node: { type: string }) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walkAst(item, visit);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (typeof record.type === "string") visit(record as { type: string });
  for (const [key, value] of Object.entries(record)) {
    // Constant values are tagged unions ({kind, value}), never nodes.
    if (key !== "type" && !(record.type === "Constant" && key === "value")) walkAst(value, visit);
  }
}

/** Top-level module names imported anywhere in the module (relative imports excluded), sorted. */
export function importedModules(module: Module): string[] {
  const found = new Set<string>();
  walkAst(module, (node) => {
    const s = node as Stmt;
    if (s.type === "Import") for (const alias of s.names) found.add(alias.name.split(".")[0] ?? alias.name);
    else if (s.type === "ImportFrom" && s.level === 0 && s.module !== null)
      found.add(s.module.split(".")[0] ?? s.module);
  });
  return [...found].sort();
}
