/**
 * The tree-sitter-python grammar, loaded once per thread. Loading reads the grammar's `.wasm` file, the
 * only I/O in the normalizer; after `loadPythonGrammar()` resolves, everything else is synchronous.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";

let parser: Parser | null = null;
let loading: Promise<Parser> | null = null;

/** Resolves when the grammar is ready; safe to call many times. */
export function loadPythonGrammar(): Promise<Parser> {
  if (loading === null) {
    loading = (async () => {
      await Parser.init();
      const require = createRequire(import.meta.url);
      const wasm = readFileSync(require.resolve("tree-sitter-python/tree-sitter-python.wasm"));
      const created = new Parser();
      created.setLanguage(await Language.load(new Uint8Array(wasm)));
      parser = created;
      return created;
    })();
  }
  return loading;
}

/** The loaded parser; throws if `loadPythonGrammar()` has not resolved yet (a programming error). */
export function pythonParser(): Parser {
  if (parser === null) throw new Error("tree-sitter-python is not loaded: await loadPythonGrammar() first");
  return parser;
}
