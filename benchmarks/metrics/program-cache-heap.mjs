/**
 * What the program cache's byte estimate stands for (src/core/analyzed-program-cache.ts): fills one cache
 * with the distinct programs of a run's batches (JSONL files of rollouts, as benchmarks/metrics/run.mjs
 * writes them) and prints, as JSON, its entries, its estimate and the growth of this thread's V8 heap
 * between two full collections. Run with `node --expose-gc` (run.mjs does); imports the BUILT code.
 *
 *   node --expose-gc benchmarks/metrics/program-cache-heap.mjs BATCH.jsonl [BATCH.jsonl ...]
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const DIST = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist");
const load = (file) => import(pathToFileURL(join(DIST, file)).href);
const { loadPythonGrammar } = await load("core/python/grammar.js");
const { AnalyzedProgramCache } = await load("core/analyzed-program-cache.js");
const { extractProgram } = await load("core/extract-program.js");
const { parseConfig } = await load("config.js");
const { PySyntaxError } = await load("core/python/syntax-error.js");
const { TokenizeError } = await load("core/python/tokenize.js");

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
await loadPythonGrammar();
const config = parseConfig({}).reward;
const programs = new Set();
for (const file of process.argv.slice(2)) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const extracted = extractProgram(JSON.parse(line).completion, config.endOfTurnMarkers);
    if (extracted.kind !== "no_code") programs.add(extracted.program);
  }
}
const isProgramError = (error) => error instanceof PySyntaxError || error instanceof TokenizeError;
const fill = (cache) => {
  for (const program of programs) {
    try {
      cache.analyzeProgram(program, config.scope, isProgramError);
    } catch (error) {
      if (!isProgramError(error)) throw error;
    }
  }
};
// A first pass into a cache that is then dropped: what analyzing allocates once (compiled code, the
// parser's own tables) is not the cache's.
fill(new AnalyzedProgramCache(Number.MAX_SAFE_INTEGER));
const cache = new AnalyzedProgramCache(Number.MAX_SAFE_INTEGER);
const heap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
const before = heap();
fill(cache);
const after = heap();
const { entries, bytes } = cache.stats();
console.log(JSON.stringify({ entries, estimateBytes: bytes, heapBytes: after - before }));
