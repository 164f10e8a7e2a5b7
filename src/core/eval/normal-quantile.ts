/**
 * The inverse of the standard normal CDF, Φ⁻¹, by Wichura's algorithm AS241 (PPND16): M. J. Wichura
 * (1988), "Algorithm AS 241: The Percentage Points of the Normal Distribution", Applied Statistics 37(3):
 * 477–484. Three rational approximations of degree 7 (|p − ½| ≤ 0.425, then r = √(−ln min(p, 1 − p)) up to
 * 5 and beyond), accurate to about 1 part in 10¹⁶ — the same coefficients as CPython's
 * `statistics.NormalDist.inv_cdf` and R's `qnorm`. Needed for the z-values of the power calculations.
 *
 * Pure: no I/O.
 */

// Coefficients of AS241, constant term first (the paper's a0…a7 / b1…b7, c…, d…, e…, f…; b0 = d0 = f0 = 1),
// its 20-digit values written as the nearest doubles (the same numbers at run time).
const CENTRAL_NUMERATOR = [
  3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987,
  67265.7709270087, 33430.57558358813, 2509.0809287301227,
];
const CENTRAL_DENOMINATOR = [
  1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271,
  28729.085735721943, 5226.495278852854,
];
const NEAR_NUMERATOR = [
  1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684,
  0.2417807251774506, 0.022723844989269184, 0.0007745450142783414,
];
const NEAR_DENOMINATOR = [
  1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008, 0.015198666563616457,
  0.0005475938084995345, 1.0507500716444169e-9,
];
const FAR_NUMERATOR = [
  6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487, 0.026532189526576124,
  0.0012426609473880784, 2.7115555687434876e-5, 2.0103343992922881e-7,
];
const FAR_DENOMINATOR = [
  1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133,
  1.8463183175100548e-5, 1.421511758316446e-7, 2.0442631033899397e-15,
];

/** Horner's rule, highest power first: the evaluation order of Wichura's Fortran. */
function polynomial(coefficients: readonly number[], x: number): number {
  let value = 0;
  for (let i = coefficients.length - 1; i >= 0; i -= 1) value = value * x + (coefficients[i] as number);
  return value;
}

/**
 * z with Φ(z) = p for the standard normal: normalQuantile(0.975) = 1.959963984540054…,
 * normalQuantile(0.8) = 0.841621233572914…. Returns −Infinity at 0 and +Infinity at 1.
 * Throws `RangeError` for p outside [0, 1] (NaN included).
 */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`normal quantile needs p in [0, 1], got ${p}`);
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(CENTRAL_NUMERATOR, r)) / polynomial(CENTRAL_DENOMINATOR, r);
  }
  const r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  const z =
    r <= 5
      ? polynomial(NEAR_NUMERATOR, r - 1.6) / polynomial(NEAR_DENOMINATOR, r - 1.6)
      : polynomial(FAR_NUMERATOR, r - 5) / polynomial(FAR_DENOMINATOR, r - 5);
  return q < 0 ? -z : z;
}
