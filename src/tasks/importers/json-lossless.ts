/**
 * A JSON reader that keeps numbers as written. DeepCoder-style function-call tests hold their arguments
 * and expected values as JSON, and the generated `check(candidate)` must compare against exactly what
 * Python's `json.loads` would read: `JSON.parse` rounds `12345678901234567890` to a double and reads
 * `1.0` as the integer `1`, while Python keeps an exact int and a float. Everything else (strings,
 * escapes, objects) reads as `JSON.parse` reads it, which is also what `json.loads` reads (a duplicate
 * key keeps its first position and its last value in both).
 */

/** A JSON number, kept as its source text (JSON's number grammar, so always a valid Python literal). */
export class JsonNumber {
  constructor(readonly text: string) {}

  /** Whether Python reads it as an int (no fraction, no exponent). */
  get isInteger(): boolean {
    return !/[.eE]/.test(this.text);
  }
}

export type LosslessJson =
  | null
  | boolean
  | string
  | JsonNumber
  | LosslessJson[]
  | { [key: string]: LosslessJson };

/** A syntax error with the 1-based line and column where it was found. */
export class JsonSyntaxError extends Error {
  override readonly name = "JsonSyntaxError";
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} at line ${line} column ${column}`);
  }
}

/** Parses one JSON text. Throws {@link JsonSyntaxError}. */
export function parseLosslessJson(text: string): LosslessJson {
  const reader = new Reader(text);
  const value = reader.value();
  reader.end();
  return value;
}

/**
 * Parses a JSON text that must be an array, returning each element with the 1-based line its text starts
 * on (so a rejected element of a JSON-array source file can be reported by line). Throws
 * {@link JsonSyntaxError}, also when the text is not an array.
 */
export function parseLosslessJsonArray(text: string): { line: number; value: LosslessJson }[] {
  const reader = new Reader(text);
  const elements = reader.arrayWithLines();
  reader.end();
  return elements;
}

/** The value as `JSON.parse` would have returned it (numbers become JavaScript numbers). */
export function toPlainJson(value: LosslessJson): unknown {
  if (value instanceof JsonNumber) return Number(value.text);
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) defineKey(out, key, toPlainJson(item));
    return out;
  }
  return value;
}

/** Sets a key as an own data property: plain assignment of `"__proto__"` would set the prototype instead. */
function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class Reader {
  private pos = 0;

  constructor(private readonly text: string) {}

  value(): LosslessJson {
    this.skipSpace();
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.keyword("true", true);
      case "f":
        return this.keyword("false", false);
      case "n":
        return this.keyword("null", null);
      default:
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
        throw this.error(
          c === undefined ? "unexpected end of JSON" : `unexpected character ${JSON.stringify(c)}`,
        );
    }
  }

  /** Only whitespace may follow the value. */
  end(): void {
    this.skipSpace();
    if (this.pos < this.text.length) throw this.error("unexpected data after the JSON value");
  }

  arrayWithLines(): { line: number; value: LosslessJson }[] {
    this.skipSpace();
    if (this.text[this.pos] !== "[") throw this.error("expected a JSON array");
    const elements: { line: number; value: LosslessJson }[] = [];
    this.elements("]", () => {
      this.skipSpace();
      const line = this.position().line;
      elements.push({ line, value: this.value() });
    });
    return elements;
  }

  private array(): LosslessJson[] {
    const items: LosslessJson[] = [];
    this.elements("]", () => items.push(this.value()));
    return items;
  }

  private object(): { [key: string]: LosslessJson } {
    const out: { [key: string]: LosslessJson } = {};
    this.elements("}", () => {
      this.skipSpace();
      if (this.text[this.pos] !== '"') throw this.error("expected a string key");
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ":") throw this.error("expected ':' after an object key");
      this.pos++;
      defineKey(out, key, this.value());
    });
    return out;
  }

  /**
   * Reads the elements of the array or object whose opening bracket is at `pos`, each with `element`,
   * through the closing bracket `close`.
   */
  private elements(close: "]" | "}", element: () => void): void {
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === close) {
      this.pos++;
      return;
    }
    do element();
    while (this.listSeparator(close));
  }

  /** After an element: `,` (true: another element follows) or the closing bracket (false). */
  private listSeparator(close: "]" | "}"): boolean {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === ",") {
      this.pos++;
      return true;
    }
    if (c === close) {
      this.pos++;
      return false;
    }
    throw this.error(`expected ',' or '${close}'`);
  }

  private string(): string {
    const start = this.pos;
    let i = start + 1;
    let escaped = false;
    for (;;) {
      const c = this.text.charCodeAt(i);
      if (Number.isNaN(c)) {
        this.pos = start;
        throw this.error("unterminated string");
      }
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else if (c < 0x20) {
        this.pos = i;
        throw this.error("control character in a string");
      } else {
        i++;
      }
    }
    this.pos = i + 1;
    if (!escaped) return this.text.slice(start + 1, i);
    // The escapes are JSON's, which JSON.parse decodes exactly (lone surrogates included).
    try {
      return JSON.parse(this.text.slice(start, i + 1)) as string;
    } catch {
      this.pos = start;
      throw this.error("invalid escape in a string");
    }
  }

  private number(): JsonNumber {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) throw this.error("invalid number");
    this.pos += match[0].length;
    return new JsonNumber(match[0]);
  }

  private keyword<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) throw this.error("invalid literal");
    this.pos += word.length;
    return value;
  }

  private skipSpace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos++;
    }
  }

  /** Line counting resumes from the last position asked for: array elements are asked for in order. */
  private counted = { pos: 0, line: 1, lineStart: 0 };

  private position(): { line: number; column: number } {
    if (this.counted.pos > this.pos) this.counted = { pos: 0, line: 1, lineStart: 0 };
    let { line, lineStart } = this.counted;
    for (
      let i = this.text.indexOf("\n", this.counted.pos);
      i !== -1 && i < this.pos;
      i = this.text.indexOf("\n", i + 1)
    ) {
      line++;
      lineStart = i + 1;
    }
    this.counted = { pos: this.pos, line, lineStart };
    return { line, column: this.pos - lineStart + 1 };
  }

  private error(message: string): JsonSyntaxError {
    const { line, column } = this.position();
    return new JsonSyntaxError(message, line, column);
  }
}
