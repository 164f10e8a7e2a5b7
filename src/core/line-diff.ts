/**
 * The line diff of two programs, in one place for its two users: the eval report's sample viewer shows
 * the edit script ({@link lineDiff}), and LintEval's Lines_i (core/lint/metrics.ts) counts its length
 * ({@link editScriptLength}). Both strip the common prefix and suffix first, then find a shortest edit
 * script of deletions and additions between what is left; they differ only in what they need from it.
 *
 * Pure: no I/O.
 */

export type DiffLine = { kind: "same" | "del" | "add"; text: string };

/**
 * Most line pairs {@link lineDiff}'s dynamic program compares. Programs of a repair task have tens of
 * lines; above this the script degrades to "all deleted, then all added" rather than use quadratic memory.
 */
export const MAX_CELLS = 4_000_000;

/** Where two sequences stop agreeing: `x[0, start)` = `y[0, start)` and `x[endX, …)` = `y[endY, …)`. */
function commonEnds<T>(x: readonly T[], y: readonly T[]): { start: number; endX: number; endY: number } {
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start += 1;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX -= 1;
    endY -= 1;
  }
  return { start, endX, endY };
}

/** The lines of a program for display: CRLF and CR read as LF, no terminators, "" has no lines. */
function displayLines(text: string): string[] {
  if (text === "") return [];
  const parts = text.replace(/\r\n?/g, "\n").split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/**
 * The lines of `b` against those of `a` as kept / deleted / added lines: the longest common subsequence
 * by dynamic programming, ties resolved so that deletions come before additions, as `diff` prints them.
 */
export function lineDiff(a: string, b: string): DiffLine[] {
  const x = displayLines(a);
  const y = displayLines(b);
  const { start, endX, endY } = commonEnds(x, y);
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

/**
 * D, the length of a shortest edit script (deletions plus additions) turning `x` into `y`: Myers'
 * O((N+M)·D) algorithm ("An O(ND) Difference Algorithm and Its Variations", 1986) on what is left after
 * the common prefix and suffix are stripped. Exact at any size (no {@link MAX_CELLS} cut-off), so it is
 * what a metric counts.
 */
export function editScriptLength<T>(x: readonly T[], y: readonly T[]): number {
  const { start, endX, endY } = commonEnds(x, y);
  return shortestEditLength(x.slice(start, endX), y.slice(start, endY));
}

/** D of Myers' greedy algorithm: the furthest-reaching D-paths on diagonals k = x − y. */
function shortestEditLength<T>(x: readonly T[], y: readonly T[]): number {
  const n = x.length;
  const m = y.length;
  if (n === 0 || m === 0) return n + m;
  const max = n + m;
  const offset = max + 1;
  // v[offset + k]: the furthest x reached on diagonal k.
  const v = new Int32Array(2 * max + 3);
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number));
      let i = down ? (v[offset + k + 1] as number) : (v[offset + k - 1] as number) + 1;
      let j = i - k;
      while (i < n && j < m && x[i] === y[j]) {
        i += 1;
        j += 1;
      }
      v[offset + k] = i;
      if (i >= n && j >= m) return d;
    }
  }
  return max;
}
