/**
 * The rule-based fixer for C++ (LintEval's rule-based baseline, §4.2): `clang-tidy --fix` with minedit's
 * fixed configuration (lint/config/clang-tidy.yaml, compile_flags.txt), run in the sandbox like the
 * analyzer, on one file. The result is a candidate revision like any other: the corpus exporter still
 * runs its tests and re-analyzes it (a fix-it may break the program, or trade one alert for another).
 *
 * clang-tidy rewrites the file in place, and the sandbox's scratch directory ends with the run, so the
 * run is `sh -c 'clang-tidy … --fix main.cpp; print a marker with its exit code; cat main.cpp'` and the
 * fixed file is read from stdout after the marker. Fixes are applied for warnings only (`--fix`, not
 * `--fix-errors`): a file that does not compile is returned unchanged. Suppression comments are left as
 * they are — the fixer only skips what they mark, and the analysis of the result defeats them anyway.
 */

import { lintConfigText, runTool, toolFailure } from "../analyzers/analyzer.js";
import { CLANG_TIDY_COMPILE_FLAGS, CLANG_TIDY_CONFIG } from "../analyzers/clang-tidy.js";
import { DEFAULT_LIMITS_CONFIG } from "../config.js";
import type { ExecutionLimits, Sandbox } from "../sandbox/sandbox.js";

const FILE = "src/0/main.cpp";
const MARKER = "@@minedit-clang-tidy-fix:";

/**
 * `source` after `clang-tidy --fix`, run with `limits` (the `clangTidyFix` limit profile). Rejects with a `MineditError` when the tool cannot run (as the
 * analyzer does: `Unavailable`, `DeadlineExceeded`, `ResourceExhausted`, `Cancelled`).
 */
export async function clangTidyFix(
  sandbox: Sandbox,
  source: string,
  signal?: AbortSignal,
  limits: ExecutionLimits = DEFAULT_LIMITS_CONFIG.clangTidyFix,
): Promise<string> {
  const script =
    `clang-tidy --config-file=${CLANG_TIDY_CONFIG} --quiet --fix ${FILE} >/dev/null 2>fix.log; ` +
    `printf '${MARKER}%d\\n' "$?"; cat ${FILE}`;
  const result = await runTool(sandbox, "clang-tidy", {
    files: {
      [CLANG_TIDY_CONFIG]: lintConfigText(CLANG_TIDY_CONFIG),
      [CLANG_TIDY_COMPILE_FLAGS]: lintConfigText(CLANG_TIDY_COMPILE_FLAGS),
      [FILE]: source,
    },
    argv: ["sh", "-c", script],
    limits,
    signal,
  });
  const start = result.stdout.indexOf(MARKER);
  const end = start < 0 ? -1 : result.stdout.indexOf("\n", start);
  if (result.exitCode !== 0 || start !== 0 || end < 0) {
    throw toolFailure("clang-tidy", "--fix run failed", result);
  }
  // Exit 1 is "the file did not compile" (no fixes applied): the unchanged file is still the answer.
  const status = Number(result.stdout.slice(MARKER.length, end));
  if (status !== 0 && status !== 1) throw toolFailure("clang-tidy", `--fix exited ${status}`, result);
  return result.stdout.slice(end + 1);
}
