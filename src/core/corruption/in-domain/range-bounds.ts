/**
 * In-domain family 2, "Range Bounds" (docs/tasks.md#corruption-families; paper A.1): an off-by-one in the stop of a built-in
 * `range()` call, `range(n)`↔`range(n+1)`.
 *
 * A site is the stop argument of `range(stop)` or `range(start, stop[, step])` (positional arguments
 * only, `range` not rebound by the program), shifted by {@link offByOneSites}: a literal moves by one
 * (`range(10)` → `range(11)` / `range(9)`), an existing `+ k`/`- k` moves or disappears (`range(n + 1)`
 * → `range(n)`, the ↔ direction of the paper), anything else gets ` + 1` / ` - 1`. The start is left
 * alone: the paper's example and docs/tasks.md move the bound the loop runs up to. `range(len(x))` is included
 * although the held-out family 17 also shifts it; the paper's own lists overlap there.
 */
import { builtinCallsTo, offByOneSites, onlyPositional } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const rangeBounds: CorruptionFamily = {
  name: "range_bounds",
  title: "Range Bounds",
  domain: "in-domain",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const { args } of builtinCallsTo(root, ["range"])) {
      if (!onlyPositional(args, 1, 3) || args.bareGenerator) continue;
      const stop = args.positional.length === 1 ? args.positional[0] : args.positional[1];
      if (stop !== undefined) sites.push(...offByOneSites(stop, source));
    }
    return sites;
  },
};
