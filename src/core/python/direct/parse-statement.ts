/**
 * Statements of the direct parser: CPython 3.11's statement rules (Grammar/python.gram, "GENERAL
 * STATEMENTS" to "Match statement"), building the `ast.stmt` nodes `ast.parse` builds.
 *
 * A simple statement is read as `star_expressions` first; the token after it says whether it was the
 * target of an assignment (`=`, `:` or an augmented operator), and the target is then checked against
 * the target rules (targets.ts). `match` statements are left to the fallback parser.
 */
import type { Alias, ExceptHandler, Expr, Module, Stmt, WithItem } from "../ast.js";
import {
  AMPEREQUAL,
  AT,
  ATEQUAL,
  CIRCUMFLEXEQUAL,
  COLON,
  COMMA,
  DEDENT,
  DOT,
  DOUBLESLASHEQUAL,
  DOUBLESTAREQUAL,
  ELLIPSIS,
  ENDMARKER,
  EQUAL,
  INDENT,
  KW_AS,
  KW_ASSERT,
  KW_ASYNC,
  KW_BREAK,
  KW_CLASS,
  KW_CONTINUE,
  KW_DEF,
  KW_DEL,
  KW_ELIF,
  KW_ELSE,
  KW_EXCEPT,
  KW_FINALLY,
  KW_FOR,
  KW_FROM,
  KW_GLOBAL,
  KW_IF,
  KW_IMPORT,
  KW_IN,
  KW_NONLOCAL,
  KW_PASS,
  KW_RAISE,
  KW_RETURN,
  KW_TRY,
  KW_WHILE,
  KW_WITH,
  KW_YIELD,
  LEFTSHIFTEQUAL,
  LPAR,
  MINEQUAL,
  NAME,
  NEWLINE,
  PERCENTEQUAL,
  PLUSEQUAL,
  RARROW,
  RIGHTSHIFTEQUAL,
  RPAR,
  SEMI,
  SLASHEQUAL,
  STAR,
  STAREQUAL,
  VBAREQUAL,
} from "./lexer.js";
import {
  parseClassArguments,
  parseExpression,
  parseNamedExpression,
  parsePrimary,
  parseStarExpression,
  parseStarExpressions,
  parseStarNamedExpression,
  parseStarTarget,
  parseStarTargets,
  parseYieldExpression,
  startsStarExpression,
} from "./parse-expression.js";
import { type ParameterExpressions, parseParameters } from "./parse-parameters.js";
import type { ParserState } from "./parser-state.js";
import { checkDelTarget, checkSingleTarget, checkStarTarget } from "./targets.js";

const PARAMETER_EXPRESSIONS: ParameterExpressions = {
  expression: parseExpression,
  starExpression: parseStarExpression,
};

/** `file`: the statements up to the end marker. */
export function parseModule(p: ParserState): Module {
  const body: Stmt[] = [];
  while (p.kind() !== ENDMARKER) parseStatement(p, body);
  return { type: "Module", body };
}

/** `statement`: one compound statement, or a line of simple statements, appended to `body`. */
function parseStatement(p: ParserState, body: Stmt[]): void {
  switch (p.kind()) {
    case KW_IF:
      body.push(parseIf(p));
      return;
    case KW_FOR:
      body.push(parseFor(p, false));
      return;
    case KW_WHILE:
      body.push(parseWhile(p));
      return;
    case KW_WITH:
      body.push(parseWith(p, false));
      return;
    case KW_TRY:
      body.push(parseTry(p));
      return;
    case KW_DEF:
      body.push(parseFunction(p, [], false));
      return;
    case KW_CLASS:
      body.push(parseClass(p, []));
      return;
    case AT:
      body.push(parseDecorated(p));
      return;
    case KW_ASYNC: {
      const next = p.peek(1);
      p.pos++;
      if (next === KW_DEF) body.push(parseFunction(p, [], true));
      else if (next === KW_FOR) body.push(parseFor(p, true));
      else if (next === KW_WITH) body.push(parseWith(p, true));
      else p.fail("'async' before something else than def, for or with");
      return;
    }
    case NAME:
      if (p.isName("match") && isMatchStatement(p)) p.unsupported("a match statement");
      break;
    default:
      break;
  }
  parseSimpleStatements(p, body);
}

/**
 * Whether the statement at the cursor (starting with the name `match`) is a match statement: CPython
 * tries `"match" subject_expr ':'` first and reads the line as simple statements only when that fails.
 */
function isMatchStatement(p: ParserState): boolean {
  const start = p.pos;
  // subject_expr: `star_named_expression ',' star_named_expressions?` or `named_expression`.
  const subject = p.attempt(() => {
    p.pos++;
    const first = parseStarNamedExpression(p);
    if (p.eat(COMMA)) {
      while (startsStarExpression(p.kind())) {
        parseStarNamedExpression(p);
        if (!p.eat(COMMA)) break;
      }
    } else if (first.type === "Starred") {
      return false;
    }
    return p.kind() === COLON;
  });
  p.pos = start;
  return subject === true;
}

/** `block`: an indented suite, or simple statements on the same line. */
function parseBlock(p: ParserState): Stmt[] {
  const body: Stmt[] = [];
  if (p.eat(NEWLINE)) {
    p.expect(INDENT);
    while (!p.eat(DEDENT)) parseStatement(p, body);
  } else {
    parseSimpleStatements(p, body);
  }
  return body;
}

/** `simple_stmts`: simple statements separated by `;` (one may end the line), then NEWLINE. */
function parseSimpleStatements(p: ParserState, body: Stmt[]): void {
  for (;;) {
    body.push(parseSimpleStatement(p));
    if (!p.eat(SEMI) || p.kind() === NEWLINE) break;
  }
  p.expect(NEWLINE);
}

function parseSimpleStatement(p: ParserState): Stmt {
  switch (p.kind()) {
    case KW_PASS:
      p.pos++;
      return { type: "Pass" };
    case KW_BREAK:
      p.pos++;
      return { type: "Break" };
    case KW_CONTINUE:
      p.pos++;
      return { type: "Continue" };
    case KW_RETURN:
      p.pos++;
      return { type: "Return", value: startsStarExpression(p.kind()) ? parseStarExpressions(p) : null };
    case KW_RAISE: {
      p.pos++;
      if (!startsStarExpression(p.kind()) || p.kind() === STAR)
        return { type: "Raise", exc: null, cause: null };
      const exc = parseExpression(p);
      return { type: "Raise", exc, cause: p.eat(KW_FROM) ? parseExpression(p) : null };
    }
    case KW_GLOBAL:
    case KW_NONLOCAL: {
      const type = p.kind() === KW_GLOBAL ? "Global" : "Nonlocal";
      p.pos++;
      const names = [p.name()];
      while (p.eat(COMMA)) names.push(p.name());
      return { type, names };
    }
    case KW_DEL:
      p.pos++;
      return parseDelete(p);
    case KW_ASSERT: {
      p.pos++;
      const test = parseExpression(p);
      return { type: "Assert", test, msg: p.eat(COMMA) ? parseExpression(p) : null };
    }
    case KW_IMPORT:
      p.pos++;
      return parseImport(p);
    case KW_FROM:
      p.pos++;
      return parseImportFrom(p);
    case KW_YIELD:
      return { type: "Expr", value: parseYieldExpression(p) };
    default:
      return parseExpressionStatement(p);
  }
}

/** Augmented assignment operators by token kind. */
const AUGMENTED = new Map<number, Extract<Stmt, { type: "AugAssign" }>["op"]>([
  [PLUSEQUAL, "Add"],
  [MINEQUAL, "Sub"],
  [STAREQUAL, "Mult"],
  [ATEQUAL, "MatMult"],
  [SLASHEQUAL, "Div"],
  [PERCENTEQUAL, "Mod"],
  [AMPEREQUAL, "BitAnd"],
  [VBAREQUAL, "BitOr"],
  [CIRCUMFLEXEQUAL, "BitXor"],
  [LEFTSHIFTEQUAL, "LShift"],
  [RIGHTSHIFTEQUAL, "RShift"],
  [DOUBLESTAREQUAL, "Pow"],
  [DOUBLESLASHEQUAL, "FloorDiv"],
]);

/** An expression statement, or an assignment whose first target was read as an expression. */
function parseExpressionStatement(p: ParserState): Stmt {
  const first = parseStarExpressions(p);
  const kind = p.kind();
  if (kind === EQUAL) {
    checkStarTarget(p, first);
    const targets = [first];
    for (;;) {
      p.pos++; // '='
      const value = parseAssignedValue(p);
      if (p.kind() !== EQUAL) return { type: "Assign", targets, value };
      checkStarTarget(p, value);
      targets.push(value);
    }
  }
  if (kind === COLON) {
    let simple = 0;
    if (first.type === "Name") simple = first.parenthesized === true ? 0 : 1;
    else if (first.type !== "Attribute" && first.type !== "Subscript")
      p.fail("illegal target for annotation");
    p.pos++;
    const annotation = parseExpression(p);
    const value = p.eat(EQUAL) ? parseAssignedValue(p) : null;
    return { type: "AnnAssign", target: first, annotation, value, simple };
  }
  const op = AUGMENTED.get(kind);
  if (op !== undefined) {
    checkSingleTarget(p, first);
    p.pos++;
    return { type: "AugAssign", target: first, op, value: parseAssignedValue(p) };
  }
  return { type: "Expr", value: first };
}

/** The right-hand side of an assignment: `yield_expr | star_expressions`. */
function parseAssignedValue(p: ParserState): Expr {
  return p.kind() === KW_YIELD ? parseYieldExpression(p) : parseStarExpressions(p);
}

/** `del_targets` followed by the end of the statement. */
function parseDelete(p: ParserState): Stmt {
  const targets: Expr[] = [];
  do {
    const target = parsePrimary(p);
    checkDelTarget(p, target);
    targets.push(target);
  } while (p.eat(COMMA) && p.kind() !== SEMI && p.kind() !== NEWLINE);
  if (p.kind() !== SEMI && p.kind() !== NEWLINE) p.fail("invalid del target");
  return { type: "Delete", targets };
}

function parseDottedName(p: ParserState): string {
  let name = p.name();
  while (p.eat(DOT)) name = `${name}.${p.name()}`;
  return name;
}

/** `import_name`: `import a.b as c, d`. */
function parseImport(p: ParserState): Stmt {
  const names: Alias[] = [];
  do {
    const name = parseDottedName(p);
    names.push({ name, asname: p.eat(KW_AS) ? p.name() : null });
  } while (p.eat(COMMA));
  return { type: "Import", names };
}

/** `import_from`: `from [dots][module] import (names) | names | *`. */
function parseImportFrom(p: ParserState): Stmt {
  let level = 0;
  for (;;) {
    if (p.eat(DOT)) level += 1;
    else if (p.eat(ELLIPSIS)) level += 3;
    else break;
  }
  const module = level === 0 || p.kind() === NAME ? parseDottedName(p) : null;
  p.expect(KW_IMPORT);
  if (p.eat(STAR)) return { type: "ImportFrom", module, names: [{ name: "*", asname: null }], level };
  const parenthesized = p.eat(LPAR);
  const names: Alias[] = [];
  for (;;) {
    const name = p.name();
    names.push({ name, asname: p.eat(KW_AS) ? p.name() : null });
    if (!p.eat(COMMA) || (parenthesized && p.kind() === RPAR)) break;
  }
  if (parenthesized) p.expect(RPAR);
  return { type: "ImportFrom", module, names, level };
}

/** `if_stmt` and its `elif`/`else` clauses; an `elif` is an If in the orelse of the one before it. */
function parseIf(p: ParserState): Stmt {
  const clauses: { test: Expr; body: Stmt[] }[] = [];
  do {
    p.pos++; // 'if' or 'elif'
    const test = parseNamedExpression(p);
    p.expect(COLON);
    clauses.push({ test, body: parseBlock(p) });
  } while (p.kind() === KW_ELIF);
  let orelse = parseElse(p);
  for (let i = clauses.length - 1; i > 0; i--) {
    const { test, body } = clauses[i] as { test: Expr; body: Stmt[] };
    orelse = [{ type: "If", test, body, orelse, elif: true }];
  }
  const { test, body } = clauses[0] as { test: Expr; body: Stmt[] };
  return { type: "If", test, body, orelse };
}

/** `[else_block]`. */
function parseElse(p: ParserState): Stmt[] {
  if (!p.eat(KW_ELSE)) return [];
  p.expect(COLON);
  return parseBlock(p);
}

function parseWhile(p: ParserState): Stmt {
  p.pos++;
  const test = parseNamedExpression(p);
  p.expect(COLON);
  const body = parseBlock(p);
  return { type: "While", test, body, orelse: parseElse(p) };
}

/** `for_stmt` (the cursor is on `for`; `async` already taken). */
function parseFor(p: ParserState, isAsync: boolean): Stmt {
  p.expect(KW_FOR);
  const target = parseStarTargets(p);
  p.expect(KW_IN);
  const iter = parseStarExpressions(p);
  p.expect(COLON);
  const body = parseBlock(p);
  return { type: isAsync ? "AsyncFor" : "For", target, iter, body, orelse: parseElse(p) };
}

/**
 * `with_stmt`. `with (a, b):` is two context managers (the parenthesized form is tried first), while
 * `with (a, b) as c:` and `with (a, b), c:` are not that form and read the parentheses as a tuple.
 */
function parseWith(p: ParserState, isAsync: boolean): Stmt {
  p.expect(KW_WITH);
  let items: WithItem[] | null = null;
  if (p.kind() === LPAR) {
    items = p.attempt(() => {
      p.pos++;
      const parenthesized = [parseWithItem(p)];
      while (p.eat(COMMA) && p.kind() !== RPAR) parenthesized.push(parseWithItem(p));
      p.expect(RPAR);
      p.expect(COLON);
      return parenthesized;
    });
  }
  if (items === null) {
    items = [parseWithItem(p)];
    while (p.eat(COMMA)) items.push(parseWithItem(p));
    p.expect(COLON);
  }
  return { type: isAsync ? "AsyncWith" : "With", items, body: parseBlock(p) };
}

/** `with_item`: `expression ['as' star_target]`, the target followed by `,`, `)` or `:`. */
function parseWithItem(p: ParserState): WithItem {
  const context_expr = parseExpression(p);
  if (!p.eat(KW_AS)) return { context_expr, optional_vars: null };
  const optional_vars = parseStarTarget(p);
  const next = p.kind();
  if (next !== COMMA && next !== RPAR && next !== COLON) p.fail("invalid with item target");
  return { context_expr, optional_vars };
}

/** `try_stmt`: `except` or `except*` clauses (not both), `else` only after them, `finally`. */
function parseTry(p: ParserState): Stmt {
  p.pos++;
  p.expect(COLON);
  const body = parseBlock(p);
  const handlers: ExceptHandler[] = [];
  let star: boolean | null = null;
  while (p.eat(KW_EXCEPT)) {
    const isStar = p.eat(STAR);
    if (star !== null && star !== isStar) p.fail("cannot have both 'except' and 'except*' on the same 'try'");
    star = isStar;
    if (!isStar && p.eat(COLON)) {
      handlers.push({ type: "ExceptHandler", exc_type: null, name: null, body: parseBlock(p) });
      continue;
    }
    const exc_type = parseExpression(p);
    const name = p.eat(KW_AS) ? p.name() : null;
    p.expect(COLON);
    handlers.push({ type: "ExceptHandler", exc_type, name, body: parseBlock(p) });
  }
  const orelse = handlers.length > 0 ? parseElse(p) : [];
  let finalbody: Stmt[] = [];
  const hasFinally = p.eat(KW_FINALLY);
  if (hasFinally) {
    p.expect(COLON);
    finalbody = parseBlock(p);
  }
  if (handlers.length === 0 && !hasFinally) p.fail("expected 'except' or 'finally' block");
  return { type: star === true ? "TryStar" : "Try", body, handlers, orelse, finalbody };
}

/** `decorators` and the `def`, `async def` or `class` they decorate. */
function parseDecorated(p: ParserState): Stmt {
  const decorators: Expr[] = [];
  while (p.eat(AT)) {
    decorators.push(parseNamedExpression(p));
    p.expect(NEWLINE);
  }
  switch (p.kind()) {
    case KW_DEF:
      return parseFunction(p, decorators, false);
    case KW_CLASS:
      return parseClass(p, decorators);
    case KW_ASYNC:
      if (p.peek(1) !== KW_DEF) break;
      p.pos++;
      return parseFunction(p, decorators, true);
    default:
      break;
  }
  p.fail("a decorator not followed by a definition");
}

/** `function_def_raw` (the cursor is on `def`; for `async def`, `async` is taken and is the line's start). */
function parseFunction(p: ParserState, decorators: Expr[], isAsync: boolean): Stmt {
  const lineno = p.lineOf(isAsync ? p.pos - 1 : p.pos);
  p.expect(KW_DEF);
  const name = p.name();
  p.expect(LPAR);
  const args = parseParameters(p, RPAR, true, PARAMETER_EXPRESSIONS);
  p.expect(RPAR);
  const returns = p.eat(RARROW) ? parseExpression(p) : null;
  p.expect(COLON);
  const body = parseBlock(p);
  return {
    type: isAsync ? "AsyncFunctionDef" : "FunctionDef",
    name,
    args,
    body,
    decorator_list: decorators,
    returns,
    lineno,
  };
}

/** `class_def_raw` (the cursor is on `class`). */
function parseClass(p: ParserState, decorators: Expr[]): Stmt {
  const lineno = p.lineOf(p.pos);
  p.pos++;
  const name = p.name();
  let bases: Expr[] = [];
  let keywords: Extract<Stmt, { type: "ClassDef" }>["keywords"] = [];
  if (p.eat(LPAR)) ({ bases, keywords } = parseClassArguments(p));
  p.expect(COLON);
  const body = parseBlock(p);
  return { type: "ClassDef", name, bases, keywords, body, decorator_list: decorators, lineno };
}
