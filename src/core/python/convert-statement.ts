/**
 * tree-sitter-python statement nodes → CPython 3.11 `ast.stmt`.
 *
 * Only what `ast.parse` itself rejects is rejected here. Errors CPython raises later, while compiling
 * (`return` outside a function, `nonlocal` at module level, duplicate parameter names), are not
 * syntax errors of `ast.parse` and so must not be errors here either.
 *
 * Why one long file: one function per statement node type of the grammar, as CPython's own parser has
 * them; expressions, strings and patterns are files of their own.
 */
import type { Node } from "web-tree-sitter";
import type { Alias, ExceptHandler, Expr, MatchCase, Stmt, WithItem } from "./ast.js";
import {
  BINARY_OPERATORS,
  convertArgumentList,
  convertElement,
  convertExpression,
  convertParameters,
  convertTarget,
  convertTypeAnnotation,
  identifier,
} from "./convert-expression.js";
import { convertPattern } from "./convert-pattern.js";
import { childrenOf, field, hasToken, namedChildrenOf, reject, requiredField } from "./cst.js";
import { pythonParser } from "./grammar.js";

export function convertBlock(node: Node): Stmt[] {
  const body = namedChildrenOf(node).map(convertStatement);
  // tree-sitter accepts `if x:` followed by an unindented line, leaving the block empty.
  if (body.length === 0 && node.type === "block") reject(node, "expected an indented block");
  return body;
}

function convertStatement(node: Node): Stmt {
  switch (node.type) {
    case "expression_statement":
      return convertExpressionStatement(node);
    case "pass_statement":
      return { type: "Pass" };
    case "break_statement":
      return { type: "Break" };
    case "continue_statement":
      return { type: "Continue" };
    case "return_statement": {
      const value = namedChildrenOf(node)[0];
      return { type: "Return", value: value === undefined ? null : convertValue(value) };
    }
    case "delete_statement": {
      const target = namedChildrenOf(node)[0];
      if (target === undefined) reject(node, "del needs a target");
      const targets = target.type === "expression_list" ? namedChildrenOf(target) : [target];
      return { type: "Delete", targets: targets.map(convertDeleteTarget) };
    }
    case "raise_statement": {
      const cause = field(node, "cause");
      const exc = namedChildrenOf(node).find((c) => c !== cause && c.id !== cause?.id);
      if (cause !== null && exc === undefined) reject(node, "raise from needs an exception");
      return {
        type: "Raise",
        exc: exc === undefined ? null : convertValue(exc),
        cause: cause === null ? null : convertExpression(cause),
      };
    }
    case "assert_statement": {
      const [test, msg] = namedChildrenOf(node);
      if (test === undefined) reject(node, "assert needs a test");
      return {
        type: "Assert",
        test: convertExpression(test),
        msg: msg === undefined ? null : convertExpression(msg),
      };
    }
    case "global_statement":
    case "nonlocal_statement":
      return {
        type: node.type === "global_statement" ? "Global" : "Nonlocal",
        names: namedChildrenOf(node).map(identifier),
      };
    case "import_statement":
      return { type: "Import", names: node.childrenForFieldName("name").filter(isNode).map(convertAlias) };
    case "import_from_statement":
      return convertImportFrom(node);
    case "future_import_statement":
      return {
        type: "ImportFrom",
        module: "__future__",
        names: node.childrenForFieldName("name").filter(isNode).map(convertAlias),
        level: 0,
      };
    case "if_statement":
      return convertIf(node);
    case "for_statement":
      return {
        type: hasToken(node, "async") ? "AsyncFor" : "For",
        target: convertTarget(requiredField(node, "left")),
        iter: convertValue(requiredField(node, "right")),
        body: convertBlock(requiredField(node, "body")),
        orelse: elseBody(node),
      };
    case "while_statement":
      return {
        type: "While",
        test: convertExpression(requiredField(node, "condition")),
        body: convertBlock(requiredField(node, "body")),
        orelse: elseBody(node),
      };
    case "try_statement":
      return convertTry(node);
    case "with_statement":
      return convertWith(node);
    case "function_definition":
      return convertFunction(node, []);
    case "class_definition":
      return convertClass(node, []);
    case "decorated_definition": {
      const decorators = namedChildrenOf(node)
        .filter((c) => c.type === "decorator")
        .map((d) => convertExpression(onlyNamed(d)));
      const definition = requiredField(node, "definition");
      return definition.type === "class_definition"
        ? convertClass(definition, decorators)
        : convertFunction(definition, decorators);
    }
    case "match_statement":
      return convertMatch(node);
    case "print_statement":
      return convertPrintChevron(node);
    case "exec_statement":
      reject(node, "Missing parentheses in call to 'exec'");
      break;
    case "type_alias_statement":
      return convertTypeCallStatement(node);
    default:
      break;
  }
  reject(node, `unexpected ${node.type}`);
}

function isNode(n: Node | null): n is Node {
  return n !== null;
}

function onlyNamed(node: Node): Node {
  const children = namedChildrenOf(node);
  if (children.length !== 1 || children[0] === undefined) reject(node, `malformed ${node.type}`);
  return children[0];
}

/** A value position where a bare tuple (`return a, b`, `x = a, b`, `for x in a, b`) is allowed. */
function convertValue(node: Node): Expr {
  if (node.type === "expression_list" || node.type === "pattern_list") {
    return { type: "Tuple", elts: namedChildrenOf(node).map(convertElement) };
  }
  // ast.parse accepts `return *a` (the compiler rejects it later), so the tree keeps the Starred.
  return convertElement(node);
}

function convertDeleteTarget(node: Node): Expr {
  switch (node.type) {
    case "identifier":
    case "attribute":
    case "subscript":
      return convertExpression(node);
    case "tuple":
      return { type: "Tuple", elts: namedChildrenOf(node).map(convertDeleteTarget) };
    case "list":
      return { type: "List", elts: namedChildrenOf(node).map(convertDeleteTarget) };
    case "parenthesized_expression":
      return convertDeleteTarget(onlyNamed(node));
    default:
      reject(node, `cannot delete ${node.type}`);
  }
}

function convertExpressionStatement(node: Node): Stmt {
  const children = namedChildrenOf(node);
  const [first] = children;
  if (first === undefined) reject(node, "empty statement");
  if (children.length > 1 || hasToken(node, ",")) {
    return { type: "Expr", value: { type: "Tuple", elts: children.map(convertElement) } };
  }
  switch (first.type) {
    case "assignment":
      return convertAssignment(first);
    case "augmented_assignment":
      return convertAugmentedAssignment(first);
    case "named_expression":
      reject(first, "an assignment expression must be parenthesized at statement level");
      break;
    default:
      break;
  }
  return { type: "Expr", value: convertElement(first) };
}

/** `a = b = c` is one Assign with two targets; `x: T = v` is AnnAssign. */
function convertAssignment(node: Node): Stmt {
  const annotation = field(node, "type");
  if (annotation !== null) {
    const left = requiredField(node, "left");
    const right = field(node, "right");
    const annotated = annotatedTarget(left);
    return {
      type: "AnnAssign",
      target: annotated.target,
      annotation: convertTypeAnnotation(annotation),
      value: right === null ? null : convertValue(right),
      simple: annotated.simple,
    };
  }
  const targets: Expr[] = [];
  let current: Node = node;
  for (;;) {
    targets.push(convertTarget(requiredField(current, "left")));
    const right = requiredField(current, "right");
    if (right.type === "assignment") {
      if (field(right, "type") !== null) reject(right, "annotated assignment in a chain");
      current = right;
      continue;
    }
    if (right.type === "augmented_assignment") reject(right, "augmented assignment in a chain");
    return { type: "Assign", targets, value: convertValue(right) };
  }
}

/** `x: int` has simple=1; `(x): int`, `a.b: int` and `a[0]: int` have simple=0 (PEP 526). */
function annotatedTarget(node: Node): { target: Expr; simple: number } {
  switch (node.type) {
    case "identifier":
      return { target: convertExpression(node), simple: 1 };
    case "attribute":
    case "subscript":
      return { target: convertExpression(node), simple: 0 };
    case "tuple_pattern":
    case "parenthesized_expression": {
      if (node.type === "tuple_pattern" && hasToken(node, ",")) break;
      const inner = onlyNamed(node);
      if (inner.type === "identifier" || inner.type === "attribute" || inner.type === "subscript") {
        return { target: convertExpression(inner), simple: 0 };
      }
      if (inner.type === "parenthesized_expression" || inner.type === "tuple_pattern") {
        return { ...annotatedTarget(inner), simple: 0 };
      }
      reject(node, "only single target (not tuple) can be annotated");
      break;
    }
    default:
      break;
  }
  reject(node, "only single target (not list or tuple) can be annotated");
}

function convertAugmentedAssignment(node: Node): Stmt {
  const left = requiredField(node, "left");
  let target = left;
  // `(x) += 1`: tree-sitter reads a parenthesized target as a parenthesized_expression or a comma-less tuple_pattern.
  while (
    (target.type === "parenthesized_expression" ||
      (target.type === "tuple_pattern" && !hasToken(target, ","))) &&
    namedChildrenOf(target).length === 1
  ) {
    target = onlyNamed(target);
  }
  if (target.type !== "identifier" && target.type !== "attribute" && target.type !== "subscript") {
    reject(left, "illegal expression for augmented assignment");
  }
  const operator = requiredField(node, "operator");
  const op = BINARY_OPERATORS[operator.type.slice(0, -1)];
  if (op === undefined) reject(operator, `unknown operator ${operator.type}`);
  return {
    type: "AugAssign",
    target: convertExpression(target),
    op,
    value: convertValue(requiredField(node, "right")),
  };
}

function elseBody(node: Node): Stmt[] {
  const alternative = field(node, "alternative");
  return alternative === null ? [] : convertBlock(requiredField(alternative, "body"));
}

/** `elif` chains become nested If nodes in `orelse`, as CPython builds them. */
function convertIf(node: Node): Stmt {
  const alternatives = node.childrenForFieldName("alternative").filter(isNode);
  let orelse: Stmt[] = [];
  for (let i = alternatives.length - 1; i >= 0; i--) {
    const clause = alternatives[i] as Node;
    if (clause.type === "else_clause") {
      if (i !== alternatives.length - 1) reject(clause, "'else' must come last");
      orelse = convertBlock(requiredField(clause, "body"));
    } else {
      orelse = [
        {
          type: "If",
          test: convertExpression(requiredField(clause, "condition")),
          body: convertBlock(requiredField(clause, "consequence")),
          orelse,
          elif: true,
        },
      ];
    }
  }
  return {
    type: "If",
    test: convertExpression(requiredField(node, "condition")),
    body: convertBlock(requiredField(node, "consequence")),
    orelse,
  };
}

function convertTry(node: Node): Stmt {
  const handlers: ExceptHandler[] = [];
  let orelse: Stmt[] = [];
  let finalbody: Stmt[] = [];
  let star: boolean | null = null;
  let sawElse = false;
  let sawFinally = false;
  for (const clause of namedChildrenOf(node)) {
    if (clause.type === "except_clause") {
      if (sawElse || sawFinally) reject(clause, "except after else/finally");
      const isStar = hasToken(clause, "*");
      if (star !== null && star !== isStar)
        reject(clause, "cannot have both 'except' and 'except*' on the same 'try'");
      star = isStar;
      handlers.push(convertExceptClause(clause, isStar));
    } else if (clause.type === "else_clause") {
      if (handlers.length === 0) reject(clause, "try/else needs an except clause");
      sawElse = true;
      orelse = convertBlock(requiredField(clause, "body"));
    } else if (clause.type === "finally_clause") {
      sawFinally = true;
      finalbody = convertBlock(onlyBlock(clause));
    }
  }
  if (handlers.length === 0 && !sawFinally) reject(node, "expected 'except' or 'finally' block");
  return {
    type: star === true ? "TryStar" : "Try",
    body: convertBlock(requiredField(node, "body")),
    handlers,
    orelse,
    finalbody,
  };
}

function onlyBlock(node: Node): Node {
  const block = namedChildrenOf(node).find((c) => c.type === "block");
  if (block === undefined) reject(node, `missing block in ${node.type}`);
  return block;
}

function convertExceptClause(clause: Node, isStar: boolean): ExceptHandler {
  const body = convertBlock(onlyBlock(clause));
  const values = clause.childrenForFieldName("value").filter(isNode);
  const aliasField = field(clause, "alias");
  if (values.length === 0) {
    if (isStar) reject(clause, "expected one or more exception types");
    return { type: "ExceptHandler", exc_type: null, name: null, body };
  }
  if (values.length > 1) reject(clause, "multiple exception types must be parenthesized");
  const value = values[0] as Node;
  if (value.type === "as_pattern") {
    const target = field(value, "alias");
    const subject = namedChildrenOf(value).find((c) => c.type !== "as_pattern_target");
    if (target === null || subject === undefined) reject(value, "malformed except clause");
    const name = onlyNamed(target);
    return { type: "ExceptHandler", exc_type: convertExceptType(subject), name: identifier(name), body };
  }
  return {
    type: "ExceptHandler",
    exc_type: convertExceptType(value),
    name: aliasField === null ? null : identifier(aliasField),
    body,
  };
}

function convertExceptType(node: Node): Expr {
  if (node.type === "expression_list") reject(node, "multiple exception types must be parenthesized");
  return convertExpression(node);
}

/**
 * `with (a, b):` is two context managers in CPython 3.9+ (the parenthesized-items rule is tried first);
 * `with (a, b) as c:` and `with (a, b), c:` use the tuple itself.
 */
function convertWith(node: Node): Stmt {
  const clause = namedChildrenOf(node).find((c) => c.type === "with_clause");
  if (clause === undefined) reject(node, "with needs items");
  const itemNodes = namedChildrenOf(clause).filter((c) => c.type === "with_item");
  let items: WithItem[];
  const only = itemNodes.length === 1 ? requiredField(itemNodes[0] as Node, "value") : null;
  if (only !== null && only.type === "tuple" && namedChildrenOf(only).length > 0 && !hasToken(clause, "(")) {
    items = namedChildrenOf(only).map((element) => ({
      context_expr: convertExpression(element),
      optional_vars: null,
    }));
  } else {
    items = itemNodes.map(convertWithItem);
  }
  return {
    type: hasToken(node, "async") ? "AsyncWith" : "With",
    items,
    body: convertBlock(requiredField(node, "body")),
  };
}

function convertWithItem(item: Node): WithItem {
  let value = requiredField(item, "value");
  // `with (cm() as x):` arrives as a parenthesized as_pattern.
  while (value.type === "parenthesized_expression" && namedChildrenOf(value)[0]?.type === "as_pattern") {
    value = onlyNamed(value);
  }
  if (value.type === "as_pattern") {
    const target = field(value, "alias");
    const subject = namedChildrenOf(value).find((c) => c.type !== "as_pattern_target");
    if (target === null || subject === undefined) reject(value, "malformed with item");
    return { context_expr: convertExpression(subject), optional_vars: convertTarget(onlyNamed(target)) };
  }
  return { context_expr: convertExpression(value), optional_vars: null };
}

function convertFunction(node: Node, decorators: Expr[]): Stmt {
  if (field(node, "type_parameters") !== null) reject(node, "type parameters are Python 3.12");
  const returns = field(node, "return_type");
  return {
    type: hasToken(node, "async") ? "AsyncFunctionDef" : "FunctionDef",
    name: identifier(requiredField(node, "name")),
    args: convertParameters(requiredField(node, "parameters"), true),
    body: convertBlock(requiredField(node, "body")),
    decorator_list: decorators,
    returns: returns === null ? null : convertTypeAnnotation(returns),
    lineno: node.startPosition.row + 1,
  };
}

function convertClass(node: Node, decorators: Expr[]): Stmt {
  if (field(node, "type_parameters") !== null) reject(node, "type parameters are Python 3.12");
  const superclasses = field(node, "superclasses");
  const { args, keywords } =
    superclasses === null ? { args: [], keywords: [] } : convertArgumentList(superclasses);
  return {
    type: "ClassDef",
    name: identifier(requiredField(node, "name")),
    bases: args,
    keywords,
    body: convertBlock(requiredField(node, "body")),
    decorator_list: decorators,
    lineno: node.startPosition.row + 1,
  };
}

function dottedName(node: Node): string {
  if (node.type !== "dotted_name") reject(node, `expected a dotted name, found ${node.type}`);
  return namedChildrenOf(node).map(identifier).join(".");
}

function convertAlias(node: Node): Alias {
  if (node.type === "aliased_import") {
    return {
      name: dottedName(requiredField(node, "name")),
      asname: identifier(requiredField(node, "alias")),
    };
  }
  return { name: dottedName(node), asname: null };
}

function convertImportFrom(node: Node): Stmt {
  const moduleNode = requiredField(node, "module_name");
  let module: string | null = null;
  let level = 0;
  if (moduleNode.type === "relative_import") {
    for (const child of namedChildrenOf(moduleNode)) {
      if (child.type === "import_prefix") level = child.text.replace(/\s|\\/g, "").length;
      else module = dottedName(child);
    }
  } else {
    module = dottedName(moduleNode);
  }
  const wildcard = namedChildrenOf(node).some((c) => c.type === "wildcard_import");
  const names: Alias[] = wildcard
    ? [{ name: "*", asname: null }]
    : node.childrenForFieldName("name").filter(isNode).map(convertAlias);
  if (!wildcard && hasToken(node, "(") && !hasToken(node, ")")) reject(node, "unclosed import list");
  if (!wildcard && !hasToken(node, "(") && node.text.trimEnd().endsWith(",")) {
    reject(node, "trailing comma not allowed without surrounding parentheses");
  }
  return { type: "ImportFrom", module, names, level };
}

function convertMatch(node: Node): Stmt {
  const subjects = node.childrenForFieldName("subject").filter((n): n is Node => n?.isNamed === true);
  const [first] = subjects;
  if (first === undefined) reject(node, "match needs a subject");
  const isTuple = subjects.length > 1 || hasToken(node, ",");
  const subject: Expr = isTuple ? { type: "Tuple", elts: subjects.map(convertElement) } : convertValue(first);
  const body = requiredField(node, "body");
  const cases: MatchCase[] = [];
  for (const clause of childrenOf(body)) {
    if (clause.type !== "case_clause") reject(clause, "expected 'case'");
    const patterns = namedChildrenOf(clause).filter((c) => c.type === "case_pattern");
    const guard = field(clause, "guard");
    cases.push({
      pattern: convertPattern(patterns, clause),
      guard: guard === null ? null : convertExpression(onlyNamed(guard)),
      body: convertBlock(requiredField(clause, "consequence")),
    });
  }
  if (cases.length === 0) reject(node, "match needs at least one case");
  return { type: "Match", subject, cases };
}

/**
 * `print >> f, x` is valid Python 3 (a tuple whose first item shifts the print function), but
 * tree-sitter-python reads any statement starting with `print` and a non-parenthesis as a Python 2 print
 * statement. Without `>>` it really is Python 2 (`print x`), which CPython rejects.
 */
function convertPrintChevron(node: Node): Stmt {
  const chevron = namedChildrenOf(node).find((c) => c.type === "chevron");
  if (chevron === undefined) reject(node, "Missing parentheses in call to 'print'");
  const shifted: Expr = {
    type: "BinOp",
    left: { type: "Name", id: "print" },
    op: "RShift",
    right: convertExpression(onlyNamed(chevron)),
  };
  const rest = node.childrenForFieldName("argument").filter(isNode).map(convertElement);
  if (rest.length === 0 && !hasToken(node, ",")) return { type: "Expr", value: shifted };
  return { type: "Expr", value: { type: "Tuple", elts: [shifted, ...rest] } };
}

/** An identifier of the same UTF-16 length as `type` that no real program uses (see below). */
const TYPE_PLACEHOLDER = "\u0167ype";

/**
 * tree-sitter-python reads `type(x).attr = v` as a 3.12 `type` alias statement. A real alias
 * (`type X = int`, a name after `type`) is not Python 3.11; anything else is re-parsed with `type`
 * swapped for a placeholder name, which is then renamed back.
 */
function convertTypeCallStatement(node: Node): Stmt {
  const text = node.text;
  if (/^type\s+[\p{L}_]/u.test(text)) reject(node, "type alias statements are Python 3.12");
  const tree = pythonParser().parse(`${TYPE_PLACEHOLDER}${text.slice(4)}\n`);
  if (tree === null) reject(node, "could not parse statement");
  try {
    const statements = namedChildrenOf(tree.rootNode);
    if (tree.rootNode.hasError || statements.length !== 1 || statements[0] === undefined) {
      reject(node, "invalid syntax");
    }
    return renamePlaceholder(convertStatement(statements[0]));
  } finally {
    tree.delete();
  }
}

function renamePlaceholder<T>(value: T): T {
  if (Array.isArray(value)) {
    for (const item of value) renamePlaceholder(item);
  } else if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (record.type === "Name" && record.id === TYPE_PLACEHOLDER) record.id = "type";
    for (const child of Object.values(record)) renamePlaceholder(child);
  }
  return value;
}
