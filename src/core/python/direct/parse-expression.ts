/**
 * Expressions of the direct parser: CPython 3.11's expression rules (Grammar/python.gram, "EXPRESSIONS"
 * to "ASSIGNMENT TARGETS"), one function per rule, building the same `ast.expr` nodes `ast.parse` builds.
 *
 * Where the PEG grammar would backtrack between alternatives, the token after a common prefix decides
 * (`(a)` group, `(a,)` tuple, `(a for …)` generator; `{a: b}` dict, `{a}` set). Where that is not
 * enough, or for any syntax error, the parse throws and the fallback parser takes the program.
 *
 * Why one file of ~600 lines: the rules call each other in a cycle (an atom holds expressions), as
 * CPython's generated parser does; strings and parameters, which only need a callback, are files of
 * their own.
 */
import type {
  BoolOperator,
  CompareOperator,
  Comprehension,
  ConstantValue,
  Expr,
  Keyword,
  Operator,
} from "../ast.js";
import { parseNumberLiteral } from "../literals.js";
import {
  AMPER,
  AT,
  CIRCUMFLEX,
  COLON,
  COLONEQUAL,
  COMMA,
  DOT,
  DOUBLESLASH,
  DOUBLESTAR,
  ELLIPSIS,
  EQEQUAL,
  EQUAL,
  GREATER,
  GREATEREQUAL,
  KW_AND,
  KW_ASYNC,
  KW_AWAIT,
  KW_ELSE,
  KW_FALSE,
  KW_FOR,
  KW_FROM,
  KW_IF,
  KW_IN,
  KW_IS,
  KW_LAMBDA,
  KW_NONE,
  KW_NOT,
  KW_OR,
  KW_TRUE,
  KW_YIELD,
  LBRACE,
  LEFTSHIFT,
  LESS,
  LESSEQUAL,
  LPAR,
  LSQB,
  lexPython,
  MINUS,
  NAME,
  NEWLINE,
  NOTEQUAL,
  NUMBER,
  PERCENT,
  PLUS,
  RBRACE,
  RIGHTSHIFT,
  RPAR,
  RSQB,
  SLASH,
  STAR,
  STRING,
  TILDE,
  Unsupported,
  VBAR,
} from "./lexer.js";
import { type ParameterExpressions, parseParameters } from "./parse-parameters.js";
import { parseStrings } from "./parse-string.js";
import { ParserState } from "./parser-state.js";
import { checkStarTarget } from "./targets.js";

/**
 * Longest chain of trailers (`a.b(c)[d]…`) or of one binary operator's operands the direct parser
 * builds: each link is one level of the left-nested tree the unparser recurses into, and a longer chain
 * is left to the fallback, which decides such trees as it always has.
 */
const MAX_CHAIN = 200;

/** Binding strength of the left-associative binary operators by token kind (0: not one). */
const BINARY_PRECEDENCE = new Uint8Array(256);
/** The AST operator of each binary operator token kind. */
const BINARY_OPERATOR: Operator[] = [];
for (const [kind, precedence, op] of [
  [VBAR, 1, "BitOr"],
  [CIRCUMFLEX, 2, "BitXor"],
  [AMPER, 3, "BitAnd"],
  [LEFTSHIFT, 4, "LShift"],
  [RIGHTSHIFT, 4, "RShift"],
  [PLUS, 5, "Add"],
  [MINUS, 5, "Sub"],
  [STAR, 6, "Mult"],
  [SLASH, 6, "Div"],
  [DOUBLESLASH, 6, "FloorDiv"],
  [PERCENT, 6, "Mod"],
  [AT, 6, "MatMult"],
] as const) {
  BINARY_PRECEDENCE[kind] = precedence;
  BINARY_OPERATOR[kind] = op;
}

/**
 * Tokens that continue an expression after an atom: a trailer, a binary, comparison or boolean operator,
 * `**`, or the `if` of a conditional expression. After a name or number followed by anything else, the
 * whole descent from `expression` down to `atom` returns that atom, so {@link parseExpression} takes it
 * directly (most arguments, subscripts and values are one name or number).
 */
const CONTINUES_ATOM = new Uint8Array(256);
for (let kind = 0; kind < 256; kind++) if (BINARY_PRECEDENCE[kind] !== 0) CONTINUES_ATOM[kind] = 1;
for (const kind of [
  DOT,
  LPAR,
  LSQB,
  DOUBLESTAR,
  EQEQUAL,
  NOTEQUAL,
  LESS,
  LESSEQUAL,
  GREATER,
  GREATEREQUAL,
  KW_IN,
  KW_NOT,
  KW_IS,
  KW_AND,
  KW_OR,
  KW_IF,
]) {
  CONTINUES_ATOM[kind] = 1;
}

const PARAMETER_EXPRESSIONS: ParameterExpressions = {
  expression: (p) => parseExpression(p),
  starExpression: (p) => parseStarExpression(p),
};

/** `star_expressions`: one star_expression, or a tuple of them (with an optional trailing comma). */
export function parseStarExpressions(p: ParserState): Expr {
  const first = parseStarExpression(p);
  if (p.kind() !== COMMA) return first;
  const elts = [first];
  while (p.eat(COMMA) && startsStarExpression(p.kind())) elts.push(parseStarExpression(p));
  return { type: "Tuple", elts };
}

/** `star_expression`: `*` bitwise_or, or an expression. */
export function parseStarExpression(p: ParserState): Expr {
  if (p.eat(STAR)) return { type: "Starred", value: parseBitwiseOr(p) };
  return parseExpression(p);
}

/** `star_named_expression`: `*` bitwise_or, or a named_expression. */
export function parseStarNamedExpression(p: ParserState): Expr {
  if (p.eat(STAR)) return { type: "Starred", value: parseBitwiseOr(p) };
  return parseNamedExpression(p);
}

/** Whether the cursor is at an unparenthesized `NAME :=` (`assignment_expression`). */
function startsAssignmentExpression(p: ParserState): boolean {
  return p.kind() === NAME && p.peek(1) === COLONEQUAL;
}

/** `named_expression`: `NAME := expression`, or an expression not followed by `:=`. */
export function parseNamedExpression(p: ParserState): Expr {
  if (startsAssignmentExpression(p)) {
    const id = p.name();
    p.pos++;
    return { type: "NamedExpr", target: { type: "Name", id }, value: parseExpression(p) };
  }
  const expression = parseExpression(p);
  if (p.kind() === COLONEQUAL) p.fail("cannot use assignment expressions here");
  return expression;
}

/** `expression`: a conditional expression, a disjunction or a lambda. */
export function parseExpression(p: ParserState): Expr {
  const kind = p.kind();
  if ((kind === NAME || kind === NUMBER) && CONTINUES_ATOM[p.peek(1)] === 0) return parseAtom(p, true);
  p.enter();
  let result: Expr;
  if (p.kind() === KW_LAMBDA) {
    p.pos++;
    const args = parseParameters(p, COLON, false, PARAMETER_EXPRESSIONS);
    p.expect(COLON);
    result = { type: "Lambda", args, body: parseExpression(p) };
  } else {
    result = parseDisjunction(p);
    // A disjunction followed by `if` is a conditional expression, or an error: no rule lets an
    // expression be followed by `if` otherwise.
    if (p.eat(KW_IF)) {
      const test = parseDisjunction(p);
      p.expect(KW_ELSE);
      result = { type: "IfExp", test, body: result, orelse: parseExpression(p) };
    }
  }
  p.leave();
  return result;
}

/** `yield_expr` (the cursor is on `yield`). */
export function parseYieldExpression(p: ParserState): Expr {
  p.expect(KW_YIELD);
  if (p.eat(KW_FROM)) return { type: "YieldFrom", value: parseExpression(p) };
  if (!startsStarExpression(p.kind())) return { type: "Yield", value: null };
  return { type: "Yield", value: parseStarExpressions(p) };
}

export function parseDisjunction(p: ParserState): Expr {
  const first = parseConjunction(p);
  if (p.kind() !== KW_OR) return first;
  return boolOp(p, "Or", KW_OR, first, parseConjunction);
}

function parseConjunction(p: ParserState): Expr {
  const first = parseInversion(p);
  if (p.kind() !== KW_AND) return first;
  return boolOp(p, "And", KW_AND, first, parseInversion);
}

/** `a or b or c` is one BoolOp with three values (so is `and`). */
function boolOp(
  p: ParserState,
  op: BoolOperator,
  kind: number,
  first: Expr,
  operand: (p: ParserState) => Expr,
): Expr {
  const values = [first];
  while (p.eat(kind)) values.push(operand(p));
  return { type: "BoolOp", op, values };
}

function parseInversion(p: ParserState): Expr {
  if (p.kind() !== KW_NOT) return parseComparison(p);
  p.pos++;
  p.enter();
  const operand = parseInversion(p);
  p.leave();
  return { type: "UnaryOp", op: "Not", operand };
}

/** `a < b <= c` is one Compare with two operators. */
function parseComparison(p: ParserState): Expr {
  const left = parseBitwiseOr(p);
  let ops: CompareOperator[] | null = null;
  let comparators: Expr[] = [];
  for (;;) {
    const op = compareOperator(p);
    if (op === null) break;
    if (ops === null) {
      ops = [];
      comparators = [];
    }
    ops.push(op);
    comparators.push(parseBitwiseOr(p));
  }
  return ops === null ? left : { type: "Compare", left, ops, comparators };
}

/** Takes a comparison operator (`not in` and `is not` are two tokens) and returns it, or null. */
function compareOperator(p: ParserState): CompareOperator | null {
  switch (p.kind()) {
    case EQEQUAL:
      p.pos++;
      return "Eq";
    case NOTEQUAL:
      p.pos++;
      return "NotEq";
    case LESS:
      p.pos++;
      return "Lt";
    case LESSEQUAL:
      p.pos++;
      return "LtE";
    case GREATER:
      p.pos++;
      return "Gt";
    case GREATEREQUAL:
      p.pos++;
      return "GtE";
    case KW_IN:
      p.pos++;
      return "In";
    case KW_NOT:
      if (p.peek(1) !== KW_IN) return null;
      p.pos += 2;
      return "NotIn";
    case KW_IS:
      if (p.peek(1) === KW_NOT) {
        p.pos += 2;
        return "IsNot";
      }
      p.pos++;
      return "Is";
    default:
      return null;
  }
}

/** `bitwise_or` and everything below it down to `term` (precedence climbing over the binary operators). */
export function parseBitwiseOr(p: ParserState): Expr {
  return parseBinary(p, 1);
}

function parseBinary(p: ParserState, minPrecedence: number): Expr {
  let left = parseFactor(p);
  let links = 0;
  for (;;) {
    const kind = p.kind();
    const precedence = BINARY_PRECEDENCE[kind] as number;
    if (precedence < minPrecedence) return left;
    p.pos++;
    const right = parseBinary(p, precedence + 1);
    left = { type: "BinOp", left, op: BINARY_OPERATOR[kind] as Operator, right };
    if (++links > MAX_CHAIN) p.unsupported("a very long chain of operators");
  }
}

/** `factor`: unary `+`, `-`, `~`, or a power. */
function parseFactor(p: ParserState): Expr {
  const kind = p.kind();
  if (kind !== PLUS && kind !== MINUS && kind !== TILDE) return parsePower(p);
  p.pos++;
  p.enter();
  const operand = parseFactor(p);
  p.leave();
  return { type: "UnaryOp", op: kind === PLUS ? "UAdd" : kind === MINUS ? "USub" : "Invert", operand };
}

/** `power`: `await_primary ['**' factor]`. */
function parsePower(p: ParserState): Expr {
  let base: Expr;
  if (p.eat(KW_AWAIT)) base = { type: "Await", value: parsePrimary(p) };
  else base = parsePrimary(p);
  if (!p.eat(DOUBLESTAR)) return base;
  return { type: "BinOp", left: base, op: "Pow", right: parseFactor(p) };
}

/** `primary`: an atom and its trailers (`.name`, calls, subscripts). */
export function parsePrimary(p: ParserState): Expr {
  let value = parseAtom(p, true);
  let links = 0;
  for (;;) {
    const kind = p.kind();
    if (kind === DOT) {
      p.pos++;
      value = { type: "Attribute", value, attr: p.name() };
    } else if (kind === LPAR) {
      p.pos++;
      value = parseCall(p, value);
    } else if (kind === LSQB) {
      p.pos++;
      const slice = parseSlices(p);
      value = { type: "Subscript", value, slice };
    } else {
      return value;
    }
    if (++links > MAX_CHAIN) p.unsupported("a very long chain of trailers");
  }
}

/**
 * `atom`. `markParentheses`: whether a parenthesized name or boolean operation is marked as such
 * (ast.ts) — not for the parentheses an f-string field is parsed in.
 */
function parseAtom(p: ParserState, markParentheses: boolean): Expr {
  const i = p.pos;
  switch (p.kinds[i]) {
    case NAME:
      p.pos++;
      return { type: "Name", id: p.text(i) };
    case NUMBER:
      p.pos++;
      return { type: "Constant", value: numberValue(p.text(i)), kind: null };
    case STRING:
      return parseStrings(p, parseFieldExpression);
    case KW_TRUE:
      p.pos++;
      return { type: "Constant", value: { kind: "bool", value: true }, kind: null };
    case KW_FALSE:
      p.pos++;
      return { type: "Constant", value: { kind: "bool", value: false }, kind: null };
    case KW_NONE:
      p.pos++;
      return { type: "Constant", value: { kind: "None" }, kind: null };
    case ELLIPSIS:
      p.pos++;
      return { type: "Constant", value: { kind: "Ellipsis" }, kind: null };
    case LPAR:
      p.pos++;
      return parseParenthesized(p, markParentheses);
    case LSQB:
      p.pos++;
      return parseListDisplay(p);
    case LBRACE:
      p.pos++;
      return parseBraces(p);
    default:
      p.fail("an expression expected");
  }
}

/**
 * The value of a NUMBER token: a plain decimal integer (digits, no leading zero) is its own decimal
 * string, as literals.ts would return it; anything else goes through `parseNumberLiteral`.
 */
function numberValue(text: string): ConstantValue {
  if (text.length <= 15 && (text.length === 1 || text.charCodeAt(0) !== 48)) {
    let digits = true;
    for (let k = 0; k < text.length && digits; k++) {
      const c = text.charCodeAt(k);
      digits = c >= 48 && c <= 57;
    }
    if (digits) return { kind: "int", value: text };
  }
  return parseNumberLiteral(text);
}

/** After `(`: a tuple, a group (`yield` included) or a generator expression. */
function parseParenthesized(p: ParserState, markParentheses: boolean): Expr {
  if (p.eat(RPAR)) return { type: "Tuple", elts: [] };
  if (p.kind() === KW_YIELD) {
    const value = parseYieldExpression(p);
    p.expect(RPAR);
    return value;
  }
  const first = parseStarNamedExpression(p);
  const kind = p.kind();
  if (kind === KW_FOR || (kind === KW_ASYNC && p.peek(1) === KW_FOR)) {
    if (first.type === "Starred") p.fail("iterable unpacking cannot be used in comprehension");
    const generators = parseComprehensionClauses(p);
    p.expect(RPAR);
    return { type: "GeneratorExp", elt: first, generators };
  }
  if (kind === COMMA) {
    const elts = [first];
    while (p.eat(COMMA) && p.kind() !== RPAR) elts.push(parseStarNamedExpression(p));
    p.expect(RPAR);
    return { type: "Tuple", elts };
  }
  p.expect(RPAR);
  if (first.type === "Starred") p.fail("cannot use starred expression here");
  if (markParentheses && (first.type === "Name" || first.type === "BoolOp")) first.parenthesized = true;
  return first;
}

/** After `[`: a list or a list comprehension. */
function parseListDisplay(p: ParserState): Expr {
  if (p.eat(RSQB)) return { type: "List", elts: [] };
  const first = parseStarNamedExpression(p);
  const kind = p.kind();
  if (kind === KW_FOR || (kind === KW_ASYNC && p.peek(1) === KW_FOR)) {
    if (first.type === "Starred") p.fail("iterable unpacking cannot be used in comprehension");
    const generators = parseComprehensionClauses(p);
    p.expect(RSQB);
    return { type: "ListComp", elt: first, generators };
  }
  const elts = [first];
  while (p.eat(COMMA) && p.kind() !== RSQB) elts.push(parseStarNamedExpression(p));
  p.expect(RSQB);
  return { type: "List", elts };
}

/** After `{`: a dict, a set, or their comprehensions. */
function parseBraces(p: ParserState): Expr {
  if (p.eat(RBRACE)) return { type: "Dict", keys: [], values: [] };
  if (p.kind() === DOUBLESTAR) return parseDictEntries(p, [], []);
  const walrus = startsAssignmentExpression(p);
  const first = parseStarNamedExpression(p);
  if (p.eat(COLON)) {
    if (first.type === "Starred" || walrus) p.fail("not a dict key");
    const value = parseExpression(p);
    const kind = p.kind();
    if (kind === KW_FOR || (kind === KW_ASYNC && p.peek(1) === KW_FOR)) {
      const generators = parseComprehensionClauses(p);
      p.expect(RBRACE);
      return { type: "DictComp", key: first, value, generators };
    }
    if (p.eat(RBRACE)) return { type: "Dict", keys: [first], values: [value] };
    p.expect(COMMA);
    return parseDictEntries(p, [first], [value]);
  }
  const kind = p.kind();
  if (kind === KW_FOR || (kind === KW_ASYNC && p.peek(1) === KW_FOR)) {
    if (first.type === "Starred") p.fail("iterable unpacking cannot be used in comprehension");
    const generators = parseComprehensionClauses(p);
    p.expect(RBRACE);
    return { type: "SetComp", elt: first, generators };
  }
  const elts = [first];
  while (p.eat(COMMA) && p.kind() !== RBRACE) elts.push(parseStarNamedExpression(p));
  p.expect(RBRACE);
  return { type: "Set", elts };
}

/** The rest of a dict display: `**mapping` or `key: value` entries up to `}`. */
function parseDictEntries(p: ParserState, keys: (Expr | null)[], values: Expr[]): Expr {
  while (!p.eat(RBRACE)) {
    if (p.eat(DOUBLESTAR)) {
      keys.push(null);
      values.push(parseBitwiseOr(p));
    } else {
      keys.push(parseExpression(p));
      p.expect(COLON);
      values.push(parseExpression(p));
    }
    if (!p.eat(COMMA)) {
      p.expect(RBRACE);
      break;
    }
  }
  return { type: "Dict", keys, values };
}

/** `for_if_clauses`: one or more `[async] for targets in disjunction (if disjunction)*`. */
function parseComprehensionClauses(p: ParserState): Comprehension[] {
  const generators: Comprehension[] = [];
  for (;;) {
    let isAsync = 0;
    if (p.kind() === KW_ASYNC && p.peek(1) === KW_FOR) {
      p.pos += 2;
      isAsync = 1;
    } else if (!p.eat(KW_FOR)) {
      return generators;
    }
    const target = parseStarTargets(p);
    p.expect(KW_IN);
    const iter = parseDisjunction(p);
    const ifs: Expr[] = [];
    while (p.eat(KW_IF)) ifs.push(parseDisjunction(p));
    generators.push({ target, iter, ifs, is_async: isAsync });
  }
}

/** `star_targets` (of `for` and comprehensions, which end at `in`). */
export function parseStarTargets(p: ParserState): Expr {
  const first = parseStarTarget(p);
  if (p.kind() !== COMMA) return first;
  const elts = [first];
  while (p.eat(COMMA) && startsStarTarget(p.kind())) elts.push(parseStarTarget(p));
  return { type: "Tuple", elts };
}

/** `star_target`: `*` target, or a primary that is a valid target. */
export function parseStarTarget(p: ParserState): Expr {
  if (p.eat(STAR)) {
    if (p.kind() === STAR) p.fail("a starred starred target");
    return { type: "Starred", value: parseStarTarget(p) };
  }
  const target = parsePrimary(p);
  checkStarTarget(p, target);
  return target;
}

/** After `(` of a call: the call, with CPython's order rules for its arguments. */
function parseCall(p: ParserState, func: Expr): Expr {
  const { args, keywords } = parseArguments(p, true);
  return { type: "Call", func, args, keywords };
}

/**
 * `arguments` up to and including `)`: positional arguments (`*x` among them) before keywords and `**x`,
 * and no `*x` after a `**x`. `generator`: whether `f(x for x in y)` — a generator expression as the only
 * argument, without parentheses of its own — is allowed (in a call, not in a class's bases).
 */
function parseArguments(p: ParserState, generator: boolean): { args: Expr[]; keywords: Keyword[] } {
  const args: Expr[] = [];
  const keywords: Keyword[] = [];
  let sawKeyword = false;
  let sawDoubleStar = false;
  while (!p.eat(RPAR)) {
    const kind = p.kind();
    if (kind === STAR) {
      p.pos++;
      if (sawDoubleStar) p.fail("iterable argument unpacking follows keyword argument unpacking");
      args.push({ type: "Starred", value: parseExpression(p) });
    } else if (kind === DOUBLESTAR) {
      p.pos++;
      keywords.push({ arg: null, value: parseExpression(p) });
      sawDoubleStar = true;
    } else if (kind === NAME && p.peek(1) === EQUAL) {
      const arg = p.name();
      p.pos++;
      keywords.push({ arg, value: parseExpression(p) });
      sawKeyword = true;
    } else {
      if (sawKeyword || sawDoubleStar) p.fail("positional argument follows keyword argument");
      const value = parseNamedExpression(p);
      const next = p.kind();
      if (next === KW_FOR || (next === KW_ASYNC && p.peek(1) === KW_FOR)) {
        if (!generator || args.length > 0) p.fail("Generator expression must be parenthesized");
        const generators = parseComprehensionClauses(p);
        p.expect(RPAR);
        return { args: [{ type: "GeneratorExp", elt: value, generators }], keywords };
      }
      if (next === EQUAL) p.fail("expression cannot contain assignment");
      args.push(value);
    }
    if (!p.eat(COMMA)) {
      p.expect(RPAR);
      break;
    }
  }
  return { args, keywords };
}

/** `arguments` of a class definition, after `(` (a call's rules, but no bare generator expression). */
export function parseClassArguments(p: ParserState): { bases: Expr[]; keywords: Keyword[] } {
  const { args, keywords } = parseArguments(p, false);
  return { bases: args, keywords };
}

/** After `[` of a subscript: `slices` up to and including `]`. */
function parseSlices(p: ParserState): Expr {
  const first = parseSliceItem(p);
  if (p.eat(RSQB)) return first.type === "Starred" ? { type: "Tuple", elts: [first] } : first;
  p.expect(COMMA);
  const elts = [first];
  while (!p.eat(RSQB)) {
    elts.push(parseSliceItem(p));
    if (!p.eat(COMMA)) {
      p.expect(RSQB);
      break;
    }
  }
  return { type: "Tuple", elts };
}

/** `slice | starred_expression`. */
function parseSliceItem(p: ParserState): Expr {
  if (p.eat(STAR)) return { type: "Starred", value: parseExpression(p) };
  let lower: Expr | null = null;
  if (p.kind() !== COLON) {
    const walrus = startsAssignmentExpression(p);
    const value = parseNamedExpression(p);
    if (p.kind() !== COLON) return value;
    if (walrus) p.fail("an assignment expression in a slice must be parenthesized");
    lower = value;
  }
  p.expect(COLON);
  const upper = endsSlicePart(p.kind()) ? null : parseExpression(p);
  let step: Expr | null = null;
  if (p.eat(COLON) && !endsSlicePart(p.kind())) step = parseExpression(p);
  return { type: "Slice", lower, upper, step };
}

function endsSlicePart(kind: number): boolean {
  return kind === COLON || kind === COMMA || kind === RSQB;
}

/** Whether a token can start a `star_expression` (so that a comma before it is not a trailing one). */
export function startsStarExpression(kind: number): boolean {
  switch (kind) {
    case NAME:
    case NUMBER:
    case STRING:
    case LPAR:
    case LSQB:
    case LBRACE:
    case MINUS:
    case PLUS:
    case TILDE:
    case STAR:
    case KW_NOT:
    case KW_LAMBDA:
    case KW_AWAIT:
    case KW_NONE:
    case KW_TRUE:
    case KW_FALSE:
    case ELLIPSIS:
      return true;
    default:
      return false;
  }
}

/** Whether a token can start a `star_target`. */
function startsStarTarget(kind: number): boolean {
  return (
    kind === NAME || kind === LPAR || kind === LSQB || kind === STAR || kind === STRING || kind === NUMBER
  );
}

/**
 * The expression of an f-string replacement field: CPython compiles `(text)` with the `fstring` start
 * rule (`star_expressions`), so the text is read as the contents of parentheses.
 */
function parseFieldExpression(text: string): Expr {
  // Any failure in here is the f-string's, and f-string errors are left to the fallback parser.
  let p: ParserState;
  try {
    p = new ParserState(lexPython(`(${text})`));
  } catch {
    throw new Unsupported("an f-string field that does not tokenize");
  }
  const value = p.attempt(() => {
    p.expect(LPAR);
    const parsed = parseParenthesized(p, false);
    p.expect(NEWLINE);
    return parsed;
  });
  if (value === null) throw new Unsupported("an f-string field that does not parse");
  return value;
}
