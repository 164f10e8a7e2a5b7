/**
 * The runtime of an inline task that names none (proto `Task.runtime` absent): the one the modules its
 * corrupted program, gold and tests import call for, picked exactly as `minedit tasks build` picks a task
 * file's (src/sandbox/runtime-for-libraries.ts) — so a BigCodeBench task sent inline runs with pandas
 * and matplotlib as it does from the task store, instead of failing every sample in the standard
 * library's runtime.
 *
 * A trainer sends the same task with every sample of its group, so the answer is remembered by content
 * (a bounded map: parsing three programs costs about a millisecond each, a lookup nothing).
 */
import { createHash } from "node:crypto";
import { importedModules } from "../core/python/imported-modules.js";
import { parsePython } from "../core/python/parse.js";
import { nonStandardLibraries } from "../core/python/stdlib-modules.js";
import type { PythonTests } from "../runners/python.js";
import { runtimeForLibraries } from "../sandbox/runtime-for-libraries.js";
import type { RuntimeName } from "../sandbox/runtimes.js";

/** The runtime picked for a task, and the non-standard modules that decided it (for error messages). */
export type InferredRuntime = { runtime: RuntimeName; libraries: string[] };

/** Distinct tasks remembered; a trainer's step holds a few hundred. */
const REMEMBERED_TASKS = 4096;

/**
 * The modules `source` imports; none when it does not parse (the pool reports an unparsable C or G as
 * the caller's mistake, and tests that do not parse fail the gold, which the gold check reports).
 */
function modulesOf(source: string): string[] {
  try {
    return importedModules(parsePython(source));
  } catch {
    return [];
  }
}

export class InlineRuntimes {
  private readonly remembered = new Map<string, InferredRuntime>();

  /** The runtime for a task; needs the Python grammar loaded (`await loadPythonGrammar()`). */
  infer(corrupted: string, gold: string, tests: PythonTests): InferredRuntime {
    const testCode = tests.style === "stdio" ? "" : tests.code;
    const key = createHash("sha256")
      .update(JSON.stringify([corrupted, gold, testCode]))
      .digest("hex");
    const known = this.remembered.get(key);
    if (known !== undefined) return known;
    const libraries = nonStandardLibraries([
      ...new Set([...modulesOf(corrupted), ...modulesOf(gold), ...modulesOf(testCode)]),
    ]).sort();
    const inferred = { runtime: runtimeForLibraries(libraries), libraries };
    if (this.remembered.size >= REMEMBERED_TASKS) {
      // Oldest first: Map keeps insertion order.
      this.remembered.delete(this.remembered.keys().next().value as string);
    }
    this.remembered.set(key, inferred);
    return inferred;
  }
}
