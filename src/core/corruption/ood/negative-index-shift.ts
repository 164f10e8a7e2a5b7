/**
 * OOD family 18, "Negative Index Shift" (over-editing paper D.2): shift a negative constant index by one.
 *
 * A site is a subscript index written `-k` with k a decimal integer ≥ 1 (`x[-1]`, `grid[r][-2]`, each
 * element of `a[-1, 0]`); slices belong to the in-domain slice-bounds family and are left alone. The shift
 * is the in-domain off-by-one rule ({@link offByOneSites}) on a negative literal: `-k` → `-(k + 1)` and,
 * when k ≥ 2, `-(k - 1)`; never `-0`, which would silently index from the front.
 */
import { codeNodesOfType, decimalIntValue, offByOneSites } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const negativeIndexShift: CorruptionFamily = {
  name: "negative_index_shift",
  title: "Negative Index Shift",
  domain: "ood",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const subscript of codeNodesOfType(root, "subscript")) {
      for (const index of subscript.childrenForFieldName("subscript")) {
        const value = index === null ? null : decimalIntValue(index);
        if (index !== null && value !== null && value < 0) sites.push(...offByOneSites(index, source));
      }
    }
    return sites;
  },
};
