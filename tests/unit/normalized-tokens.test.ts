/**
 * The fast scanner of unparsed text (src/core/python/normalized-tokens.ts) gives the general tokenize
 * port's tokens and offsets exactly, or declines. Whole-library equality with CPython's own tokenize is
 * checked by tests/differential/normalize-stdlib.test.ts (the product path's tokens come from this
 * scanner); these are the shapes unparse writes, one by one, and the ones it must decline.
 */
import { describe, expect, it } from "vitest";
import { normalizedTokens } from "../../src/core/python/normalized-tokens.js";
import { pythonTokensWithOffsets } from "../../src/core/python/tokenize.js";

const UNPARSED = [
  "",
  "x = 1",
  "x = 1\ny = 2",
  "def f(a, /, b=1, *c, d, **e) -> int:\n    return a ** -b // 3 @ c",
  "class A(B):\n    '''doc\n    more'''\n\n    def m(self):\n        pass\n\nx = A()",
  "if a:\n    pass\nelif b:\n    if c:\n        pass\nelse:\n    pass",
  "x = [i for i in y if i] + {k: v for k, v in z} + {*a}",
  "x = 1.5e-07 + 1e+300 + 1e309 + (1e309 - 1e309) + 3j + (1+2j) + 1 .real + 1.0.real + .5",
  "x = 'a\\'b' + \"it's\" + b'\\x00\\n' + u'x' + '''a\"\"\"b''' + \"\"\"tri'''ple\"\"\"",
  "x = f'{a!r:>{w}}' + f\"{'nested'}\" + f'''{x}\n'''",
  "x = a if b else c\ny = lambda: (yield)\nz = (x := 1)",
  "a <<= 1\nb >>= 2\nc **= 3\nd //= 4\ne @= 5\nf -> g\nh := i\n...",
  "async def f():\n    async with a as b:\n        await c",
  "x = (1,\n     2)",
];

describe("normalizedTokens", () => {
  it.each(UNPARSED)("%j: the tokenize port's tokens and offsets", (text) => {
    expect(normalizedTokens(text)).toEqual(pythonTokensWithOffsets(text));
  });

  it.each([
    ["a tab", "if x:\n\tpass"],
    ["a comment", "x = 1  # c"],
    ["a non-ASCII name", "caf\u00e9 = 1"],
    ["a backslash continuation", "x = 1 + \\\n    2"],
    ["a string continued with a backslash", "x = 'a\\\nb'"],
    ["a backslash before a newline in a triple-quoted string", "x = '''a\\\nb'''"],
    ["an unterminated string", "x = 'abc"],
    ["spaces at the end", "x = 1\n   "],
    ["a blank line of spaces", "x = 1\n   \ny = 2"],
    ["an unmatched closing bracket", "x = 1)"],
    ["a lone '!'", "x = !y"],
    ["a dedent to no enclosing level", "if x:\n        a\n    b"],
  ])("declines %s", (_why, text) => {
    expect(normalizedTokens(text)).toBeNull();
  });
});
