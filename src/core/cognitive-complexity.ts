/**
 * Cognitive complexity (SPEC §2.5) of a Python program, measured on tree-sitter-python's concrete syntax
 * tree, for `added_cc(M) = CC(M) − CC(G)` (the over-editing paper's "Added cognitive complexity" metric,
 * in its Metrics section, and the "Lev. + CogC" reward of its Table 5).
 *
 * Sources. The metric is G. Ann Campbell's "Cognitive Complexity — a new way of measuring
 * understandability" (SonarSource white paper, v1.5, 2021; "WP" below, its appendix B lists the
 * increments B1, nesting-level structures B2 and nesting increments B3). SPEC §2.5 asks for the rules
 * *as SonarSource implements them for Python*: sonar-python's `CognitiveComplexityVisitor`
 * (python-frontend, org.sonar.python.metrics), its rule S3776 (`CognitiveComplexityFunctionCheck`) and
 * its test resource `metrics/cognitive-complexities.py` (whose expected values this module reproduces).
 * Where sonar-python departs from the white paper (no recursion increment, no lambda nesting, `match` not
 * counted) we follow sonar-python and say so.
 *
 * Variant `sonar` (default), every rule — increment; whether the body is nested; source:
 * - `if`: +1 + nesting; nested. WP B1/B3; visitIfStatement.
 * - `elif`: +1 (a "hybrid" increment, no nesting increment); nested. WP B1 "else if".
 * - `else` of `if`, `for`, `while` and `try`: +1; nested. WP B1; visitElseClause (every ElseClause).
 * - `for`, `async for`, `while`: +1 + nesting; nested. WP B1/B3; visitForStatement, visitWhileStatement.
 * - `except`, `except*` (each clause): +1 + nesting; nested. WP B1/B3 "catch"; visitExceptClause.
 * - `try`, `finally`, `with`: 0; not nested. isStmtListIncrementsNestingLevel excludes their bodies.
 * - ternary `a if c else b`: +1 + nesting; all three operands nested. WP B1–B3; visitConditionalExpression.
 * - each run of like boolean operators: +1 (see below). WP B1 "sequences of binary logical operators";
 *   visitBinaryExpression.
 * - `match`: 0; the case bodies are nested (a CaseBlock body is a statement list that nests). sonar-python
 *   has no match rule (the WP's `switch` would be +1 + nesting).
 * - case guards `case p if g`, comprehension `for` and `if`: 0. Not statements; no rule in sonar-python.
 * - nested `def`: 0; its body one level deeper than where it stands (WP B2 "nested methods"), or not
 *   deeper inside a *wrapper* (sonar-python NestingLevel.isWrapperFunction, see below).
 * - `class` (anywhere) and a top-level `def`: 0; nesting restarts at 0 (NestingLevel).
 * - `lambda`: 0; not nested. sonar-python has no lambda rule (the WP's B2 lists lambdas).
 * - recursion: 0. The WP's B1 counts recursion cycles; sonar-python does not ("TODO recursion" in its
 *   test resource).
 * - `break`, `continue`: 0. The WP counts only jumps to labels, which Python does not have.
 * - `not`, comparisons, walrus, `await`, `yield`, `return`, `raise`, `assert`, decorators themselves: 0.
 *   Not breaks in the linear flow (WP).
 *
 * Details:
 * - Boolean sequences: the operator tokens of one chain of `and`/`or` nodes that are *direct* operands of
 *   each other are read left to right, and each change of operator starts a new run: `a and b and c` +1,
 *   `a and b or c` +2, `a and b or c and d` +3. Parentheses end a chain, because sonar-python's tree keeps
 *   them (a PARENTHESIZED node is not AND/OR): `(a and b) and c` and `a and (b and c)` are +2 each, while
 *   `a and b and c` is +1. A boolean chain inside a call argument or a ternary is a chain of its own.
 * - Nesting level: the body of `if`/`elif`/`else`/`for`/`while`/`except`/`case` is one level deeper than
 *   the statement; the bodies of `try`, `finally`, `with`, `def` and `class` are not (sonar-python's
 *   isStmtListIncrementsNestingLevel); a ternary's three operands are one level deeper. Conditions,
 *   iterables and exception types are at the level of their statement.
 * - Functions: a top-level `def` and a method of a class start at level 0; a `def` inside another
 *   function starts one level deeper than the point where it appears, unless the enclosing function is a
 *   *wrapper* (all its other top-level statements are `return <name>`), in which case it starts at the
 *   enclosing function's level (so the decorator idiom `def deco(f): def wrapper(): ...; return wrapper`
 *   costs nothing). Decorators, parameters, defaults and annotations count with their function.
 *   A `class` resets the level to 0 for everything in it, even inside a function.
 * - Elif is the `elif` keyword as written: `else:` followed by an indented `if` is an `else` (+1) and a
 *   nested `if` (+1 + nesting), as in sonar-python, which also measures the source as written.
 *
 * Program total (what `cognitiveComplexity` returns): sonar-python's file-level metric (FileMetrics runs
 * the visitor over the whole file): the sum, over the outermost functions and methods, of their S3776
 * complexity (a nested function counts inside the function that contains it), plus the complexity of the
 * code outside every function (module and class bodies, e.g. `if __name__ == "__main__":`).
 *
 * Variant `paper`: the over-editing paper's evaluation ("measured with a Python AST visitor", §3.2). SPEC
 * §2.5 fixes where it differs from `sonar`, and only there: boolean operators count 0 (read as: none
 * count, wherever they appear — a condition is where they normally are); every `else` counts 0 (its body
 * is still nested); a ternary counts a flat +1 and does not nest, neither itself nor its operands. The
 * paper states nothing more about its visitor, so everything else is as in `sonar`.
 */
import type { Node } from "web-tree-sitter";
import { namedChildrenOf } from "./python/cst.js";

export const COGNITIVE_COMPLEXITY_VARIANTS = ["sonar", "paper"] as const;
/** `sonar`: SonarSource's rules for Python (default); `paper`: the over-editing paper's evaluation. */
export type CognitiveComplexityVariant = (typeof COGNITIVE_COMPLEXITY_VARIANTS)[number];

/**
 * The complexity of one outermost function or method (what sonar-python's rule S3776 reports for it,
 * nested functions included). `name` is qualified by enclosing classes (`Parser.parse`); `line` is the
 * 1-based line of its `def` (or `async def`).
 */
export type FunctionComplexity = { name: string; line: number; complexity: number };

/** Name of the entry that carries the code outside every function in {@link functionComplexities}. */
export const MODULE_ENTRY_NAME = "<module>";

/**
 * CC of the whole program (see the module comment for every rule): the sum of
 * {@link functionComplexities}. `root` is the `module` node of a tree-sitter-python tree of a program
 * that parses (callers check `hasError` first); the tree must still be alive.
 */
export function cognitiveComplexity(root: Node, variant: CognitiveComplexityVariant = "sonar"): number {
  return measure(root, variant).total;
}

/**
 * The program's complexity per outermost function or method, in source order, followed by one entry
 * named {@link MODULE_ENTRY_NAME} (line 1) for the code outside every function when that code has any.
 * The entries sum to {@link cognitiveComplexity}.
 */
export function functionComplexities(
  root: Node,
  variant: CognitiveComplexityVariant = "sonar",
): FunctionComplexity[] {
  const { functions, moduleComplexity } = measure(root, variant);
  return moduleComplexity > 0
    ? [...functions, { name: MODULE_ENTRY_NAME, line: 1, complexity: moduleComplexity }]
    : functions;
}

/**
 * The node types the measure looks at. Everything else (names, calls, comprehensions, lambdas, …) can
 * neither add complexity nor change the nesting level, and the ternaries and boolean operators inside it
 * are found all the same: `descendantsOfType` walks the whole tree inside tree-sitter (one call, in
 * source pre-order), which is much cheaper than visiting every node from JavaScript.
 */
const RELEVANT_TYPES = [
  "if_statement",
  "elif_clause",
  "else_clause",
  "for_statement",
  "while_statement",
  "try_statement",
  "except_clause",
  "finally_clause",
  "with_statement",
  "match_statement",
  "case_clause",
  "block",
  "conditional_expression",
  "boolean_operator",
  "function_definition",
  "class_definition",
  "decorated_definition",
];

/**
 * Statements whose body (a `block`) is one nesting level deeper. The others that own a block — `try`,
 * `finally`, `with`, `def`, `class` and `match` (whose block only holds the `case` clauses) — do not
 * nest it (sonar-python's isStmtListIncrementsNestingLevel excludes TRY_STMT, FINALLY_CLAUSE, CLASSDEF,
 * FUNCDEF and WITH_STMT; a CaseBlock's body is the statement list that nests).
 */
const NESTING_BODY_OWNERS: ReadonlySet<string> = new Set([
  "if_statement",
  "elif_clause",
  "else_clause",
  "for_statement",
  "while_statement",
  "except_clause",
  "case_clause",
]);

/** Where nested code sits: sonar-python's NestingLevel frames are the module, a class or a function. */
type FrameKind = "module" | "class" | "function";

/** What a `def` or `class` sets for everything inside it (shared by the scopes within it). */
type Frame = {
  kind: FrameKind;
  /** The function_definition, when `kind` is "function". */
  fn: Node | null;
  /** Inside some function: a `def` here is an inner function, counted in the outermost one. */
  inFunction: boolean;
  /** The outermost function accumulating increments here; null outside every function. */
  record: FunctionComplexity | null;
  /** Qualified-name prefix of a function defined here (enclosing classes, outside functions). */
  prefix: string;
};

/** An open construct of the walk: everything that starts before `end` is inside it. */
type Scope = {
  type: string;
  end: number;
  /** Nesting level of the code directly inside (not inside a deeper scope). */
  level: number;
  frame: Frame;
};

type Measure = { total: number; functions: FunctionComplexity[]; moduleComplexity: number };

function measure(root: Node, variant: CognitiveComplexityVariant): Measure {
  const sonar = variant === "sonar";
  const result: Measure = { total: 0, functions: [], moduleComplexity: 0 };
  const add = (frame: Frame, increment: number): void => {
    result.total += increment;
    if (frame.record === null) result.moduleComplexity += increment;
    else frame.record.complexity += increment;
  };
  const moduleFrame: Frame = { kind: "module", fn: null, inFunction: false, record: null, prefix: "" };
  const stack: Scope[] = [{ type: "module", end: Number.POSITIVE_INFINITY, level: 0, frame: moduleFrame }];
  // Boolean operators already counted as part of a longer chain (sonar-python's alreadyConsideredOperators).
  const chained = new Set<number>();

  // Pre-order with the scopes kept on a stack, closed by source range: no recursion, so a 10,000-term
  // `a and b and …` (which the normalizer accepts) cannot overflow the JavaScript stack.
  for (const node of root.descendantsOfType(RELEVANT_TYPES)) {
    if (node === null) continue;
    const start = node.startIndex;
    let outer = stack[stack.length - 1] as Scope;
    while (outer.end <= start) {
      stack.pop();
      outer = stack[stack.length - 1] as Scope;
    }
    const { level, frame } = outer;
    const type = node.type;
    let inner = level; // the nesting level inside this node, when it opens a scope
    switch (type) {
      // Structural increments that also pay for their nesting (WP B1 + B3).
      case "if_statement":
      case "for_statement":
      case "while_statement":
      case "except_clause":
        add(frame, 1 + level);
        break;
      // Hybrid increment: `elif` is +1 without a nesting increment (WP B1, "else if").
      case "elif_clause":
        add(frame, 1);
        break;
      // `else` of if/for/while/try: +1, no nesting increment (WP B1); the paper gives it 0.
      case "else_clause":
        if (sonar) add(frame, 1);
        break;
      // No increment: they only own a block (whose nesting is decided below) or case clauses.
      case "try_statement":
      case "finally_clause":
      case "with_statement":
      case "match_statement":
      case "case_clause":
        break;
      case "block":
        if (NESTING_BODY_OWNERS.has(outer.type)) inner = level + 1;
        break;
      // Ternary: +1 plus nesting and its operands nested (WP B1–B3); the paper: a flat +1, no nesting.
      case "conditional_expression":
        if (!sonar) {
          add(frame, 1);
          continue;
        }
        add(frame, 1 + level);
        inner = level + 1;
        break;
      case "boolean_operator":
        if (sonar && !chained.has(node.id)) add(frame, booleanRuns(node, chained));
        continue;
      // The decorators are measured with the definition they decorate (sonar-python visits them inside
      // the function's or class's frame), so the scope is opened here and reused by the definition.
      case "decorated_definition": {
        const definition = node.childForFieldName("definition");
        if (definition !== null) stack.push(definitionScope(definition, node, outer, result.functions));
        continue;
      }
      case "function_definition":
      case "class_definition":
        stack.push(
          outer.type === "decorated_definition"
            ? { type, end: node.endIndex, level, frame }
            : definitionScope(node, node, outer, result.functions),
        );
        continue;
      default:
        continue;
    }
    stack.push({ type, end: node.endIndex, level: inner, frame });
  }
  return result;
}

/**
 * The scope of a `def` or `class` (`statement` is the definition or the `decorated_definition` around
 * it). Creates the {@link FunctionComplexity} entry of an outermost function.
 */
function definitionScope(
  definition: Node,
  statement: Node,
  outer: Scope,
  functions: FunctionComplexity[],
): Scope {
  const name = definition.childForFieldName("name")?.text ?? "";
  const end = statement.endIndex;
  const enclosing = outer.frame;
  if (definition.type === "class_definition") {
    // A class resets the nesting level to 0 (sonar-python NestingLevel: CLASSDEF → level 0).
    const prefix = enclosing.inFunction ? "" : `${enclosing.prefix}${name}.`;
    return { type: statement.type, end, level: 0, frame: { ...enclosing, kind: "class", fn: null, prefix } };
  }
  // A function inside a function nests one level deeper than where it stands, or not at all when the
  // enclosing function only wraps it; directly in a class or the module it starts at 0.
  let level = 0;
  if (enclosing.kind === "function" && enclosing.fn !== null) {
    level = isWrapper(enclosing.fn, statement) ? outer.level : outer.level + 1;
  }
  let record = enclosing.record;
  if (!enclosing.inFunction) {
    record = { name: `${enclosing.prefix}${name}`, line: definition.startPosition.row + 1, complexity: 0 };
    functions.push(record);
  }
  const frame: Frame = { kind: "function", fn: definition, inFunction: true, record, prefix: "" };
  return { type: statement.type, end, level, frame };
}

/**
 * sonar-python's isWrapperFunction: every top-level statement of `parent`'s body other than the nested
 * definition `child` is `return <name>` (one bare name, not parenthesized).
 */
function isWrapper(parent: Node, child: Node): boolean {
  const body = parent.childForFieldName("body");
  if (body === null) return false;
  for (const statement of namedChildrenOf(body)) {
    if (statement.id === child.id) continue;
    if (statement.type !== "return_statement") return false;
    const values = namedChildrenOf(statement);
    if (values.length !== 1 || values[0]?.type !== "identifier") return false;
  }
  return true;
}

/**
 * Increments of the boolean chain rooted at `root`: its `and`/`or` operators in source order, +1 for the
 * first and +1 at every change of operator (WP B1; sonar-python flattenOperators). Operands that are
 * boolean operators directly (not parenthesized) belong to the chain and are recorded in `chained`.
 */
function booleanRuns(root: Node, chained: Set<number>): number {
  const operators: { at: number; text: string }[] = [];
  const pending: Node[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    chained.add(node.id);
    const operator = node.childForFieldName("operator");
    if (operator !== null) operators.push({ at: operator.startIndex, text: operator.type });
    for (const side of ["left", "right"]) {
      const operand = node.childForFieldName(side);
      if (operand !== null && operand.type === "boolean_operator") pending.push(operand);
    }
  }
  operators.sort((a, b) => a.at - b.at);
  let runs = 0;
  let previous = "";
  for (const { text } of operators) {
    if (text !== previous) runs += 1;
    previous = text;
  }
  return runs;
}
