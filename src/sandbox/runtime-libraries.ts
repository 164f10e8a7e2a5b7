/**
 * Which of the host's Python libraries a runtime's bwrap sandbox sees: exactly its own. The sandbox binds
 * the host's /usr, and with it every directory of installed libraries (/usr/lib/python3/dist-packages,
 * /usr/local/lib/python3.X/dist-packages, …): without this, the `stdlib` runtime would import numpy or run
 * `pip` wherever the host has them, while Docker's stdlib image (sandbox/docker/build-image.sh) has
 * neither, and a verdict would depend on what else the host has installed.
 *
 * So every library directory of the interpreter ({@link interpreterLibraryDirs}) gets an empty read-only
 * tmpfs, and a runtime's own entries are bound back into it, read-only: those of its Debian packages and
 * of their `Depends`/`Pre-Depends` closure, as dpkg records them — the set `apt-get install
 * --no-install-recommends` puts in the runtime's Docker image. The `stdlib` runtime names no package and
 * sees none. An entry that packages outside the closure share (a namespace directory such as `google`)
 * is made a directory of its own, with the closure's part of it bound inside; `__pycache__` directories,
 * which no package owns (Debian compiles them at install), are bound with their directory: a cached
 * module without its source is never imported.
 *
 * The standard library's directory has the same problem on a smaller scale: Debian ships tkinter, lib2to3,
 * ensurepip, most of distutils and the test suite in packages of their own, which a runtime's Docker image
 * has only when its packages depend on them. There the few entries of packages outside the runtime (and
 * of the interpreter's own `python3`) are covered instead, since nearly all of the directory is the
 * runtime's: a module by a package that raises ModuleNotFoundError as a missing one does
 * (sandbox/python/absent-module), an extension module by an empty file; a directory mostly of other
 * packages (the test suite) is hidden and the runtime's part bound back, as above.
 *
 * Each bind is a mount bwrap makes at every sandbox start, and bwrap re-reads the mount table for each,
 * so the cost grows with the entries (docs/sandbox.md has the measurements): entries are bound whole, not
 * file by file. The view is computed from dpkg once per runtime and dpkg state ({@link libraryView}).
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { runHostCommand, SYSTEM_ENV } from "./host-command.js";
import { DPKG_STATUS, fileStamp, HostFactsCache } from "./host-facts-cache.js";
import type { LibraryEntry, LibraryView } from "./library-view.js";
import { directoryStamp, LibraryViewCache } from "./library-view-cache.js";

export type { LibraryEntry, LibraryView } from "./library-view.js";

/** One installed package, as its dependency closure needs it. */
export type InstalledPackage = {
  /** `Pre-Depends` and `Depends`: groups of alternatives (`a | b`), package names without versions. */
  depends: string[][];
  /** The virtual packages it provides. */
  provides: string[];
};

/** The `dpkg-query -W` format {@link parseInstalledPackages} reads. */
export const PACKAGES_FORMAT =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format fields, not JavaScript's
  "${Package}\\t${db:Status-Abbrev}\\t${Provides}\\t${Pre-Depends}\\t${Depends}\\n";

/** `a (>= 1):any` → `a`. */
function packageName(relation: string): string {
  return (relation.trim().split(/[\s(]/, 1)[0] ?? "").split(":", 1)[0] ?? "";
}

/** The installed packages (status `ii`) of a `dpkg-query -W -f={@link PACKAGES_FORMAT}` listing. */
export function parseInstalledPackages(listing: string): Map<string, InstalledPackage> {
  const installed = new Map<string, InstalledPackage>();
  for (const line of listing.split("\n")) {
    const [name, status, provides = "", preDepends = "", depends = ""] = line.split("\t");
    if (name === undefined || name === "" || status?.startsWith("ii") !== true) continue;
    // A package installed for two architectures is listed twice: one entry with both lists.
    const entry = installed.get(name) ?? { depends: [], provides: [] };
    for (const field of [preDepends, depends]) {
      for (const group of field.split(",")) {
        const alternatives = group.split("|").map(packageName).filter(Boolean);
        if (alternatives.length > 0) entry.depends.push(alternatives);
      }
    }
    entry.provides.push(...provides.split(",").map(packageName).filter(Boolean));
    installed.set(name, entry);
  }
  return installed;
}

/**
 * The packages `roots` need, themselves included: each dependency group is satisfied by its first
 * alternative that is installed, or failing that provided by an installed package (what apt picks for a
 * new root filesystem, where none is installed yet). `missing`: roots that are not installed.
 */
export function dependencyClosure(
  roots: readonly string[],
  installed: ReadonlyMap<string, InstalledPackage>,
): { packages: Set<string>; missing: string[] } {
  const providers = new Map<string, string[]>();
  for (const [name, { provides }] of installed) {
    for (const virtual of provides) providers.set(virtual, [...(providers.get(virtual) ?? []), name]);
  }
  const satisfying = (alternatives: readonly string[]): string | undefined => {
    for (const name of alternatives) if (installed.has(name)) return name;
    for (const name of alternatives) {
      const provider = providers.get(name)?.[0];
      if (provider !== undefined) return provider;
    }
    return undefined;
  };
  const packages = new Set<string>();
  const missing = roots.filter((root) => !installed.has(root));
  const pending = roots.filter((root) => installed.has(root));
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (packages.has(name)) continue;
    packages.add(name);
    for (const group of installed.get(name)?.depends ?? []) {
      const found = satisfying(group);
      if (found !== undefined && !packages.has(found)) pending.push(found);
    }
  }
  return { packages, missing };
}

/** The packages owning each path of a `dpkg-query -S PATH…` answer (`a, b:amd64: /path` lines). */
export function parseOwners(answer: string): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const line of answer.split("\n")) {
    // Diversions are reported on lines of their own ("diversion by X from: /path").
    if (line.startsWith("diversion by ")) continue;
    const at = line.indexOf(": /");
    if (at <= 0) continue;
    const names = line.slice(0, at).split(",").map(packageName).filter(Boolean);
    owners.set(line.slice(at + 2), names);
  }
  return owners;
}

/** A directory's entry as {@link planDirectory} needs it: its name and, for a symlink, its target. */
export type DirectoryChild = { name: string; symlinkTarget: string | null; directory: boolean };

/**
 * What of directory `dir` the runtime sees, given the packages owning each child (`owners`, by path;
 * absent: owned by none) and the runtime's packages: children owned by its packages alone are bound (or
 * re-made, for a symlink); children it shares with other packages are made directories and listed in
 * `recurse`, to be planned the same way; an unowned `__pycache__` directory is bound when anything else
 * is; everything else stays hidden.
 */
export function planDirectory(
  dir: string,
  children: readonly DirectoryChild[],
  owners: ReadonlyMap<string, readonly string[]>,
  packages: ReadonlySet<string>,
): { entries: LibraryEntry[]; recurse: string[] } {
  const entries: LibraryEntry[] = [];
  const recurse: string[] = [];
  let cache: LibraryEntry | null = null;
  for (const child of [...children].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, child.name);
    const owning = owners.get(path) ?? [];
    if (
      owning.length === 0 &&
      child.name === "__pycache__" &&
      child.directory &&
      child.symlinkTarget === null
    ) {
      cache = { kind: "bind", path };
    } else if (owning.length > 0 && owning.every((name) => packages.has(name))) {
      entries.push(
        child.symlinkTarget === null
          ? { kind: "bind", path }
          : { kind: "symlink", path, target: child.symlinkTarget },
      );
    } else if (owning.some((name) => packages.has(name))) {
      if (child.directory && child.symlinkTarget === null) {
        entries.push({ kind: "dir", path });
        recurse.push(path);
      } else {
        // A file two packages both ship (dpkg allows it only when identical): the runtime's copy.
        entries.push({ kind: "bind", path });
      }
    }
  }
  // Only beside modules of the runtime's: alone it would give nothing but the cost of a mount.
  if (cache !== null && entries.length > 0) entries.push(cache);
  return { entries, recurse };
}

/** Which packages own a child: the runtime's only (or none), outside packages only, or both. */
function ownership(
  path: string,
  owners: ReadonlyMap<string, readonly string[]>,
  packages: ReadonlySet<string>,
): "runtime" | "outside" | "both" {
  const owning = owners.get(path) ?? [];
  const inside = owning.filter((name) => packages.has(name)).length;
  return inside === owning.length ? "runtime" : inside === 0 ? "outside" : "both";
}

/**
 * What of one of the interpreter's own directories (`dir`, the standard library's or one below it) a
 * runtime of `packages` does not see: each child owned only by packages outside it is covered (a
 * directory or `.py` file with a module's name by a package that fails to import, an extension module by
 * an empty file; a name Python cannot import is left); children owned by both are listed in `shared`,
 * to be planned on their own ({@link outsideMostly} says how); `skip`: children planned elsewhere (the
 * library directories).
 */
export function planOwnDirectory(
  dir: string,
  children: readonly DirectoryChild[],
  owners: ReadonlyMap<string, readonly string[]>,
  packages: ReadonlySet<string>,
  skip: ReadonlySet<string> = new Set(),
): { entries: LibraryEntry[]; shared: string[] } {
  const entries: LibraryEntry[] = [];
  const shared: string[] = [];
  for (const child of [...children].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, child.name);
    if (skip.has(path) || child.symlinkTarget !== null) continue;
    const owned = ownership(path, owners, packages);
    if (owned === "both" && child.directory) shared.push(path);
    if (owned !== "outside") continue;
    if (child.directory) {
      if (PACKAGE_DIR.test(child.name)) entries.push({ kind: "cover", path, by: "package" });
    } else if (child.name.endsWith(".py")) {
      if (moduleOfEntry(child.name) !== null) entries.push({ kind: "cover", path, by: "module" });
    } else if (moduleOfEntry(child.name) !== null) {
      entries.push({ kind: "cover", path, by: "nothing" });
    }
  }
  return { entries, shared };
}

/**
 * Whether a directory shared by the runtime's packages and others is mostly the others' (the test suite
 * beside the standard library's `test.support`): then it is hidden and the runtime's part bound back
 * ({@link planDirectory}), which takes fewer mounts than covering the others' part ({@link planOwnDirectory}).
 */
export function outsideMostly(
  dir: string,
  children: readonly DirectoryChild[],
  owners: ReadonlyMap<string, readonly string[]>,
  packages: ReadonlySet<string>,
): boolean {
  const outside = children.filter((c) => ownership(join(dir, c.name), owners, packages) === "outside");
  return outside.length > children.length - outside.length;
}

const MODULE_FILE = /^([A-Za-z_][A-Za-z0-9_]*)(?:\.py|(?:\.[A-Za-z0-9_-]+)?\.so)$/;
const PACKAGE_DIR = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The module a library directory's entry named `name` gives, or null (metadata, `.pth` files, …). */
export function moduleOfEntry(name: string): string | null {
  if (PACKAGE_DIR.test(name)) return name === "__pycache__" ? null : name;
  return MODULE_FILE.exec(name)?.[1] ?? null;
}

/**
 * The bwrap arguments that give a sandbox `view` (after /usr is bound, before `--remount-ro /`); `covers`:
 * where the host keeps the package that fails to import (sandbox/python/absent-module) and its
 * `__init__.py`, which cover a module of a package outside the runtime.
 */
export function bwrapLibraryArgs(view: LibraryView, covers: { package: string; module: string }): string[] {
  const args: string[] = [];
  for (const dir of view.hidden) args.push("--tmpfs", dir);
  for (const entry of view.entries) {
    if (entry.kind === "bind") args.push("--ro-bind", entry.path, entry.path);
    else if (entry.kind === "symlink") args.push("--symlink", entry.target, entry.path);
    else if (entry.kind === "dir") args.push("--dir", entry.path);
    else {
      const source =
        entry.by === "package" ? covers.package : entry.by === "module" ? covers.module : "/dev/null";
      args.push("--ro-bind", source, entry.path);
    }
  }
  // bwrap's --tmpfs is writable; read-only like the rest of /usr (the binds inside already are).
  for (const dir of view.hidden) args.push("--remount-ro", dir);
  return args;
}

const LIBRARY_DIRS =
  'import json, site, sysconfig\nprint(json.dumps({"site": site.getsitepackages(), "stdlib": sysconfig.get_paths()["stdlib"]}))';

/** Where an interpreter finds modules: its library directories and its standard library's. */
export type LibraryDirs = { site: readonly string[]; stdlib: string | null };

const isDirectory = (dir: string) => {
  try {
    return lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
};

/** What {@link LIBRARY_DIRS} prints. */
const FoundDirsSchema = z.object({ site: z.array(z.string()), stdlib: z.string() });

/**
 * The directories the interpreter at `pythonPath` finds modules in: its library directories
 * (`site.getsitepackages()`: Debian's /usr/local/lib/python3.X/dist-packages, /usr/lib/python3/dist-packages
 * and /usr/lib/python3.X/dist-packages; another build's `PREFIX/lib/python3.X/site-packages`) and its
 * standard library's (/usr/lib/python3.X), those that exist as directories. Throws when the interpreter
 * cannot be run.
 */
export async function interpreterLibraryDirs(
  pythonPath: string,
  facts: HostFactsCache = new HostFactsCache(),
): Promise<LibraryDirs> {
  const ask = async () => {
    const { code, stdout, stderr } = await runHostCommand(pythonPath, ["-s", "-c", LIBRARY_DIRS], {});
    if (code !== 0) {
      throw new Error(
        `cannot ask ${pythonPath} for its library directories: ${stderr.trim() || `exit ${code}`}`,
      );
    }
    return FoundDirsSchema.parse(JSON.parse(stdout));
  };
  // What the interpreter answers is remembered between processes (host-facts-cache.ts); which of the
  // directories exist is looked at each time.
  const found = await facts.remember(["library directories", fileStamp(pythonPath), LIBRARY_DIRS], ask, {
    parse: (value) => FoundDirsSchema.safeParse(value).data ?? null,
  });
  return {
    site: [...new Set(found.site)].filter(isDirectory),
    stdlib: isDirectory(found.stdlib) ? found.stdlib : null,
  };
}

/** The children of `dir` on the host; none when it cannot be read. */
function childrenOf(dir: string): DirectoryChild[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    try {
      const symlink = lstatSync(path).isSymbolicLink();
      let directory = !symlink && lstatSync(path).isDirectory();
      if (symlink) {
        try {
          directory = statSync(path).isDirectory();
        } catch {
          directory = false;
        }
      }
      return [{ name, symlinkTarget: symlink ? readlinkSync(path) : null, directory }];
    } catch {
      return [];
    }
  });
}

/** The owners of `paths` (dpkg-query -S; a path no package owns is absent). */
async function ownersOf(paths: readonly string[]): Promise<Map<string, string[]>> {
  if (paths.length === 0) return new Map();
  const answer = await runHostCommand("dpkg-query", ["-S", ...paths], SYSTEM_ENV);
  // Exit 1: some path is owned by no package (`__pycache__`, something pip installed): left hidden.
  if (answer.code !== 0 && answer.code !== 1) {
    throw new Error(`dpkg-query -S failed (exit ${answer.code}): ${answer.stderr.trim().slice(0, 500)}`);
  }
  return parseOwners(answer.stdout);
}

/** How a directory is planned: bound back into its tmpfs, covered entry by entry, or one of the two. */
type Planning = {
  dir: string;
  how: "bind back" | "cover" | "either";
  /** A library directory itself: its entries give the runtime's modules. */
  top: boolean;
  /** In the standard library's directory, which is judged with the interpreter's packages. */
  own: boolean;
};

/**
 * The view of packages `roots` over `dirs` (see {@link libraryView}), computed from dpkg; `listed` gets
 * each directory read, with its mtime from just before (null without dpkg: such a view is not kept).
 */
async function computeView(
  roots: readonly string[],
  dirs: LibraryDirs,
  listed: Map<string, number | null>,
): Promise<LibraryView> {
  const listing = await runHostCommand("dpkg-query", ["-W", `-f=${PACKAGES_FORMAT}`], SYSTEM_ENV);
  if (listing.code !== 0) {
    // Without dpkg the standard library's runtime still sees no library; no other can be told apart.
    if (roots.length === 0) {
      listed.set(DPKG_STATUS, null);
      return { hidden: dirs.site, entries: [], modules: new Set(), missingPackages: [] };
    }
    throw new Error(
      `dpkg-query -W failed (${listing.stderr.trim() || `exit ${listing.code}`}): a runtime's libraries are ` +
        "found from its Debian packages",
    );
  }
  const installed = parseInstalledPackages(listing.stdout);
  const { packages, missing } = dependencyClosure(roots, installed);
  // The standard library's part is judged against Debian's interpreter package as well, which every
  // runtime's image has (build-image.sh); another interpreter's standard library is no package's.
  const withInterpreter = dependencyClosure(["python3", ...roots], installed).packages;
  const hidden = [...dirs.site];
  const entries: LibraryEntry[] = [];
  const modules = new Set<string>();
  const site = new Set(dirs.site);
  let level: Planning[] = [
    // The standard library's runtime binds nothing back: its library directories need no listing.
    ...(packages.size === 0 ? [] : dirs.site).map((dir) => ({
      dir,
      how: "bind back" as const,
      top: true,
      own: false,
    })),
    ...(dirs.stdlib !== null && installed.has("python3")
      ? [{ dir: dirs.stdlib, how: "cover" as const, top: false, own: true }]
      : []),
  ];
  while (level.length > 0) {
    const read = level.map((planning) => {
      listed.set(planning.dir, directoryStamp(planning.dir));
      return { ...planning, children: childrenOf(planning.dir) };
    });
    const owners = await ownersOf(
      read.flatMap(({ dir, children }) => children.map((c) => join(dir, c.name))),
    );
    const next: Planning[] = [];
    for (const { dir, how, top, own, children } of read) {
      const ours = own ? withInterpreter : packages;
      if (how === "cover" || (how === "either" && !outsideMostly(dir, children, owners, ours))) {
        const plan = planOwnDirectory(dir, children, owners, ours, site);
        entries.push(...plan.entries);
        next.push(...plan.shared.map((path) => ({ dir: path, how: "either" as const, top: false, own })));
        continue;
      }
      if (how === "either") hidden.push(dir);
      const plan = planDirectory(dir, children, owners, ours);
      entries.push(...plan.entries);
      if (top) {
        for (const entry of plan.entries) {
          const module = moduleOfEntry(entry.path.slice(dir.length + 1));
          if (module !== null) modules.add(module);
        }
      }
      next.push(...plan.recurse.map((path) => ({ dir: path, how: "bind back" as const, top: false, own })));
    }
    level = next;
  }
  return { hidden, entries, modules, missingPackages: missing };
}

const views = new Map<string, { stamp: string; view: Promise<LibraryView> }>();

/** dpkg's database as a stamp (host-facts-cache.ts `fileStamp`; "none" without one): views are computed
 * again when it changes (a package installed or removed). */
function dpkgStamp(): string {
  return fileStamp(DPKG_STATUS) ?? "none";
}

/** A digest of this module as it runs: a view planned by other code is not reused from disk. */
let codeDigest: string | undefined;
function planningCode(): string {
  codeDigest ??= createHash("sha256")
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest("hex");
  return codeDigest;
}

/**
 * What a sandbox of Debian packages `roots` (a runtime's, runtimes.ts `debianPackages`) sees of the
 * directories `dirs` ({@link interpreterLibraryDirs}): computed once per package set and dpkg state (a
 * second of dpkg-query on 2 cores), then shared in this process and remembered on disk for the next
 * (library-view-cache.ts says when a remembered view is used). Rejects on a host without dpkg-query when
 * `roots` is not empty.
 */
export function libraryView(
  roots: readonly string[],
  dirs: LibraryDirs,
  cache: LibraryViewCache = new LibraryViewCache(),
): Promise<LibraryView> {
  const stamp = dpkgStamp();
  const key = JSON.stringify([[...roots].sort(), dirs]);
  const cached = views.get(key);
  if (cached !== undefined && cached.stamp === stamp) return cached.view;
  const diskKey = JSON.stringify([key, stamp, planningCode()]);
  const view = (async () => {
    const remembered = cache.read(diskKey);
    if (remembered !== null) return remembered;
    const listed = new Map<string, number | null>();
    const computed = await computeView(roots, dirs, listed);
    cache.write(diskKey, computed, listed);
    return computed;
  })();
  views.set(key, { stamp, view });
  // A failed computation is tried again next time.
  view.catch(() => {
    if (views.get(key)?.view === view) views.delete(key);
  });
  return view;
}
