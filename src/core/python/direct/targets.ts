/**
 * Which expressions CPython 3.11's grammar accepts as assignment targets. The direct parser reads a
 * target as an expression first (a statement is `star_expressions` until an `=` says otherwise) and then
 * checks it here against the target rules it would have had to match: `star_targets`, `single_target`,
 * `del_targets`. An expression that is not a target throws (the program is a syntax error, which the
 * fallback reports).
 */
import type { Expr } from "../ast.js";
import type { ParserState } from "./parser-state.js";

/**
 * `star_target` (assignment, `for`, comprehension and `with … as` targets): a name, attribute or
 * subscript, a starred target, or a tuple or list of star targets (`*` applies to one target, never
 * to another starred one: `* *a` does not parse).
 */
export function checkStarTarget(p: ParserState, target: Expr): void {
  switch (target.type) {
    case "Name":
    case "Attribute":
    case "Subscript":
      return;
    case "Starred":
      if (target.value.type === "Starred") p.fail("a starred starred target");
      checkStarTarget(p, target.value);
      return;
    case "Tuple":
    case "List":
      for (const element of target.elts) checkStarTarget(p, element);
      return;
    default:
      p.fail(`cannot assign to ${target.type}`);
  }
}

/** `single_target` (augmented assignment): a name, attribute or subscript, parenthesized or not. */
export function checkSingleTarget(p: ParserState, target: Expr): void {
  if (target.type !== "Name" && target.type !== "Attribute" && target.type !== "Subscript") {
    p.fail("illegal expression for augmented assignment");
  }
}

/** `del_target`: a name, attribute or subscript, or a tuple or list of them (no starred ones). */
export function checkDelTarget(p: ParserState, target: Expr): void {
  switch (target.type) {
    case "Name":
    case "Attribute":
    case "Subscript":
      return;
    case "Tuple":
    case "List":
      for (const element of target.elts) checkDelTarget(p, element);
      return;
    default:
      p.fail(`cannot delete ${target.type}`);
  }
}
