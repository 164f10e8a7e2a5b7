/**
 * clang-tidy adapter (C++): `clang-tidy --config-file lint/config/clang-tidy.yaml` in the sandbox, with
 * Debian's clang-tidy 14.0.6 and the compiler flags of lint/config/compile_flags.txt (C++17, -Wall),
 * against the host's libstdc++ headers under /usr.
 *
 * Files are written as `src/<i>/main.cpp` with compile_flags.txt at the root of the scratch directory,
 * where clang-tidy finds it for every file below, {@link CLANG_TIDY_FILES_PER_RUN} per run.
 *
 * Output: the diagnostic lines `<path>:<line>:<col>: warning|error: <message> [<check>]` on stdout. Notes
 * (`note:`), the source excerpts under each diagnostic and the "N warnings generated" summary on stderr
 * are not alerts. A file that does not compile yields `clang-diagnostic-error` alerts (clang-tidy exits
 * 1 then, which is not a failure of the tool). A diagnostic reported under several names (`[a,b]`, only
 * for aliases, which the configuration prunes) is one alert under its first name.
 *
 * Suppressions: clang-tidy skips diagnostics on lines marked `NOLINT`, `NOLINTNEXTLINE` or inside
 * `NOLINTBEGIN`…`NOLINTEND`. The adapter rewrites every `NOLINT` in the source to `N0LINT` (same length)
 * before analysis, which makes all of them inert.
 */

import { DEFAULT_LIMITS_CONFIG } from "../config.js";
import { type Alert, makeAlert } from "../core/lint/alert.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import {
  type Analyzer,
  type AnalyzerOptions,
  type AnalyzerVersion,
  analyzerRunLimits,
  neutralize,
  type ToolSpec,
  toolAnalyzer,
  toolFailure,
} from "./analyzer.js";

export const CLANG_TIDY_CONFIG = "clang-tidy.yaml";
export const CLANG_TIDY_COMPILE_FLAGS = "compile_flags.txt";

/**
 * Files per run: one. clang-tidy 14 shares its error count across the files of a run, so after a file
 * that does not compile it reports every later file as failed too ("Error while processing"). Start-up
 * is cheap; the cost is the analysis (seconds per file: every enabled check walks the whole AST, and
 * `<bits/stdc++.h>` makes it large).
 */
export const CLANG_TIDY_FILES_PER_RUN = 1;

/** The pseudo-check under which clang-tidy reports compile errors. */
const COMPILE_ERROR_CHECK = "clang-diagnostic-error";

/** The sandbox's working directory, where clang-tidy's absolute paths start. */
const SCRATCH = "/tmp/";

/** Makes `NOLINT` comments inert (see the module doc). */
export function neutralizeNolint(source: string): string {
  return neutralize(source, /NOLINT/g, "N0LINT");
}

const DIAGNOSTIC = /^(.+?):(\d+):(\d+): (?:warning|error|fatal error): (.*) \[([\w.,+-]+)\]$/;

/**
 * Alerts per file from clang-tidy's stdout; `paths[i]` is the scratch-relative path of file i.
 * Diagnostics in other files (system headers are never reported) are ignored.
 */
export function parseClangTidyOutput(stdout: string, paths: readonly string[]): Alert[][] {
  const index = new Map(paths.map((path, i) => [path, i]));
  const out: Alert[][] = paths.map(() => []);
  for (const line of stdout.split("\n")) {
    const match = DIAGNOSTIC.exec(line);
    if (match === null) continue;
    const [, path = "", lineNo = "1", , message = "", checks = ""] = match;
    const relative = path.startsWith(SCRATCH) ? path.slice(SCRATCH.length) : path;
    const i = index.get(relative);
    if (i === undefined) continue;
    const ruleId = checks.split(",")[0] as string;
    out[i]?.push(makeAlert("clang-tidy", ruleId, message, Number(lineNo)));
  }
  return out;
}

export function createClangTidyAnalyzer(sandbox: Sandbox, options: AnalyzerOptions = {}): Analyzer {
  const profile = (options.limits ?? DEFAULT_LIMITS_CONFIG).clangTidy;
  const spec: ToolSpec = {
    tool: "clang-tidy",
    language: "cpp",
    configFiles: [CLANG_TIDY_CONFIG, CLANG_TIDY_COMPILE_FLAGS],
    versionArgv: ["clang-tidy", "--version"],
    parseVersion: parseClangTidyVersion,
    filesPerRun: CLANG_TIDY_FILES_PER_RUN,
    fileName: "main.cpp",
    prepare: neutralizeNolint,
    argv: (paths) => ["clang-tidy", `--config-file=${CLANG_TIDY_CONFIG}`, "--quiet", ...paths],
    limits: (files) => analyzerRunLimits(profile, files),
    read: (result, paths) => {
      const alerts = parseClangTidyOutput(result.stdout, paths);
      // 0: analyzed; 1: the file did not compile, which its clang-diagnostic-error alerts report.
      // Exit 1 without such an alert (a bad configuration exits 1 too) is a failure of the run.
      const compileErrors =
        result.exitCode === 1 && alerts.some((list) => list.some((a) => a.ruleId === COMPILE_ERROR_CHECK));
      if (result.exitCode !== 0 && !compileErrors) {
        throw toolFailure("clang-tidy", "the run failed", result);
      }
      return alerts;
    },
  };
  return toolAnalyzer(sandbox, spec, options.concurrency);
}

/** `clang-tidy --version`: "Debian LLVM version 14.0.6\n  Optimized build. …". */
export function parseClangTidyVersion(stdout: string, fail: () => Error): AnalyzerVersion {
  const match = /^\s*(.*?LLVM version (\d+\.\d+\.\d+)\S*)/m.exec(stdout);
  if (match === null) throw fail();
  return { tool: "clang-tidy", version: match[2] as string, detail: `clang-tidy (${match[1]})` };
}
