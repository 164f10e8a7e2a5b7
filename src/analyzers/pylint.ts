/**
 * Pylint adapter (Python): `pylint --rcfile lint/config/pylintrc --output-format=json` in the sandbox,
 * with Debian's pylint 2.16.2 under Debian's /usr/bin/python3.
 *
 * Files are written as `src/<i>/main.py` (one directory per file: every module is `main`, so no message
 * differs between two files only by the module name), up to {@link PYLINT_FILES_PER_RUN} per run; the
 * cross-module checks are disabled in the rcfile, so files of one run do not see each other.
 *
 * Suppressions: Pylint reads pragmas from comments matching `pylint:` (`# pylint: disable=…`,
 * `# pylint: skip-file`). The adapter rewrites every `pylint:` in the source to `pylint;` (same length,
 * so no position moves) before analysis, which makes every pragma inert.
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
  readReport,
  type ToolSpec,
  toolAnalyzer,
  toolFailure,
} from "./analyzer.js";

export const PYLINT_CONFIG = "pylintrc";

/** Files per Pylint run: start-up (~1 s) is paid once, a run's wall budget stays bounded. */
export const PYLINT_FILES_PER_RUN = 16;

/** Pylint's exit status bit for a usage error (bits 1–16 say which message categories were emitted). */
const USAGE_ERROR = 32;

/** Makes Pylint pragmas inert (see the module doc). */
export function neutralizePylintPragmas(source: string): string {
  return neutralize(source, /\bpylint:/g, "pylint;");
}

/** One message of `--output-format=json`. */
type PylintMessage = {
  "message-id"?: unknown;
  message?: unknown;
  line?: unknown;
  path?: unknown;
};

/**
 * Alerts per file from Pylint's JSON report; `paths[i]` is the path file i was analyzed under (as Pylint
 * prints it). Messages for other paths are ignored.
 */
export function parsePylintJson(stdout: string, paths: readonly string[]): Alert[][] {
  const parsed: unknown = JSON.parse(stdout);
  if (!Array.isArray(parsed)) throw new Error("the JSON report is not an array");
  const index = new Map(paths.map((path, i) => [path, i]));
  const out: Alert[][] = paths.map(() => []);
  for (const item of parsed as PylintMessage[]) {
    const i = typeof item.path === "string" ? index.get(item.path) : undefined;
    if (i === undefined) continue;
    if (typeof item["message-id"] !== "string" || typeof item.message !== "string") {
      throw new Error(`a message without id or text: ${JSON.stringify(item)}`);
    }
    const line = typeof item.line === "number" && item.line > 0 ? item.line : 1;
    out[i]?.push(makeAlert("pylint", item["message-id"], item.message, line));
  }
  return out;
}

export function createPylintAnalyzer(sandbox: Sandbox, options: AnalyzerOptions = {}): Analyzer {
  const profile = (options.limits ?? DEFAULT_LIMITS_CONFIG).pylint;
  const spec: ToolSpec = {
    tool: "pylint",
    language: "python",
    configFiles: [PYLINT_CONFIG],
    versionArgv: ["pylint", "--version"],
    parseVersion: parsePylintVersion,
    filesPerRun: PYLINT_FILES_PER_RUN,
    fileName: "main.py",
    prepare: neutralizePylintPragmas,
    argv: (paths) => ["pylint", `--rcfile=${PYLINT_CONFIG}`, "--output-format=json", ...paths],
    limits: (files) => analyzerRunLimits(profile, files),
    read: (result, paths) => {
      if (result.exitCode === null || (result.exitCode & USAGE_ERROR) !== 0) {
        throw toolFailure("pylint", "the run failed", result);
      }
      return readReport("pylint", result, () => parsePylintJson(result.stdout, paths));
    },
  };
  return toolAnalyzer(sandbox, spec, options.concurrency);
}

/** `pylint --version`: "pylint 2.16.2\nastroid 2.14.2\nPython 3.11.2 (main, …)". */
export function parsePylintVersion(stdout: string, fail: () => Error): AnalyzerVersion {
  const pylint = /^pylint (\S+)/m.exec(stdout)?.[1];
  if (pylint === undefined) throw fail();
  const astroid = /^astroid (\S+)/m.exec(stdout)?.[1] ?? "?";
  const python = /^Python (\S+)/m.exec(stdout)?.[1] ?? "?";
  return {
    tool: "pylint",
    version: pylint,
    detail: `pylint ${pylint} (astroid ${astroid}, Python ${python})`,
  };
}
