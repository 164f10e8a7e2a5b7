/**
 * Installing a task runtime (runtimes.ts) on this host — `minedit setup --runtime NAME`: which of its
 * Debian packages are missing (dpkg-query), installing them with apt-get (`--no-install-recommends`)
 * when running as root, then checking in the sandbox itself that every module of the runtime imports and
 * that one of its fork servers comes up with the preloaded modules (reporting the import time and the
 * server's resident size). Without root, nothing is changed: the exact apt-get command is returned for
 * the caller to print.
 */
import { DEFAULT_LIMITS_CONFIG } from "../config.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import { createBwrapSandbox } from "./bwrap.js";
import { runHostCommand, SYSTEM_ENV } from "./host-command.js";
import { debianPackages, missingPrograms, type Runtime, requiredModules, runtimeNamed } from "./runtimes.js";
import { WarmPythonSandbox } from "./warm-python.js";

export type SetupOptions = {
  /** The interpreter the sandbox runs (`sandbox.pythonPath`). */
  pythonPath: string;
  /** Report what is missing and check the sandbox, but install nothing. */
  checkOnly: boolean;
  /** Progress, one line at a time. */
  log: (line: string) => void;
};

export type SetupOutcome =
  /** Everything is installed and imports in the sandbox. */
  | { status: "ready"; installedNow: string[]; installSeconds: number }
  /** Packages are missing and this process cannot (or was told not to) install them. */
  | { status: "missing"; packages: string[]; command: string }
  /** Installed, but some modules do not import in the sandbox (or its fork server does not start). */
  | { status: "broken"; problems: string[] };

/** `apt-get install` of `packages`, as a command line a user can paste. */
export function aptCommand(packages: readonly string[], sudo: boolean): string {
  return `${sudo ? "sudo " : ""}apt-get install -y --no-install-recommends ${packages.join(" ")}`;
}

/**
 * Makes runtime `name` usable (see the module comment). Throws MineditError `InvalidArgument` for an
 * unknown runtime and `Unavailable` when the sandbox cannot start at all.
 */
export async function setupRuntime(name: string, options: SetupOptions): Promise<SetupOutcome> {
  const runtime = runtimeNamed(name);
  const { log } = options;
  const packages = debianPackages(runtime);
  let installedNow: string[] = [];
  let installSeconds = 0;
  if (packages.length > 0) {
    const missing = await missingPackages(packages);
    if (missing === null) {
      log(`dpkg-query not found: not a Debian system; checking the modules only`);
    } else if (missing.length === 0) {
      log(`all ${packages.length} Debian packages of runtime "${name}" are installed`);
    } else {
      log(
        `${missing.length} of ${packages.length} Debian packages of "${name}" missing: ${missing.join(" ")}`,
      );
      const root = process.getuid?.() === 0;
      if (options.checkOnly || !root) {
        return { status: "missing", packages: missing, command: aptCommand(missing, !root) };
      }
      const started = performance.now();
      await aptGet(["update", "-qq"], log);
      await aptGet(["install", "-y", "-q", "--no-install-recommends", ...missing], log);
      installSeconds = (performance.now() - started) / 1000;
      installedNow = missing;
      log(`installed ${missing.length} packages (and their dependencies) in ${installSeconds.toFixed(0)} s`);
    }
  }
  const problems = await verify(runtime, options.pythonPath, log);
  return problems.length === 0
    ? { status: "ready", installedNow, installSeconds }
    : { status: "broken", problems };
}

/** The packages dpkg does not have installed, or null when there is no dpkg-query. */
async function missingPackages(packages: readonly string[]): Promise<string[] | null> {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format fields, not JavaScript's
  const format = "-f=${Package}\\t${db:Status-Abbrev}\\n";
  const r = await runHostCommand("dpkg-query", ["-W", format, ...packages], SYSTEM_ENV);
  if (r.spawnError) return null;
  const installed = new Set(
    r.stdout
      .split("\n")
      .map((line) => line.split("\t"))
      .filter(([, status]) => status?.startsWith("ii"))
      .map(([pkg]) => pkg),
  );
  return packages.filter((p) => !installed.has(p));
}

async function aptGet(args: readonly string[], log: (line: string) => void): Promise<void> {
  log(`apt-get ${args.join(" ")}`);
  const r = await runHostCommand("apt-get", args, { ...SYSTEM_ENV, DEBIAN_FRONTEND: "noninteractive" });
  if (r.spawnError || r.code !== 0) {
    const tail = `${r.stdout}${r.stderr}`.trim().split("\n").slice(-15).join("\n");
    throw new MineditError(ErrorCode.Internal, `apt-get ${args[0]} failed (exit ${r.code}):\n${tail}`);
  }
}

/** Python run in the sandbox: imports each module, reports failures and times as JSON. */
const IMPORT_EACH = `import importlib, json, sys, time, traceback
report = {"failed": {}, "ms": {}}
for name in json.loads(sys.argv[1]):
    started = time.perf_counter()
    try:
        importlib.import_module(name)
    except BaseException as e:
        report["failed"][name] = traceback.format_exception_only(type(e), e)[-1].strip()
    report["ms"][name] = round((time.perf_counter() - started) * 1000, 1)
print(json.dumps(report))`;

/**
 * Checks the runtime's programs, imports every module of it (the required ones, then the preload list) in
 * a fresh sandbox of the runtime, and starts one of its fork servers; what failed, one line each.
 */
async function verify(runtime: Runtime, pythonPath: string, log: (line: string) => void): Promise<string[]> {
  const problems = missingPrograms(runtime).map((program) => `${program} is missing`);
  const modules = [...new Set([...requiredModules(runtime), ...runtime.preload])];
  if (modules.length === 0) return problems;
  const base = await createBwrapSandbox({ pythonPath });
  try {
    const started = performance.now();
    const r = await base.run({
      files: {},
      argv: ["python3", "-s", "-c", IMPORT_EACH, JSON.stringify(modules)],
      limits: DEFAULT_LIMITS_CONFIG.runtimeCheck,
      runtime: runtime.name,
    });
    let report: { failed: Record<string, string>; ms: Record<string, number> } | undefined;
    try {
      report = JSON.parse(r.stdout.trim().split("\n").pop() ?? "");
    } catch {
      report = undefined;
    }
    if (r.exitCode !== 0 || report === undefined) {
      problems.push(`the import check did not finish (exit ${r.exitCode}): ${r.stderr.trim().slice(-500)}`);
    } else {
      for (const [module, reason] of Object.entries(report.failed)) problems.push(`${module}: ${reason}`);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      log(
        `${modules.length - Object.keys(report.failed).length} of ${modules.length} modules import in the ` +
          `sandbox (${seconds} s in a fresh interpreter)`,
      );
    }
  } finally {
    await base.close();
  }
  if (problems.length > 0 || runtime.preload.length === 0) return problems;
  try {
    const warm = await WarmPythonSandbox.create(await createBwrapSandbox({ pythonPath }), {
      slots: 1,
      runtimes: [runtime.name],
    });
    for (const pool of await warm.forkServers()) {
      for (const server of pool.servers) {
        log(
          `a fork server of "${runtime.name}" preloads ${runtime.preload.length} modules in ` +
            `${(server.preloadMs / 1000).toFixed(1)} s; resident size ${(server.rssBytes / 2 ** 20).toFixed(0)} MiB`,
        );
      }
    }
    await warm.close();
  } catch (error) {
    if (!isMineditError(error)) throw error;
    problems.push(`the fork server did not start: ${error.rawMessage}`);
  }
  return problems;
}
