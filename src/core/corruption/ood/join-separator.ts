/**
 * OOD family 9, "Join Separator" (over-editing paper D.2): alter the separator of `"sep".join(items)`.
 *
 * A site is a `.join` call with one positional argument whose object is a single string literal (not an
 * f-string with fields, not an implicit concatenation; a separator held in a variable cannot be changed
 * locally). Only the literal's content changes, its prefix and quotes stay. The paper gives no rule, so,
 * on the content as written:
 * - empty `""` → `" "`;
 * - content mixing spaces with other characters → the spaces removed (`", "` → `","`, `" | "` → `"|"`);
 * - a lone `,` `;` `:` or `|` → followed by a space (`","` → `", "`);
 * - anything else (`" "`, `"-"`, `"\n"`, a word) → empty `""`.
 */
import { methodCallsTo, onlyPositional } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const joinSeparator: CorruptionFamily = {
  name: "join_separator",
  title: "Join Separator",
  domain: "ood",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const { call, args } of methodCallsTo(root, ["join"])) {
      const separator = call.childForFieldName("function")?.childForFieldName("object");
      if (separator?.type !== "string" || !onlyPositional(args, 1)) continue;
      const open = separator.child(0);
      const close = separator.child(separator.childCount - 1);
      if (
        open === null ||
        close === null ||
        separator.namedChildren.some((c) => c?.type === "interpolation")
      ) {
        continue;
      }
      const content = source.slice(open.endIndex, close.startIndex);
      const replacement = changedSeparator(content);
      if (replacement !== content) sites.push({ start: open.endIndex, end: close.startIndex, replacement });
    }
    return sites;
  },
};

function changedSeparator(content: string): string {
  if (content === "") return " ";
  if (content.includes(" ") && /[^ ]/.test(content)) return withoutSpaces(content);
  if (/^[,;:|]$/.test(content)) return `${content} `;
  return "";
}

/** `content` without its literal spaces; an escaped character (`\ `) is kept, so no new escape appears. */
function withoutSpaces(content: string): string {
  let kept = "";
  for (let i = 0; i < content.length; i++) {
    const char = content[i] ?? "";
    if (char === "\\") {
      kept += content.slice(i, i + 2);
      i++;
    } else if (char !== " ") {
      kept += char;
    }
  }
  return kept;
}
