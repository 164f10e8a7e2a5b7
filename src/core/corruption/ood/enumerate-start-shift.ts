/**
 * OOD family 4, "Enumerate Start" (over-editing paper D.2): shift the start of `enumerate()`.
 *
 * - `enumerate(xs)` (implicit start 0) → `enumerate(xs, 1)`.
 * - An explicit start, positional or `start=s`, is shifted by one with the in-domain off-by-one rule
 *   ({@link offByOneSites}): a literal moves both ways without changing sign (`1` → `2` / `0`, `0` → `1`),
 *   `s + k` has `k` shifted, any other tightly binding expression gets ` + 1` / ` - 1`, and a loosely
 *   binding one (`a or b`) is left alone.
 * Only calls of the built-in `enumerate` (not rebound by the program) with one iterable and at most that
 * start are sites.
 */
import { builtinCallsTo, insertAfter, keywordArgument, offByOneSites, replaceNode } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const enumerateStartShift: CorruptionFamily = {
  name: "enumerate_start_shift",
  title: "Enumerate Start",
  domain: "ood",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const { args } of builtinCallsTo(root, ["enumerate"])) {
      const [iterable, positionalStart] = args.positional;
      const keywordStart = keywordArgument(args, "start");
      const start = positionalStart ?? keywordStart?.childForFieldName("value") ?? null;
      // enumerate(iterable, start=0): anything else (other keywords, two starts, splats) is left alone.
      const onlyStartKeyword = args.keywords.length === (keywordStart === null ? 0 : 1);
      const twoStarts = positionalStart !== undefined && keywordStart !== null;
      if (
        iterable === undefined ||
        args.positional.length > 2 ||
        args.hasSplat ||
        !onlyStartKeyword ||
        twoStarts
      ) {
        continue;
      }
      if (start !== null) {
        sites.push(...offByOneSites(start, source));
      } else if (args.bareGenerator) {
        // `enumerate(x for x in xs)`: the generator's parentheses are the call's, so they must be doubled.
        sites.push(replaceNode(iterable, `(${source.slice(iterable.startIndex, iterable.endIndex)}, 1)`));
      } else {
        sites.push(insertAfter(iterable, ", 1"));
      }
    }
    return sites;
  },
};
