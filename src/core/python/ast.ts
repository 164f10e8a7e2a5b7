/**
 * Python 3.11 abstract syntax tree, mirroring CPython's `ast` module (Parser/Python.asdl) field for
 * field, so that the unparser can follow `Lib/ast.py` line by line and so that tests can load the JSON
 * dump of a CPython tree (tests/oracle/ast_json.py) straight into these types.
 *
 * Differences from CPython, all irrelevant to `ast.unparse`:
 * - no `ctx` (Load/Store/Del), and no source positions but a `def`'s or `class`'s `lineno`;
 * - three marks of how the source was written, which CPython's tree forgets and cognitive complexity
 *   (docs/reward.md#added-cognitive-complexity, sonar-python reads the source as written) needs: `If.elif` (this `if` was written
 *   `elif`, not `else:` + `if`), `BoolOp.parenthesized` and `Name.parenthesized` (written in
 *   parentheses); each is present only where it is true;
 * - operators are plain strings (`"Add"`), not nodes;
 * - `Constant.value` is a tagged union, because JavaScript has no int/float/complex/bytes distinction.
 */

export type Module = { type: "Module"; body: Stmt[] };

export type Stmt =
  | FunctionDef
  | ClassDef
  | { type: "Return"; value: Expr | null }
  | { type: "Delete"; targets: Expr[] }
  | { type: "Assign"; targets: Expr[]; value: Expr }
  | { type: "AugAssign"; target: Expr; op: Operator; value: Expr }
  | { type: "AnnAssign"; target: Expr; annotation: Expr; value: Expr | null; simple: number }
  | { type: "For" | "AsyncFor"; target: Expr; iter: Expr; body: Stmt[]; orelse: Stmt[] }
  | { type: "While"; test: Expr; body: Stmt[]; orelse: Stmt[] }
  | { type: "If"; test: Expr; body: Stmt[]; orelse: Stmt[]; elif?: true }
  | { type: "With" | "AsyncWith"; items: WithItem[]; body: Stmt[] }
  | { type: "Match"; subject: Expr; cases: MatchCase[] }
  | { type: "Raise"; exc: Expr | null; cause: Expr | null }
  | {
      type: "Try" | "TryStar";
      body: Stmt[];
      handlers: ExceptHandler[];
      orelse: Stmt[];
      finalbody: Stmt[];
    }
  | { type: "Assert"; test: Expr; msg: Expr | null }
  | { type: "Import"; names: Alias[] }
  | { type: "ImportFrom"; module: string | null; names: Alias[]; level: number }
  | { type: "Global" | "Nonlocal"; names: string[] }
  | { type: "Expr"; value: Expr }
  | { type: "Pass" | "Break" | "Continue" };

export type FunctionDef = {
  type: "FunctionDef" | "AsyncFunctionDef";
  name: string;
  args: Arguments;
  body: Stmt[];
  decorator_list: Expr[];
  returns: Expr | null;
  /** 1-based line of the `def` keyword (CPython's `lineno`; decorators are above it). */
  lineno?: number;
};

export type ClassDef = {
  type: "ClassDef";
  name: string;
  bases: Expr[];
  keywords: Keyword[];
  body: Stmt[];
  decorator_list: Expr[];
  /** 1-based line of the `class` keyword. */
  lineno?: number;
};

export type Expr =
  | { type: "BoolOp"; op: BoolOperator; values: Expr[]; parenthesized?: true }
  | { type: "NamedExpr"; target: Expr; value: Expr }
  | { type: "BinOp"; left: Expr; op: Operator; right: Expr }
  | { type: "UnaryOp"; op: UnaryOperator; operand: Expr }
  | { type: "Lambda"; args: Arguments; body: Expr }
  | { type: "IfExp"; test: Expr; body: Expr; orelse: Expr }
  /** A `null` key stands for `**value` unpacking, as in CPython. */
  | { type: "Dict"; keys: (Expr | null)[]; values: Expr[] }
  | { type: "Set"; elts: Expr[] }
  | { type: "ListComp" | "SetComp" | "GeneratorExp"; elt: Expr; generators: Comprehension[] }
  | { type: "DictComp"; key: Expr; value: Expr; generators: Comprehension[] }
  | { type: "Await"; value: Expr }
  | { type: "Yield"; value: Expr | null }
  | { type: "YieldFrom"; value: Expr }
  | { type: "Compare"; left: Expr; ops: CompareOperator[]; comparators: Expr[] }
  | { type: "Call"; func: Expr; args: Expr[]; keywords: Keyword[] }
  /** `conversion` is -1 (none) or the code point of `s`, `r` or `a`, as in CPython. */
  | { type: "FormattedValue"; value: Expr; conversion: number; format_spec: Expr | null }
  | { type: "JoinedStr"; values: Expr[] }
  | Constant
  | { type: "Attribute"; value: Expr; attr: string }
  | { type: "Subscript"; value: Expr; slice: Expr }
  | { type: "Starred"; value: Expr }
  | { type: "Name"; id: string; parenthesized?: true }
  | { type: "List" | "Tuple"; elts: Expr[] }
  | { type: "Slice"; lower: Expr | null; upper: Expr | null; step: Expr | null };

/** `kind` is `"u"` for a `u"..."` literal (ast.unparse writes the prefix back) and null otherwise. */
export type Constant = { type: "Constant"; value: ConstantValue; kind: string | null };

/**
 * A Python constant. Ints are decimal digit strings (arbitrary precision); a float or a complex
 * imaginary part is a JavaScript number (both are IEEE doubles); bytes are a string of code units 0–255.
 *
 * A str is UTF-16, lone surrogates included. Python can hold a high surrogate code point followed by a
 * low one as two code points (`'\ud800\udc80'`, `'\ud800' '\udc80'`), which UTF-16 would read as one
 * astral character; such neighbours are kept apart by U+FFFF (`STR_SEPARATOR` in literals.ts), as is a
 * real U+FFFF following a lone high surrogate. Real astral characters stay ordinary surrogate pairs.
 */
export type ConstantValue =
  | { kind: "str"; value: string }
  | { kind: "bytes"; value: string }
  | { kind: "int"; value: string }
  | { kind: "float"; value: number }
  | { kind: "complex"; imag: number }
  | { kind: "bool"; value: boolean }
  | { kind: "None" }
  | { kind: "Ellipsis" };

export type Comprehension = { target: Expr; iter: Expr; ifs: Expr[]; is_async: number };

export type ExceptHandler = {
  type: "ExceptHandler";
  exc_type: Expr | null;
  name: string | null;
  body: Stmt[];
};

export type Arguments = {
  posonlyargs: Arg[];
  args: Arg[];
  vararg: Arg | null;
  kwonlyargs: Arg[];
  /** One entry per kwonlyarg; `null` where that argument has no default. */
  kw_defaults: (Expr | null)[];
  kwarg: Arg | null;
  /** Defaults of the last `defaults.length` positional arguments (posonlyargs then args). */
  defaults: Expr[];
};

/** The `arguments` of a `def f():` or `lambda:` without parameters, to be filled in by the parsers. */
export function emptyArguments(): Arguments {
  return {
    posonlyargs: [],
    args: [],
    vararg: null,
    kwonlyargs: [],
    kw_defaults: [],
    kwarg: null,
    defaults: [],
  };
}

export type Arg = { arg: string; annotation: Expr | null };
export type Keyword = { arg: string | null; value: Expr };
export type Alias = { name: string; asname: string | null };
export type WithItem = { context_expr: Expr; optional_vars: Expr | null };
export type MatchCase = { pattern: Pattern; guard: Expr | null; body: Stmt[] };

export type Pattern =
  | { type: "MatchValue"; value: Expr }
  | { type: "MatchSingleton"; value: ConstantValue }
  | { type: "MatchSequence"; patterns: Pattern[] }
  | { type: "MatchMapping"; keys: Expr[]; patterns: Pattern[]; rest: string | null }
  | { type: "MatchClass"; cls: Expr; patterns: Pattern[]; kwd_attrs: string[]; kwd_patterns: Pattern[] }
  | { type: "MatchStar"; name: string | null }
  | { type: "MatchAs"; pattern: Pattern | null; name: string | null }
  | { type: "MatchOr"; patterns: Pattern[] };

export type BoolOperator = "And" | "Or";
export type Operator =
  | "Add"
  | "Sub"
  | "Mult"
  | "MatMult"
  | "Div"
  | "Mod"
  | "Pow"
  | "LShift"
  | "RShift"
  | "BitOr"
  | "BitXor"
  | "BitAnd"
  | "FloorDiv";
export type UnaryOperator = "Invert" | "Not" | "UAdd" | "USub";
export type CompareOperator = "Eq" | "NotEq" | "Lt" | "LtE" | "Gt" | "GtE" | "Is" | "IsNot" | "In" | "NotIn";
