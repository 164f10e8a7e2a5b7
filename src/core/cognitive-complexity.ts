/**
 * Cognitive complexity (docs/reward.md#added-cognitive-complexity) of a Python program, measured on its AST (python/ast.ts, CPython's tree
 * plus the marks of how the source was written that the measure needs), for `added_cc(M) = CC(M) − CC(G)` (the over-editing paper's "Added cognitive complexity" metric,
 * in its Metrics section, and the "Lev. + CogC" reward of its Table 5).
 *
 * Why one file of ~550 lines: the two variants are two readings of the same measure behind the same two
 * exports, share the attribution to outermost functions, and each rule is documented beside its code.
 *
 * Sources. The metric is G. Ann Campbell's "Cognitive Complexity — a new way of measuring
 * understandability" (SonarSource white paper, v1.5, 2021; "WP" below, its appendix B lists the
 * increments B1, nesting-level structures B2 and nesting increments B3). docs/reward.md#added-cognitive-complexity asks for the rules
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
 * - Boolean sequences: the operators of one chain of `and`/`or` that are *direct* operands of each other
 *   are read left to right, and each change of operator starts a new run: `a and b and c` +1,
 *   `a and b or c` +2, `a and b or c and d` +3. Parentheses end a chain, because sonar-python's tree keeps
 *   them (a PARENTHESIZED node is not AND/OR): `(a and b) and c` and `a and (b and c)` are +2 each, while
 *   `a and b and c` is +1. A boolean chain inside a call argument or a ternary is a chain of its own. On
 *   the AST, a chain is a BoolOp with the BoolOps among its values that are not `parenthesized`.
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
 * - Elif is the `elif` keyword as written (the AST's `If.elif` mark): `else:` followed by an indented `if` is
 *   an `else` (+1) and a nested `if` (+1 + nesting), as in sonar-python, which also measures the source as
 *   written.
 * - A wrapper's `return <name>` is a bare name: `return (f)` (a `parenthesized` Name) is not one.
 *
 * Program total (what `cognitiveComplexity` returns): sonar-python's file-level metric (FileMetrics runs
 * the visitor over the whole file): the sum, over the outermost functions and methods, of their S3776
 * complexity (a nested function counts inside the function that contains it), plus the complexity of the
 * code outside every function (module and class bodies, e.g. `if __name__ == "__main__":`).
 *
 * Variant `paper`: the over-editing paper's evaluation, which is its own visitor, the cognitive part of
 * `CombinedVisitor` in `compute_python_complexities`, nreHieW/fyp `partial_edits/utils/complexity_utils.py`
 * at commit 5a4023e4d1f287ac73a616b5b944a14f28422c7e ("CU" below, with line numbers; "EU" is the
 * `extract_utils.py` beside it). docs/reward.md#added-cognitive-complexity states these rules; this module reproduces that visitor on every
 * program, and tests/differential/paper-complexity.test.ts checks it against an oracle of the same rules
 * (tests/oracle/paper_complexity.py) on the standard library. The visitor runs on CPython's `ast`, as this
 * module does. "Level" is the visitor's `self.nesting`.
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
 *   c` (3 values, +2) and two of `a and (b and c)` or `a and b or c` (+1 each).
 * - P9 Ternary `a if c else b`: +1 + level; its operands at the same level. CU l.88–91 `visit_IfExp`.
 * - P10 Comprehensions (list, set, dict, generator): each `for` +1 + level and each of its `if`s +1 + level,
 *   all at the level where the comprehension stands. CU l.93–98 `visit_comprehension` (`self._add_cog(1)`,
 *   `for _ in getattr(n, "ifs", []): self._add_cog(1)`).
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
import type {
  Arguments,
  ClassDef,
  Comprehension,
  ExceptHandler,
  Expr,
  FunctionDef,
  Module,
  Stmt,
} from "./python/ast.js";

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

/** CC of the whole program (see the module comment for every rule): the sum of {@link functionComplexities}. */
export function cognitiveComplexity(module: Module, variant: CognitiveComplexityVariant = "sonar"): number {
  return measure(module, variant).total;
}

/**
 * The program's complexity per outermost function or method, in source order, followed by one entry
 * named {@link MODULE_ENTRY_NAME} (line 1) for the code outside every function when that code has any.
 * The entries sum to {@link cognitiveComplexity}.
 */
export function functionComplexities(
  module: Module,
  variant: CognitiveComplexityVariant = "sonar",
): FunctionComplexity[] {
  const { functions, moduleComplexity } = measure(module, variant);
  return moduleComplexity > 0
    ? [...functions, { name: MODULE_ENTRY_NAME, line: 1, complexity: moduleComplexity }]
    : functions;
}

function measure(module: Module, variant: CognitiveComplexityVariant): Tally {
  const tally = new Tally();
  const frame: Frame = { kind: "module", fn: null, inFunction: false, record: null, prefix: "" };
  if (variant === "sonar") new SonarWalk(tally).statements(module.body, 0, frame);
  else new PaperWalk(tally).statements(module.body, { visits: 1, levels: 0 }, frame);
  return tally;
}

/** Where nested code sits: sonar-python's NestingLevel frames are the module, a class or a function. */
type FrameKind = "module" | "class" | "function";

/** What a `def` or `class` sets for everything inside it. */
type Frame = {
  kind: FrameKind;
  /** The function, when `kind` is "function". */
  fn: FunctionDef | null;
  /** Inside some function: a `def` here is an inner function, counted in the outermost one. */
  inFunction: boolean;
  /** The outermost function accumulating increments here; null outside every function. */
  record: FunctionComplexity | null;
  /** Qualified-name prefix of a function defined here (enclosing classes, outside functions). */
  prefix: string;
};

/** The total and its attribution to outermost functions (or to the module). */
class Tally {
  total = 0;
  moduleComplexity = 0;
  readonly functions: FunctionComplexity[] = [];

  add(frame: Frame, increment: number): void {
    this.total += increment;
    if (frame.record === null) this.moduleComplexity += increment;
    else frame.record.complexity += increment;
  }

  /** The frame inside a class, or inside a function (creating the entry of an outermost one). */
  enter(definition: FunctionDef | ClassDef, enclosing: Frame): Frame {
    if (definition.type === "ClassDef") {
      const prefix = enclosing.inFunction ? "" : `${enclosing.prefix}${definition.name}.`;
      return { ...enclosing, kind: "class", fn: null, prefix };
    }
    let record = enclosing.record;
    if (!enclosing.inFunction) {
      record = { name: `${enclosing.prefix}${definition.name}`, line: definition.lineno ?? 0, complexity: 0 };
      this.functions.push(record);
    }
    return { kind: "function", fn: definition, inFunction: true, record, prefix: "" };
  }
}

/** The `sonar` variant: each node visited once, with its nesting level. */
class SonarWalk {
  /** Expressions waiting to be visited (see `each`): one array for the walk, not a closure per node. */
  private readonly stack: Expr[] = [];

  constructor(private readonly tally: Tally) {}

  statements(body: readonly Stmt[], level: number, frame: Frame): void {
    for (const statement of body) this.statement(statement, level, frame);
  }

  private statement(node: Stmt, level: number, frame: Frame): void {
    const { tally } = this;
    switch (node.type) {
      case "If": {
        tally.add(frame, 1 + level);
        this.expression(node.test, level, frame);
        this.statements(node.body, level + 1, frame);
        // An `elif` is +1 without nesting, its condition at the `if`'s level and its body nested.
        let current = node;
        for (;;) {
          const only = current.orelse.length === 1 ? current.orelse[0] : undefined;
          if (only === undefined || only.type !== "If" || only.elif !== true) break;
          current = only;
          tally.add(frame, 1);
          this.expression(current.test, level, frame);
          this.statements(current.body, level + 1, frame);
        }
        this.orElse(current.orelse, level, frame);
        return;
      }
      case "For":
      case "AsyncFor":
        tally.add(frame, 1 + level);
        this.expression(node.target, level, frame);
        this.expression(node.iter, level, frame);
        this.statements(node.body, level + 1, frame);
        this.orElse(node.orelse, level, frame);
        return;
      case "While":
        tally.add(frame, 1 + level);
        this.expression(node.test, level, frame);
        this.statements(node.body, level + 1, frame);
        this.orElse(node.orelse, level, frame);
        return;
      case "Try":
      case "TryStar":
        this.statements(node.body, level, frame);
        for (const handler of node.handlers) {
          tally.add(frame, 1 + level);
          if (handler.exc_type !== null) this.expression(handler.exc_type, level, frame);
          this.statements(handler.body, level + 1, frame);
        }
        this.orElse(node.orelse, level, frame);
        this.statements(node.finalbody, level, frame);
        return;
      case "With":
      case "AsyncWith":
        for (const item of node.items) {
          this.expression(item.context_expr, level, frame);
          if (item.optional_vars !== null) this.expression(item.optional_vars, level, frame);
        }
        this.statements(node.body, level, frame);
        return;
      case "Match":
        this.expression(node.subject, level, frame);
        for (const matchCase of node.cases) {
          if (matchCase.guard !== null) this.expression(matchCase.guard, level, frame);
          this.statements(matchCase.body, level + 1, frame);
        }
        return;
      case "FunctionDef":
      case "AsyncFunctionDef": {
        // Directly in a class or the module a function starts at 0; inside a function one level deeper
        // than where it stands, or not deeper when the enclosing function only wraps it.
        let inner = 0;
        if (frame.kind === "function" && frame.fn !== null)
          inner = isWrapper(frame.fn, node) ? level : level + 1;
        const own = tally.enter(node, frame);
        for (const decorator of node.decorator_list) this.expression(decorator, inner, own);
        this.argumentsOf(node.args, inner, own);
        if (node.returns !== null) this.expression(node.returns, inner, own);
        this.statements(node.body, inner, own);
        return;
      }
      case "ClassDef": {
        // A class resets the nesting level to 0 (sonar-python NestingLevel: CLASSDEF → level 0).
        const own = tally.enter(node, frame);
        for (const decorator of node.decorator_list) this.expression(decorator, 0, own);
        for (const base of node.bases) this.expression(base, 0, own);
        for (const keyword of node.keywords) this.expression(keyword.value, 0, own);
        this.statements(node.body, 0, own);
        return;
      }
      default:
        this.each(statementExpressions(node, this.stack), level, frame);
    }
  }

  /** Visits the expressions pushed on the stack above `from`, at one level. */
  private each(from: number, level: number, frame: Frame): void {
    const { stack } = this;
    while (stack.length > from) this.expression(stack.pop() as Expr, level, frame);
  }

  /** `else` of if/for/while/try: +1, its body nested. */
  private orElse(body: readonly Stmt[], level: number, frame: Frame): void {
    if (body.length === 0) return;
    this.tally.add(frame, 1);
    this.statements(body, level + 1, frame);
  }

  private argumentsOf(args: Arguments, level: number, frame: Frame): void {
    this.each(argumentsExpressions(args, this.stack), level, frame);
  }

  private expression(node: Expr, level: number, frame: Frame): void {
    switch (node.type) {
      case "IfExp":
        // Ternary: +1 plus nesting, its three operands nested (WP B1–B3).
        this.tally.add(frame, 1 + level);
        this.expression(node.test, level + 1, frame);
        this.expression(node.body, level + 1, frame);
        this.expression(node.orelse, level + 1, frame);
        return;
      case "BoolOp":
        this.tally.add(frame, booleanRuns(node));
        this.chainOperands(node, level, frame);
        return;
      default:
        this.each(childExpressions(node, this.stack), level, frame);
    }
  }

  /** The operands of a boolean chain that are not themselves links of it. */
  private chainOperands(node: Extract<Expr, { type: "BoolOp" }>, level: number, frame: Frame): void {
    for (const value of node.values) {
      if (value.type === "BoolOp" && value.parenthesized !== true) this.chainOperands(value, level, frame);
      else this.expression(value, level, frame);
    }
  }
}

/**
 * Increments of a boolean chain (WP B1; sonar-python flattenOperators): its operators in source order,
 * +1 for the first and +1 at every change of operator.
 */
function booleanRuns(root: Extract<Expr, { type: "BoolOp" }>): number {
  let runs = 0;
  let previous = "";
  const walk = (node: Extract<Expr, { type: "BoolOp" }>): void => {
    node.values.forEach((value, i) => {
      if (i > 0) {
        if (node.op !== previous) runs += 1;
        previous = node.op;
      }
      if (value.type === "BoolOp" && value.parenthesized !== true) walk(value);
    });
  };
  walk(root);
  return runs;
}

/**
 * sonar-python's isWrapperFunction: every top-level statement of `parent`'s body other than the nested
 * definition `child` is `return <name>` (one bare name, not parenthesized).
 */
function isWrapper(parent: FunctionDef, child: Stmt): boolean {
  for (const statement of parent.body) {
    if (statement === child) continue;
    if (statement.type !== "Return") return false;
    const value = statement.value;
    if (value === null || value.type !== "Name" || value.parenthesized === true) return false;
  }
  return true;
}

/**
 * How often the paper's visitor passes over a point of the tree, and at which levels: `visits` passes
 * whose levels sum to `levels`. One pass at level L is { 1, L }; a `case` body is passed twice (P11) and
 * what is never visited not at all. A structural increment then adds Σ(1 + L) = visits + levels (P2), a
 * boolean operator `visits` per operator (P8), so no case body is walked twice. (k nested `match`
 * statements make 2^k passes: exact while the total stays below 2^53.)
 */
type Passes = { visits: number; levels: number };

/** P3: the same passes, one level deeper. */
function deeper(passes: Passes): Passes {
  return { visits: passes.visits, levels: passes.levels + passes.visits };
}

/** The `paper` variant (rules P1–P12 of the module comment). */
class PaperWalk {
  /** As SonarWalk's. */
  private readonly stack: Expr[] = [];

  constructor(private readonly tally: Tally) {}

  private each(from: number, passes: Passes, frame: Frame): void {
    const { stack } = this;
    while (stack.length > from) this.expression(stack.pop() as Expr, passes, frame);
  }

  statements(body: readonly Stmt[], passes: Passes, frame: Frame): void {
    for (const statement of body) this.statement(statement, passes, frame);
  }

  private statement(node: Stmt, passes: Passes, frame: Frame): void {
    const structural = passes.visits + passes.levels;
    switch (node.type) {
      case "If": // P4: the test is never visited; an orelse that is one `if` is visited at this level
        this.tally.add(frame, structural);
        this.statements(node.body, deeper(passes), frame);
        if (node.orelse.length === 1 && node.orelse[0]?.type === "If")
          this.statement(node.orelse[0], passes, frame);
        else this.statements(node.orelse, deeper(passes), frame);
        return;
      case "For": // P5: target, iterable and condition never visited
      case "AsyncFor":
      case "While":
        this.tally.add(frame, structural);
        this.statements(node.body, deeper(passes), frame);
        this.statements(node.orelse, deeper(passes), frame);
        return;
      case "Try": // P6: the exception types and names never visited
        this.statements(node.body, deeper(passes), frame);
        for (const handler of node.handlers) {
          this.tally.add(frame, structural);
          this.statements(handler.body, deeper(passes), frame);
        }
        this.statements(node.orelse, deeper(passes), frame);
        this.statements(node.finalbody, deeper(passes), frame);
        return;
      case "TryStar": // P12: ast.TryStar has no visit method; walked through at this level
        this.statements(node.body, passes, frame);
        for (const handler of node.handlers) this.handlerWalkedThrough(handler, passes, frame);
        this.statements(node.orelse, passes, frame);
        this.statements(node.finalbody, passes, frame);
        return;
      case "With": // P7: the items never visited
      case "AsyncWith":
        this.statements(node.body, deeper(passes), frame);
        return;
      case "Match": {
        // P11: each case +1 and its body one level deeper, then generic_visit walks the subject and every
        // case again (guard and body) at the match's own level.
        const twice: Passes = { visits: 2 * passes.visits, levels: 2 * passes.levels + passes.visits };
        this.expression(node.subject, passes, frame);
        for (const matchCase of node.cases) {
          this.tally.add(frame, structural);
          if (matchCase.guard !== null) this.expression(matchCase.guard, passes, frame);
          this.statements(matchCase.body, twice, frame);
        }
        return;
      }
      case "FunctionDef": // P12: a def neither counts nor nests
      case "AsyncFunctionDef": {
        const own = this.tally.enter(node, frame);
        for (const decorator of node.decorator_list) this.expression(decorator, passes, own);
        this.each(argumentsExpressions(node.args, this.stack), passes, own);
        if (node.returns !== null) this.expression(node.returns, passes, own);
        this.statements(node.body, passes, own);
        return;
      }
      case "ClassDef": {
        const own = this.tally.enter(node, frame);
        for (const decorator of node.decorator_list) this.expression(decorator, passes, own);
        for (const base of node.bases) this.expression(base, passes, own);
        for (const keyword of node.keywords) this.expression(keyword.value, passes, own);
        this.statements(node.body, passes, own);
        return;
      }
      default:
        this.each(statementExpressions(node, this.stack), passes, frame);
    }
  }

  private handlerWalkedThrough(handler: ExceptHandler, passes: Passes, frame: Frame): void {
    if (handler.exc_type !== null) this.expression(handler.exc_type, passes, frame);
    this.statements(handler.body, passes, frame);
  }

  private expression(node: Expr, passes: Passes, frame: Frame): void {
    switch (node.type) {
      case "BoolOp": // P8
        this.tally.add(frame, passes.visits * (node.values.length - 1));
        break;
      case "IfExp": // P9: its operands at the same level
        this.tally.add(frame, passes.visits + passes.levels);
        break;
      case "ListComp": // P10: each `for` and each of its `if`s
      case "SetComp":
      case "GeneratorExp":
      case "DictComp":
        for (const generator of node.generators) {
          this.tally.add(frame, (1 + generator.ifs.length) * (passes.visits + passes.levels));
        }
        break;
      default:
        break;
    }
    this.each(childExpressions(node, this.stack), passes, frame);
  }
}

/**
 * Pushes the expressions directly in a simple statement (compound statements are walked by the variants)
 * onto `out` and returns its length before: the caller visits them off the stack.
 */
function statementExpressions(node: Stmt, out: Expr[]): number {
  const from = out.length;
  switch (node.type) {
    case "Expr":
      out.push(node.value);
      break;
    case "Return":
      if (node.value !== null) out.push(node.value);
      break;
    case "Delete":
      for (const target of node.targets) out.push(target);
      break;
    case "Assign":
      for (const target of node.targets) out.push(target);
      out.push(node.value);
      break;
    case "AugAssign":
      out.push(node.target, node.value);
      break;
    case "AnnAssign":
      out.push(node.target, node.annotation);
      if (node.value !== null) out.push(node.value);
      break;
    case "Raise":
      if (node.exc !== null) out.push(node.exc);
      if (node.cause !== null) out.push(node.cause);
      break;
    case "Assert":
      out.push(node.test);
      if (node.msg !== null) out.push(node.msg);
      break;
    default:
      break;
  }
  return from;
}

/** Pushes the defaults and annotations of a parameter list (see {@link statementExpressions}). */
function argumentsExpressions(args: Arguments, out: Expr[]): number {
  const from = out.length;
  for (const arg of args.posonlyargs) if (arg.annotation !== null) out.push(arg.annotation);
  for (const arg of args.args) if (arg.annotation !== null) out.push(arg.annotation);
  if (args.vararg?.annotation) out.push(args.vararg.annotation);
  for (const arg of args.kwonlyargs) if (arg.annotation !== null) out.push(arg.annotation);
  if (args.kwarg?.annotation) out.push(args.kwarg.annotation);
  for (const value of args.defaults) out.push(value);
  for (const value of args.kw_defaults) if (value !== null) out.push(value);
  return from;
}

function comprehensionExpressions(generators: readonly Comprehension[], out: Expr[]): void {
  for (const generator of generators) {
    out.push(generator.target, generator.iter);
    for (const condition of generator.ifs) out.push(condition);
  }
}

/**
 * Pushes the direct child expressions of an expression (see {@link statementExpressions}); patterns of
 * `match` hold none that count.
 */
function childExpressions(node: Expr, out: Expr[]): number {
  const from = out.length;
  switch (node.type) {
    case "BoolOp":
      for (const value of node.values) out.push(value);
      break;
    case "NamedExpr":
      out.push(node.target, node.value);
      break;
    case "BinOp":
      out.push(node.left, node.right);
      break;
    case "UnaryOp":
      out.push(node.operand);
      break;
    case "Lambda":
      argumentsExpressions(node.args, out);
      out.push(node.body);
      break;
    case "IfExp":
      out.push(node.test, node.body, node.orelse);
      break;
    case "Dict":
      for (const key of node.keys) if (key !== null) out.push(key);
      for (const value of node.values) out.push(value);
      break;
    case "Set":
    case "List":
    case "Tuple":
      for (const element of node.elts) out.push(element);
      break;
    case "ListComp":
    case "SetComp":
    case "GeneratorExp":
      out.push(node.elt);
      comprehensionExpressions(node.generators, out);
      break;
    case "DictComp":
      out.push(node.key, node.value);
      comprehensionExpressions(node.generators, out);
      break;
    case "Await":
    case "YieldFrom":
    case "Starred":
    case "Attribute":
      out.push(node.value);
      break;
    case "Yield":
      if (node.value !== null) out.push(node.value);
      break;
    case "Compare":
      out.push(node.left);
      for (const comparator of node.comparators) out.push(comparator);
      break;
    case "Call":
      out.push(node.func);
      for (const arg of node.args) out.push(arg);
      for (const keyword of node.keywords) out.push(keyword.value);
      break;
    case "FormattedValue":
      out.push(node.value);
      if (node.format_spec !== null) out.push(node.format_spec);
      break;
    case "JoinedStr":
      for (const value of node.values) out.push(value);
      break;
    case "Subscript":
      out.push(node.value, node.slice);
      break;
    case "Slice":
      if (node.lower !== null) out.push(node.lower);
      if (node.upper !== null) out.push(node.upper);
      if (node.step !== null) out.push(node.step);
      break;
    case "Constant":
    case "Name":
      break;
  }
  return from;
}
