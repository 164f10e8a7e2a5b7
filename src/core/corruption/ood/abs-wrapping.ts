/**
 * OOD family 2, "Abs Wrapping" (over-editing paper D.2): wrap an arithmetic expression in `abs(...)`, or
 * unwrap an `abs(x)` call to `x`.
 *
 * - Wrap: a whole arithmetic expression, i.e. a binary expression with an arithmetic operator
 *   (`+ - * / // % **`) that is not itself an operand of a larger one (looking through parentheses), becomes
 *   `abs(<expression>)`: `a * b + c` gives `abs(a * b + c)`, never `abs(a * b) + c`, so each expression is
 *   one site. Bitwise operators and `@` are not arithmetic on numbers and are skipped. So are expressions
 *   that visibly compute a string or a sequence ({@link isVisiblySequence}: concatenation, repetition,
 *   `%` formatting, as in `prefix + "".join(parts)` or `[0] * n`). An expression that already is the sole
 *   argument of `abs` is not wrapped again, nor is one made of literals only (`24 * 60`), whose sign is
 *   fixed.
 * - Unwrap: `abs(x)` (the built-in, not a rebound name) with exactly one positional argument becomes `x`,
 *   parenthesized when `x` is not a primary so the surrounding expression keeps its grouping
 *   (`abs(a - b) * c` → `(a - b) * c`).
 */
import type { Node } from "web-tree-sitter";
import {
  builtinCallsTo,
  codeNodesOfType,
  isVisiblySequence,
  nodesOfType,
  replaceNode,
  syntaxChildren,
  unwrapCallSite,
} from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const ARITHMETIC = new Set(["+", "-", "*", "/", "//", "%", "**"]);

export const absWrapping: CorruptionFamily = {
  name: "abs_wrapping",
  title: "Abs Wrapping",
  domain: "ood",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const expression of codeNodesOfType(root, "binary_operator")) {
      if (!isArithmetic(expression) || isArithmeticOperand(expression) || isSoleAbsArgument(expression))
        continue;
      // `abs(24 * 60)` of a constant changes nothing a test could see.
      if (!isVisiblySequence(expression) && nodesOfType(expression, "identifier").length > 0) {
        sites.push(
          replaceNode(expression, `abs(${source.slice(expression.startIndex, expression.endIndex)})`),
        );
      }
    }
    for (const found of builtinCallsTo(root, ["abs"])) {
      // `abs(v for v in xs)` (a bare generator) has no number to unwrap.
      const site = found.args.bareGenerator ? null : unwrapCallSite(found, source);
      if (site !== null) sites.push(site);
    }
    return sites.sort((a, b) => a.start - b.start);
  },
};

function isArithmetic(node: Node | null): boolean {
  return node?.type === "binary_operator" && ARITHMETIC.has(node.childForFieldName("operator")?.type ?? "");
}

/** Whether `expression` (through parentheses) is an operand of a larger arithmetic expression. */
function isArithmeticOperand(expression: Node): boolean {
  let up = expression.parent;
  while (up?.type === "parenthesized_expression") up = up.parent;
  return isArithmetic(up);
}

function isSoleAbsArgument(expression: Node): boolean {
  const list = expression.parent;
  const call = list?.parent;
  return (
    list?.type === "argument_list" &&
    call?.type === "call" &&
    call.childForFieldName("function")?.text === "abs" &&
    syntaxChildren(list).length === 1
  );
}
