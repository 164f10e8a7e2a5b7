/**
 * Minimum detectable effects (MDE) of a paired comparison of two runs on the same n tasks (issue 14
 * item 5): the smallest true difference that a two-sided test at level α detects with probability `power`.
 * Reported next to each comparison so that "no significant difference" on a small task set reads as
 * "could not have seen anything below this", not as "no difference". Normal approximations throughout,
 * as sample-size tables use them; z_u denotes {@link normalQuantile}(u).
 *
 * Pure: no I/O.
 */
import { normalQuantile } from "./normal-quantile.js";

/** Level and power of the test the MDE is for: α two-sided (default 0.05), power 1 − β (default 0.8). */
export type PowerOptions = { alpha?: number; power?: number };

function zValues(options: PowerOptions): { zAlpha: number; zPower: number } {
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power must be in (0, 1), got ${power}`);
  return { zAlpha: normalQuantile(1 - alpha / 2), zPower: normalQuantile(power) };
}

function checkTaskCount(n: number): void {
  if (!(n > 0 && Number.isFinite(n))) throw new RangeError(`task count must be positive, got ${n}`);
}

/**
 * The MDE of a difference in pass rate (a fraction in [0, 1], not percentage points) for McNemar's test
 * on n paired tasks of which a fraction ψ = `discordantRate` are discordant (passed by exactly one run).
 *
 * Connor's normal-approximation sample size for McNemar's test — R. J. Connor (1987), "Sample Size for
 * Testing Differences in Proportions for the Paired-Sample Design", Biometrics 43(1):207–211 — is
 *
 *   n = (z_{1−α/2} √ψ + z_{power} √(ψ − δ²))² / δ²,
 *
 * for a true difference δ = p₁₀ − p₀₁ with ψ = p₁₀ + p₀₁ (its square root is δ√n = a√ψ + b√(ψ − δ²),
 * a = z_{1−α/2}, b = z_{power}). Solved for δ — a quadratic, of which this root satisfies the unsquared
 * equation for any power in (0, 1):
 *
 *   δ = √ψ · (a √n + b √(n + b² − a²)) / (n + b²).
 *
 * Returns Infinity when no difference is detectable: ψ = 0 (no discordant tasks, so no difference at
 * all), n < a² − b² (too few tasks for the formula), or δ > ψ (a difference larger than the discordant
 * share cannot exist: |p₁₀ − p₀₁| ≤ p₁₀ + p₀₁). ψ is usually the observed (onlyA + onlyB) / n.
 *
 * Throws `RangeError` for n ≤ 0, ψ outside [0, 1], or α, power outside (0, 1).
 */
export function mdePairedProportion(n: number, discordantRate: number, options: PowerOptions = {}): number {
  checkTaskCount(n);
  if (!(discordantRate >= 0 && discordantRate <= 1))
    throw new RangeError(`discordant rate must be in [0, 1], got ${discordantRate}`);
  const { zAlpha: a, zPower: b } = zValues(options);
  const underRoot = n + b * b - a * a;
  if (discordantRate === 0 || underRoot < 0) return Infinity;
  const delta = (Math.sqrt(discordantRate) * (a * Math.sqrt(n) + b * Math.sqrt(underRoot))) / (n + b * b);
  return delta > discordantRate ? Infinity : delta;
}

/**
 * The MDE of a mean paired difference (e.g. of excess edit distance), in the unit of the values:
 *
 *   δ = (z_{1−α/2} + z_{power}) · σ_d / √n,
 *
 * the normal-approximation power formula of the one-sample z-test applied to the per-task differences
 * (as in Chow, Shao & Wang, "Sample Size Calculations in Clinical Research", one-sample design for means),
 * with σ_d = `sdOfDifferences` their standard deviation. It ignores the t correction, which matters only
 * for n below ~30 (there it understates the MDE slightly).
 *
 * Throws `RangeError` for n ≤ 0, a negative or non-finite σ_d, or α, power outside (0, 1).
 */
export function mdePairedMean(n: number, sdOfDifferences: number, options: PowerOptions = {}): number {
  checkTaskCount(n);
  if (!(sdOfDifferences >= 0 && Number.isFinite(sdOfDifferences)))
    throw new RangeError(`standard deviation must be finite and ≥ 0, got ${sdOfDifferences}`);
  const { zAlpha, zPower } = zValues(options);
  return ((zAlpha + zPower) * sdOfDifferences) / Math.sqrt(n);
}
