/**
 * tree-sitter-python expression nodes → CPython 3.11 `ast.expr`.
 *
 * The output must be the tree `ast.parse` builds, because `ast.unparse` (and so the reward) is a function
 * of that tree: parentheses vanish, `a and b and c` is one BoolOp, `a < b < c` is one Compare,
 * `-1` stays `UnaryOp(USub, 1)` (CPython folds constants only when compiling, not in `ast.parse`).
 *
 * Why one long file: one function per expression node type of the grammar, as CPython's own parser has
 * them; strings, patterns and statements are already files of their own.
 */
import type { Node } from "web-tree-sitter";
import {
  type Arg,
  type Arguments,
  type BoolOperator,
  type CompareOperator,
  type Comprehension,
  type Expr,
  emptyArguments,
  type Keyword,
  type Operator,
  type UnaryOperator,
} from "./ast.js";
import { convertStrings, type ExpressionConverters } from "./convert-string.js";
import { childrenOf, field, hasToken, namedChildrenOf, reject, requiredField } from "./cst.js";
import { pythonParser } from "./grammar.js";
import { parseNumberLiteral } from "./literals.js";

export const BINARY_OPERATORS: Record<string, Operator> = {
  "+": "Add",
  "-": "Sub",
  "*": "Mult",
  "@": "MatMult",
  "/": "Div",
  "%": "Mod",
  "**": "Pow",
  "<<": "LShift",
  ">>": "RShift",
  "|": "BitOr",
  "^": "BitXor",
  "&": "BitAnd",
  "//": "FloorDiv",
};

const UNARY_OPERATORS: Record<string, UnaryOperator> = { "+": "UAdd", "-": "USub", "~": "Invert" };

const COMPARE_OPERATORS: Record<string, CompareOperator> = {
  "==": "Eq",
  "!=": "NotEq",
  "<": "Lt",
  "<=": "LtE",
  ">": "Gt",
  ">=": "GtE",
  is: "Is",
  "is not": "IsNot",
  in: "In",
  "not in": "NotIn",
};

/** Hard keywords of Python 3.11: tree-sitter's error recovery can leave them as identifiers. */
const KEYWORDS = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

/**
 * An identifier as CPython stores it: the tokenizer NFKC-normalizes non-ASCII names (PEP 3131),
 * so `ﬁ` and `fi` are the same name.
 */
export function identifier(node: Node): string {
  if (node.type !== "identifier") reject(node, `expected a name, found ${node.type}`);
  const text = node.text;
  if (KEYWORDS.has(text)) reject(node, `'${text}' is a keyword`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  return /^[\x00-\x7f]*$/.test(text) ? text : text.normalize("NFKC");
}

/** The converters f-strings (convert-string.ts) use for the expressions in their replacement fields. */
export const EXPRESSION_CONVERTERS: ExpressionConverters = {
  expression: (node) => convertExpression(node),
  element: (node) => convertElement(node),
};

export function convertExpression(node: Node): Expr {
  switch (node.type) {
    case "identifier":
      return { type: "Name", id: identifier(node) };
    case "integer":
    case "float":
      return { type: "Constant", value: parseNumberLiteral(node.text), kind: null };
    case "true":
      return { type: "Constant", value: { kind: "bool", value: true }, kind: null };
    case "false":
      return { type: "Constant", value: { kind: "bool", value: false }, kind: null };
    case "none":
      return { type: "Constant", value: { kind: "None" }, kind: null };
    case "ellipsis":
      return { type: "Constant", value: { kind: "Ellipsis" }, kind: null };
    case "string":
      return convertStrings([node], EXPRESSION_CONVERTERS);
    case "concatenated_string":
      return convertStrings(namedChildrenOf(node), EXPRESSION_CONVERTERS);
    case "parenthesized_expression":
      return convertParenthesized(node);
    case "tuple":
    case "expression_list":
    case "pattern_list":
    case "tuple_pattern":
      return { type: "Tuple", elts: namedChildrenOf(node).map(convertElement) };
    case "list":
    case "list_pattern":
      return { type: "List", elts: namedChildrenOf(node).map(convertElement) };
    case "set":
      return { type: "Set", elts: namedChildrenOf(node).map(convertElement) };
    case "dictionary":
      return convertDictionary(node);
    case "list_splat":
    case "list_splat_pattern":
      if (hoistedSplats.has(node.id)) return convertExpression(onlyChild(node));
      reject(node, "starred expression is not allowed here");
      break;
    case "attribute":
      return {
        type: "Attribute",
        value: convertExpression(requiredField(node, "object")),
        attr: identifier(requiredField(node, "attribute")),
      };
    case "subscript":
      return convertSubscript(node);
    case "call":
      return convertCall(node);
    case "binary_operator":
    case "unary_operator":
    case "await":
      return convertArithmetic(node);
    case "not_operator":
      return { type: "UnaryOp", op: "Not", operand: convertExpression(requiredField(node, "argument")) };
    case "boolean_operator":
      return convertBoolean(node);
    case "comparison_operator":
      return convertComparison(node);
    case "conditional_expression": {
      const [body, test, orelse] = namedChildrenOf(node);
      if (body === undefined || test === undefined || orelse === undefined)
        reject(node, "incomplete if-else");
      return {
        type: "IfExp",
        test: convertExpression(test),
        body: convertExpression(body),
        orelse: convertExpression(orelse),
      };
    }
    case "named_expression":
      return {
        type: "NamedExpr",
        target: { type: "Name", id: identifier(requiredField(node, "name")) },
        value: convertExpression(requiredField(node, "value")),
      };
    case "lambda": {
      const parameters = field(node, "parameters");
      return {
        type: "Lambda",
        args: parameters === null ? emptyArguments() : convertParameters(parameters, false),
        body: convertExpression(requiredField(node, "body")),
      };
    }
    case "yield":
      return convertYield(node);
    case "list_comprehension":
    case "set_comprehension":
    case "generator_expression": {
      const kind =
        node.type === "list_comprehension"
          ? "ListComp"
          : node.type === "set_comprehension"
            ? "SetComp"
            : "GeneratorExp";
      return {
        type: kind,
        elt: convertElementNotStarred(requiredField(node, "body")),
        generators: convertComprehensionClauses(node),
      };
    }
    case "dictionary_comprehension": {
      const pair = requiredField(node, "body");
      return {
        type: "DictComp",
        key: convertExpression(requiredField(pair, "key")),
        value: convertExpression(requiredField(pair, "value")),
        generators: convertComprehensionClauses(node),
      };
    }
    default:
      break;
  }
  reject(node, `unexpected ${node.type}`);
}

/** An element of a tuple/list/set display or an assignment target list, where `*x` is allowed. */
export function convertElement(node: Node): Expr {
  if (node.type === "list_splat" || node.type === "list_splat_pattern") {
    return { type: "Starred", value: convertExpression(onlyChild(node)) };
  }
  const splat = misplacedSplat(node);
  if (splat !== null) {
    hoistedSplats.add(splat.id);
    try {
      return { type: "Starred", value: convertExpression(node) };
    } finally {
      hoistedSplats.delete(splat.id);
    }
  }
  if (node.type === "parenthesized_list_splat") reject(node, "cannot use starred expression here");
  return convertExpression(node);
}

/**
 * tree-sitter-python binds `*` tighter than calls, attributes and subscripts, so `*a.b()` comes out as
 * a call of `*a.b`. Returns the `list_splat` at the bottom of such a chain, or null.
 */
function misplacedSplat(node: Node): Node | null {
  let current: Node | null = node;
  while (current !== null) {
    if (current.type === "list_splat") return current === node ? null : current;
    if (current.type === "call") current = field(current, "function");
    else if (current.type === "attribute") current = field(current, "object");
    else if (current.type === "subscript") current = field(current, "value");
    else return null;
  }
  return null;
}

/** Splat nodes that `convertElement` has hoisted to a Starred around their whole chain. */
const hoistedSplats = new Set<number>();

function convertElementNotStarred(node: Node): Expr {
  if (node.type === "list_splat") reject(node, "iterable unpacking cannot be used in comprehension");
  return convertExpression(node);
}

function onlyChild(node: Node): Node {
  const children = namedChildrenOf(node);
  if (children.length !== 1 || children[0] === undefined) reject(node, `malformed ${node.type}`);
  return children[0];
}

function convertParenthesized(node: Node): Expr {
  const inner = onlyChild(node);
  if (inner.type === "list_splat") reject(node, "cannot use starred expression here");
  // `(yield)` is the one place a bare yield is an expression.
  if (inner.type === "yield") return convertYield(inner);
  const value = convertExpression(inner);
  if (value.type === "Name" || value.type === "BoolOp") value.parenthesized = true;
  return value;
}

function convertYield(node: Node): Expr {
  const value = namedChildrenOf(node)[0];
  if (hasToken(node, "from")) {
    if (value === undefined) reject(node, "yield from needs an expression");
    return { type: "YieldFrom", value: convertExpression(value) };
  }
  return { type: "Yield", value: value === undefined ? null : convertExpression(value) };
}

/** Binding strength of Python's left-associative binary operators (`**` is handled apart). */
const BINARY_PRECEDENCE: Record<string, number> = {
  "|": 1,
  "^": 2,
  "&": 3,
  "<<": 4,
  ">>": 4,
  "+": 5,
  "-": 5,
  "*": 6,
  "@": 6,
  "/": 6,
  "//": 6,
  "%": 6,
};

type ArithmeticItem = { kind: "atom"; node: Node } | { kind: "prefix" | "binary"; text: string; node: Node };

/**
 * Arithmetic (`| ^ & << >> + - * / // % @ **`, unary `+ - ~`, `await`) is rebuilt from its token
 * sequence with Python's precedence, because tree-sitter-python's grammar gets some of it wrong:
 * it binds `^` tighter than `&`, and `await x ** 2` as `await (x ** 2)`. The in-order walk of
 * tree-sitter's subtree is the token sequence whatever the nesting, so re-parsing it is exact.
 */
function convertArithmetic(root: Node): Expr {
  const items: ArithmeticItem[] = [];
  const flatten = (node: Node): void => {
    if (node.type === "binary_operator") {
      flatten(requiredField(node, "left"));
      const operator = requiredField(node, "operator");
      items.push({ kind: "binary", text: operator.type, node: operator });
      flatten(requiredField(node, "right"));
    } else if (node.type === "unary_operator") {
      items.push({ kind: "prefix", text: requiredField(node, "operator").type, node });
      flatten(requiredField(node, "argument"));
    } else if (node.type === "await") {
      items.push({ kind: "prefix", text: "await", node });
      flatten(onlyChild(node));
    } else {
      items.push({ kind: "atom", node });
    }
  };
  flatten(root);
  let position = 0;
  const peek = (): ArithmeticItem | undefined => items[position];
  const parseBinary = (minPrecedence: number): Expr => {
    let left = parseFactor();
    for (;;) {
      const next = peek();
      if (next === undefined || next.kind !== "binary") return left;
      const precedence = BINARY_PRECEDENCE[next.text];
      if (precedence === undefined || precedence < minPrecedence) return left;
      position++;
      const op = BINARY_OPERATORS[next.text] as Operator;
      left = { type: "BinOp", left, op, right: parseBinary(precedence + 1) };
    }
  };
  // factor: ('+' | '-' | '~') factor | power
  const parseFactor = (): Expr => {
    const next = peek();
    if (next?.kind === "prefix" && next.text !== "await") {
      position++;
      return { type: "UnaryOp", op: UNARY_OPERATORS[next.text] as UnaryOperator, operand: parseFactor() };
    }
    return parsePower();
  };
  // power: await_primary '**' factor
  const parsePower = (): Expr => {
    const base = parseAwaitPrimary();
    const next = peek();
    if (next?.kind === "binary" && next.text === "**") {
      position++;
      return { type: "BinOp", left: base, op: "Pow", right: parseFactor() };
    }
    return base;
  };
  const parseAwaitPrimary = (): Expr => {
    const next = peek();
    if (next === undefined) reject(root, "incomplete expression");
    position++;
    if (next.kind === "atom") return convertExpression(next.node);
    if (next.kind === "prefix" && next.text === "await") {
      const operand = peek();
      if (operand?.kind !== "atom") reject(next.node, "await needs a primary expression");
      position++;
      return { type: "Await", value: convertExpression(operand.node) };
    }
    reject(next.node, `unexpected operator ${next.text}`);
  };
  const result = parseBinary(1);
  if (position !== items.length) reject(root, "malformed arithmetic expression");
  return result;
}

/**
 * CPython's grammar makes `a and b and c` one BoolOp with three values; tree-sitter nests it to the left.
 * An explicitly parenthesized operand stays nested (it is a parenthesized_expression node here).
 */
function convertBoolean(node: Node): Expr {
  const opText = requiredField(node, "operator").type;
  const op: BoolOperator = opText === "and" ? "And" : "Or";
  const values: Expr[] = [];
  let left = requiredField(node, "left");
  const rights: Node[] = [requiredField(node, "right")];
  while (left.type === "boolean_operator" && requiredField(left, "operator").type === opText) {
    rights.push(requiredField(left, "right"));
    left = requiredField(left, "left");
  }
  values.push(convertExpression(left));
  for (let i = rights.length - 1; i >= 0; i--) values.push(convertExpression(rights[i] as Node));
  return { type: "BoolOp", op, values };
}

function convertComparison(node: Node): Expr {
  const operands: Expr[] = [];
  const ops: CompareOperator[] = [];
  const children = node.children;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (
      child === null ||
      child === undefined ||
      child.type === "comment" ||
      child.type === "line_continuation"
    )
      continue;
    if (node.fieldNameForChild(i) === "operators") {
      // "is not" / "not in" arrive as one token; normalize inner whitespace and comments away.
      const text = child.type === "is not" || child.type === "not in" ? child.type : child.text;
      if (text === "<>") reject(child, "'<>' is not Python 3");
      const op = COMPARE_OPERATORS[text];
      if (op === undefined) reject(child, `unknown comparison ${text}`);
      ops.push(op);
    } else if (child.isNamed) {
      operands.push(convertExpression(child));
    }
  }
  const [left, ...comparators] = operands;
  if (left === undefined || comparators.length !== ops.length) reject(node, "malformed comparison");
  return { type: "Compare", left, ops, comparators };
}

function convertDictionary(node: Node): Expr {
  const keys: (Expr | null)[] = [];
  const values: Expr[] = [];
  for (const child of namedChildrenOf(node)) {
    if (child.type === "pair") {
      keys.push(convertExpression(requiredField(child, "key")));
      values.push(convertExpression(requiredField(child, "value")));
    } else if (child.type === "dictionary_splat") {
      keys.push(null);
      values.push(convertExpression(onlyChild(child)));
    } else {
      reject(child, "expected 'key: value' in a dict display");
    }
  }
  return { type: "Dict", keys, values };
}

function convertSubscript(node: Node): Expr {
  const parts = node.childrenForFieldName("subscript").filter((n): n is Node => n !== null);
  const elements = parts.map((part) => (part.type === "slice" ? convertSlice(part) : convertElement(part)));
  const isTuple = parts.length > 1 || hasToken(node, ",") || elements.some((e) => e.type === "Starred");
  const [single] = elements;
  if (single === undefined) reject(node, "empty subscript");
  return {
    type: "Subscript",
    value: convertExpression(requiredField(node, "value")),
    slice: isTuple ? { type: "Tuple", elts: elements } : single,
  };
}

function convertSlice(node: Node): Expr {
  const parts: (Expr | null)[] = [null];
  for (const child of childrenOf(node)) {
    if (child.type === ":") parts.push(null);
    else if (child.type === "named_expression")
      reject(child, "an assignment expression in a slice must be parenthesized");
    else if (child.isNamed) parts[parts.length - 1] = convertExpression(child);
  }
  return { type: "Slice", lower: parts[0] ?? null, upper: parts[1] ?? null, step: parts[2] ?? null };
}

/** Call arguments keep CPython's order rules: no positional after a keyword or after `**`. */
function convertCall(node: Node): Expr {
  const func = convertExpression(requiredField(node, "function"));
  const argumentsNode = requiredField(node, "arguments");
  if (argumentsNode.type === "generator_expression") {
    return { type: "Call", func, args: [convertExpression(argumentsNode)], keywords: [] };
  }
  const { args, keywords } = convertArgumentList(argumentsNode);
  return { type: "Call", func, args, keywords };
}

export function convertArgumentList(node: Node): { args: Expr[]; keywords: Keyword[] } {
  const args: Expr[] = [];
  const keywords: Keyword[] = [];
  const children = namedChildrenOf(node);
  let sawKeyword = false;
  let sawDoubleStar = false;
  for (const child of children) {
    switch (child.type) {
      case "keyword_argument":
        sawKeyword = true;
        keywords.push({
          arg: identifier(requiredField(child, "name")),
          value: convertExpression(requiredField(child, "value")),
        });
        break;
      case "dictionary_splat":
        sawDoubleStar = true;
        keywords.push({ arg: null, value: convertExpression(onlyChild(child)) });
        break;
      case "list_splat":
        if (sawDoubleStar) reject(child, "iterable argument unpacking follows keyword argument unpacking");
        args.push({ type: "Starred", value: convertExpression(onlyChild(child)) });
        break;
      default:
        if (sawDoubleStar) reject(child, "positional argument follows keyword argument unpacking");
        if (sawKeyword) reject(child, "positional argument follows keyword argument");
        if (child.type === "generator_expression" && children.length > 1 && !child.text.startsWith("(")) {
          reject(child, "Generator expression must be parenthesized");
        }
        args.push(convertElement(child));
    }
  }
  return { args, keywords };
}

function convertComprehensionClauses(node: Node): Comprehension[] {
  const generators: Comprehension[] = [];
  for (const child of namedChildrenOf(node)) {
    if (child.type === "for_in_clause") {
      const iters = child.childrenForFieldName("right").filter((n): n is Node => n?.isNamed === true);
      const [iter] = iters;
      if (iter === undefined || iters.length !== 1 || hasCommaField(child)) {
        reject(child, "comprehension iterable must be one expression (parenthesize a tuple)");
      }
      generators.push({
        target: convertTarget(requiredField(child, "left")),
        iter: convertExpression(iter),
        ifs: [],
        is_async: hasToken(child, "async") ? 1 : 0,
      });
    } else if (child.type === "if_clause") {
      const last = generators[generators.length - 1];
      if (last === undefined) reject(child, "'if' before 'for' in comprehension");
      last.ifs.push(convertExpression(onlyChild(child)));
    }
  }
  return generators;
}

function hasCommaField(node: Node): boolean {
  return node.childrenForFieldName("right").some((n) => n !== null && n.type === ",");
}

/** Assignment, `for`, `with ... as` and comprehension targets. */
export function convertTarget(node: Node): Expr {
  switch (node.type) {
    case "identifier":
    case "attribute":
    case "subscript":
      return convertExpression(node);
    case "pattern_list":
    case "tuple_pattern":
    case "tuple":
    case "expression_list": {
      const elements = namedChildrenOf(node);
      // tree-sitter reads `(x)` in a target as a one-element tuple_pattern; without a comma it is just x.
      if (node.type === "tuple_pattern" && elements.length === 1 && !hasToken(node, ",") && elements[0]) {
        return convertTarget(elements[0]);
      }
      return { type: "Tuple", elts: elements.map(convertTargetElement) };
    }
    case "list_pattern":
    case "list":
      return { type: "List", elts: namedChildrenOf(node).map(convertTargetElement) };
    case "parenthesized_expression":
      return convertTarget(onlyChild(node));
    case "list_splat_pattern":
    case "list_splat":
      // `*a = 1` parses (the compiler rejects it later).
      return convertTargetElement(node);
    default:
      reject(node, `cannot assign to ${node.type}`);
  }
}

function convertTargetElement(node: Node): Expr {
  if (node.type === "list_splat_pattern" || node.type === "list_splat") {
    return { type: "Starred", value: convertTarget(onlyChild(node)) };
  }
  return convertTarget(node);
}

/**
 * `parameters` / `lambda_parameters` → `ast.arguments`, enforcing the rules CPython's grammar enforces:
 * `/` before `*`, defaults contiguous at the end of the positional ones, `**kwargs` last, a bare `*`
 * followed by a keyword-only parameter.
 */
export function convertParameters(node: Node, allowAnnotations: boolean): Arguments {
  const result = emptyArguments();
  let phase: "positional" | "keyword" | "done" = "positional";
  let sawSlash = false;
  let bareStar: Node | null = null;
  for (const child of namedChildrenOf(node)) {
    if (phase === "done") reject(child, "arguments cannot follow var-keyword argument");
    switch (child.type) {
      case "positional_separator":
        if (sawSlash) reject(child, "/ may appear only once");
        if (phase !== "positional") reject(child, "/ must be ahead of *");
        if (result.args.length === 0) reject(child, "at least one argument must precede /");
        sawSlash = true;
        result.posonlyargs = result.args;
        result.args = [];
        break;
      case "keyword_separator":
        if (phase !== "positional") reject(child, "* argument may appear only once");
        phase = "keyword";
        bareStar = child;
        break;
      case "list_splat_pattern":
        if (phase !== "positional") reject(child, "* argument may appear only once");
        phase = "keyword";
        result.vararg = { arg: identifier(onlyChild(child)), annotation: null };
        break;
      case "dictionary_splat_pattern":
        result.kwarg = { arg: identifier(onlyChild(child)), annotation: null };
        phase = "done";
        break;
      case "identifier":
      case "typed_parameter":
      case "default_parameter":
      case "typed_default_parameter": {
        if (child.type === "typed_parameter") {
          const inner = namedChildrenOf(child).find((c) => c.type !== "type");
          if (inner === undefined) reject(child, "malformed parameter");
          const annotation = convertAnnotation(child, allowAnnotations);
          if (inner.type === "list_splat_pattern") {
            if (phase !== "positional") reject(child, "* argument may appear only once");
            phase = "keyword";
            result.vararg = { arg: identifier(onlyChild(inner)), annotation };
            break;
          }
          if (inner.type === "dictionary_splat_pattern") {
            result.kwarg = { arg: identifier(onlyChild(inner)), annotation };
            phase = "done";
            break;
          }
          addParameter(result, phase, { arg: identifier(inner), annotation }, null, child);
          break;
        }
        const nameNode = child.type === "identifier" ? child : requiredField(child, "name");
        if (nameNode.type !== "identifier") reject(nameNode, "tuple parameters are not Python 3");
        const annotation =
          child.type === "typed_default_parameter" ? convertAnnotation(child, allowAnnotations) : null;
        const defaultNode = field(child, "value");
        addParameter(
          result,
          phase,
          { arg: identifier(nameNode), annotation },
          defaultNode === null ? null : convertExpression(defaultNode),
          child,
        );
        break;
      }
      default:
        reject(child, `unexpected parameter ${child.type}`);
    }
  }
  if (bareStar !== null && result.kwonlyargs.length === 0)
    reject(bareStar, "named arguments must follow bare *");
  return result;
}

function convertAnnotation(node: Node, allowAnnotations: boolean): Expr {
  if (!allowAnnotations) reject(node, "lambda parameters cannot be annotated");
  return convertTypeAnnotation(requiredField(node, "type"));
}

/** Node types tree-sitter-python uses inside annotations for its 3.12 type-hint grammar. */
const TYPE_HINT_NODES = new Set(["generic_type", "union_type", "member_type", "constrained_type", "type"]);

/**
 * An annotation (`type` node). tree-sitter-python parses `List[int]` or `a.B | None` in annotations with
 * its own type-hint rules, not as expressions; CPython's AST has ordinary expressions there, so such an
 * annotation is re-parsed as the parenthesized expression it is.
 */
export function convertTypeAnnotation(typeNode: Node): Expr {
  const inner = onlyChild(typeNode);
  // PEP 646 `*args: *Ts` / `*args: *tuple[int, ...]`
  const starred = typeNode.text.startsWith("*");
  if (!starred && !TYPE_HINT_NODES.has(inner.type)) return convertExpression(inner);
  const value = reparseExpression(typeNode, starred ? typeNode.text.slice(1) : typeNode.text);
  return starred ? { type: "Starred", value } : value;
}

function reparseExpression(typeNode: Node, text: string): Expr {
  const tree = pythonParser().parse(`(${text}\n)`);
  if (tree === null) reject(typeNode, "could not parse annotation");
  try {
    const statement = tree.rootNode.namedChildren[0];
    const expression = statement?.namedChildren[0];
    if (
      tree.rootNode.hasError ||
      expression === null ||
      expression === undefined ||
      tree.rootNode.namedChildCount !== 1
    ) {
      reject(typeNode, "invalid annotation");
    }
    return convertExpression(expression);
  } finally {
    tree.delete();
  }
}

function addParameter(
  result: Arguments,
  phase: "positional" | "keyword" | "done",
  arg: Arg,
  defaultValue: Expr | null,
  node: Node,
): void {
  if (phase === "keyword") {
    result.kwonlyargs.push(arg);
    result.kw_defaults.push(defaultValue);
    return;
  }
  if (defaultValue !== null) result.defaults.push(defaultValue);
  else if (result.defaults.length > 0) reject(node, "non-default argument follows default argument");
  result.args.push(arg);
}
