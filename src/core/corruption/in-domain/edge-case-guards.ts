/**
 * In-domain family 6, "Edge Case Guards" (docs/tasks.md#corruption-families; paper A.1 "add, modify, or remove edge-case handling
 * conditions"): alter the condition of a guard with a token-level edit, the way the over-editing paper's
 * gold patches need it — 1.63 token edits on average with guards the most frequent family (its Tables 8
 * and 9), so its guard corruptions change a guard's condition or bound, not whole statements. Inserting
 * or deleting whole guards is the separate family `edge_case_guard_blocks` (edge-case-guard-blocks.ts),
 * selectable with `--families`.
 *
 * A guard is an `if` or `elif` clause whose block is at most two statements and ends with an early exit
 * (`return`, `raise`, `continue` or `break`): `if not items: return []`, `elif n < 0: raise ValueError(…)`.
 * In its condition, through `and`/`or` and parentheses, each part gives:
 * - a comparison: each operator becomes its strict/non-strict partner or its negation (`<`↔`<=`, `<`→`>=`,
 *   `>`↔`>=`, `>`→`<=`, `==`↔`!=`, `in`↔`not in`, `is`↔`is not`), and each integer or float literal it
 *   compares with moves by one (`len(x) == 0` → `len(x) == 1`, `n < 2` → `n < 3` / `n < 1`; floats by 0.1;
 *   never below zero, and a negated literal never reaches zero, as in numeric constants), a `True`/`False`
 *   it compares with flips;
 * - `not X` loses its `not` (`if not x:` → `if x:`); a plain truth test (name, call, attribute, subscript,
 *   parenthesized expression) gains one;
 * - `and`↔`or`; an operand that is a bare name or `not name` is dropped with its connective (`if a or b:`
 *   → `if a:`), the only edits of two or three tokens.
 * Comparisons inside calls, comprehensions or lambdas of the condition are not the guard's own and are
 * left alone. Every other edit changes one token.
 */
import type { Node } from "web-tree-sitter";
import {
  codeNodesOfType,
  deleteRange,
  insertWordBefore,
  replaceNode,
  shiftFloatLiteral,
  shiftIntegerLiteral,
  syntaxChildren,
} from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

/** The statements that leave a function, a loop iteration or a loop: what makes an `if` a guard. */
export const EARLY_EXITS: ReadonlySet<string> = new Set([
  "return_statement",
  "raise_statement",
  "continue_statement",
  "break_statement",
]);

/** The operators a comparison operator can become: its strict/non-strict partner, then its negation. */
const ALTERED: Readonly<Record<string, readonly string[]>> = {
  "<": ["<=", ">="],
  "<=": ["<", ">"],
  ">": [">=", "<="],
  ">=": [">", "<"],
  "==": ["!="],
  "!=": ["=="],
  in: ["not in"],
  "not in": ["in"],
  is: ["is not"],
  "is not": ["is"],
};

/** Truth tests that `not X` negates as a whole (they bind tighter than `not`). */
const NEGATABLE = new Set(["identifier", "call", "attribute", "subscript", "parenthesized_expression"]);

/** Most statements in a guard's block (the handling, then the exit). */
const MAX_GUARD_STATEMENTS = 2;

export const edgeCaseGuards: CorruptionFamily = {
  name: "edge_case_guards",
  title: "Edge Case Guards",
  domain: "in-domain",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const clause of codeNodesOfType(root, "if_statement", "elif_clause")) {
      const condition = clause.childForFieldName("condition");
      if (condition !== null && guardsWith(clause.childForFieldName("consequence"))) {
        conditionSites(condition, source, sites);
      }
    }
    return sites;
  },
};

/** Whether `block` (an `if`/`elif` consequence) is a guard's: short, and ending with an early exit. */
function guardsWith(block: Node | null): boolean {
  const statements = block === null ? [] : syntaxChildren(block);
  const last = statements[statements.length - 1];
  return statements.length <= MAX_GUARD_STATEMENTS && last !== undefined && EARLY_EXITS.has(last.type);
}

/** Adds the sites of one part of a guard's condition (see the module comment) to `sites`. */
function conditionSites(node: Node, source: string, sites: CorruptionSite[]): void {
  switch (node.type) {
    case "boolean_operator": {
      const left = node.childForFieldName("left");
      const operator = node.childForFieldName("operator");
      const right = node.childForFieldName("right");
      if (left === null || operator === null || right === null) return;
      sites.push(replaceNode(operator, operator.type === "and" ? "or" : "and"));
      if (isDroppable(left)) sites.push(deleteRange(left.startIndex, right.startIndex));
      if (isDroppable(right)) sites.push(deleteRange(left.endIndex, right.endIndex));
      conditionSites(left, source, sites);
      conditionSites(right, source, sites);
      return;
    }
    case "not_operator": {
      const argument = node.childForFieldName("argument");
      if (argument === null) return;
      sites.push(deleteRange(node.startIndex, argument.startIndex));
      // `not (a < b)`: its comparison is altered like any other; a second `not` would be noise.
      const inner = argument.type === "parenthesized_expression" ? syntaxChildren(argument)[0] : argument;
      if (inner?.type === "comparison_operator") comparisonSites(inner, sites);
      return;
    }
    case "comparison_operator":
      comparisonSites(node, sites);
      return;
    default: {
      if (NEGATABLE.has(node.type)) sites.push(insertWordBefore(node, source, "not"));
      const inner = node.type === "parenthesized_expression" ? syntaxChildren(node)[0] : undefined;
      if (inner?.type === "boolean_operator" || inner?.type === "comparison_operator") {
        conditionSites(inner, source, sites);
      }
    }
  }
}

/** An operand that can go with its `and`/`or` in a token or two: `name` or `not name`. */
function isDroppable(operand: Node): boolean {
  if (operand.type === "identifier") return true;
  return operand.type === "not_operator" && operand.childForFieldName("argument")?.type === "identifier";
}

/** Every operator of `comparison` altered, and every number or boolean it compares with moved. */
function comparisonSites(comparison: Node, sites: CorruptionSite[]): void {
  for (const operator of comparison.childrenForFieldName("operators")) {
    if (operator === null) continue;
    for (const altered of ALTERED[operator.type] ?? []) sites.push(replaceNode(operator, altered));
  }
  for (const operand of syntaxChildren(comparison)) sites.push(...boundSites(operand));
}

/** `x` ± 1 for an integer literal, ± 0.1 for a float, flipped for `True`/`False`; else nothing. */
function boundSites(operand: Node): CorruptionSite[] {
  if (operand.type === "true" || operand.type === "false") {
    return [replaceNode(operand, operand.type === "true" ? "False" : "True")];
  }
  const negated = operand.type === "unary_operator" && operand.childForFieldName("operator")?.type === "-";
  const literal = negated ? operand.childForFieldName("argument") : operand;
  if (literal === null || (literal.type !== "integer" && literal.type !== "float")) return [];
  const shift = literal.type === "integer" ? shiftIntegerLiteral : shiftFloatLiteral;
  const sites: CorruptionSite[] = [];
  for (const delta of [1, -1]) {
    const shifted = shift(literal.text, delta);
    // As numeric constants: the written sign never flips (`-1` → `-0` would only spell `0` oddly).
    if (shifted !== null && !(negated && /^(0[xXoObB])?[0_.]*$/.test(shifted))) {
      sites.push(replaceNode(literal, shifted));
    }
  }
  return sites;
}
