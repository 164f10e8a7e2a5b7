/**
 * The token sequence of a source file in one of the lint languages (docs/lint.md): what the lint reward's
 * edit-size term d(A, A′) compares. Python uses the repair reward's CPython-exact tokens of norm(X)
 * (normalize.ts `programTokens`, whole program); C++ and Java use the lexers of cpp.ts and java.ts.
 */
import { programTokens } from "../normalize.js";
import { cppTokens } from "./cpp.js";
import { javaTokens } from "./java.js";

/** The languages with a tokenizer here (the lint languages of src/core/lint/alert.ts). */
export type SourceLanguage = "python" | "cpp" | "java";

/**
 * The tokens of `source`. Never throws for C++ or Java; for Python, throws what `programTokens` throws
 * for source that is not valid Python 3.11 (`PySyntaxError`, `TokenizeError`).
 */
export function sourceTokens(language: SourceLanguage, source: string): string[] {
  switch (language) {
    case "python":
      return programTokens(source, "program");
    case "cpp":
      return cppTokens(source);
    case "java":
      return javaTokens(source);
  }
}

/** Tokenizer names and versions, for the reward definition version: a change to a lexer changes it. */
export const SOURCE_TOKENIZERS: Readonly<Record<SourceLanguage, string>> = Object.freeze({
  python: "cpython-3.11:tokenize(norm(X))",
  cpp: "minedit-cpp-lexer/1",
  java: "minedit-java-lexer/1",
});
