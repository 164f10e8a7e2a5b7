/**
 * The C++ and Java lexers of the lint reward's edit-size term (src/core/tokens/), on hand-checked token
 * lists: literals of every kind as one token, comments and whitespace dropped, preprocessor lines as one
 * token, operators by longest match; and the Python dispatch to the CPython-exact tokens.
 */
import { beforeAll, describe, expect, test } from "vitest";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { PySyntaxError } from "../../src/core/python/syntax-error.js";
import { cppTokens } from "../../src/core/tokens/cpp.js";
import { javaTokens } from "../../src/core/tokens/java.js";
import { sourceTokens } from "../../src/core/tokens/source-tokens.js";

describe("cppTokens", () => {
  test("a small program", () => {
    const source = `#include <bits/stdc++.h>
using namespace std; // all of it

int main() {
    long long s = 0; /* sum */
    cout << s << endl;
}
`;
    expect(cppTokens(source)).toEqual([
      "#include <bits/stdc++.h>",
      "using",
      "namespace",
      "std",
      ";",
      "int",
      "main",
      "(",
      ")",
      "{",
      "long",
      "long",
      "s",
      "=",
      "0",
      ";",
      "cout",
      "<<",
      "s",
      "<<",
      "endl",
      ";",
      "}",
    ]);
  });

  test("preprocessor directives: one token per logical line, spacing and comments folded", () => {
    const source = "#  define MAX(a, b) \\\n   ((a) > (b) ? (a) : (b)) // max\n#include<vector>\nx # y\n";
    expect(cppTokens(source)).toEqual([
      "#define MAX(a, b) ((a) > (b) ? (a) : (b))",
      "#include<vector>",
      "x",
      "#",
      "y",
    ]);
  });

  test("numbers with suffixes, separators, hex, exponents and hex floats", () => {
    expect(cppTokens("1'000'000LL + 0x1Fu + 1e-9 + .5f + 0x1.8p3 + 10_km - 3")).toEqual([
      "1'000'000LL",
      "+",
      "0x1Fu",
      "+",
      "1e-9",
      "+",
      ".5f",
      "+",
      "0x1.8p3",
      "+",
      "10_km",
      "-",
      "3",
    ]);
  });

  test("string, char and raw string literals with prefixes and suffixes", () => {
    const source = String.raw`auto s = R"x(a\"b)"c)x"; auto t = u8"hi"s; char c = '\''; wchar_t w = L'x'; auto u = "a\"b";`;
    expect(cppTokens(source)).toEqual([
      "auto",
      "s",
      "=",
      String.raw`R"x(a\"b)"c)x"`,
      ";",
      "auto",
      "t",
      "=",
      'u8"hi"s',
      ";",
      "char",
      "c",
      "=",
      String.raw`'\''`,
      ";",
      "wchar_t",
      "w",
      "=",
      "L'x'",
      ";",
      "auto",
      "u",
      "=",
      String.raw`"a\"b"`,
      ";",
    ]);
    // A raw string spans lines and keeps what it holds; an identifier that starts like a prefix is not one.
    expect(cppTokens('R"(line1\n// not a comment\n)" Rows u8x')).toEqual([
      'R"(line1\n// not a comment\n)"',
      "Rows",
      "u8x",
    ]);
  });

  test("operators by longest match", () => {
    expect(
      cppTokens("v<vector<int>> a; a >>= 2; a <=> b; p->*q; a::b; f(...); x->y; ++i--; a&&b||c"),
    ).toEqual([
      "v",
      "<",
      "vector",
      "<",
      "int",
      ">>",
      "a",
      ";",
      "a",
      ">>=",
      "2",
      ";",
      "a",
      "<=>",
      "b",
      ";",
      "p",
      "->*",
      "q",
      ";",
      "a",
      "::",
      "b",
      ";",
      "f",
      "(",
      "...",
      ")",
      ";",
      "x",
      "->",
      "y",
      ";",
      "++",
      "i",
      "--",
      ";",
      "a",
      "&&",
      "b",
      "||",
      "c",
    ]);
  });

  test("never fails: unterminated literals end at the line, stray characters are tokens", () => {
    expect(cppTokens('"abc\nint x; @ /* open')).toEqual(['"abc', "int", "x", ";", "@"]);
  });

  test("formatting and comments do not change the tokens", () => {
    const a = "int f(int x){return x*2;}";
    const b = "int f( int x )\n{\n    // doubles\n    return x * 2;\n}\n";
    expect(cppTokens(b)).toEqual(cppTokens(a));
  });
});

describe("javaTokens", () => {
  test("a small program with an annotation and a text block", () => {
    const source = `package a.b;
import java.util.*; // all
/** Doc. */
@Override public class Main {
  String t = """
      hi "there" \\"""
      """;
}
`;
    expect(javaTokens(source)).toEqual([
      "package",
      "a",
      ".",
      "b",
      ";",
      "import",
      "java",
      ".",
      "util",
      ".",
      "*",
      ";",
      "@",
      "Override",
      "public",
      "class",
      "Main",
      "{",
      "String",
      "t",
      "=",
      '"""\n      hi "there" \\"""\n      """',
      ";",
      "}",
    ]);
  });

  test("numbers and chars", () => {
    expect(
      javaTokens("long x = 1_000L + 0x1F + 0b101 + 017 + 1e-9 + 3.0f + .5d + 0x1.8p3; char c = '\\'';"),
    ).toEqual([
      "long",
      "x",
      "=",
      "1_000L",
      "+",
      "0x1F",
      "+",
      "0b101",
      "+",
      "017",
      "+",
      "1e-9",
      "+",
      "3.0f",
      "+",
      ".5d",
      "+",
      "0x1.8p3",
      ";",
      "char",
      "c",
      "=",
      "'\\''",
      ";",
    ]);
  });

  test("operators by longest match", () => {
    expect(javaTokens("x >>>= 2; y = a >>> b; f(a -> a::b); g(String... s); i++;")).toEqual([
      "x",
      ">>>=",
      "2",
      ";",
      "y",
      "=",
      "a",
      ">>>",
      "b",
      ";",
      "f",
      "(",
      "a",
      "->",
      "a",
      "::",
      "b",
      ")",
      ";",
      "g",
      "(",
      "String",
      "...",
      "s",
      ")",
      ";",
      "i",
      "++",
      ";",
    ]);
  });

  test("Unicode identifiers and an unterminated string", () => {
    expect(javaTokens('int größe = 1; String s = "open\nx')).toEqual([
      "int",
      "größe",
      "=",
      "1",
      ";",
      "String",
      "s",
      "=",
      '"open',
      "x",
    ]);
  });
});

describe("sourceTokens", () => {
  beforeAll(async () => {
    await loadPythonGrammar();
  });

  test("Python uses the CPython-exact tokens of norm(X) (comments and formatting folded)", () => {
    // CPython: norm is "x = 1" (no final newline), so its NEWLINE token is the empty string.
    expect(sourceTokens("python", "x = ( 1 )  # one\n")).toEqual(["x", "=", "1", ""]);
  });

  test("Python that does not parse throws; C++ and Java never do", () => {
    expect(() => sourceTokens("python", "def f(:\n")).toThrow(PySyntaxError);
    expect(sourceTokens("cpp", "int main( {")).toEqual(["int", "main", "(", "{"]);
    expect(sourceTokens("java", "class {")).toEqual(["class", "{"]);
  });
});
