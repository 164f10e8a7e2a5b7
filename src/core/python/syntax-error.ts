/**
 * Errors of the Python front end (tokenizer, parser, literal decoding).
 *
 * They describe the *input program*, not a fault of minedit: a candidate that CPython 3.11 would
 * reject is UNPARSABLE (a verdict), so callers turn these into data rather than into a `MineditError`.
 */

/**
 * CPython 3.11 would raise `SyntaxError` for this source. `message` follows CPython's wording where it
 * matters for reading logs; nothing should depend on it.
 */
export class PySyntaxError extends Error {
  override readonly name = "PySyntaxError";
  /** Character (UTF-16 code unit) offset in the text that was being decoded, where known. */
  readonly offset: number | undefined;

  constructor(message: string, offset?: number) {
    super(message);
    this.offset = offset;
  }
}

/**
 * CPython 3.11 accepts this source but minedit cannot reproduce what CPython does with it. Distinct from
 * {@link PySyntaxError} so that a valid program is never scored as unparsable by mistake.
 */
export class UnsupportedSyntax extends Error {
  override readonly name = "UnsupportedSyntax";
}
