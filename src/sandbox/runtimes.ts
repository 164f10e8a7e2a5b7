/**
 * Task runtimes: named sets of Python libraries a task's tests may import inside the sandbox, besides the
 * interpreter's standard library. A task names its runtime (`runtime` in a task row, default
 * {@link DEFAULT_RUNTIME}); a run asks the sandbox for it ({@link ExecutionRequest.runtime}). The
 * definitions are data, `sandbox/runtimes.json`, which scripts/ensure-system.sh reads too (one package
 * list). Each runtime has:
 *
 * - `packages`: Debian packages (installed with `--no-install-recommends` by `minedit setup --runtime`),
 *   each mapped to the top-level module it provides. The runtime counts as installed when every one of
 *   those modules is found by the sandbox's interpreter ({@link missingModules});
 * - `programs`: Debian packages that provide a program rather than a module (g++, a JDK, clang-tidy), each
 *   mapped to the path under /usr of the program that must be there (checked on the host, whose /usr the
 *   bwrap sandbox binds; the Docker images install them);
 * - `preload`: modules each of the runtime's fork servers imports before it forks (warm-python.ts), so a
 *   run does not pay their import; chosen by how many BigCodeBench tasks import them and what they cost
 *   (docs/sandbox.md has the measurements);
 * - `etc`: host /etc entries bound read-only for its runs (Debian keeps matplotlib's matplotlibrc there,
 *   and the CA bundle requests loads even when a test mocks the network); nothing else of /etc is added;
 * - `data`: directories of npm packages minedit depends on (package.json), bound read-only under
 *   /opt/minedit/ for its runs: data its libraries load that no Debian package ships (NLTK's stopwords);
 * - `env`: variables set for its runs (a headless matplotlib with its config directory in the scratch);
 * - `scratchDirs`: empty directories every run of it finds in its scratch (that config directory).
 *
 * `leftOut` records the libraries the runtime's tasks use that it does not have (Debian packages none of
 * them), and why.
 *
 * A runtime's sandbox sees its packages' Python libraries and their dependencies' and no other, whatever
 * else the host has (runtime-libraries.ts): the same set as its Docker image, so a verdict never depends on
 * the backend or the host.
 *
 * Besides the task runtimes there are toolchain runtimes, which no task row names: `cpp` and `java`, which
 * the C++ and Java runners ask for, and `lint`, which the analyzers ask for. Under bwrap they change
 * little (the host's /usr has the programs; `lint` binds PMD's jars and sees pylint's libraries); under
 * Docker each is its own image.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { z } from "zod";
import { ErrorCode, MineditError } from "../errors.js";
import { runHostCommand } from "./host-command.js";
import { interpreterLibraryDirs, libraryView } from "./runtime-libraries.js";

/** The name of a runtime in `sandbox/runtimes.json` (checked with {@link isRuntimeName}). */
export type RuntimeName = string;

/** What a task gets when its row names no runtime: the standard library only. */
export const DEFAULT_RUNTIME: RuntimeName = "stdlib";

const DEBIAN_PACKAGE = /^[a-z0-9][a-z0-9.+-]+$/;
const PATH_IN_ETC = /^\/etc\/[^/]+(?:\/[^/]+)*$/;
/** A plain relative path: no leading `/`, no empty, `.` or `..` segment. */
const isPlainRelative = (path: string) =>
  path.split("/").every((part) => part !== "" && part !== "." && part !== "..");

const RuntimeSchema = z.strictObject({
  description: z.string().min(1),
  packages: z.record(z.string().regex(DEBIAN_PACKAGE), z.string().min(1)),
  programs: z
    .record(z.string().regex(DEBIAN_PACKAGE), z.string().regex(/^\/usr\/[^/]+(?:\/[^/]+)*$/))
    .default({}),
  leftOut: z.record(z.string(), z.string()).default({}),
  preload: z.array(z.string().min(1)),
  etc: z.array(z.string().regex(PATH_IN_ETC)),
  data: z.array(
    z.strictObject({
      npm: z.string().min(1),
      path: z.string().refine(isPlainRelative, "expected a plain relative path"),
      target: z.string().regex(/^\/opt\/minedit\/[^/]+(?:\/[^/]+)*$/),
      why: z.string().min(1),
    }),
  ),
  env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/), z.string()),
  scratchDirs: z.array(z.string().refine(isPlainRelative, "expected a plain relative path")),
});

const RuntimesFileSchema = z.strictObject({
  $comment: z.string().optional(),
  runtimes: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), RuntimeSchema),
});

/** One runtime (see the module comment for each field). */
export type Runtime = z.output<typeof RuntimeSchema> & { name: RuntimeName };

function loadRuntimes(): ReadonlyMap<RuntimeName, Runtime> {
  const url = new URL("../../sandbox/runtimes.json", import.meta.url);
  const parsed = RuntimesFileSchema.safeParse(JSON.parse(readFileSync(url, "utf8")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MineditError(
      ErrorCode.Internal,
      `sandbox/runtimes.json: ${issue?.path.join(".")}: ${issue?.message ?? "invalid"}`,
    );
  }
  const runtimes = new Map<RuntimeName, Runtime>();
  for (const [name, runtime] of Object.entries(parsed.data.runtimes))
    runtimes.set(name, { ...runtime, name });
  const standard = runtimes.get(DEFAULT_RUNTIME);
  if (
    standard === undefined ||
    Object.keys(standard.packages).length > 0 ||
    Object.keys(standard.programs).length > 0
  ) {
    throw new MineditError(
      ErrorCode.Internal,
      `sandbox/runtimes.json: "${DEFAULT_RUNTIME}" must exist and be empty`,
    );
  }
  return runtimes;
}

const RUNTIMES = loadRuntimes();

/** Every runtime's name, in the file's order (`stdlib` first). */
export const RUNTIME_NAMES: readonly RuntimeName[] = Object.freeze([...RUNTIMES.keys()]);

export function isRuntimeName(name: string): boolean {
  return RUNTIMES.has(name);
}

/** The runtime named `name`; throws `InvalidArgument` naming the known ones for any other name. */
export function runtimeNamed(name: RuntimeName): Runtime {
  const runtime = RUNTIMES.get(name);
  if (runtime === undefined) {
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `unknown runtime "${name}" (known: ${RUNTIME_NAMES.join(", ")})`,
      { field: "runtime" },
    );
  }
  return runtime;
}

/** The modules that must be importable for `runtime` to count as installed (one per package). */
export function requiredModules(runtime: Runtime): string[] {
  return [...new Set(Object.values(runtime.packages))];
}

/** Every Debian package of `runtime`: those of its modules, then those of its programs. */
export function debianPackages(runtime: Runtime): string[] {
  return [...new Set([...Object.keys(runtime.packages), ...Object.keys(runtime.programs)])];
}

/** The programs of `runtime` this host's /usr does not have, as `program /usr/bin/g++ (Debian g++)`. */
export function missingPrograms(runtime: Runtime): string[] {
  return Object.entries(runtime.programs)
    .filter(([, path]) => !existsSync(path))
    .map(([pkg, path]) => `program ${path} (Debian ${pkg})`);
}

const requireHere = createRequire(import.meta.url);

/**
 * The runtime's `data` directories as read-only binds: where the npm package keeps each (null when the
 * package is not installed: `npm ci`) and where runs see it.
 */
export function dataBinds(runtime: Runtime): { source: string | null; target: string; npm: string }[] {
  return runtime.data.map(({ npm, path, target }) => {
    let source: string | null;
    try {
      source = join(dirname(requireHere.resolve(`${npm}/package.json`)), path);
      if (!existsSync(source)) source = null;
    } catch {
      source = null;
    }
    return { source, target, npm };
  });
}

/** The command that installs a runtime, for messages. */
export function setupCommand(name: RuntimeName): string {
  return `minedit setup --runtime ${name}`;
}

/** Why a run or a task cannot use `name`: it is not installed, and what installs it. */
export function notInstalledMessage(name: RuntimeName, missing: readonly string[]): string {
  const shown = missing.slice(0, 6).join(", ") + (missing.length > 6 ? `, … (${missing.length} in all)` : "");
  return `runtime "${name}" is not installed (not found: ${shown}); run \`${setupCommand(name)}\``;
}

/**
 * Why runtime `name` cannot run in a bwrap sandbox of the interpreter `pythonPath` ({@link
 * notInstalledMessage}: what is missing and what installs it), or null when it can.
 */
export async function hostRuntimeProblem(name: RuntimeName, pythonPath: string): Promise<string | null> {
  const missing = await missingModules(runtimeNamed(name), pythonPath);
  return missing.length === 0 ? null : notInstalledMessage(name, missing);
}

const FIND_SPECS =
  "import importlib.util, json, sys\nprint(json.dumps([m for m in json.loads(sys.argv[1]) if importlib.util.find_spec(m) is None]))";

/**
 * The required modules of `runtime` that a sandbox of it does not find, its programs the host does not
 * have ({@link missingPrograms}) and its data packages that are not installed (`npm package X`); empty:
 * installed.
 * A module is found when the interpreter at `pythonPath` finds it on the host, run as the sandbox runs it
 * (`-s`, an empty environment), and it is one of the entries the sandbox binds back into the library
 * directories (runtime-libraries.ts: those of the runtime's Debian packages and their dependencies; a
 * module the host has from elsewhere stays hidden). `find_spec` locates a top-level module without
 * importing it (a few milliseconds for all of them); that the modules also import is what `minedit
 * setup` and the fork servers' preloading check.
 *
 * @throws MineditError `Unavailable` when the interpreter cannot be run.
 */
export async function missingModules(runtime: Runtime, pythonPath: string): Promise<string[]> {
  const modules = requiredModules(runtime);
  const data = [
    ...missingPrograms(runtime),
    ...dataBinds(runtime)
      .filter((bind) => bind.source === null)
      .map((bind) => `npm package ${bind.npm}`),
  ];
  if (modules.length === 0) return data;
  const { code, stdout, stderr } = await runHostCommand(
    pythonPath,
    ["-s", "-c", FIND_SPECS, JSON.stringify(modules)],
    {},
  );
  if (code !== 0) {
    throw new MineditError(
      ErrorCode.Unavailable,
      `cannot ask ${pythonPath} for the modules of runtime "${runtime.name}": ${stderr.trim() || `exit ${code}`}`,
    );
  }
  const notFound = z.array(z.string()).parse(JSON.parse(stdout));
  let outsideRuntime: string[];
  try {
    const view = await libraryView(debianPackages(runtime), await interpreterLibraryDirs(pythonPath));
    outsideRuntime = modules.filter((module) => !notFound.includes(module) && !view.modules.has(module));
  } catch (error) {
    // No dpkg: the sandbox cannot tell the runtime's libraries from the host's others.
    outsideRuntime = [`its Debian packages' files (${(error as Error).message})`];
  }
  return [...notFound, ...outsideRuntime, ...data];
}
