/**
 * In-domain family 8, "Function Call Substitution" (docs/tasks.md#corruption-families; paper A.1): call a semantically similar
 * function instead, `mean`↔`median`, `max`↔`min`, `sum`↔`len`.
 *
 * Only the callee's name changes (one token). Sites:
 * - the built-ins `max`↔`min` (with at least one argument) and `sum`↔`len` — `sum(xs)` → `len(xs)` only
 *   with a single positional argument, as `len` takes nothing else — when the program does not rebind
 *   the name;
 * - method and module calls `X.mean()`↔`X.median()`, `X.max()`↔`X.min()` and their close relatives
 *   `X.argmax()`↔`X.argmin()` (NumPy, pandas, `statistics.mean`);
 * - bare `mean(...)`↔`median(...)` and `argmax`↔`argmin` only when the program binds both names (e.g.
 *   `from statistics import mean, median`), so the substitute exists rather than raising `NameError`.
 * `any`↔`all` is not here: it is the held-out family 15.
 */
import { boundNames, builtinCallsTo, callsTo, methodCallsTo, replaceNode } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const BUILTIN_SWAP: Readonly<Record<string, string>> = { max: "min", min: "max", sum: "len", len: "sum" };
const METHOD_SWAP: Readonly<Record<string, string>> = {
  mean: "median",
  median: "mean",
  max: "min",
  min: "max",
  argmax: "argmin",
  argmin: "argmax",
};
const IMPORTED_SWAP: Readonly<Record<string, string>> = {
  mean: "median",
  median: "mean",
  argmax: "argmin",
  argmin: "argmax",
};

export const functionCallSubstitution: CorruptionFamily = {
  name: "function_call_substitution",
  title: "Function Call Substitution",
  domain: "in-domain",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    for (const { name, args } of builtinCallsTo(root, Object.keys(BUILTIN_SWAP))) {
      const arity = args.positional.length + args.keywords.length;
      if (arity === 0 && !args.hasSplat) continue;
      if (name.text === "sum" && !(args.positional.length === 1 && arity === 1 && !args.hasSplat)) continue;
      sites.push(replaceNode(name, BUILTIN_SWAP[name.text] ?? name.text));
    }
    for (const { name } of methodCallsTo(root, Object.keys(METHOD_SWAP))) {
      sites.push(replaceNode(name, METHOD_SWAP[name.text] ?? name.text));
    }
    const bound = boundNames(root);
    for (const { name } of callsTo(root, Object.keys(IMPORTED_SWAP))) {
      const partner = IMPORTED_SWAP[name.text];
      if (partner !== undefined && bound.has(name.text) && bound.has(partner))
        sites.push(replaceNode(name, partner));
    }
    return sites.sort((a, b) => a.start - b.start);
  },
};
