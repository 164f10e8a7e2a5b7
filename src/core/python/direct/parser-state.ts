/**
 * The cursor the direct parser's functions share: the token stream, the position in it, and the few
 * questions every rule asks ("what is next?", "take it if it is X", "this does not parse", "this is not
 * something I handle").
 */
import { NAME, type TokenStream, Unsupported } from "./lexer.js";

/**
 * The tokens do not parse at token `at`. Whether that is CPython's verdict too is for direct-parse.ts to
 * say: only at the end of the program (a program cut short), else the fallback parser decides.
 */
export class ParseFailure {
  constructor(
    readonly reason: string,
    readonly at: number,
  ) {}
}

/**
 * How deeply the direct parser nests before it gives up. CPython's own parser fails on deep nesting
 * (too many nested parentheses at 200 brackets, "too complex" past its stack), and the fallback decides
 * those programs exactly as before; nothing written by hand comes close to this.
 */
const MAX_DEPTH = 100;

export class ParserState {
  readonly source: string;
  readonly kinds: number[];
  readonly starts: number[];
  readonly ends: number[];
  /** Index of the next token. */
  pos = 0;
  /** Current nesting of expression rules (see MAX_DEPTH). */
  private depth = 0;

  constructor(tokens: TokenStream) {
    this.source = tokens.source;
    this.kinds = tokens.kinds;
    this.starts = tokens.starts;
    this.ends = tokens.ends;
  }

  /** Kind of the next token. */
  kind(): number {
    return this.kinds[this.pos] as number;
  }

  /** Kind of the token `offset` places after the next one. */
  peek(offset: number): number {
    return this.kinds[this.pos + offset] as number;
  }

  /** Takes the next token if it is of `kind`. */
  eat(kind: number): boolean {
    if (this.kinds[this.pos] !== kind) return false;
    this.pos++;
    return true;
  }

  /** Takes the next token, which must be of `kind`. */
  expect(kind: number): void {
    if (this.kinds[this.pos] !== kind) this.fail("unexpected token");
    this.pos++;
  }

  /** Text of token `index`. */
  text(index: number): string {
    return this.source.slice(this.starts[index], this.ends[index]);
  }

  /** Whether the next token is the NAME `word` (a soft keyword such as `match`). */
  isName(word: string): boolean {
    const i = this.pos;
    if (this.kinds[i] !== NAME) return false;
    const start = this.starts[i] as number;
    return (this.ends[i] as number) - start === word.length && this.source.startsWith(word, start);
  }

  /** Takes a NAME token and returns its text. */
  name(): string {
    const i = this.pos;
    if (this.kinds[i] !== NAME) this.fail("a name expected");
    this.pos++;
    return this.source.slice(this.starts[i], this.ends[i]);
  }

  /** Offset and 1-based line of the last position {@link lineOf} counted to (lines are counted forward). */
  private lineCursor = { offset: 0, line: 1 };

  /**
   * 1-based line of token `index`. Counted from the last answer when that was earlier in the source (the
   * parser asks in source order, so a whole parse counts each newline once), else from the start.
   */
  lineOf(index: number): number {
    const offset = this.starts[index] as number;
    let { offset: from, line } = this.lineCursor;
    if (offset < from) {
      from = 0;
      line = 1;
    }
    for (
      let at = this.source.indexOf("\n", from);
      at >= 0 && at < offset;
      at = this.source.indexOf("\n", at + 1)
    ) {
      line++;
    }
    this.lineCursor = { offset, line };
    return line;
  }

  /**
   * Runs `parse` and returns its result, or returns null with the cursor where it was when `parse`
   * fails ({@link ParseFailure}): the PEG grammar's ordered choice, for the few places where the next
   * token cannot decide between two alternatives (`with (a, b):` against `with (a, b) as c:`).
   */
  attempt<T>(parse: () => T): T | null {
    const pos = this.pos;
    const depth = this.depth;
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ParseFailure)) throw error;
      this.pos = pos;
      this.depth = depth;
      return null;
    }
  }

  /** Enters one level of nesting; pair with {@link leave}. */
  enter(): void {
    if (++this.depth > MAX_DEPTH) this.unsupported("nested too deeply");
  }

  leave(): void {
    this.depth--;
  }

  /** The tokens do not parse here. */
  fail(reason: string): never {
    throw new ParseFailure(reason, this.pos);
  }

  /** A construct the direct parser leaves to the fallback (not a verdict on the program). */
  unsupported(reason: string): never {
    throw new Unsupported(`${reason} at line ${this.lineOf(this.pos)}`);
  }
}
