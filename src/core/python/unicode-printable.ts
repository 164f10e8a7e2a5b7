/**
 * `str.isprintable()` for one code point, as CPython 3.11 (Unicode 14.0) decides it.
 *
 * CPython's makeunicodedata.py marks a character printable iff it is U+0020 or its general category
 * is neither C* (Cc, Cf, Cs, Co, Cn) nor Z* (Zs, Zl, Zp). We do not use `\p{...}` regexes: they follow
 * the Unicode version of Node's ICU, which is newer than 14.0, so characters assigned since would
 * print raw where CPython escapes them (tests/unit/literals.test.ts measures the gap).
 */
import { NON_PRINTABLE_RANGES } from "./unicode-printable-data.js";

/** Sorted bounds: code points in [BOUNDS[2k], BOUNDS[2k+1]) are not printable. */
const BOUNDS: Uint32Array = decodeBounds(NON_PRINTABLE_RANGES);

function decodeBounds(encoded: string): Uint32Array {
  const parts = encoded.split(",");
  const bounds = new Uint32Array(parts.length);
  let value = 0;
  parts.forEach((part, i) => {
    value += Number.parseInt(part, 36);
    bounds[i] = value;
  });
  return bounds;
}

/** True when CPython 3.11's `chr(codePoint).isprintable()` is true. */
export function isPrintable(codePoint: number): boolean {
  if (codePoint < 0x7f) return codePoint >= 0x20;
  // Binary search for the number of bounds <= codePoint; an odd count means inside a range.
  let lo = 0;
  let hi = BOUNDS.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((BOUNDS[mid] as number) <= codePoint) lo = mid + 1;
    else hi = mid;
  }
  return (lo & 1) === 0;
}
