/**
 * In-domain family 12, "Slice Bounds" (docs/tasks.md#corruption-families; paper A.1): shift a slice boundary by one,
 * `x[a:b]` → `x[a+1:b]` or `x[a:b-1]` (and the other directions).
 *
 * Each written start and stop of a slice (`x[a:b]`, `x[:b]`, `x[a:]`, `x[a:b:s]`, one per dimension in
 * `m[1:, :2]`) is shifted by {@link offByOneSites}: literals by one without changing sign (`x[:-1]` →
 * `x[:-2]`, `x[1:]` → `x[2:]` / `x[0:]`), `+ k`/`- k` adjusted or dropped, other expressions get ` + 1` /
 * ` - 1`. Missing bounds are not added and the step is left alone (range step has its own family).
 */
import type { Node } from "web-tree-sitter";
import { codeNodesOfType, offByOneSites } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const sliceBounds: CorruptionFamily = {
  name: "slice_bounds",
  title: "Slice Bounds",
  domain: "in-domain",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const slice of codeNodesOfType(root, "slice")) {
      for (const bound of bounds(slice)) sites.push(...offByOneSites(bound, source));
    }
    return sites;
  },
};

/** The start and stop expressions of a slice: the expressions before its second `:`. */
function bounds(slice: Node): Node[] {
  const found: Node[] = [];
  let colons = 0;
  for (const child of slice.children) {
    if (child === null || child.type === "comment") continue;
    if (child.type === ":") colons += 1;
    else if (child.isNamed && colons < 2) found.push(child);
  }
  return found;
}
