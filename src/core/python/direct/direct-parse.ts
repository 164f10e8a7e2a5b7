/**
 * The direct parser: CPython 3.11's `ast.parse` for the Python that programs are written in, from a
 * hand-written tokenizer (lexer.ts) and recursive-descent parser (parse-statement.ts,
 * parse-expression.ts, …) that build the AST without an intermediate tree — about ten times faster than
 * parsing with tree-sitter (WebAssembly) and converting its concrete tree.
 *
 * It answers only where it is sure. A program it accepts is one CPython accepts, with CPython's tree. It
 * rejects (`PySyntaxError`) only where CPython must reject too: an error of the tokenizer (the lexer is
 * the C tokenizer on the part of the language it reads), or tokens that stop parsing only at the end of
 * the program — a program cut short, as a model's output is at its token limit. Everything else — a
 * failure in the middle of the program, `match` statements, tabs in indentation, non-ASCII names, rare
 * f-string forms, deep nesting — returns null, and parse.ts parses with tree-sitter, which answers for
 * every program. tests/differential checks both directions against CPython itself: the standard
 * library, the syntax-validity corpus, and mutated and truncated programs.
 */
import type { Module } from "../ast.js";
import { PySyntaxError } from "../syntax-error.js";
import { DEDENT, ENDMARKER, lexPython, NEWLINE, type TokenStream, Unsupported } from "./lexer.js";
import { parseModule } from "./parse-statement.js";
import { ParseFailure, ParserState } from "./parser-state.js";

/**
 * What the fallback decides: a lone surrogate (CPython cannot encode such a `str` as source at all) and a
 * NUL character (anywhere, a comment or string included, "source code cannot contain null bytes").
 */
const LEFT_TO_FALLBACK = /[\p{Cs}\0]/u;

/**
 * `ast.parse(source)` for `source` with `\n` line endings: the module, or null when the direct parser
 * leaves the program to tree-sitter. Throws `PySyntaxError` where CPython certainly rejects the source
 * (see the module comment).
 */
export function parseDirect(source: string): Module | null {
  if (LEFT_TO_FALLBACK.test(source)) return null;
  let tokens: TokenStream;
  try {
    tokens = lexPython(source);
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error; // the tokenizer's PySyntaxError
  }
  const state = new ParserState(tokens);
  try {
    return parseModule(state);
  } catch (error) {
    if (error instanceof ParseFailure && error.at >= endOfProgram(tokens)) {
      const line = state.lineOf(error.at);
      throw PySyntaxError.withoutStack(
        `invalid syntax at line ${line}: the program ends too early`,
        source.length,
      );
    }
    // ParseFailure elsewhere: the fallback judges it. Unsupported: not handled here. PySyntaxError: a
    // literal CPython rejects (literals.ts), left to the fallback too. RangeError: the stack ran out; the
    // depth limits should prevent it.
    if (
      error instanceof ParseFailure ||
      error instanceof Unsupported ||
      error instanceof PySyntaxError ||
      error instanceof RangeError
    ) {
      return null;
    }
    throw error;
  }
}

/**
 * Index of the first token of the program's ending: the final NEWLINE, the DEDENTs and ENDMARKER, which
 * follow the last token of the text. A parse that needs a token there needs text the program does not
 * have, and CPython's parser fails there too.
 */
function endOfProgram(tokens: TokenStream): number {
  const { kinds } = tokens;
  let i = kinds.length - 1;
  while (i > 0) {
    const kind = kinds[i - 1];
    if (kind !== ENDMARKER && kind !== DEDENT && kind !== NEWLINE) break;
    i--;
  }
  return i;
}
