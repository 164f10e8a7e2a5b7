/**
 * The analyzer contract (docs/lint.md) and what the three adapters (src/lint/analyzers/) share: the fixed
 * configuration files in lint/config/, the pinned versions, and running a tool in the sandbox.
 *
 * Every analyzer runs its tool inside the {@link Sandbox} (no network, a private scratch directory, the
 * runtime {@link LINT_RUNTIME}: under bwrap the host's /usr read-only, under Docker the image of the
 * tools), on files written into the scratch directory: a file under analysis is code a
 * model wrote, and the analyzers parse it (clang-tidy even preprocesses it), so they get the same
 * isolation as the code's tests. Several files may share one run, to pay the tool's start-up once (PMD's
 * JVM takes seconds); the results are still per file.
 *
 * Suppression comments do not hide alerts: `# pylint: disable`, `// NOLINT` and `// NOPMD` (and PMD's
 * `@SuppressWarnings`) would otherwise let a revision "fix" alerts without changing the code — the
 * cheapest way to raise a lint reward. Each adapter says how it defeats them.
 */
import { readFileSync } from "node:fs";
import type { AnalyzerLimitsConfig, LimitsConfig } from "../config.js";
import type { Alert } from "../core/lint/alert.js";
import type { LintLanguage, LintTool } from "../core/lint/tools.js";
import { ErrorCode, MineditError } from "../errors.js";
import type { RuntimeName } from "../sandbox/runtimes.js";
import type { ExecutionLimits, ExecutionResult, Sandbox } from "../sandbox/sandbox.js";

/**
 * The tool versions the configurations in lint/config/ were written for. Rules and messages change
 * between versions, so alerts (and every metric) are only comparable under one version: an analyzer
 * whose tool reports another version refuses to run ({@link checkPinnedVersion}).
 */
export const PINNED_ANALYZER_VERSIONS: Readonly<Record<LintTool, string>> = Object.freeze({
  pylint: "2.16.2",
  "clang-tidy": "14.0.6",
  pmd: "7.28.0",
});

/** What a tool reported about itself. */
export type AnalyzerVersion = {
  tool: LintTool;
  /** The tool's version, e.g. `2.16.2`: what {@link PINNED_ANALYZER_VERSIONS} pins. */
  version: string;
  /** One line with what else decides its behaviour, e.g. `pylint 2.16.2 (astroid 2.14.2, Python 3.11.2)`. */
  detail: string;
};

/** An analyzer adapter: one tool, one language, a fixed configuration. */
export interface Analyzer {
  readonly tool: LintTool;
  readonly language: LintLanguage;
  /** Names of the configuration files in lint/config/ this analyzer uses (for cache keys and reports). */
  readonly configFiles: readonly string[];
  /** Runs the tool's version command in the sandbox. */
  version(signal?: AbortSignal): Promise<AnalyzerVersion>;
  /**
   * The alerts of each source, in input order. A source that does not parse yields its parse-error
   * alert (it is the code's fault, not the analyzer's). Rejects with a `MineditError` when the tool
   * itself fails: `Unavailable` (cannot start, crashed, unreadable output), `DeadlineExceeded` (did not
   * finish within its wall-time budget), `ResourceExhausted` (out of memory) or `Cancelled`.
   */
  analyze(sources: readonly string[], signal?: AbortSignal): Promise<Alert[][]>;
}

/** lint/config/, from src/lint/ and from dist/lint/ alike. */
export const LINT_CONFIG_DIR = new URL("../../lint/config/", import.meta.url);

const configCache = new Map<string, string>();

/** The text of a configuration file in lint/config/. */
export function lintConfigText(name: string): string {
  let text = configCache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(name, LINT_CONFIG_DIR), "utf8");
    configCache.set(name, text);
  }
  return text;
}

/** The toolchain runtime every analyzer's run asks for (sandbox/runtimes.json): the tools and PMD's jars. */
export const LINT_RUNTIME: RuntimeName = "lint";

/** Options every adapter takes. */
export type AnalyzerOptions = {
  /** Sandbox runs at once within one `analyze` call (each run analyzes up to the tool's batch of files). Default 1. */
  concurrency?: number;
  /** The limit profiles (docs/sandbox.md#limits), of which each adapter takes its tool's; default: the
   *  config schema's defaults. */
  limits?: LimitsConfig;
};

/** The limits of one run of `files` files under an analyzer's profile: start-up plus a budget per file. */
export function analyzerRunLimits(profile: AnalyzerLimitsConfig, files: number): ExecutionLimits {
  const { wallTimePerFileMs, ...limits } = profile;
  return { ...limits, wallTimeMs: limits.wallTimeMs + wallTimePerFileMs * files };
}

/**
 * What an adapter is made of: its tool, language and configuration files, how it asks the tool's version,
 * and how one run analyzes a batch of files ({@link toolAnalyzer} does the rest, alike for every tool).
 */
export type ToolSpec = {
  tool: LintTool;
  language: LintLanguage;
  /** The configuration files every run gets, by name in lint/config/ (for cache keys and reports too). */
  configFiles: readonly string[];
  /** The tool's version command, and how its output reads (`fail()` is the error for unreadable output). */
  versionArgv: string[];
  parseVersion: (stdout: string, fail: () => Error) => AnalyzerVersion;
  /** Files per run (the tool's start-up is paid once per run). */
  filesPerRun: number;
  /** Each source is written as `src/<i>/<fileName>` (one directory per file). */
  fileName: string;
  /** What is written for a source (e.g. its suppression comments made inert). */
  prepare: (source: string) => string;
  argv: (paths: readonly string[]) => string[];
  /** The limits of a run of that many files (0: the version command). */
  limits: (files: number) => ExecutionLimits;
  /** The alerts per file of a finished run; throws when the run failed. */
  read: (result: ExecutionResult, paths: readonly string[]) => Alert[][];
};

/** An analyzer from its {@link ToolSpec}: runs the tool in `sandbox`, `concurrency` runs at once. */
export function toolAnalyzer(sandbox: Sandbox, spec: ToolSpec, concurrency = 1): Analyzer {
  return {
    tool: spec.tool,
    language: spec.language,
    configFiles: spec.configFiles,

    async version(signal) {
      const run = { files: {}, argv: spec.versionArgv, limits: spec.limits(0), signal };
      const result = await runTool(sandbox, spec.tool, run);
      return spec.parseVersion(result.stdout, () => toolFailure(spec.tool, "--version failed", result));
    },

    analyze(sources, signal) {
      return inRuns(sources, spec.filesPerRun, concurrency, async (chunk) => {
        const files: Record<string, string> = {};
        for (const name of spec.configFiles) files[name] = lintConfigText(name);
        const paths = chunk.map((_, i) => `src/${i}/${spec.fileName}`);
        chunk.forEach((source, i) => {
          files[paths[i] as string] = spec.prepare(source);
        });
        const limits = spec.limits(chunk.length);
        const result = await runTool(sandbox, spec.tool, { files, argv: spec.argv(paths), limits, signal });
        return spec.read(result, paths);
      });
    },
  };
}

/** The alerts `parse` reads from a run's report; a report it cannot read is a failure of the tool. */
export function readReport(tool: LintTool, result: ExecutionResult, parse: () => Alert[][]): Alert[][] {
  try {
    return parse();
  } catch (error) {
    throw toolFailure(tool, `unreadable report (${(error as Error).message})`, result);
  }
}

/**
 * Splits `items` into runs of at most `size`, applies `run` to each with at most `concurrency` runs at
 * once, and returns the results of all runs concatenated in input order. After a run fails no new run
 * starts, and the first failure rejects.
 */
export async function inRuns<T, R>(
  items: readonly T[],
  size: number,
  concurrency: number,
  run: (chunk: T[]) => Promise<R[]>,
): Promise<R[]> {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  const results: R[][] = new Array(chunks.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < chunks.length) {
      const index = next++;
      try {
        results[index] = await run(chunks[index] as T[]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, chunks.length)) }, worker));
  return results.flat();
}

/** `MineditError(Unavailable)` naming the tool, with the tail of what it printed. */
export function toolFailure(tool: LintTool, what: string, result?: ExecutionResult): MineditError {
  const tail = result === undefined ? "" : `${result.stderr}\n${result.stdout}`.trim().slice(-2000);
  const status =
    result === undefined ? "" : ` (exit ${result.exitCode ?? "none"}, signal ${result.signal ?? "none"})`;
  return new MineditError(
    ErrorCode.Unavailable,
    `${tool}: ${what}${status}${tail === "" ? "" : `: ${tail}`}`,
  );
}

/**
 * Runs a tool in the sandbox and turns the runs that produced no usable output into errors: cancelled,
 * out of its wall time, out of memory, output over the limit. What is left (any exit code) is for the
 * adapter to read.
 */
export async function runTool(
  sandbox: Sandbox,
  tool: LintTool,
  request: {
    files: Record<string, string>;
    argv: string[];
    limits: ExecutionLimits;
    signal?: AbortSignal | undefined;
  },
): Promise<ExecutionResult> {
  const { signal, ...rest } = request;
  const run = { ...rest, runtime: LINT_RUNTIME };
  const result = await sandbox.run(signal === undefined ? run : { ...run, signal });
  const files = Object.keys(request.files).length;
  if (result.cancelled) throw new MineditError(ErrorCode.Cancelled, `${tool}: cancelled`);
  if (result.timedOut) {
    throw new MineditError(
      ErrorCode.DeadlineExceeded,
      `${tool}: did not finish within ${request.limits.wallTimeMs} ms (${files} file(s) in the run)`,
    );
  }
  if (result.memoryExceeded) {
    throw new MineditError(
      ErrorCode.ResourceExhausted,
      `${tool}: ran out of memory (address space ${request.limits.memoryBytes} bytes)`,
    );
  }
  if (result.outputTruncated) {
    throw toolFailure(tool, `printed more than ${request.limits.maxOutputBytes} bytes`);
  }
  return result;
}

/** Throws `FailedPrecondition` when the installed tool is not the pinned version. */
export function checkPinnedVersion(found: AnalyzerVersion): void {
  const pinned = PINNED_ANALYZER_VERSIONS[found.tool];
  if (found.version !== pinned) {
    throw new MineditError(
      ErrorCode.FailedPrecondition,
      `${found.tool} ${found.version} is installed, but minedit's lint configuration is pinned to ` +
        `${found.tool} ${pinned} (alerts are only comparable under one version); install ${pinned} ` +
        "(scripts/ensure-system.sh does on Debian bookworm)",
    );
  }
}

/**
 * Replaces every match of `marker` by `replacement` of the same length, so line and column positions
 * (and so every other alert) stay as they are: the way the adapters make suppression comments inert.
 */
export function neutralize(source: string, marker: RegExp, replacement: string): string {
  return source.replace(marker, (match) => {
    if (match.length !== replacement.length) {
      throw new MineditError(
        ErrorCode.Internal,
        `neutralize: "${replacement}" must be as long as "${match}"`,
      );
    }
    return replacement;
  });
}
