/**
 * The task runtime a problem needs (src/sandbox/runtimes.ts), from the libraries its programs and tests
 * import (and its source declares, BigCodeBench's `libs`): the standard library's when they are all
 * standard, else the first runtime that provides every other one — or, when none does (BigCodeBench's
 * handful of TensorFlow, librosa, … problems), the one that provides the most of them, so the problem
 * still runs as far as it can and its gold's failure says what is missing.
 */
import { nonStandardLibraries } from "../core/python/stdlib-modules.js";
import {
  DEFAULT_RUNTIME,
  RUNTIME_NAMES,
  type RuntimeName,
  requiredModules,
  runtimeNamed,
} from "./runtimes.js";

export function runtimeForLibraries(libraries: readonly string[]): RuntimeName {
  const needed = [...new Set(nonStandardLibraries(libraries).map((name) => name.split(".")[0] as string))];
  if (needed.length === 0) return DEFAULT_RUNTIME;
  let best: { name: RuntimeName; provided: number } | undefined;
  for (const name of RUNTIME_NAMES) {
    if (name === DEFAULT_RUNTIME) continue;
    const modules = new Set(requiredModules(runtimeNamed(name)));
    const provided = needed.filter((library) => modules.has(library)).length;
    if (provided === needed.length) return name;
    if (best === undefined || provided > best.provided) best = { name, provided };
  }
  return best?.name ?? DEFAULT_RUNTIME;
}
