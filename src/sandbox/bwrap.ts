/**
 * The embedded sandbox backend (docs/design.md): Linux namespaces through bubblewrap, no daemon.
 *
 * One run is one `bwrap` process tree:
 *
 *   [/bin/sh sandbox/bwrap-enter.sh PROCS MOUNT_DIR … --]   as root: the sandbox's cgroup and scratch
 *                                                           mounts (whole-run-bounds.ts), see below
 *   [setpriv --reuid=65534 --regid=65534 --clear-groups]   only when minedit runs as root, see below
 *   bwrap --unshare-all --unshare-user --disable-userns --uid 65534 --gid 65534
 *         --die-with-parent --new-session --hostname sandbox
 *         --ro-bind /usr /usr  --symlink usr/bin /bin  …            the runtime, read-only, nothing else
 *         --proc /proc --dev /dev --size <64 MiB> --tmpfs /dev/shm --size <scratchBytes> --tmpfs /tmp
 *               (as root: --bind <own mount> /dev/shm --bind <own mount> /tmp, inode-capped tmpfs)
 *         --dir /opt/minedit/bin --symlink <python> /opt/minedit/bin/python3 (and …/python) --chdir /tmp
 *         --clearenv --setenv …
 *         --tmpfs <library dir> --ro-bind <entry> <entry> … --remount-ro <library dir>
 *                                                                   the runtime's own Python libraries only
 *         [--ro-bind-try /etc/<entry> … --ro-bind <data> /opt/minedit/… --setenv … --dir /tmp/<dir> …]
 *                                                                   the request's runtime (runtimes.ts)
 *         --file <fd> /tmp/<name> …                                 the request's files, copied from pipes
 *         --remount-ro /dev --remount-ro /                          only /tmp and /dev/shm are writable
 *         --seccomp 4                                               the syscall filter (syscall-filter.ts)
 *         --json-status-fd 3 -- /usr/bin/prlimit --as=… --nproc=… --fsize=… --core=0 -- <argv>
 *
 * Why each part:
 * - `--unshare-all` gives new user, pid, net, ipc, uts and cgroup namespaces: a network namespace with
 *   only a loopback means nothing outside the sandbox answers; the pid namespace means the sandbox's init
 *   (bwrap) ends every process of the run when the command exits or bwrap is killed; `--die-with-parent` ties
 *   that to this Node process, so a crashed server leaves no orphans.
 * - Root is exempt from RLIMIT_NPROC and holds capabilities inside a namespace bwrap does not make a user
 *   namespace for, so as root we first drop to an unprivileged host uid with `setpriv` and let bwrap
 *   build an unprivileged user namespace. `--disable-userns` stops the program from nesting a new user
 *   namespace to regain capabilities.
 * - Limits are set by `prlimit` *inside* the namespace: since Linux 5.14 RLIMIT_NPROC is counted per
 *   (user namespace, uid), so each run's fork budget is its own and concurrent runs do not share it.
 *   (Set outside, the limit would also be recorded as the namespace's ceiling and charged against all
 *   runs of the uid together.) `tests/sandbox/hostile.test.ts` checks a fork bomb stops there.
 * - The scratch directory is a size-capped tmpfs, not a host directory: the program cannot fill the host
 *   disk, and there is nothing to clean up. Files arrive through `--file FD`, from pipes this process
 *   writes.
 * - `--json-status-fd` reports the child's pid once bwrap has set everything up; a run that ends without
 *   it never started, which is the sandbox's fault (MineditError Unavailable), whatever it printed. The
 *   program cannot forge that: it only runs after the report.
 * - `--seccomp` loads the syscall filter (syscall-policy.ts) into the sandbox's init and its program, so
 *   every process of the sandbox has it: no ptrace or pidfd_getfd into another process, no kernel keys
 *   (shared by every sandbox of the uid), no namespaces or mounts, no way back to being dumpable.
 * - Per-process limits alone let a run's processes hold maxProcesses × memoryBytes together, and bwrap's
 *   --tmpfs caps bytes, not inodes: as root each sandbox is also bounded as a whole, by a cgroup and by
 *   tmpfs mounts of its own with `nr_inodes` (whole-run-bounds.ts, sandbox/bwrap-enter.sh, which joins
 *   the cgroup and makes the mounts in a private mount namespace before becoming setpriv, then bwrap).
 * - A launched program (the fork server) talks to this process over a socket on a fd of its own, never
 *   on its stdin and stdout: bwrap's init (pid 1, dumpable) keeps fds 0-2 for its whole life (see launch).
 * - A request's runtime (src/sandbox/runtimes.ts) sees its own Python libraries and no other: the
 *   interpreter's library directories are hidden under empty tmpfs mounts and the runtime's entries bound
 *   back, read-only (runtime-libraries.ts; the default runtime's: none), so what else the host installed
 *   never decides a verdict. It adds its own /etc entries and data directories (read-only), variables and
 *   empty scratch directories. A runtime whose modules the sandbox would not find is refused by name
 *   (MineditError FailedPrecondition) before anything starts.
 *
 * Why one long file: the bwrap argument list, the start-up probe and the kill and clean-up of a run are one
 * contract with bubblewrap and change together.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  realpathSync,
} from "node:fs";
import { constants as osConstants } from "node:os";
import { dirname, join, posix } from "node:path";
import type { Duplex, Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { DEFAULT_LIMITS_CONFIG } from "../config.js";
import { ErrorCode, MineditError } from "../errors.js";
import { fileStamp, HostFactsCache } from "./host-facts-cache.js";
import type { LaunchedProgram } from "./launched-program.js";
import { killOrphanedSandboxes } from "./orphaned-sandboxes.js";
import { stderrShowsOutOfMemory } from "./out-of-memory.js";
import { OutputCollector } from "./output-capture.js";
import { reachableSource } from "./reachable-source.js";
import { checkLimits, checkRelativePath } from "./request-checks.js";
import type { RunCgroup } from "./run-cgroup.js";
import { RunDeadline } from "./run-deadline.js";
import {
  bwrapLibraryArgs,
  interpreterLibraryDirs,
  type LibraryDirs,
  type LibraryView,
  libraryView,
} from "./runtime-libraries.js";
import {
  DEFAULT_RUNTIME,
  dataBinds,
  debianPackages,
  missingModules,
  notInstalledMessage,
  type Runtime,
  type RuntimeName,
  runtimeNamed,
} from "./runtimes.js";
import {
  DEFAULT_LIMITS,
  type ExecutionLimits,
  type ExecutionRequest,
  type ExecutionResult,
  emptyResult,
  type Sandbox,
} from "./sandbox.js";
import { SANDBOX_BIN, SANDBOX_ENV, SCRATCH, SCRATCH_BYTES, SHM_BYTES } from "./sandbox-env.js";
import { DEFAULT_FILTER_PYTHON, loadSyscallFilter, type SyscallFilter } from "./syscall-filter.js";
import { WholeRunBounds } from "./whole-run-bounds.js";

/** Backend options; every field has a default that works on Debian/Ubuntu with `bubblewrap` installed. */
export type BwrapOptions = {
  /** The bubblewrap binary; default: `bwrap` in /usr/local/bin, /usr/bin or /bin. */
  bwrapPath?: string;
  /**
   * Host interpreter exposed inside as `python3` (first on the sandbox PATH). Default `/usr/bin/python3`,
   * the distribution's CPython. An interpreter outside the default read-only paths gets its install
   * prefix (two levels above the resolved binary) bound read-only; that directory must be readable by
   * the sandbox uid.
   */
  pythonPath?: string;
  /** Extra host paths bound read-only at the same place (e.g. a virtualenv with the tasks' libraries). */
  readOnlyPaths?: string[];
  /**
   * Host directories bound read-only at another place inside (a tool's files under `/opt/minedit/…`):
   * unlike {@link readOnlyPaths} this works wherever the host keeps them, /tmp included, which the
   * sandbox's own scratch would hide.
   */
  readOnlyBinds?: readonly { source: string; target: string }[];
  /** Size of the tmpfs that is the scratch directory (and /tmp). Default 128 MiB. */
  scratchBytes?: number;
  /** Host uid/gid the sandbox runs as when minedit runs as root. Default 65534 (nobody). */
  sandboxUid?: number;
  sandboxGid?: number;
  /**
   * Where to say, once, what this host does not let the backend bound (whole-run-bounds.ts). Default:
   * a line on stderr.
   */
  warn?: (message: string) => void;
  /**
   * "auto" (the default): each sandbox bounded as a whole where the host allows it (a cgroup, scratch
   * mounts with an inode cap: whole-run-bounds.ts); "per-process": per-process limits alone, as on a host
   * that does not allow them (for tests of that case).
   */
  bounds?: "auto" | "per-process";
  /**
   * The syscall filter (syscall-policy.ts) on every process of every sandbox: on unless false, which
   * is for measuring what it costs (benchmarks/) and for showing what it stops (tests/), never for
   * running candidates.
   */
  syscallFilter?: boolean;
  /**
   * Whether `create` runs its start-up probe (`python3 -c pass` in a sandbox), which turns a host where
   * sandboxes cannot run into one `Unavailable` error with bwrap's own message. Default true; false for
   * a caller whose own first run comes at once and goes through the same launcher (the warm pool's
   * first fork server: create.ts), where a second run first would only add its time to start-up.
   */
  probe?: boolean;
};

/** Host paths the runtime needs, bound read-only (symlinks such as Debian's `/bin -> usr/bin` are copied). */
const RUNTIME_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"];
/** Single /etc entries the runtime needs: the dynamic loader cache, `alternatives` links, the time zone. */
const ETC_PATHS = ["/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime"];
/**
 * Debian's JDKs keep their configuration in /etc (`/etc/java-17-openjdk`, symlinked from the JDK's conf/
 * and lib/jvm.cfg): without it `java` cannot load java.security and `javac` fails at start. Every such
 * directory present is bound read-only (the Java runner, src/runners/java.ts).
 */
const JDK_ETC_DIR = /^java-\d+-openjdk$/;
/** The package that covers a module of a package outside the request's runtime (runtime-libraries.ts). */
const ABSENT_MODULE = fileURLToPath(new URL("../../sandbox/python/absent-module", import.meta.url));
/** The fd that carries the syscall filter's BPF program to bwrap (`--seccomp`). */
const SECCOMP_FD = 4;
/** The fd of a run's first file (`--file`); the others follow, then the output pipes. */
const FIRST_FILE_FD = 5;
/** The uid/gid the program sees (mapped to the host uid bwrap runs as). */
const INNER_ID = "65534";

/** At most this much of bwrap's status channel is kept (the program inherits nothing of it, but be safe). */
const STATUS_CAP_BYTES = 64 * 1024;
/**
 * System binaries are looked up in the standard directories, not the server's PATH: what the sandbox
 * runs should not depend on the environment the server was started from (`bwrapPath` overrides).
 */
const SYSTEM_BIN_DIRS = ["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"];

function findBinary(name: string): string | undefined {
  for (const dir of SYSTEM_BIN_DIRS) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function unavailable(message: string): MineditError {
  return new MineditError(ErrorCode.Unavailable, `bwrap sandbox: ${message}`);
}

function signalName(signal: number): string | null {
  for (const [name, value] of Object.entries(osConstants.signals)) {
    if (value === signal) return name;
  }
  return null;
}

/** A running child and the promise of its end, so `close()` can kill and await everything. */
type Active = { kill: () => void; done: Promise<unknown> };

/** Whether this process has looked for orphaned sandboxes yet (the first backend made does). */
let orphansReaped = false;

export class BwrapSandbox implements Sandbox {
  readonly name = "bwrap";
  private readonly active = new Set<Active>();
  private closed = false;
  /** Per runtime: the required modules the interpreter did not find (asked once per sandbox). */
  private readonly missing = new Map<RuntimeName, Promise<string[]>>();

  private constructor(
    /** The launcher prefix: `[setpriv, …, bwrap]` or `[bwrap]`. */
    private readonly launcher: readonly string[],
    /** Mount and environment arguments that do not depend on the request. */
    private readonly fixedArgs: readonly string[],
    private readonly prlimitPath: string,
    /** The interpreter exposed as `python3`, resolved. */
    readonly pythonPath: string,
    /** Whether bwrap runs as an unprivileged uid (minedit runs as root): bind sources it must reach. */
    private readonly dropsPrivileges: boolean,
    /** The cgroups and scratch mounts that bound each sandbox as a whole, where this host allows them. */
    private readonly bounds: WholeRunBounds,
    /** The syscall filter's BPF program (syscall-filter.ts), loaded into every sandbox; null: none. */
    private readonly filter: Buffer | null,
    /** Where the interpreter finds modules (runtime-libraries.ts): hidden but for a runtime's own. */
    private readonly libraryDirs: LibraryDirs,
    /** What the standard library's runtime sees of them: no library, and no package's part of the rest. */
    standard: LibraryView,
  ) {
    this.views.set(DEFAULT_RUNTIME, standard);
  }

  /** What each runtime asked for so far sees of the library directories (the standard library's: none). */
  private readonly views = new Map<RuntimeName, LibraryView>();

  /** Each data bind's source as bwrap can open it (reachable-source.ts), decided once per source. */
  private readonly sources = new Map<string, string>();
  private reachable(source: string): string {
    let found = this.sources.get(source);
    if (found === undefined) {
      found = this.dropsPrivileges ? reachableSource(source) : source;
      this.sources.set(source, found);
    }
    return found;
  }

  /**
   * Resolves binaries, builds the fixed part of the command line and (unless `options.probe` is false)
   * runs `python3 -c pass` in a sandbox, so a host without working user namespaces (or a broken
   * interpreter) fails here, once, with bwrap's own message, as `MineditError(Unavailable)`.
   */
  static async create(options: BwrapOptions = {}): Promise<BwrapSandbox> {
    const bwrap = options.bwrapPath ?? findBinary("bwrap");
    if (bwrap === undefined || !existsSync(bwrap)) {
      throw unavailable("`bwrap` not found; install bubblewrap (Debian: apt-get install -y bubblewrap)");
    }
    const prlimitFound = findBinary("prlimit");
    if (prlimitFound === undefined) {
      throw unavailable("`prlimit` not found; install util-linux");
    }
    // Resolved, so Debian's `/bin -> usr/bin` layout still lands under the bound `/usr`.
    const prlimit = realpathSync(prlimitFound);
    const launcher: string[] = [];
    const dropsPrivileges = process.getuid?.() === 0;
    const uid = options.sandboxUid ?? 65534;
    const gid = options.sandboxGid ?? 65534;
    if (dropsPrivileges) {
      const setpriv = findBinary("setpriv");
      if (setpriv === undefined)
        throw unavailable("running as root needs `setpriv` (util-linux) to drop privileges");
      launcher.push(setpriv, `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups");
    }
    const boundsOptions = {
      scratchBytes: options.scratchBytes ?? SCRATCH_BYTES,
      shmBytes: SHM_BYTES,
      uid,
      gid,
      warn: options.warn ?? ((message: string) => process.stderr.write(`minedit: ${message}\n`)),
    };
    launcher.push(bwrap);
    // Off the start's path, once per process (the leftovers are those of servers that died before it
    // started): what a server that died abruptly left behind (orphaned-sandboxes.ts).
    if (!orphansReaped) {
      orphansReaped = true;
      void killOrphanedSandboxes().then((killed) => {
        if (killed > 0) {
          boundsOptions.warn(
            `killed ${killed} sandbox process(es) left blocked by a server that died while they started (docs/sandbox.md, "Orphaned sandboxes")`,
          );
        }
      });
    }

    const pythonPath = options.pythonPath ?? "/usr/bin/python3";
    let python: string;
    try {
      python = realpathSync(pythonPath);
      accessSync(python, constants.X_OK);
    } catch {
      throw unavailable(`interpreter ${pythonPath} is missing (Debian: apt-get install -y python3)`);
    }
    // Bound at its own path, it would be hidden by the scratch tmpfs, and `python3` would silently be
    // another interpreter on PATH.
    if (python === SCRATCH || python.startsWith(`${SCRATCH}/`)) {
      throw unavailable(
        `interpreter ${pythonPath} is under ${SCRATCH}, which the sandbox's scratch hides; put it elsewhere`,
      );
    }

    // What asks other processes — bwrap's flags, the whole-run bounds' trial launches, the syscall filter
    // and the library view (each an interpreter; the view asks dpkg too) — runs side by side rather than
    // blocking this thread in turn (on 2 busy cores that alone gained nothing measurable: the start-up is
    // CPU-bound, benchmarks/README.md "Start-up").
    const host = Promise.all([
      options.syscallFilter === false ? null : syscallFilterFor(python).then((f) => f.bpf),
      (async (): Promise<{ libraryDirs: LibraryDirs; standard: LibraryView }> => {
        try {
          const libraryDirs = await interpreterLibraryDirs(python);
          return { libraryDirs, standard: await libraryView([], libraryDirs) };
        } catch (error) {
          throw unavailable((error as Error).message);
        }
      })(),
    ]);
    host.catch(() => {}); // awaited below, after bwrap's own checks (whose failure is the one to report)
    const [flags, bounds] = await Promise.all([
      // Feature check: `--size` (tmpfs caps) is required; `--disable-userns` (bubblewrap >= 0.8) is
      // used when present, older versions still isolate but let the program nest user namespaces.
      helpText(bwrap),
      options.bounds === "per-process"
        ? WholeRunBounds.none(boundsOptions, "per-process limits asked for")
        : dropsPrivileges
          ? WholeRunBounds.open(boundsOptions)
          : WholeRunBounds.none(boundsOptions, "minedit does not run as root"),
    ]);
    if (!flags.includes("--size")) {
      bounds.close();
      throw unavailable(`${bwrap} is too old (no --size for tmpfs); install a newer bubblewrap`);
    }

    const args: string[] = [
      "--unshare-all",
      "--unshare-user",
      ...(flags.includes("--disable-userns") ? ["--disable-userns"] : []),
      "--uid",
      INNER_ID,
      "--gid",
      INNER_ID,
      "--die-with-parent",
      "--new-session",
      "--hostname",
      "sandbox",
    ];
    const bound: string[] = [];
    for (const path of RUNTIME_PATHS) {
      if (!existsSync(path)) continue;
      if (lstatSync(path).isSymbolicLink()) {
        args.push("--symlink", readlinkSync(path), path);
      } else {
        args.push("--ro-bind", path, path);
        bound.push(path);
      }
    }
    for (const path of ETC_PATHS) args.push("--ro-bind-try", path, path);
    for (const entry of readdirSync("/etc")) {
      if (JDK_ETC_DIR.test(entry)) args.push("--ro-bind-try", `/etc/${entry}`, `/etc/${entry}`);
    }
    const underBound = (p: string) => bound.some((b) => p === b || p.startsWith(`${b}/`));
    const extra = [...(options.readOnlyPaths ?? [])];
    if (!underBound(python)) extra.push(dirname(dirname(python)));
    for (const path of extra) {
      if (!underBound(path)) {
        args.push("--ro-bind", path, path);
        bound.push(path);
      }
    }
    const reachable = dropsPrivileges ? reachableSource : (source: string) => source;
    for (const { source, target } of options.readOnlyBinds ?? [])
      args.push("--ro-bind", reachable(source), target);
    if (!underBound(prlimit)) throw unavailable(`prlimit at ${prlimit} is outside the runtime paths`);
    args.push(
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      // /dev/shm and the scratch /tmp: bwrap's size-capped tmpfs, or (as root) mounts of the sandbox's
      // own that also cap their inodes (whole-run-bounds.ts).
      ...bounds.scratchArgs(),
      "--dir",
      SANDBOX_BIN,
      "--symlink",
      python,
      `${SANDBOX_BIN}/python3`,
      // `python` too, as Debian's python-is-python3 gives: programs that run `python script.py` (e.g.
      // BigCodeBench's subprocess tasks) find the same interpreter.
      "--symlink",
      python,
      `${SANDBOX_BIN}/python`,
      "--chdir",
      SCRATCH,
      "--clearenv",
    );
    for (const [key, value] of Object.entries(SANDBOX_ENV)) args.push("--setenv", key, value);

    let filter: Buffer | null;
    let libraryDirs: LibraryDirs;
    let standard: LibraryView;
    try {
      [filter, { libraryDirs, standard }] = await host;
    } catch (error) {
      bounds.close();
      throw error;
    }
    const sandbox = new BwrapSandbox(
      launcher,
      args,
      prlimit,
      python,
      dropsPrivileges,
      bounds,
      filter,
      libraryDirs,
      standard,
    );
    if (options.probe === false) return sandbox;
    const probe = await sandbox.run({
      files: {},
      argv: ["python3", "-c", "pass"],
      limits: DEFAULT_LIMITS_CONFIG.sandboxProbe,
    });
    if (probe.exitCode !== 0) {
      throw unavailable(
        `probe run failed (exit ${probe.exitCode}, signal ${probe.signal}): ${probe.stderr.trim()}`,
      );
    }
    return sandbox;
  }

  /**
   * The full command line for a request whose files go to fds 5, 6, … in `Object.keys(files)` order
   * (fd 3 is bwrap's status channel, fd 4 the syscall filter), in `runtime` (default: the standard
   * library's, which adds nothing),
   * its sandbox in cgroup `group` when there is one. Exposed for logs and reports.
   */
  commandLine(
    files: Record<string, string>,
    argv: readonly string[],
    limits: ExecutionLimits | null,
    runtime: Runtime = runtimeNamed(DEFAULT_RUNTIME),
    group: RunCgroup | null = null,
  ): string[] {
    const view = this.views.get(runtime.name);
    if (view === undefined) {
      throw new MineditError(
        ErrorCode.Internal,
        `bwrap sandbox: runtime "${runtime.name}" was not resolved (ask runtime() for it first)`,
      );
    }
    const args = [
      ...this.bounds.prefix(group, this.launcher),
      ...this.fixedArgs,
      ...bwrapLibraryArgs(view, {
        package: this.reachable(ABSENT_MODULE),
        module: this.reachable(join(ABSENT_MODULE, "__init__.py")),
      }),
    ];
    for (const path of runtime.etc) args.push("--ro-bind-try", path, path);
    for (const { source, target } of dataBinds(runtime))
      if (source !== null) args.push("--ro-bind", this.reachable(source), target);
    for (const [key, value] of Object.entries(runtime.env)) args.push("--setenv", key, value);
    const dirs = new Set<string>();
    const makeDirs = (parts: readonly string[]) => {
      for (let i = 1; i <= parts.length; i++) {
        const dir = posix.join(SCRATCH, ...parts.slice(0, i));
        if (!dirs.has(dir)) {
          dirs.add(dir);
          args.push("--dir", dir);
        }
      }
    };
    for (const dir of runtime.scratchDirs) makeDirs(dir.split("/"));
    Object.keys(files).forEach((path, index) => {
      const parts = checkRelativePath(path);
      makeDirs(parts.slice(0, -1));
      args.push("--file", String(FIRST_FILE_FD + index), posix.join(SCRATCH, path));
    });
    args.push(
      // Last: the root and /dev are tmpfs bwrap made; read-only, only the size-capped /tmp and
      // /dev/shm take writes, so the program cannot fill memory through them.
      "--remount-ro",
      "/dev",
      "--remount-ro",
      "/",
      ...(this.filter === null ? [] : ["--seccomp", String(SECCOMP_FD)]),
      "--json-status-fd",
      "3",
      "--",
      this.prlimitPath,
      // null: the host's limits stay (a fork server sets each child's own, which must fit under them).
      ...(limits === null
        ? []
        : [
            `--as=${limits.memoryBytes}`,
            `--nproc=${limits.maxProcesses}`,
            `--fsize=${limits.maxFileBytes}`,
            // Whole seconds of the main process only (SIGXCPU, then SIGKILL): this backend cannot
            // measure a run's CPU time; the fork servers (fork-server.ts) count and enforce it exactly.
            ...(limits.cpuTimeMs === undefined
              ? []
              : [`--cpu=${Math.ceil(limits.cpuTimeMs / 1000)}:${Math.ceil(limits.cpuTimeMs / 1000) + 1}`]),
          ]),
      "--core=0",
      "--",
      ...argv,
    );
    return args;
  }

  /**
   * The runtime a request names (default: the standard library's), once its modules are known to be
   * there. Throws MineditError `InvalidArgument` for an unknown name and `FailedPrecondition` naming the
   * runtime and what installs it when it is not installed.
   */
  async runtime(name: RuntimeName = DEFAULT_RUNTIME): Promise<Runtime> {
    const runtime = runtimeNamed(name);
    if (name === DEFAULT_RUNTIME) return runtime;
    let missing = this.missing.get(name);
    if (missing === undefined) {
      missing = missingModules(runtime, this.pythonPath);
      this.missing.set(name, missing);
      // A failed question is asked again next time (the interpreter may have been busy or replaced).
      missing.catch(() => this.missing.delete(name));
    }
    const absent = await missing;
    if (absent.length > 0) {
      throw new MineditError(ErrorCode.FailedPrecondition, notInstalledMessage(name, absent), {
        field: "runtime",
      });
    }
    if (!this.views.has(name)) {
      // The view missingModules computed (libraryView shares it): nothing more is asked of dpkg.
      this.views.set(name, await libraryView(debianPackages(runtime), this.libraryDirs));
    }
    return runtime;
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    if (this.closed) throw unavailable("the sandbox is closed");
    checkLimits(request.limits);
    if (request.argv.length === 0) {
      throw new MineditError(ErrorCode.InvalidArgument, "argv is empty", { field: "argv" });
    }
    const runtime = await this.runtime(request.runtime);
    if (request.signal?.aborted) {
      return emptyResult({ cancelled: true, wallTimeMs: 0 });
    }
    const group = this.bounds.group(request.limits);
    // (A group may be reused: its counter goes on from where the sandbox before left it.)
    const oomKillsBefore = group?.oomKills() ?? 0;
    const command = this.commandLine(request.files, request.argv, request.limits, runtime, group);
    const contents = Object.values(request.files);
    const started = performance.now();

    const child = spawnBwrap(command, this.filter, contents);

    let killed = false;
    const kill = () => {
      if (killed || child.pid === undefined) return;
      killed = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const output = new OutputCollector(request.limits.maxOutputBytes, kill);

    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }>(
      (resolve) => {
        child.once("error", (error) => resolve({ code: null, signal: null, spawnError: error }));
        child.once("close", (code, signal) => resolve({ code, signal }));
      },
    );
    let closedDuringRun = false;
    const entry: Active = {
      kill: () => {
        closedDuringRun = true;
        kill();
      },
      done,
    };
    this.active.add(entry);

    const deadline = new RunDeadline(request.limits.wallTimeMs, request.signal, kill);

    child.stdout?.on("data", (chunk: Buffer) => output.add("stdout", chunk));
    child.stderr?.on("data", (chunk: Buffer) => output.add("stderr", chunk));
    const programStarted = watchStarted(child);
    feed(child.stdin as Writable, request.stdin ?? "");

    const end = await done;
    deadline.dispose();
    const { timedOut, cancelled } = deadline;
    this.active.delete(entry);
    const wallTimeMs = Math.round(performance.now() - started);
    // Every process of the sandbox is gone: what the kernel killed for want of memory, then the group.
    const oomKills = (group?.oomKills() ?? 0) - oomKillsBefore;
    if (group !== null) this.bounds.release(group);

    if (end.spawnError !== undefined) {
      throw unavailable(`cannot start bwrap: ${end.spawnError.message}`);
    }
    if (closedDuringRun) {
      // Shutting down is not something the program did: no result rather than a failure verdict.
      throw unavailable("the sandbox was closed during the run");
    }
    const stdout = output.text("stdout");
    const stderr = output.text("stderr");
    if (!programStarted()) {
      // Killed by us before the program started: a cancelled or timed-out run (the wall limit covers
      // start-up), not a broken sandbox. Ended on its own before starting: bwrap failed.
      if (cancelled) return emptyResult({ cancelled: true, wallTimeMs });
      if (timedOut)
        return { ...emptyResult({ cancelled: false, wallTimeMs }), signal: "SIGKILL", timedOut: true };
      throw unavailable(
        `the sandbox did not start (exit ${end.code}, signal ${end.signal}): ${stderr.trim()}`,
      );
    }

    // bwrap's init reports a program killed by signal N as exit status 128 + N.
    let exitCode = end.code;
    let signal: string | null = end.signal;
    if (exitCode !== null && exitCode > 128 && exitCode < 128 + 65) {
      signal = signalName(exitCode - 128);
      if (signal !== null) exitCode = null;
    }
    // RLIMIT_AS makes allocations fail rather than the kernel kill, so the runtime's own report is the
    // evidence. (An unexplained SIGKILL is not taken as out-of-memory: the program can send it to itself.)
    // Past the whole run's memory (its cgroup) the kernel kills, and says so in the group's counters.
    const memoryExceeded =
      (exitCode !== 0 && !killed && stderrShowsOutOfMemory(stderr)) || (oomKills > 0 && !cancelled);
    return {
      exitCode,
      signal,
      stdout,
      stderr,
      // SIGXCPU: the program passed its CPU-time limit (RLIMIT_CPU, set above when there is one).
      timedOut: (timedOut || (request.limits.cpuTimeMs !== undefined && signal === "SIGXCPU")) && !cancelled,
      ...(request.limits.cpuTimeMs !== undefined && signal === "SIGXCPU" && !timedOut && !cancelled
        ? { cpuLimitExceeded: true }
        : {}),
      memoryExceeded,
      outputTruncated: output.truncated,
      wallTimeMs,
      cancelled,
    };
  }

  /**
   * The fork server of fork-server.ts in a sandbox of its own: the harness as a file, two output pipes,
   * then the control channel (argv: SETTINGS OUT_FD ERR_FD CONTROL_FD).
   */
  launchForkServer(source: string, harness: string, settings: string, runtime: Runtime): LaunchedProgram {
    const files = { "harness.py": harness };
    // The two output pipes and the control socket are the fds right after the files' (see launch).
    const outFd = FIRST_FILE_FD + Object.keys(files).length;
    return this.launch(
      files,
      ["python3", "-s", "-c", source, settings, String(outFd), String(outFd + 1), String(outFd + 2)],
      2,
      runtime,
    );
  }

  /**
   * Starts `argv` in a sandbox of its own and leaves it running (the fork server of fork-server.ts): files
   * and mounts as for {@link run}, the host's resource limits (no core dumps). `outputs` pipes it can
   * write are its fds 5 + (number of files), …; the fd after them is its control channel with the caller
   * (one unix socket, both directions); stderr is kept (the first 64 KiB) for diagnostics. Its stdin and
   * stdout are /dev/null. Why not stdin and stdout for the channel: bwrap's own init (pid 1 of the
   * sandbox, dumpable, which no flag changes) keeps fds 0–2 open for its whole life and closes every
   * other, so a channel on 0 and 1 could be copied from it by any program in the sandbox
   * (`pidfd_getfd`, `/proc/1/fd`) and the runs of the slot answered by that program. The process tree
   * dies by `kill()`, by {@link close}, and with this Node process (`--die-with-parent`). `runtime` (one
   * {@link runtime} returned) gives the sandbox that runtime's mounts and environment.
   */
  launch(
    files: Record<string, string>,
    argv: readonly string[],
    outputs = 0,
    runtime: Runtime = runtimeNamed(DEFAULT_RUNTIME),
  ): LaunchedProgram {
    if (this.closed) throw unavailable("the sandbox is closed");
    const contents = Object.values(files);
    // Until its first run is limited (limitNextRun), the sandbox may hold what a run may, twice: its
    // imports (a runtime's preload takes a few hundred MB) fit in that.
    const group = this.bounds.group({ ...DEFAULT_LIMITS, memoryBytes: 2 * DEFAULT_LIMITS.memoryBytes });
    const child = spawnBwrap(this.commandLine(files, argv, null, runtime, group), this.filter, contents, {
      stdio: "ignore",
      outputs,
      control: true,
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < STATUS_CAP_BYTES) stderr += chunk.toString("utf8");
    });
    const started = watchStarted(child);
    const exited = new Promise<{ code: number | null; signal: string | null; started: boolean }>(
      (resolve) => {
        child.once("error", () => resolve({ code: null, signal: null, started: started() }));
        child.once("close", (code, signal) => resolve({ code, signal, started: started() }));
      },
    );
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const entry: Active = { kill, done: exited };
    this.active.add(entry);
    void exited.then(() => {
      this.active.delete(entry);
      if (group !== null) this.bounds.release(group);
    });
    const control = child.stdio[FIRST_FILE_FD + contents.length + outputs] as Duplex;
    control.on("error", () => {});
    return {
      controlIn: control,
      controlOut: control,
      outputs: Array.from(
        { length: outputs },
        (_, i) => child.stdio[FIRST_FILE_FD + contents.length + i] as Readable,
      ),
      exited,
      stderr: () => stderr,
      kill,
      ...(group === null
        ? {}
        : {
            runBounds: {
              limitNextRun: (limits: ExecutionLimits) => this.bounds.limitNextRun(group, limits),
              oomKills: () => group.oomKills(),
            },
          }),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = [...this.active];
    for (const entry of running) entry.kill();
    await Promise.allSettled(running.map((entry) => entry.done));
    this.bounds.close();
  }
}

/**
 * Spawns a bwrap command line built by {@link BwrapSandbox.commandLine}: fd 3 is bwrap's status channel,
 * fd 4 gets the syscall filter's BPF program (empty without one: bwrap is then not told to read it), the
 * request's files are fed to fds 5, 6, … in order; `outputs` pipes follow them (read by the caller),
 * then, with `control`, one socket for both directions. `stdio: "ignore"` gives bwrap /dev/null as
 * stdin and stdout (a launched program's), "pipe" the run's stdin and stdout pipes.
 */
function spawnBwrap(
  command: readonly string[],
  filter: Buffer | null,
  contents: readonly string[],
  options: { stdio: "pipe" | "ignore"; outputs?: number; control?: boolean } = { stdio: "pipe" },
): ChildProcess {
  const extra = [0, ...contents, ...Array(options.outputs ?? 0), ...(options.control === true ? [0] : [])];
  let child: ChildProcess;
  try {
    child = spawn(command[0] as string, command.slice(1), {
      // Own process group, so a kill reaches bwrap even if it forked; the program itself is in a new
      // session inside and dies with the pid namespace.
      detached: true,
      // Nothing of the server's environment reaches bwrap (which clears it inside anyway).
      env: {},
      stdio: [options.stdio, options.stdio, "pipe", "pipe", ...extra.map(() => "pipe" as const)],
    });
  } catch (e) {
    throw unavailable(`cannot spawn bwrap: ${(e as Error).message}`);
  }
  feed(child.stdio[SECCOMP_FD] as Writable, filter ?? "");
  contents.forEach((content, index) => {
    feed(child.stdio[FIRST_FILE_FD + index] as Writable, content);
  });
  return child;
}

/**
 * What `bwrap --help` prints (stdout and stderr; empty when it cannot run): the flags it knows. `facts`:
 * where it is remembered between processes (tests: a directory of their own).
 */
export function helpText(bwrap: string, facts: HostFactsCache = new HostFactsCache()): Promise<string> {
  const ask = () =>
    new Promise<string>((resolve) => {
      execFile(bwrap, ["--help"], { encoding: "utf8", timeout: 10_000 }, (_error, stdout, stderr) =>
        resolve(`${stdout ?? ""}${stderr ?? ""}`),
      );
    });
  // Remembered between processes (host-facts-cache.ts) only when it lists the one flag required: an
  // answer without it may be a bwrap that failed to run, and is asked again next time.
  return facts.remember(["bwrap --help", fileStamp(bwrap)], ask, {
    parse: (value) => (typeof value === "string" ? value : null),
    keep: (text) => text.includes("--size"),
  });
}

/**
 * The syscall filter, built by the sandbox's interpreter (it must import libseccomp's bindings, which
 * Debian installs for its /usr/bin/python3), or by Debian's when another interpreter is configured.
 */
async function syscallFilterFor(python: string): Promise<SyscallFilter> {
  try {
    return await loadSyscallFilter(python);
  } catch (error) {
    if (python === DEFAULT_FILTER_PYTHON || !existsSync(DEFAULT_FILTER_PYTHON)) throw error;
    return loadSyscallFilter(DEFAULT_FILTER_PYTHON);
  }
}

/** Writes `data` and closes; writes to a program that exited early fail with EPIPE, its business. */
function feed(stream: Writable, data: string | Buffer): void {
  stream.on("error", () => {});
  stream.end(data);
}

/**
 * Watches bwrap's status channel (fd 3) for the report that the program started; the returned function
 * says whether it has come. The program cannot forge it: it only runs after the report.
 */
function watchStarted(child: ChildProcess): () => boolean {
  let status = "";
  let started = false;
  (child.stdio[3] as Readable).on("data", (chunk: Buffer) => {
    if (status.length < STATUS_CAP_BYTES) status += chunk.toString("utf8");
    if (!started && status.includes('"child-pid"')) started = true;
  });
  return () => started;
}

/** Creates the bwrap backend; see {@link BwrapSandbox.create}. */
export function createBwrapSandbox(options: BwrapOptions = {}): Promise<BwrapSandbox> {
  return BwrapSandbox.create(options);
}
