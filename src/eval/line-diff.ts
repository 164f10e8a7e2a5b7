/**
 * A line diff for the report's sample viewer: the shortest edit script between two programs' lines as
 * kept / deleted / added lines (longest common subsequence by dynamic programming, ties resolved so that
 * deletions come before additions, as `diff` prints them). Programs of a repair task have tens of lines;
 * above {@link MAX_CELLS} line pairs the diff degrades to "all deleted, then all added" rather than use
 * quadratic memory.
 *
 * Pure: no I/O.
 */

export type DiffLine = { kind: "same" | "del" | "add"; text: string };

/** Most line pairs compared by the dynamic program. */
export const MAX_CELLS = 4_000_000;

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.replace(/\r\n?/g, "\n").split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** The lines of `b` against those of `a`. */
export function lineDiff(a: string, b: string): DiffLine[] {
  const x = lines(a);
  const y = lines(b);
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start += 1;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX -= 1;
    endY -= 1;
  }
  const head: DiffLine[] = x.slice(0, start).map((text) => ({ kind: "same", text }));
  const tail: DiffLine[] = x.slice(endX).map((text) => ({ kind: "same", text }));
  const mx = x.slice(start, endX);
  const my = y.slice(start, endY);
  const n = mx.length;
  const m = my.length;
  if (n * m > MAX_CELLS) {
    return [
      ...head,
      ...mx.map((text): DiffLine => ({ kind: "del", text })),
      ...my.map((text): DiffLine => ({ kind: "add", text })),
      ...tail,
    ];
  }
  // lcs[i][j] = LCS length of mx[i:] and my[j:], row-major in one array.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i * width + j] =
        mx[i] === my[j]
          ? (lcs[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  const middle: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && mx[i] === my[j]) {
      middle.push({ kind: "same", text: mx[i] as string });
      i += 1;
      j += 1;
    } else if (
      i < n &&
      (j >= m || (lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number))
    ) {
      middle.push({ kind: "del", text: mx[i] as string });
      i += 1;
    } else {
      middle.push({ kind: "add", text: my[j] as string });
      j += 1;
    }
  }
  return [...head, ...middle, ...tail];
}
