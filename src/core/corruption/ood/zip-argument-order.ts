/**
 * OOD family 16, "Zip Argument Order" (over-editing paper D.2): swap the first two positional arguments of
 * `zip(...)`.
 *
 * A site is a call of the built-in `zip` (not rebound by the program) with at least two positional
 * arguments and no `*args`/`**kwargs` (with those, "the first two" are unknown); keywords such as
 * `strict=True` stay where they are. The text between the two arguments (comma, spacing, comments) is
 * kept. Two textually identical arguments would swap to the same program and are not a site.
 */
import { builtinCallsTo } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const zipArgumentOrder: CorruptionFamily = {
  name: "zip_argument_order",
  title: "Zip Argument Order",
  domain: "ood",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const { args } of builtinCallsTo(root, ["zip"])) {
      const [first, second] = args.positional;
      if (first === undefined || second === undefined || args.hasSplat) continue;
      const firstText = source.slice(first.startIndex, first.endIndex);
      const secondText = source.slice(second.startIndex, second.endIndex);
      if (firstText === secondText) continue;
      const between = source.slice(first.endIndex, second.startIndex);
      sites.push({
        start: first.startIndex,
        end: second.endIndex,
        replacement: secondText + between + firstText,
      });
    }
    return sites;
  },
};
