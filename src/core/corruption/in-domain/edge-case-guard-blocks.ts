/**
 * "Edge Case Guard Blocks": the whole-statement variants of in-domain family 6 (docs/tasks.md#corruption-families, "add, alter or
 * remove a guard"), which insert or delete an entire guard. The `in-domain` group's `edge_case_guards`
 * makes the token-level edits the over-editing paper's gold patches imply (Tables 8–9: 1.63 token edits on
 * average); the larger guard edits stay available two ways:
 * - `edge_case_guard_blocks`, named with `--families` (e.g. `--families in-domain,edge_case_guard_blocks`):
 *   the insertions and removals below as a family of their own;
 * - `--mix blocks` (registry.ts): `edge_case_guards` becomes {@link edgeCaseGuardsWithBlocks}, the family
 *   as it was before it became token-level (a one-token negation of a guard, plus these insertions and
 *   removals), drawn uniformly as the engine always drew: task sets built before the paper mix existed
 *   rebuild byte for byte with it.
 *
 * A guard here is an `if` without `elif`/`else` whose body is a single early exit (`return`, `raise`,
 * `continue` or `break`), e.g. `if not items: return []`. Each gives:
 * - remove: the whole guard statement is deleted, all its lines (only when no other code shares them and
 *   the guard is not alone in its block).
 * Added guards are the edge case a defensive rewrite invents:
 * - at the top of a function body (after its docstring), `if not <first parameter>: return None`, the first
 *   parameter other than `self`/`cls`;
 * - at the top of a `for name in ...:` body, `if not name: continue` (skips falsy items).
 * Additions need the body on its own lines; they copy its indentation and the program's line breaks.
 * Removals and additions change the guard's 7–10 tokens, or more for a long condition or exit.
 * The negation of {@link edgeCaseGuardsWithBlocks}: a single comparison takes the opposite operator
 * (`<`↔`>=`, `>`↔`<=`, `==`↔`!=`, `in`↔`not in`, `is`↔`is not`), `not X` loses its `not`, a plain truth
 * test `X` gains one; a chained comparison or an `and`/`or` test is not negated.
 */
import type { Node } from "web-tree-sitter";
import {
  codeNodesOfType,
  deleteRange,
  indentationAt,
  insertBefore,
  insertWordBefore,
  lineBreakOf,
  replaceNode,
  statementLines,
  syntaxChildren,
} from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";
import { EARLY_EXITS } from "./edge-case-guards.js";

export const edgeCaseGuardBlocks: CorruptionFamily = {
  name: "edge_case_guard_blocks",
  title: "Edge Case Guard Blocks",
  domain: "in-domain",
  findSites(root, source) {
    return blockSites(root, source, false);
  },
};

/**
 * `edge_case_guards` as it was before it became token-level (`--mix blocks`): same name and title, so
 * its rows record the family they always did.
 */
export const edgeCaseGuardsWithBlocks: CorruptionFamily = {
  name: "edge_case_guards",
  title: "Edge Case Guards",
  domain: "in-domain",
  findSites(root, source) {
    return blockSites(root, source, true);
  },
};

/** Removals and additions in source order; with `negate`, each guard's negation before its removal. */
function blockSites(root: Node, source: string, negate: boolean): CorruptionSite[] {
  const sites: CorruptionSite[] = [];
  for (const node of codeNodesOfType(root, "if_statement", "function_definition", "for_statement")) {
    if (node.type === "if_statement") {
      if (!isGuard(node)) continue;
      if (negate) {
        const negation = negationSite(node.childForFieldName("condition"), source);
        if (negation !== null) sites.push(negation);
      }
      // A guard alone in its block cannot go: the block would be empty.
      const lines = statementLines(node, source);
      const alone = node.parent !== null && syntaxChildren(node.parent).length === 1;
      if (lines !== null && !alone) sites.push(deleteRange(lines.start, lines.end));
    } else {
      const added =
        node.type === "function_definition" ? functionGuard(node, source) : loopGuard(node, source);
      if (added !== null) sites.push(added);
    }
  }
  return sites;
}

const NEGATED: Readonly<Record<string, string>> = {
  "<": ">=",
  ">=": "<",
  ">": "<=",
  "<=": ">",
  "==": "!=",
  "!=": "==",
  in: "not in",
  "not in": "in",
  is: "is not",
  "is not": "is",
};

/** Truth tests that `not X` negates as a whole (they bind tighter than `not`). */
const NEGATABLE = new Set(["identifier", "call", "attribute", "subscript", "parenthesized_expression"]);

/** A guard's condition negated in one token (see the module comment), or null. */
function negationSite(condition: Node | null, source: string): CorruptionSite | null {
  if (condition === null) return null;
  if (condition.type === "comparison_operator") {
    const operators = condition.childrenForFieldName("operators");
    const [operator] = operators;
    const negated = operator == null ? undefined : NEGATED[operator.type];
    return operators.length === 1 && operator != null && negated !== undefined
      ? replaceNode(operator, negated)
      : null;
  }
  if (condition.type === "not_operator") {
    const argument = condition.childForFieldName("argument");
    return argument === null ? null : deleteRange(condition.startIndex, argument.startIndex);
  }
  return NEGATABLE.has(condition.type) ? insertWordBefore(condition, source, "not") : null;
}

function isGuard(statement: Node): boolean {
  if (statement.childrenForFieldName("alternative").some((clause) => clause !== null)) return false;
  const body = statement.childForFieldName("consequence");
  const inner = body === null ? [] : syntaxChildren(body);
  return inner.length === 1 && EARLY_EXITS.has(inner[0]?.type ?? "");
}

/** `if not <param>: return None` before the first statement of a function body. */
function functionGuard(definition: Node, source: string): CorruptionSite | null {
  const parameter = firstParameter(definition.childForFieldName("parameters"));
  const body = definition.childForFieldName("body");
  if (parameter === null || body === null) return null;
  const statements = syntaxChildren(body);
  const first = isDocstring(statements[0]) ? statements[1] : statements[0];
  return first === undefined ? null : guardBefore(first, source, `if not ${parameter}:`, "return None");
}

/** `if not <item>: continue` before the first statement of a `for item in ...:` body. */
function loopGuard(loop: Node, source: string): CorruptionSite | null {
  const target = loop.childForFieldName("left");
  const body = loop.childForFieldName("body");
  const first = body === null ? undefined : syntaxChildren(body)[0];
  if (target?.type !== "identifier" || target.text === "_" || first === undefined) return null;
  return guardBefore(first, source, `if not ${target.text}:`, "continue");
}

/** Inserts `header` + an indented `exit` line before `statement`, which must start its own line. */
function guardBefore(statement: Node, source: string, header: string, exit: string): CorruptionSite | null {
  const indent = indentationAt(source, statement.startIndex);
  // A body on the `def`/`for` line itself (`def f(x): return x`) has no line to put a guard on.
  if (indent === null) return null;
  const step = indent.includes("\t") ? "\t" : "    ";
  const lineBreak = lineBreakOf(source);
  return insertBefore(statement, `${header}${lineBreak}${indent}${step}${exit}${lineBreak}${indent}`);
}

function firstParameter(parameters: Node | null): string | null {
  for (const parameter of parameters === null ? [] : syntaxChildren(parameters)) {
    const name =
      parameter.type === "identifier"
        ? parameter
        : parameter.type === "default_parameter" || parameter.type === "typed_default_parameter"
          ? parameter.childForFieldName("name")
          : parameter.type === "typed_parameter"
            ? parameter.namedChildren[0]
            : null;
    if (name?.type !== "identifier") return null; // `*args`, `**kwargs`, a bare `*` or `/`: stop looking
    if (name.text !== "self" && name.text !== "cls") return name.text;
  }
  return null;
}

function isDocstring(statement: Node | undefined): boolean {
  if (statement?.type !== "expression_statement") return false;
  const parts = syntaxChildren(statement);
  return parts.length === 1 && (parts[0]?.type === "string" || parts[0]?.type === "concatenated_string");
}
