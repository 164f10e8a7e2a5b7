/**
 * Cognitive complexity (SPEC §2.5) of a Python program, measured on tree-sitter-python's concrete syntax
 * tree, for `added_cc(M) = CC(M) − CC(G)` (the over-editing paper's "Added cognitive complexity" metric,
 * in its Metrics section, and the "Lev. + CogC" reward of its Table 5).
 *
 * Why one file of ~590 lines: the two variants are two readings of the same measure behind the same two
 * exports, share the attribution to outermost functions, and each rule is documented beside its code.
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
 * Variant `paper`: the over-editing paper's evaluation, which is its own visitor, the cognitive part of
 * `CombinedVisitor` in `compute_python_complexities`, nreHieW/fyp `partial_edits/utils/complexity_utils.py`
 * at commit 5a4023e4d1f287ac73a616b5b944a14f28422c7e ("CU" below, with line numbers; "EU" is the
 * `extract_utils.py` beside it). SPEC §2.5 states these rules; this module reproduces that visitor on every
 * program, and tests/differential/paper-complexity.test.ts checks it against an oracle of the same rules
 * (tests/oracle/paper_complexity.py) on the standard library. The visitor runs on CPython's `ast`; each rule
 * says how it reads on tree-sitter-python's tree. "Level" is the visitor's `self.nesting`.
 * - P1 Program: the whole module, once. CU l.9–17: `if not code: return None, None`; `tree =
 *   ast.parse(standardize_code_formatting(code))`, which is `ast.unparse(ast.parse(code))` (EU l.142–143),
 *   falling back to `ast.parse(code)`; CU l.111–113: `v.visit(tree)` … `return v.cc, v.cog`, from
 *   `self.cog = 0` and `self.nesting = 0` (l.22–23). The round trip through `ast.unparse` gives back the
 *   same tree as far as the visitor can see, so the source is measured as written. The paper's None for the
 *   empty string (and for what CPython rejects) is the caller's to give: this function returns 0 for it.
 * - P2 A structural increment is +1 plus the level: CU l.25–26 `def _add_cog(self, base: int = 1):
 *   self.cog += base + self.nesting` (always called with 1).
 * - P3 A nested block is visited one level deeper: CU l.28–36 `_visit_block` (`self.nesting += 1`, visit
 *   each statement, `self.nesting -= 1`).
 * - P4 `if`: +1 + level; body nested; CU l.38–45 `visit_If`. Its orelse: `if len(n.orelse) == 1 and
 *   isinstance(n.orelse[0], ast.If): self.visit(n.orelse[0])`, so an `elif` is +1 + the level of its
 *   `if` (not deeper) with its body nested, and so is an `else:` whose block holds nothing but one `if`
 *   (CPython builds the same tree for both); any other `else` adds nothing and its body is nested. The
 *   test is never visited (no `generic_visit`): a ternary, boolean operator, comprehension or lambda in an
 *   `if`/`elif` condition counts 0.
 * - P5 `for`, `async for`, `while`: +1 + level; body and `else` body nested; CU l.47–63 (`visit_For`,
 *   `visit_AsyncFor`, `visit_While`). Target, iterable and condition are never visited.
 * - P6 `try`: no increment; body nested; each `except` +1 + level with its body nested; `else` and
 *   `finally` bodies nested; CU l.65–74 `visit_Try` (`for h in getattr(n, "handlers", []):
 *   self._add_cog(1); self._visit_block(h.body, ...)`). The exception type and name are never visited.
 * - P7 `with`, `async with`: no increment; body nested; the items never visited. CU l.76–80.
 * - P8 Boolean operators: CU l.82–86 `visit_BoolOp`: `inc = max(0, len(getattr(n, "values", [])) - 1)`,
 *   `self.cog += inc` (no level), then its operands are visited. CPython makes one BoolOp of `a and b and
 *   c` (3 values, +2) and two of `a and (b and c)` or `a and b or c` (+1 each); tree-sitter has one binary
 *   `boolean_operator` per `and`/`or` either way, so it is +1 per `boolean_operator` node.
 * - P9 Ternary `a if c else b`: +1 + level; its operands at the same level. CU l.88–91 `visit_IfExp`.
 * - P10 Comprehensions (list, set, dict, generator): each `for` +1 + level and each of its `if`s +1 + level,
 *   all at the level where the comprehension stands. CU l.93–98 `visit_comprehension` (`self._add_cog(1)`,
 *   `for _ in getattr(n, "ifs", []): self._add_cog(1)`). On tree-sitter: every `for_in_clause` and
 *   `if_clause` child of a comprehension (a `case` guard is an `if_clause` too, but not a comprehension's).
 * - P11 `match`: CU l.104–109 `visit_Match`: each `case` +1 + level with its body nested, then
 *   `self.generic_visit(n)` walks the subject and every case again (pattern, guard, body) at the `match`'s
 *   own level. So every case body is counted twice, once one level deeper and once at the `match`'s level,
 *   and a guard once, at the `match`'s level; a `match` inside a case body is itself visited twice.
 * - P12 Everything else is `ast.NodeVisitor.generic_visit`: all children visited, the level unchanged,
 *   nothing added. So `def`, `async def`, `class` and `lambda` neither count nor nest (their bodies stay at
 *   the level where they stand); decorators, defaults, annotations, f-string replacement fields, `assert`
 *   (CU l.100–102 counts it only in the cyclomatic measure), `return` values and so on are visited. An
 *   `except*` statement is `ast.TryStar`, which has no visit method: its body, handlers (type included),
 *   `else` and `finally` are walked at the same level with no increments. Recursion, `break`, `continue`,
 *   `not`, comparisons, `await` and `yield` count 0.
 * The paper measures the whole program only; {@link functionComplexities} splits the same total by where
 * each increment falls (outermost functions and methods, then the rest), as for `sonar`.
 */
import type { Node } from "web-tree-sitter";
import { hasToken, namedChildrenOf } from "./python/cst.js";

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
  return variant === "sonar" ? measureSonar(root) : measurePaper(root);
}

function measureSonar(root: Node): Measure {
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
      // `else` of if/for/while/try: +1, no nesting increment (WP B1).
      case "else_clause":
        add(frame, 1);
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
      // Ternary: +1 plus nesting and its operands nested (WP B1–B3).
      case "conditional_expression":
        add(frame, 1 + level);
        inner = level + 1;
        break;
      case "boolean_operator":
        if (!chained.has(node.id)) add(frame, booleanRuns(node, chained));
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

/**
 * How often the paper's visitor passes over a point of the tree, and at which levels: `visits` passes
 * whose levels sum to `levels`. One pass at level L is { 1, L }; a `case` body is passed twice (P11) and
 * what is never visited not at all. A structural increment then adds Σ(1 + L) = visits + levels (P2), a
 * boolean operator `visits` (P8), so the walk needs no recursion and no second pass over case bodies.
 * (k nested `match` statements make 2^k passes: exact while the total stays below 2^53.)
 */
type Passes = { visits: number; levels: number };

const NOT_VISITED: Passes = { visits: 0, levels: 0 };

/** P3: the same passes, one level deeper. */
function deeper(passes: Passes): Passes {
  return { visits: passes.visits, levels: passes.levels + passes.visits };
}

/** P11: a case body, visited one level deeper and then again at the `match`'s level. */
function deeperAndAgain(passes: Passes): Passes {
  return { visits: 2 * passes.visits, levels: 2 * passes.levels + passes.visits };
}

/** The node types `measurePaper` acts on; all else is walked through (P12), which the scopes express. */
const PAPER_TYPES = [
  "if_statement",
  "elif_clause",
  "for_statement",
  "while_statement",
  "try_statement",
  "except_clause",
  "with_statement",
  "case_clause",
  "conditional_expression",
  "boolean_operator",
  "list_comprehension",
  "set_comprehension",
  "dictionary_comprehension",
  "generator_expression",
  "function_definition",
  "class_definition",
  "decorated_definition",
];

/** An open `def` or `class` of the paper walk, for {@link functionComplexities}' attribution only. */
type Definition = { end: number; definitionId: number; frame: Frame };

/**
 * The `paper` variant (rules P1–P12 of the module comment), in one pre-order pass like `measureSonar`:
 * a statement that changes how its children are visited opens one scope per named child with that
 * child's {@link Passes} (all of them, so that a scope never covers a sibling), and each increment is
 * multiplied out from the passes of the innermost scope.
 */
function measurePaper(root: Node): Measure {
  const result: Measure = { total: 0, functions: [], moduleComplexity: 0 };
  const moduleFrame: Frame = { kind: "module", fn: null, inFunction: false, record: null, prefix: "" };
  const scopes: { end: number; passes: Passes }[] = [
    { end: Number.POSITIVE_INFINITY, passes: { visits: 1, levels: 0 } },
  ];
  const definitions: Definition[] = [];
  for (const node of root.descendantsOfType(PAPER_TYPES)) {
    if (node === null) continue;
    const start = node.startIndex;
    while ((scopes[scopes.length - 1] as { end: number }).end <= start) scopes.pop();
    while (definitions.length > 0 && (definitions[definitions.length - 1] as Definition).end <= start) {
      definitions.pop();
    }
    const { passes } = scopes[scopes.length - 1] as { passes: Passes };
    const frame =
      definitions.length > 0 ? (definitions[definitions.length - 1] as Definition).frame : moduleFrame;
    const add = (increment: number): void => {
      result.total += increment;
      if (frame.record === null) result.moduleComplexity += increment;
      else frame.record.complexity += increment;
    };
    /** Opens a scope for each named child, in reverse so that the first child is innermost. */
    const visitChildren = (passesOf: (child: Node) => Passes): void => {
      const children = node.namedChildren;
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i];
        if (child) scopes.push({ end: child.endIndex, passes: passesOf(child) });
      }
    };
    const structural = passes.visits + passes.levels;
    switch (node.type) {
      case "if_statement": // P4
        add(structural);
        visitChildren((child) => {
          if (child.type === "block") return deeper(passes);
          if (child.type === "else_clause") return isLoneIf(child) ? passes : deeper(passes);
          return child.type === "elif_clause" || isExtra(child) ? passes : NOT_VISITED;
        });
        break;
      case "elif_clause": // P4
        add(structural);
        visitChildren((child) =>
          child.type === "block" ? deeper(passes) : isExtra(child) ? passes : NOT_VISITED,
        );
        break;
      case "for_statement": // P5
      case "while_statement":
        add(structural);
        visitChildren((child) =>
          child.type === "block" || child.type === "else_clause"
            ? deeper(passes)
            : isExtra(child)
              ? passes
              : NOT_VISITED,
        );
        break;
      case "try_statement": // P6; `except*` (ast.TryStar) is walked through (P12)
        if (!namedChildrenOf(node).some((c) => c.type === "except_clause" && hasToken(c, "*"))) {
          visitChildren((child) =>
            child.type === "except_clause" || isExtra(child) ? passes : deeper(passes),
          );
        }
        break;
      case "except_clause": // P6
        if (!hasToken(node, "*")) {
          add(structural);
          visitChildren((child) =>
            child.type === "block" ? deeper(passes) : isExtra(child) ? passes : NOT_VISITED,
          );
        }
        break;
      case "with_statement": // P7
        visitChildren((child) =>
          child.type === "block" ? deeper(passes) : isExtra(child) ? passes : NOT_VISITED,
        );
        break;
      case "case_clause": // P11 (the `match` statement itself adds nothing and changes no level)
        add(structural);
        visitChildren((child) => (child.type === "block" ? deeperAndAgain(passes) : passes));
        break;
      case "boolean_operator": // P8
        add(passes.visits);
        break;
      case "conditional_expression": // P9
        add(structural);
        break;
      case "list_comprehension": // P10
      case "set_comprehension":
      case "dictionary_comprehension":
      case "generator_expression":
        for (const child of node.namedChildren) {
          if (child?.type === "for_in_clause" || child?.type === "if_clause") add(structural);
        }
        break;
      case "decorated_definition": {
        const definition = node.childForFieldName("definition");
        if (definition !== null) definitions.push(paperDefinition(definition, node, frame, result.functions));
        break;
      }
      case "function_definition":
      case "class_definition":
        if ((definitions[definitions.length - 1] as Definition | undefined)?.definitionId !== node.id) {
          definitions.push(paperDefinition(node, node, frame, result.functions));
        }
        break;
      default:
        break;
    }
  }
  return result;
}

/** Comments and line continuations: tree-sitter extras, which hold nothing the visitor counts. */
function isExtra(node: Node): boolean {
  return node.type === "comment" || node.type === "line_continuation";
}

/** P4: an `else:` whose block is a single `if` statement, which CPython parses exactly as an `elif`. */
function isLoneIf(elseClause: Node): boolean {
  const body = elseClause.childForFieldName("body");
  const statements = body === null ? [] : namedChildrenOf(body);
  return statements.length === 1 && statements[0]?.type === "if_statement";
}

/**
 * The attribution frame of a `def` or `class` in the paper walk (`statement`: it, or the
 * `decorated_definition` around it): the same outermost functions and methods, with the same names, as
 * `definitionScope` gives `sonar`.
 */
function paperDefinition(
  definition: Node,
  statement: Node,
  enclosing: Frame,
  functions: FunctionComplexity[],
): Definition {
  const name = definition.childForFieldName("name")?.text ?? "";
  let frame: Frame;
  if (definition.type === "class_definition") {
    const prefix = enclosing.inFunction ? "" : `${enclosing.prefix}${name}.`;
    frame = { ...enclosing, kind: "class", fn: null, prefix };
  } else {
    let record = enclosing.record;
    if (!enclosing.inFunction) {
      record = { name: `${enclosing.prefix}${name}`, line: definition.startPosition.row + 1, complexity: 0 };
      functions.push(record);
    }
    frame = { kind: "function", fn: definition, inFunction: true, record, prefix: "" };
  }
  return { end: statement.endIndex, definitionId: definition.id, frame };
}
