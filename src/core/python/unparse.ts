/**
 * `ast.unparse` of CPython 3.11, ported method by method from `_Unparser` in Lib/ast.py (3.11.7).
 *
 * norm(X) is defined as CPython's `ast.unparse(ast.parse(X))` byte for byte (docs/reward.md#normalization-and-tokens), so this file
 * deliberately keeps CPython's structure — including its quirks, such as parenthesizing the third
 * operand of `a or b or not c` (the BoolOp precedence climbs one level per operand) or writing
 * `a[*b,]` for `a[*b]` — rather than producing the "nicest" Python. Method names follow the
 * `visit_*` methods they port, so a diff against Lib/ast.py stays reviewable.
 *
 * Differences from CPython that cannot show in output: no type comments (ast.parse drops them unless
 * asked), no tuple/frozenset constants (those only come from the constant folder, not the parser).
 */

import type {
  Alias,
  Arg,
  Arguments,
  ClassDef,
  Comprehension,
  Constant,
  ConstantValue,
  ExceptHandler,
  Expr,
  FunctionDef,
  Keyword,
  MatchCase,
  Module,
  Pattern,
  Stmt,
  WithItem,
} from "./ast.js";
import { reprBytes, reprComplex, reprFloat, reprInt, reprStr } from "./literals.js";

/**
 * `_Precedence` of Lib/ast.py: an IntEnum built with `auto()`, so the values start at 1 and BOR
 * aliases EXPR. Only the order matters; the values are kept identical for easy cross-checking.
 */
const P = {
  NAMED_EXPR: 1,
  TUPLE: 2,
  YIELD: 3,
  TEST: 4,
  OR: 5,
  AND: 6,
  NOT: 7,
  CMP: 8,
  EXPR: 9,
  BOR: 9,
  BXOR: 10,
  BAND: 11,
  SHIFT: 12,
  ARITH: 13,
  TERM: 14,
  FACTOR: 15,
  POWER: 16,
  AWAIT: 17,
  ATOM: 18,
} as const;

/** `_Precedence.next()`: one level tighter, saturating at ATOM. */
function next(precedence: number): number {
  return precedence < P.ATOM ? precedence + 1 : P.ATOM;
}

/** `"1e" + repr(sys.float_info.max_10_exp + 1)`: a literal that overflows to infinity. */
const INFSTR = "1e309";

const SINGLE_QUOTES = ["'", '"'] as const;
const MULTI_QUOTES = ['"""', "'''"] as const;
const ALL_QUOTES: readonly string[] = [...SINGLE_QUOTES, ...MULTI_QUOTES];

const UNOP: Record<string, string> = { Invert: "~", Not: "not", UAdd: "+", USub: "-" };
const UNOP_PRECEDENCE: Record<string, number> = { not: P.NOT, "~": P.FACTOR, "+": P.FACTOR, "-": P.FACTOR };

const BINOP: Record<string, string> = {
  Add: "+",
  Sub: "-",
  Mult: "*",
  MatMult: "@",
  Div: "/",
  Mod: "%",
  LShift: "<<",
  RShift: ">>",
  BitOr: "|",
  BitXor: "^",
  BitAnd: "&",
  FloorDiv: "//",
  Pow: "**",
};

const BINOP_PRECEDENCE: Record<string, number> = {
  "+": P.ARITH,
  "-": P.ARITH,
  "*": P.TERM,
  "@": P.TERM,
  "/": P.TERM,
  "%": P.TERM,
  "<<": P.SHIFT,
  ">>": P.SHIFT,
  "|": P.BOR,
  "^": P.BXOR,
  "&": P.BAND,
  "//": P.TERM,
  "**": P.POWER,
};

const CMPOPS: Record<string, string> = {
  Eq: "==",
  NotEq: "!=",
  Lt: "<",
  LtE: "<=",
  Gt: ">",
  GtE: ">=",
  Is: "is",
  IsNot: "is not",
  In: "in",
  NotIn: "not in",
};

const BOOLOPS: Record<string, string> = { And: "and", Or: "or" };

/** Each binary, comparison and boolean operator with a space on either side, as the unparser writes it. */
const SPACED: Record<string, string> = Object.fromEntries(
  [...Object.values(BINOP), ...Object.values(CMPOPS), ...Object.values(BOOLOPS)].map((op) => [op, ` ${op} `]),
);

/** `"    " * level`, kept for the levels met so far. */
const INDENTS: string[] = [""];
function indentation(level: number): string {
  for (let i = INDENTS.length; i <= level; i++) INDENTS.push("    ".repeat(i));
  return INDENTS[level] as string;
}
const BOOLOP_PRECEDENCE: Record<string, number> = { and: P.AND, or: P.OR };

/** Strings that need no escaping at all in `_str_literal_helper` (printable ASCII minus `\`). */
const PLAIN_ASCII = /^[\x20-\x5b\x5d-\x7e]*$/;
/** Same, but `\n` and `\t` may stay literal (`escape_special_whitespace=False`). */
const PLAIN_ASCII_OR_WHITESPACE = /^[\t\n\x20-\x5b\x5d-\x7e]*$/;

/**
 * `"".join(map(escape_char, string))` from `_str_literal_helper`: backslashes and non-printable
 * characters become their `unicode_escape` spelling; quotes are left alone (the caller picks quotes).
 *
 * For a non-printable character, `unicode_escape` and `repr` agree (`\t \n \r`, `\xhh`, `\uhhhh`,
 * `\Uhhhhhhhh`), and both use `str.isprintable` of CPython's Unicode 14 database, so non-ASCII runs
 * are delegated to `reprStr` (a run without quotes or backslashes reprs as `'` + escapes + `'`).
 */
function escapeString(s: string, escapeSpecialWhitespace: boolean): string {
  if ((escapeSpecialWhitespace ? PLAIN_ASCII : PLAIN_ASCII_OR_WHITESPACE).test(s)) return s;
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      let j = i + 1;
      while (j < s.length && s.charCodeAt(j) >= 0x80) j++;
      out.push(reprStr(s.slice(i, j)).slice(1, -1));
      i = j;
      continue;
    }
    if (c === 0x5c) out.push("\\\\");
    else if ((c === 0x0a || c === 0x09) && !escapeSpecialWhitespace) out.push(s[i] as string);
    else if (c >= 0x20 && c < 0x7f) out.push(s[i] as string);
    else if (c === 0x09) out.push("\\t");
    else if (c === 0x0a) out.push("\\n");
    else if (c === 0x0d) out.push("\\r");
    else out.push(`\\x${c.toString(16).padStart(2, "0")}`);
    i++;
  }
  return out.join("");
}

/**
 * `_str_literal_helper`: the escaped body of a string literal and the quote types that can enclose
 * it, best first. Falls back to `repr` when no quote type works.
 */
function strLiteralHelper(
  string: string,
  quoteTypes: readonly string[],
  escapeSpecialWhitespace: boolean,
): [string, string[]] {
  let escaped = escapeString(string, escapeSpecialWhitespace);
  let possible: readonly string[] = quoteTypes;
  if (escaped.includes("\n")) possible = possible.filter((q) => q === '"""' || q === "'''");
  let candidates = possible.filter((q) => !escaped.includes(q));
  if (candidates.length === 0) {
    // No quote type works: use repr, but keep a quote type from quote_types if one contains repr's
    // quote character (so docstrings stay triple-quoted).
    const repr = reprStr(string);
    const first = repr[0] as string;
    const quote = quoteTypes.find((q) => q.includes(first)) ?? first;
    return [repr.slice(1, -1), [quote]];
  }
  if (escaped.length > 0) {
    // Stable sort putting quotes that start with the last character last: prefer '''"''' over """\"""".
    const last = escaped[escaped.length - 1] as string;
    candidates = [...candidates.filter((q) => q[0] !== last), ...candidates.filter((q) => q[0] === last)];
    // Only a triple quote can be left here; escape the final quote so it doesn't close the literal.
    if ((candidates[0] as string)[0] === last) escaped = `${escaped.slice(0, -1)}\\${last}`;
  }
  return [escaped, candidates];
}

/** `_write_constant`'s float/complex rule: AST infinities become an overflowing literal, NaN inf-inf. */
function replaceInfNan(repr: string): string {
  return repr.replaceAll("inf", INFSTR).replaceAll("nan", `(${INFSTR}-${INFSTR})`);
}

class Unparser {
  /** The text written so far, and how many writes made it (CPython keeps a list of chunks). */
  private source = "";
  private chunks = 0;
  private indent = 0;
  private inTryStar = false;
  /** Set while the marker statement is being visited, until its first `fill` records the offset. */
  private markerPending = false;
  markerOffset = -1;

  constructor(
    private readonly avoidBackslashes: boolean,
    private readonly marker: Stmt | null = null,
  ) {}

  /** `visit`: resets the output, traverses, joins once. */
  visitModule(node: Module): string {
    this.source = "";
    this.chunks = 0;
    this.writeDocstringAndTraverseBody(node);
    return this.source;
  }

  visitExpr(node: Expr, context: number): string {
    this.source = "";
    this.chunks = 0;
    this.expr(node, context);
    return this.source;
  }

  // ---- output helpers -------------------------------------------------------------------------

  private write(text: string): void {
    this.source += text;
    this.chunks++;
  }

  /** `interleave(inter, f, seq)` with `inter` writing `sep`. */
  private interleave<T>(sep: string, f: (item: T) => void, seq: readonly T[]): void {
    for (let i = 0; i < seq.length; i++) {
      if (i > 0) this.write(sep);
      f(seq[i] as T);
    }
  }

  /** `items_view`: a single item gets a trailing comma (one-element tuples). */
  private itemsView(items: readonly Expr[]): void {
    if (items.length === 1) {
      this.expr(items[0] as Expr);
      this.write(",");
    } else {
      for (let i = 0; i < items.length; i++) {
        if (i > 0) this.write(", ");
        this.expr(items[i] as Expr);
      }
    }
  }

  /** `maybe_newline`: CPython tests whether the chunk list is non-empty, not the text length. */
  private maybeNewline(): void {
    if (this.chunks > 0) this.write("\n");
  }

  private fill(text = ""): void {
    this.maybeNewline();
    const indent = indentation(this.indent);
    if (this.markerPending) {
      this.markerPending = false;
      this.markerOffset = this.source.length + indent.length;
    }
    this.write(indent + text);
  }

  /**
   * `buffered()`: run `f` with output redirected to a fresh chunk list and return what it wrote, and
   * whether it wrote anything (CPython tests the list, not the text).
   */
  private buffered(f: () => void): { text: string; written: boolean } {
    const source = this.source;
    const chunks = this.chunks;
    this.source = "";
    this.chunks = 0;
    f();
    const result = { text: this.source, written: this.chunks > 0 };
    this.source = source;
    this.chunks = chunks;
    return result;
  }

  /** `block()`: the colon, then the body one level deeper (`extra` is only ever a type comment). */
  private block(f: () => void): void {
    this.write(":");
    this.indent++;
    f();
    this.indent--;
  }

  // ---- statements -----------------------------------------------------------------------------

  private stmts(body: readonly Stmt[]): void {
    for (const s of body) this.stmt(s);
  }

  /** `get_raw_docstring` (mirrors `_PyAST_GetDocString`): a leading `Expr` holding a str Constant. */
  private getRawDocstring(node: Module | FunctionDef | ClassDef): Constant | null {
    const first = node.body[0];
    if (first === undefined || first.type !== "Expr") return null;
    const value = first.value;
    if (value.type === "Constant" && value.value.kind === "str") return value;
    return null;
  }

  private writeDocstringAndTraverseBody(node: Module | FunctionDef | ClassDef): void {
    const docstring = this.getRawDocstring(node);
    if (docstring !== null) {
      if (node.body[0] === this.marker) this.markerPending = true;
      this.writeDocstring(docstring);
      this.stmts(node.body.slice(1));
    } else {
      this.stmts(node.body);
    }
  }

  private stmt(node: Stmt): void {
    if (node === this.marker) this.markerPending = true;
    switch (node.type) {
      case "Expr":
        this.fill();
        this.expr(node.value, P.YIELD);
        return;
      case "Import":
        this.fill("import ");
        this.interleave(", ", (a) => this.alias(a), node.names);
        return;
      case "ImportFrom":
        this.fill("from ");
        this.write(".".repeat(node.level));
        if (node.module) this.write(node.module);
        this.write(" import ");
        this.interleave(", ", (a) => this.alias(a), node.names);
        return;
      case "Assign":
        this.fill();
        for (const target of node.targets) {
          this.expr(target, P.TUPLE);
          this.write(" = ");
        }
        this.expr(node.value);
        return;
      case "AugAssign":
        this.fill();
        this.expr(node.target);
        this.write(` ${BINOP[node.op]}= `);
        this.expr(node.value);
        return;
      case "AnnAssign": {
        this.fill();
        const parens = !node.simple && node.target.type === "Name";
        if (parens) this.write("(");
        this.expr(node.target);
        if (parens) this.write(")");
        this.write(": ");
        this.expr(node.annotation);
        if (node.value) {
          this.write(" = ");
          this.expr(node.value);
        }
        return;
      }
      case "Return":
        this.fill("return");
        if (node.value) {
          this.write(" ");
          this.expr(node.value);
        }
        return;
      case "Pass":
        this.fill("pass");
        return;
      case "Break":
        this.fill("break");
        return;
      case "Continue":
        this.fill("continue");
        return;
      case "Delete":
        this.fill("del ");
        this.interleave(", ", (e) => this.expr(e), node.targets);
        return;
      case "Assert":
        this.fill("assert ");
        this.expr(node.test);
        if (node.msg) {
          this.write(", ");
          this.expr(node.msg);
        }
        return;
      case "Global":
        this.fill("global ");
        this.interleave(", ", (n) => this.write(n), node.names);
        return;
      case "Nonlocal":
        this.fill("nonlocal ");
        this.interleave(", ", (n) => this.write(n), node.names);
        return;
      case "Raise":
        this.fill("raise");
        if (!node.exc) {
          if (node.cause) throw new Error("Node can't use cause without an exception.");
          return;
        }
        this.write(" ");
        this.expr(node.exc);
        if (node.cause) {
          this.write(" from ");
          this.expr(node.cause);
        }
        return;
      case "Try":
      case "TryStar": {
        // `except*` is chosen by the innermost enclosing try statement, as in visit_Try/visit_TryStar.
        const prev = this.inTryStar;
        this.inTryStar = node.type === "TryStar";
        this.fill("try");
        this.block(() => this.stmts(node.body));
        for (const handler of node.handlers) this.exceptHandler(handler);
        if (node.orelse.length > 0) {
          this.fill("else");
          this.block(() => this.stmts(node.orelse));
        }
        if (node.finalbody.length > 0) {
          this.fill("finally");
          this.block(() => this.stmts(node.finalbody));
        }
        this.inTryStar = prev;
        return;
      }
      case "ClassDef":
        this.classDef(node);
        return;
      case "FunctionDef":
      case "AsyncFunctionDef":
        this.functionHelper(node, node.type === "FunctionDef" ? "def" : "async def");
        return;
      case "For":
      case "AsyncFor":
        this.fill(node.type === "For" ? "for " : "async for ");
        this.expr(node.target, P.TUPLE);
        this.write(" in ");
        this.expr(node.iter);
        this.block(() => this.stmts(node.body));
        if (node.orelse.length > 0) {
          this.fill("else");
          this.block(() => this.stmts(node.orelse));
        }
        return;
      case "If":
        this.visitIf(node);
        return;
      case "While":
        this.fill("while ");
        this.expr(node.test);
        this.block(() => this.stmts(node.body));
        if (node.orelse.length > 0) {
          this.fill("else");
          this.block(() => this.stmts(node.orelse));
        }
        return;
      case "With":
      case "AsyncWith":
        this.fill(node.type === "With" ? "with " : "async with ");
        this.interleave(", ", (item) => this.withItem(item), node.items);
        this.block(() => this.stmts(node.body));
        return;
      case "Match":
        this.fill("match ");
        this.expr(node.subject);
        this.block(() => {
          for (const c of node.cases) this.matchCase(c);
        });
        return;
    }
  }

  private visitIf(node: Extract<Stmt, { type: "If" }>): void {
    this.fill("if ");
    this.expr(node.test);
    this.block(() => this.stmts(node.body));
    // Collapse `else:` holding exactly one `if` into `elif` (and again for its own orelse).
    let current = node;
    let only = current.orelse.length === 1 ? current.orelse[0] : undefined;
    while (only !== undefined && only.type === "If") {
      current = only;
      // A folded `if` has no text of its own; its marker offset is where its `elif` starts.
      if (current === this.marker) this.markerPending = true;
      this.fill("elif ");
      this.expr(current.test);
      const body = current.body;
      this.block(() => this.stmts(body));
      only = current.orelse.length === 1 ? current.orelse[0] : undefined;
    }
    if (current.orelse.length > 0) {
      const orelse = current.orelse;
      this.fill("else");
      this.block(() => this.stmts(orelse));
    }
  }

  private exceptHandler(node: ExceptHandler): void {
    this.fill(this.inTryStar ? "except*" : "except");
    if (node.exc_type) {
      this.write(" ");
      this.expr(node.exc_type);
    }
    if (node.name) {
      this.write(" as ");
      this.write(node.name);
    }
    this.block(() => this.stmts(node.body));
  }

  private classDef(node: ClassDef): void {
    this.maybeNewline();
    for (const deco of node.decorator_list) {
      this.fill("@");
      this.expr(deco);
    }
    this.fill(`class ${node.name}`);
    const parens = node.bases.length > 0 || node.keywords.length > 0;
    if (parens) this.write("(");
    let comma = false;
    for (const e of node.bases) {
      if (comma) this.write(", ");
      else comma = true;
      this.expr(e);
    }
    for (const e of node.keywords) {
      if (comma) this.write(", ");
      else comma = true;
      this.keyword(e);
    }
    if (parens) this.write(")");
    this.block(() => this.writeDocstringAndTraverseBody(node));
  }

  private functionHelper(node: FunctionDef, fillSuffix: string): void {
    this.maybeNewline();
    for (const deco of node.decorator_list) {
      this.fill("@");
      this.expr(deco);
    }
    this.fill(`${fillSuffix} ${node.name}`);
    this.write("(");
    this.arguments(node.args);
    this.write(")");
    if (node.returns) {
      this.write(" -> ");
      this.expr(node.returns);
    }
    this.block(() => this.writeDocstringAndTraverseBody(node));
  }

  private writeDocstring(node: Constant): void {
    this.fill();
    if (node.kind === "u") this.write("u");
    this.writeStrAvoidingBackslashes((node.value as { value: string }).value, MULTI_QUOTES);
  }

  private matchCase(node: MatchCase): void {
    this.fill("case ");
    this.pattern(node.pattern);
    if (node.guard) {
      this.write(" if ");
      this.expr(node.guard);
    }
    this.block(() => this.stmts(node.body));
  }

  // ---- strings --------------------------------------------------------------------------------

  /** `_write_str_avoiding_backslashes`: best-effort literal without backslashes. */
  private writeStrAvoidingBackslashes(string: string, quoteTypes: readonly string[] = ALL_QUOTES): void {
    const [body, quotes] = strLiteralHelper(string, quoteTypes, false);
    const quote = quotes[0] as string;
    this.write(quote + body + quote);
  }

  private joinedStr(node: Extract<Expr, { type: "JoinedStr" }>): void {
    this.write("f");
    if (this.avoidBackslashes) {
      const buffer = this.buffered(() => this.fstringInner(node));
      this.writeStrAvoidingBackslashes(buffer.text);
      return;
    }
    // Outside f-string expressions, literal parts may use escapes (`f"{x}\n"` is preferred), so each
    // part is escaped on its own and the quote types still usable shrink part by part.
    const parts: [string, boolean][] = node.values.map((value) => [
      this.buffered(() => this.fstringInner(value)).text,
      value.type === "Constant",
    ]);
    let newParts: string[] = [];
    let quoteTypes: readonly string[] = ALL_QUOTES;
    let fallbackToRepr = false;
    for (const [value, isConstant] of parts) {
      const [escaped, newQuoteTypes] = strLiteralHelper(value, quoteTypes, isConstant);
      newParts.push(escaped);
      if (!newQuoteTypes.some((q) => quoteTypes.includes(q))) {
        fallbackToRepr = true;
        break;
      }
      quoteTypes = newQuoteTypes;
    }
    if (fallbackToRepr) {
      // No common quote type: repr every part with a leading `"` (forcing single quotes) and use '''.
      quoteTypes = ["'''"];
      newParts = parts.map(([value]) => reprStr(`"${value}`).slice(2, -1));
    }
    const quote = quoteTypes[0] as string;
    this.write(quote + newParts.join("") + quote);
  }

  /** `_write_fstring_inner`: an f-string's (or format spec's) body, braces doubled in literal parts. */
  private fstringInner(node: Expr): void {
    if (node.type === "JoinedStr") {
      for (const value of node.values) this.fstringInner(value);
    } else if (node.type === "Constant" && node.value.kind === "str") {
      this.write(node.value.value.replaceAll("{", "{{").replaceAll("}", "}}"));
    } else if (node.type === "FormattedValue") {
      this.formattedValue(node);
    } else {
      throw new Error(`Unexpected node inside JoinedStr, ${node.type}`);
    }
  }

  private formattedValue(node: Extract<Expr, { type: "FormattedValue" }>): void {
    this.write("{");
    // The expression part is unparsed by a fresh unparser that avoids backslashes (3.11 forbids them
    // in f-string expressions) and has its own precedence table.
    const expr = new Unparser(true).visitExpr(node.value, next(P.TEST));
    if (expr.includes("\\")) throw new Error("Unable to avoid backslash in f-string expression part");
    // Separate a pair of opening braces as "{ {" so it doesn't read as an escaped brace.
    if (expr.startsWith("{")) this.write(" ");
    this.write(expr);
    if (node.conversion !== -1) this.write(`!${String.fromCharCode(node.conversion)}`);
    if (node.format_spec) {
      this.write(":");
      this.fstringInner(node.format_spec);
    }
    this.write("}");
  }

  // ---- constants ------------------------------------------------------------------------------

  private writeConstant(value: ConstantValue): void {
    switch (value.kind) {
      case "float":
        this.write(replaceInfNan(reprFloat(value.value)));
        return;
      case "complex":
        this.write(replaceInfNan(reprComplex(value.imag)));
        return;
      case "str":
        if (this.avoidBackslashes) this.writeStrAvoidingBackslashes(value.value);
        else this.write(reprStr(value.value));
        return;
      case "bytes":
        this.write(reprBytes(value.value));
        return;
      case "int":
        this.write(reprInt(value.value));
        return;
      case "bool":
        this.write(value.value ? "True" : "False");
        return;
      case "None":
        this.write("None");
        return;
      case "Ellipsis":
        // repr(...); unreachable from visit_Constant, which writes `...` itself.
        this.write("Ellipsis");
        return;
    }
  }

  // ---- expressions ----------------------------------------------------------------------------

  /**
   * `traverse` of an expression. `context` is the precedence CPython's parent visitor sets on the node
   * (`set_precedence`) just before traversing it, or TEST where it sets none: a parsed tree never shares
   * a node, so what CPython keeps in a table by node is the argument of this one call.
   */
  private expr(node: Expr, context: number = P.TEST): void {
    switch (node.type) {
      case "NamedExpr": {
        const parens = context > P.NAMED_EXPR;
        if (parens) this.write("(");
        this.expr(node.target, P.ATOM);
        this.write(" := ");
        this.expr(node.value, P.ATOM);
        if (parens) this.write(")");
        return;
      }
      case "Await":
      case "Yield": {
        const parens = context > (node.type === "Await" ? P.AWAIT : P.YIELD);
        if (parens) this.write("(");
        this.write(node.type === "Await" ? "await" : "yield");
        if (node.value) {
          this.write(" ");
          this.expr(node.value, P.ATOM);
        }
        if (parens) this.write(")");
        return;
      }
      case "YieldFrom": {
        const parens = context > P.YIELD;
        if (parens) this.write("(");
        this.write("yield from ");
        this.expr(node.value, P.ATOM);
        if (parens) this.write(")");
        return;
      }
      case "JoinedStr":
        this.joinedStr(node);
        return;
      case "FormattedValue":
        this.formattedValue(node);
        return;
      case "Name":
        this.write(node.id);
        return;
      case "Constant":
        if (node.value.kind === "Ellipsis") {
          this.write("...");
        } else {
          if (node.kind === "u") this.write("u");
          this.writeConstant(node.value);
        }
        return;
      case "List":
        this.write("[");
        for (let i = 0; i < node.elts.length; i++) {
          if (i > 0) this.write(", ");
          this.expr(node.elts[i] as Expr);
        }
        this.write("]");
        return;
      case "ListComp":
      case "GeneratorExp":
      case "SetComp": {
        const [open, close] = node.type === "ListComp" ? "[]" : node.type === "SetComp" ? "{}" : "()";
        this.write(open as string);
        this.expr(node.elt);
        for (const gen of node.generators) this.comprehension(gen);
        this.write(close as string);
        return;
      }
      case "DictComp":
        this.write("{");
        this.expr(node.key);
        this.write(": ");
        this.expr(node.value);
        for (const gen of node.generators) this.comprehension(gen);
        this.write("}");
        return;
      case "IfExp": {
        const parens = context > P.TEST;
        if (parens) this.write("(");
        this.expr(node.body, next(P.TEST));
        this.write(" if ");
        this.expr(node.test, next(P.TEST));
        this.write(" else ");
        this.expr(node.orelse, P.TEST);
        if (parens) this.write(")");
        return;
      }
      case "Set":
        if (node.elts.length > 0) {
          this.write("{");
          for (let i = 0; i < node.elts.length; i++) {
            if (i > 0) this.write(", ");
            this.expr(node.elts[i] as Expr);
          }
          this.write("}");
        } else {
          // `{}` would be a dict and `set` might be shadowed.
          this.write("{*()}");
        }
        return;
      case "Dict":
        this.write("{");
        for (let i = 0; i < node.keys.length; i++) {
          if (i > 0) this.write(", ");
          const k = node.keys[i];
          const v = node.values[i] as Expr;
          if (k === null || k === undefined) {
            // `{**d}` unpacking (PEP 448)
            this.write("**");
            this.expr(v, P.EXPR);
          } else {
            this.expr(k);
            this.write(": ");
            this.expr(v);
          }
        }
        this.write("}");
        return;
      case "Tuple": {
        const parens = node.elts.length === 0 || context > P.TUPLE;
        if (parens) this.write("(");
        this.itemsView(node.elts);
        if (parens) this.write(")");
        return;
      }
      case "UnaryOp": {
        const operator = UNOP[node.op] as string;
        const precedence = UNOP_PRECEDENCE[operator] as number;
        const parens = context > precedence;
        if (parens) this.write("(");
        this.write(operator);
        // `+1`, not `+ 1`; but `not x`.
        if (precedence !== P.FACTOR) this.write(" ");
        this.expr(node.operand, precedence);
        if (parens) this.write(")");
        return;
      }
      case "BinOp": {
        const operator = BINOP[node.op] as string;
        const precedence = BINOP_PRECEDENCE[operator] as number;
        const parens = context > precedence;
        if (parens) this.write("(");
        // `**` is right-associative: the tighter side is the left one.
        const rassoc = operator === "**";
        this.expr(node.left, rassoc ? next(precedence) : precedence);
        this.write(SPACED[operator] as string);
        this.expr(node.right, rassoc ? precedence : next(precedence));
        if (parens) this.write(")");
        return;
      }
      case "Compare": {
        const parens = context > P.CMP;
        if (parens) this.write("(");
        this.expr(node.left, next(P.CMP));
        for (let i = 0; i < node.ops.length; i++) {
          this.write(SPACED[CMPOPS[node.ops[i] as string] as string] as string);
          this.expr(node.comparators[i] as Expr, next(P.CMP));
        }
        if (parens) this.write(")");
        return;
      }
      case "BoolOp": {
        const operator = BOOLOPS[node.op] as string;
        let precedence = BOOLOP_PRECEDENCE[operator] as number;
        const parens = context > precedence;
        if (parens) this.write("(");
        // CPython's `increasing_level_traverse` raises the level for *every* operand, so later
        // operands of a long chain get tighter contexts (`a or b or (not c)`).
        const separator = SPACED[operator] as string;
        for (let i = 0; i < node.values.length; i++) {
          if (i > 0) this.write(separator);
          const value = node.values[i] as Expr;
          precedence = next(precedence);
          this.expr(value, precedence);
        }
        if (parens) this.write(")");
        return;
      }
      case "Attribute": {
        this.expr(node.value, P.ATOM);
        // `3.__abs__()` is a syntax error, so an int literal (bool included: it is an int subclass)
        // is followed by a space: `3 .__abs__()`.
        const v = node.value;
        if (v.type === "Constant" && (v.value.kind === "int" || v.value.kind === "bool")) this.write(" ");
        this.write(".");
        this.write(node.attr);
        return;
      }
      case "Call": {
        this.expr(node.func, P.ATOM);
        this.write("(");
        let comma = false;
        for (const e of node.args) {
          if (comma) this.write(", ");
          else comma = true;
          this.expr(e);
        }
        for (const e of node.keywords) {
          if (comma) this.write(", ");
          else comma = true;
          this.keyword(e);
        }
        this.write(")");
        return;
      }
      case "Subscript": {
        this.expr(node.value, P.ATOM);
        this.write("[");
        const slice = node.slice;
        // Parentheses can be omitted if the tuple isn't empty (3.11: `a[*b]` comes out as `a[*b,]`).
        if (slice.type === "Tuple" && slice.elts.length > 0) this.itemsView(slice.elts);
        else this.expr(slice);
        this.write("]");
        return;
      }
      case "Starred":
        this.write("*");
        this.expr(node.value, P.EXPR);
        return;
      case "Slice":
        if (node.lower) this.expr(node.lower);
        this.write(":");
        if (node.upper) this.expr(node.upper);
        if (node.step) {
          this.write(":");
          this.expr(node.step);
        }
        return;
      case "Lambda": {
        const parens = context > P.TEST;
        if (parens) this.write("(");
        this.write("lambda");
        const buffer = this.buffered(() => this.arguments(node.args));
        if (buffer.written) {
          this.write(" ");
          this.write(buffer.text);
        }
        this.write(": ");
        this.expr(node.body, P.TEST);
        if (parens) this.write(")");
        return;
      }
    }
  }

  private comprehension(node: Comprehension): void {
    this.write(node.is_async ? " async for " : " for ");
    this.expr(node.target, P.TUPLE);
    this.write(" in ");
    this.expr(node.iter, next(P.TEST));
    for (const ifClause of node.ifs) {
      this.write(" if ");
      this.expr(ifClause, next(P.TEST));
    }
  }

  private arg(node: Arg): void {
    this.write(node.arg);
    if (node.annotation) {
      this.write(": ");
      this.expr(node.annotation);
    }
  }

  private arguments(node: Arguments): void {
    let first = true;
    // Positional arguments; `defaults` belong to the last ones. `/` follows the last posonly one.
    const allArgs = [...node.posonlyargs, ...node.args];
    const missing = allArgs.length - node.defaults.length;
    for (let i = 0; i < allArgs.length; i++) {
      if (first) first = false;
      else this.write(", ");
      this.arg(allArgs[i] as Arg);
      const d = i >= missing ? node.defaults[i - missing] : undefined;
      if (d) {
        this.write("=");
        this.expr(d);
      }
      if (i + 1 === node.posonlyargs.length) this.write(", /");
    }
    // `*args`, or a bare `*` if there is no vararg but keyword-only arguments follow.
    if (node.vararg || node.kwonlyargs.length > 0) {
      if (first) first = false;
      else this.write(", ");
      this.write("*");
      if (node.vararg) {
        this.write(node.vararg.arg);
        if (node.vararg.annotation) {
          this.write(": ");
          this.expr(node.vararg.annotation);
        }
      }
    }
    for (let i = 0; i < node.kwonlyargs.length; i++) {
      this.write(", ");
      this.arg(node.kwonlyargs[i] as Arg);
      const d = node.kw_defaults[i];
      if (d) {
        this.write("=");
        this.expr(d);
      }
    }
    if (node.kwarg) {
      if (first) first = false;
      else this.write(", ");
      this.write(`**${node.kwarg.arg}`);
      if (node.kwarg.annotation) {
        this.write(": ");
        this.expr(node.kwarg.annotation);
      }
    }
  }

  private keyword(node: Keyword): void {
    if (node.arg === null) {
      this.write("**");
    } else {
      this.write(node.arg);
      this.write("=");
    }
    this.expr(node.value);
  }

  private alias(node: Alias): void {
    this.write(node.name);
    if (node.asname) this.write(` as ${node.asname}`);
  }

  private withItem(node: WithItem): void {
    this.expr(node.context_expr);
    if (node.optional_vars) {
      this.write(" as ");
      this.expr(node.optional_vars);
    }
  }

  // ---- patterns -------------------------------------------------------------------------------

  /** `traverse` of a pattern; `context` as in {@link expr}. */
  private pattern(node: Pattern, context: number = P.TEST): void {
    switch (node.type) {
      case "MatchValue":
        this.expr(node.value);
        return;
      case "MatchSingleton":
        this.writeConstant(node.value);
        return;
      case "MatchSequence":
        this.write("[");
        this.interleave(", ", (p) => this.pattern(p), node.patterns);
        this.write("]");
        return;
      case "MatchStar":
        this.write(`*${node.name ?? "_"}`);
        return;
      case "MatchMapping":
        this.write("{");
        for (let i = 0; i < node.keys.length; i++) {
          if (i > 0) this.write(", ");
          this.expr(node.keys[i] as Expr);
          this.write(": ");
          this.pattern(node.patterns[i] as Pattern);
        }
        if (node.rest !== null) {
          if (node.keys.length > 0) this.write(", ");
          this.write(`**${node.rest}`);
        }
        this.write("}");
        return;
      case "MatchClass": {
        this.expr(node.cls, P.ATOM);
        this.write("(");
        this.interleave(", ", (p) => this.pattern(p), node.patterns);
        if (node.kwd_attrs.length > 0) {
          if (node.patterns.length > 0) this.write(", ");
          for (let i = 0; i < node.kwd_attrs.length; i++) {
            if (i > 0) this.write(", ");
            this.write(`${node.kwd_attrs[i]}=`);
            this.pattern(node.kwd_patterns[i] as Pattern);
          }
        }
        this.write(")");
        return;
      }
      case "MatchAs":
        if (node.name === null) {
          this.write("_");
        } else if (node.pattern === null) {
          this.write(node.name);
        } else {
          const parens = context > P.TEST;
          if (parens) this.write("(");
          this.pattern(node.pattern, P.BOR);
          this.write(` as ${node.name}`);
          if (parens) this.write(")");
        }
        return;
      case "MatchOr": {
        const parens = context > P.BOR;
        if (parens) this.write("(");
        this.interleave(" | ", (p) => this.pattern(p, next(P.BOR)), node.patterns);
        if (parens) this.write(")");
        return;
      }
    }
  }
}

/** CPython 3.11 `ast.unparse(node)` for a module: statements separated by newlines, no trailing newline. */
export function unparse(node: Module): string {
  return new Unparser(false).visitModule(node);
}

/**
 * Like unparse, but also returns the output offset where `marker` (a statement in the tree, compared
 * by identity) starts being written, or -1.
 *
 * The offset is that of the statement's first character, after the newline and indentation `fill`
 * writes: the `@` of a decorated definition, the docstring's opening quote, or `elif` for an `if`
 * that was folded into its parent's `elif` chain. Offsets count UTF-16 code units of `text`.
 */
export function unparseWithMarker(node: Module, marker: Stmt | null): { text: string; markerOffset: number } {
  const unparser = new Unparser(false, marker);
  const text = unparser.visitModule(node);
  return { text, markerOffset: unparser.markerOffset };
}
