/**
 * The entry point for code that needs alerts: a {@link Linter} owns the sandbox the analyzers run in,
 * checks each tool's version against its pin before first use, and caches alerts by content hash (an
 * original file is analyzed once however many revisions are compared with it).
 *
 *   const linter = await Linter.create();
 *   const [before, after] = await linter.analyze("python", [original, revised]);
 *   const versions = await linter.versions();          // printed in every report
 *   await linter.close();
 */
import { createHash } from "node:crypto";
import type { LimitsConfig, SandboxConfig } from "../config.js";
import type { Alert } from "../core/lint/alert.js";
import { LINT_TOOLS, type LintLanguage, type LintTool, TOOL_OF_LANGUAGE } from "../core/lint/tools.js";
import { createBwrapSandbox } from "../sandbox/bwrap.js";
import { createBackendSandbox } from "../sandbox/create.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import {
  type Analyzer,
  type AnalyzerOptions,
  type AnalyzerVersion,
  checkPinnedVersion,
  lintConfigText,
} from "./analyzer.js";
import { createClangTidyAnalyzer } from "./clang-tidy.js";
import { createPmdAnalyzer } from "./pmd.js";
import { createPylintAnalyzer } from "./pylint.js";

/** The adapter of a tool, running in `sandbox` (its runs ask for the `lint` runtime: the tools, PMD's jars). */
export function createAnalyzer(tool: LintTool, sandbox: Sandbox, options: AnalyzerOptions = {}): Analyzer {
  switch (tool) {
    case "pylint":
      return createPylintAnalyzer(sandbox, options);
    case "clang-tidy":
      return createClangTidyAnalyzer(sandbox, options);
    case "pmd":
      return createPmdAnalyzer(sandbox, options);
  }
}

/**
 * A sandbox in which all three analyzers run, a fresh one per run: the backend `config` names (bwrap or
 * Docker, whose `lint` image has the tools), the default bwrap one without a config.
 */
export function createLintSandbox(
  config?: SandboxConfig,
  warn: (message: string) => void = () => {},
): Promise<Sandbox> {
  return config === undefined ? createBwrapSandbox() : createBackendSandbox(config, warn);
}

/**
 * The version of every analyzer as the tools report it, run in `sandbox` (docs/lint.md: versions are printed
 * in every report). Does not check the pins; {@link Linter} does.
 */
export async function analyzerVersions(
  sandbox: Sandbox,
  signal?: AbortSignal,
): Promise<Record<LintTool, AnalyzerVersion>> {
  const entries = await Promise.all(
    LINT_TOOLS.map(async (tool) => [tool, await createAnalyzer(tool, sandbox).version(signal)] as const),
  );
  return Object.fromEntries(entries) as Record<LintTool, AnalyzerVersion>;
}

export type LinterOptions = {
  /** Sandbox to run in; default: a new {@link createLintSandbox}, closed by {@link Linter.close}. */
  sandbox?: Sandbox;
  /** Without `sandbox`: the configuration whose backend the new one is made on (default: bwrap's). */
  sandboxConfig?: SandboxConfig;
  /** Without `sandbox`: where making it warns (an image taken by tag, not pinned). */
  warn?: (message: string) => void;
  /** Cached files at most (per linter); the oldest entries go first. Default 20 000. */
  cacheEntries?: number;
  /** Sandbox runs at once within one {@link Linter.analyze} call. Default 1. */
  concurrency?: number;
  /** The limit profiles the analyzers run with (docs/sandbox.md#limits); default: the config schema's. */
  limits?: LimitsConfig;
};

export class Linter {
  private readonly analyzers = new Map<LintTool, Analyzer>();
  private readonly checkedVersions = new Map<LintTool, Promise<AnalyzerVersion>>();
  private readonly cache = new Map<string, Alert[]>();

  private constructor(
    readonly sandbox: Sandbox,
    private readonly ownsSandbox: boolean,
    private readonly cacheEntries: number,
    private readonly concurrency: number,
    private readonly limits: LimitsConfig | undefined,
  ) {}

  static async create(options: LinterOptions = {}): Promise<Linter> {
    const sandbox = options.sandbox ?? (await createLintSandbox(options.sandboxConfig, options.warn));
    return new Linter(
      sandbox,
      options.sandbox === undefined,
      options.cacheEntries ?? 20_000,
      options.concurrency ?? 1,
      options.limits,
    );
  }

  private analyzer(tool: LintTool): Analyzer {
    let analyzer = this.analyzers.get(tool);
    if (analyzer === undefined) {
      const options = this.limits === undefined ? {} : { limits: this.limits };
      analyzer = createAnalyzer(tool, this.sandbox, { concurrency: this.concurrency, ...options });
      this.analyzers.set(tool, analyzer);
    }
    return analyzer;
  }

  /** The tool's version, checked against its pin once (rejects with `FailedPrecondition` on a mismatch). */
  version(tool: LintTool, signal?: AbortSignal): Promise<AnalyzerVersion> {
    let pending = this.checkedVersions.get(tool);
    if (pending === undefined) {
      pending = this.analyzer(tool)
        .version(signal)
        .then((found) => {
          checkPinnedVersion(found);
          return found;
        });
      // A failed check is not remembered: the next call tries again (e.g. after a cancelled run).
      pending.catch(() => this.checkedVersions.delete(tool));
      this.checkedVersions.set(tool, pending);
    }
    return pending;
  }

  /** Versions of the given tools (default all), checked against their pins. */
  async versions(tools: readonly LintTool[] = LINT_TOOLS, signal?: AbortSignal): Promise<AnalyzerVersion[]> {
    return Promise.all(tools.map((tool) => this.version(tool, signal)));
  }

  /**
   * Alerts of each source, in order, from the language's analyzer. Identical sources are analyzed once
   * (within the call and across calls, keyed by a hash of tool, version, configuration and source).
   */
  async analyze(
    language: LintLanguage,
    sources: readonly string[],
    signal?: AbortSignal,
  ): Promise<Alert[][]> {
    const tool = TOOL_OF_LANGUAGE[language];
    const analyzer = this.analyzer(tool);
    const { version } = await this.version(tool, signal);
    const configDigest = digest([tool, version, ...analyzer.configFiles.map(lintConfigText)]);
    const keys = sources.map((source) => digest([configDigest, source]));
    const found = new Map<string, Alert[]>();
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      const cached = this.cache.get(key);
      if (cached !== undefined) found.set(key, cached);
      else missing.set(key, sources[i] as string);
    });
    if (missing.size > 0) {
      const results = await analyzer.analyze([...missing.values()], signal);
      [...missing.keys()].forEach((key, i) => {
        const alerts = results[i] ?? [];
        found.set(key, alerts);
        this.remember(key, alerts);
      });
    }
    // Copies: callers may change what they get without changing the cache.
    return keys.map((key) => structuredClone(found.get(key) ?? []));
  }

  private remember(key: string, alerts: Alert[]): void {
    this.cache.set(key, alerts);
    while (this.cache.size > this.cacheEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }

  /** Closes the sandbox if this linter created it. */
  async close(): Promise<void> {
    if (this.ownsSandbox) await this.sandbox.close();
  }
}

function digest(parts: readonly string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:`).update(part);
  return hash.digest("hex");
}
