/**
 * OOD family 17, "Len Range Endpoint" (over-editing paper D.2): `range(len(x))` → `range(len(x) + 1)` or
 * `range(len(x) - 1)`.
 *
 * A site is a call of the built-in `range` (one to three positional arguments, nothing else) whose stop
 * argument is exactly a call of the built-in `len` with one argument: the only argument of
 * `range(len(x))`, or the second one of `range(a, len(x))` / `range(a, len(x), step)`, where the stop is
 * the same endpoint. Each gives two sites, ` + 1` and ` - 1` appended to the `len(...)` call. A stop that
 * already is `len(x) - 1` is the in-domain range-bounds family's business and is left alone.
 */
import { builtinCallsTo, callArguments, insertAfter, isBuiltinName, onlyPositional } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const rangeLenEndpoint: CorruptionFamily = {
  name: "range_len_endpoint",
  title: "Len Range Endpoint",
  domain: "ood",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    if (!isBuiltinName(root, "len")) return sites;
    for (const { args } of builtinCallsTo(root, ["range"])) {
      if (!onlyPositional(args, 1, 3) || args.bareGenerator) continue;
      const stop = args.positional.length === 1 ? args.positional[0] : args.positional[1];
      const callee = stop?.type === "call" ? stop.childForFieldName("function") : null;
      if (stop === undefined || callee?.type !== "identifier" || callee.text !== "len") continue;
      const lenArgs = callArguments(stop);
      if (!onlyPositional(lenArgs, 1) || lenArgs.bareGenerator) continue;
      sites.push(insertAfter(stop, " + 1"), insertAfter(stop, " - 1"));
    }
    return sites;
  },
};
