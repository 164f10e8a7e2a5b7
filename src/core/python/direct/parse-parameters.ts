/**
 * Parameter lists of `def` (`params`) and `lambda` (`lambda_params`) for the direct parser, with the
 * rules CPython 3.11's grammar enforces: `/` after at least one parameter and before `*`, no
 * parameter without a default after one with a default (among the positional ones), one `*`, a bare `*`
 * followed by a keyword-only parameter, `**kwargs` last, no default for `*args` or `**kwargs`, and
 * `*args: *Ts` as the only starred annotation. Anything else throws (and falls back).
 */
import { type Arg, type Arguments, type Expr, emptyArguments } from "../ast.js";
import { COLON, COMMA, DOUBLESTAR, EQUAL, NAME, SLASH, STAR } from "./lexer.js";
import type { ParserState } from "./parser-state.js";

/** The expression rules a parameter list needs (parse-expression.ts passes its own; no import circle). */
export type ParameterExpressions = {
  /** `expression`: defaults and annotations. */
  expression(p: ParserState): Expr;
  /** `star_expression`: the annotation of `*args` (`*args: *Ts`). */
  starExpression(p: ParserState): Expr;
};

/**
 * Parses parameters up to (not including) the `closer` token — `)` for `def`, `:` for `lambda` —
 * reading annotations only when `annotations` is set.
 */
export function parseParameters(
  p: ParserState,
  closer: number,
  annotations: boolean,
  rules: ParameterExpressions,
): Arguments {
  const result = emptyArguments();
  if (p.kind() === closer) return result;
  // 0: positional parameters; 1: after `*` or `*args` (keyword-only); 2: after `**kwargs`.
  let phase = 0;
  let sawSlash = false;
  let bareStar = false;
  for (;;) {
    const kind = p.kind();
    if (kind === SLASH) {
      if (phase !== 0 || sawSlash || result.args.length === 0) p.fail("misplaced '/'");
      p.pos++;
      sawSlash = true;
      result.posonlyargs = result.args;
      result.args = [];
    } else if (kind === STAR) {
      if (phase !== 0) p.fail("a second '*'");
      p.pos++;
      phase = 1;
      if (p.kind() === NAME) {
        result.vararg = parameter(p, annotations, true, rules);
        if (p.kind() === EQUAL) p.fail("var-positional argument cannot have default value");
      } else {
        bareStar = true;
      }
    } else if (kind === DOUBLESTAR) {
      if (phase === 2) p.fail("a second '**'");
      p.pos++;
      result.kwarg = parameter(p, annotations, false, rules);
      if (p.kind() === EQUAL) p.fail("var-keyword argument cannot have default value");
      phase = 2;
    } else if (kind === NAME) {
      if (phase === 2) p.fail("arguments cannot follow var-keyword argument");
      const arg = parameter(p, annotations, false, rules);
      const value = p.eat(EQUAL) ? rules.expression(p) : null;
      if (phase === 0) {
        if (value !== null) result.defaults.push(value);
        else if (result.defaults.length > 0) p.fail("non-default argument follows default argument");
        result.args.push(arg);
      } else {
        result.kwonlyargs.push(arg);
        result.kw_defaults.push(value);
      }
    } else {
      p.fail("a parameter expected");
    }
    if (!p.eat(COMMA) || p.kind() === closer) break;
  }
  if (p.kind() !== closer) p.fail("parameters not closed");
  if (bareStar && result.kwonlyargs.length === 0) p.fail("named arguments must follow bare *");
  return result;
}

function parameter(p: ParserState, annotations: boolean, starred: boolean, rules: ParameterExpressions): Arg {
  const arg = p.name();
  let annotation: Expr | null = null;
  if (annotations && p.eat(COLON)) annotation = starred ? rules.starExpression(p) : rules.expression(p);
  return { arg, annotation };
}
