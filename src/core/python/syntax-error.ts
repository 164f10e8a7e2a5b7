/**
 * The error of the Python front end (parser, literal decoding, the conversion to CPython's AST). The
 * tokenizer raises its own `TokenizeError` (tokenize.ts), which `parsePython` turns into this one.
 *
 * It describes the *input program*, not a fault of minedit: a candidate's program that raises it gets
 * the UNPARSABLE verdict (data, not a `MineditError`); a task's own gold or corrupted program, or a
 * problem source being imported, that raises it is reported as invalid input.
 */

/**
 * minedit rejects this source: CPython 3.11 raises `SyntaxError` for it. The differences that remain are
 * listed by the differential tests (tests/differential/known-mismatches.json and the known differences
 * of syntax-validity.test.ts): a few tree-sitter-python grammar limits make minedit reject source that
 * CPython accepts (scored UNPARSABLE like any other rejected program), and TabError is not raised.
 * `message` follows CPython's wording where it matters for reading logs; nothing should depend on it.
 */
export class PySyntaxError extends Error {
  override readonly name = "PySyntaxError";
  /** Character (UTF-16 code unit) offset in the text that was being decoded, where known. */
  readonly offset: number | undefined;

  constructor(message: string, offset?: number) {
    super(message);
    this.offset = offset;
  }

  /**
   * The same error without a stack trace. It describes the program, never where minedit was, and
   * capturing the stack is most of the cost of rejecting a program: the direct parser rejects every
   * truncated model output this way.
   */
  static withoutStack(message: string, offset?: number): PySyntaxError {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new PySyntaxError(message, offset);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}
