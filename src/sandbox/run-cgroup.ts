/**
 * A cgroup per bwrap sandbox, so a run is bounded as a whole: its processes' resident memory together
 * (scratch files included: tmpfs pages are charged to the cgroup of who wrote them) and their number.
 * Per-process limits alone (RLIMIT_AS, RLIMIT_NPROC) let a run hold 64 × 1 GiB.
 *
 * The sandboxes' cgroups live under one group of this process, `minedit-<pid>`, made below this process's
 * own cgroup in each hierarchy (so whatever bounds this process bounds them too). Both cgroup versions:
 * v1 (a `memory` and a `pids` hierarchy, as on this project's machines) and v2 (one unified hierarchy
 * whose group of this process delegates `memory` and `pids` to its children). Making cgroups needs write
 * access there (root, or a delegated subtree): where there is none, {@link RunCgroups.open} says why and
 * the sandbox falls back to per-process limits (bwrap.ts warns once, naming what is then not bounded).
 *
 * A process joins a cgroup by writing its pid to the group's `cgroup.procs` before it starts anything
 * (sandbox/bwrap-enter.sh does it for bwrap, which then starts the whole sandbox inside); the cgroup is
 * removed once the sandbox is gone. Groups of a crashed server (`minedit-<pid>` whose pid no longer
 * runs, every process in them gone) are removed at the next start.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** One hierarchy a run's cgroup is made in. */
type Hierarchy = {
  /** Where this process's own group is, in the mounted hierarchy. */
  base: string;
  /** The controllers (v1: the hierarchy's; v2: those delegated) used here. */
  controllers: readonly ("memory" | "pids")[];
  version: 1 | 2;
};

const GROUP_PREFIX = "minedit-";

/** Mount point and controllers of every cgroup hierarchy, from /proc/self/mountinfo. */
export function cgroupMounts(
  mountinfo: string,
): { root: string; point: string; version: 1 | 2; options: string[] }[] {
  const found = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (left === undefined || right === undefined) continue;
    const fields = left.split(" ");
    const [fsType, , superOptions = ""] = right.split(" ");
    if (fsType !== "cgroup" && fsType !== "cgroup2") continue;
    found.push({
      root: fields[3] ?? "/",
      point: (fields[4] ?? "").replace(/\\040/g, " "),
      version: fsType === "cgroup2" ? (2 as const) : (1 as const),
      options: superOptions.split(","),
    });
  }
  return found;
}

/** This process's group in each hierarchy, from /proc/self/cgroup: v1 by controller, v2 under "". */
export function ownGroups(cgroup: string): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of cgroup.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (match === null) continue;
    for (const controller of (match[1] as string).split(",")) groups.set(controller, match[2] as string);
  }
  return groups;
}

/**
 * Where group `path` (as /proc/self/cgroup names it) is in a hierarchy mounted at `point` from `root`
 * (not "/" when the mount shows only part of the hierarchy, e.g. in a container): null if outside it.
 */
export function located(point: string, root: string, path: string): string | null {
  if (root === "/") return join(point, path);
  if (path === root || path.startsWith(`${root}/`)) return join(point, path.slice(root.length));
  return null;
}

/** Sandboxes' groups made by this process so far: names them (several backends may share the parent). */
let made = 0;

export class RunCgroups {
  private constructor(
    private readonly hierarchies: readonly Hierarchy[],
    /** This process's parent group in each hierarchy. */
    private readonly parents: readonly string[],
  ) {}

  /**
   * The groups of this process's sandboxes, made now; or why there can be none here (no cgroup
   * hierarchy with memory and pids controllers this process may write to).
   */
  static open(): RunCgroups | { unavailable: string } {
    let info: string;
    let own: Map<string, string>;
    try {
      info = readFileSync("/proc/self/mountinfo", "utf8");
      own = ownGroups(readFileSync("/proc/self/cgroup", "utf8"));
    } catch (error) {
      return { unavailable: `cannot read this process's cgroups (${(error as Error).message})` };
    }
    const all = cgroupMounts(info);
    const hierarchies: Hierarchy[] = [];
    const v1 = (controller: "memory" | "pids") => {
      const mount = all.find((m) => m.version === 1 && m.options.includes(controller));
      const path = own.get(controller);
      if (mount === undefined || path === undefined) return null;
      const base = located(mount.point, mount.root, path);
      return base === null ? null : { base, controllers: [controller], version: 1 as const };
    };
    const memory = v1("memory");
    const pids = v1("pids");
    if (memory !== null && pids !== null) hierarchies.push(memory, pids);
    else {
      const unified = all.find((m) => m.version === 2);
      const path = own.get("");
      const base =
        unified === undefined || path === undefined ? null : located(unified.point, unified.root, path);
      if (base === null) return { unavailable: "no cgroup hierarchy has the memory and pids controllers" };
      // v2: a group with processes may not have children with controllers (the "no internal processes"
      // rule), so this works only where this process's group delegates them (a service's own subtree).
      let delegated: string[] = [];
      try {
        delegated = readFileSync(join(base, "cgroup.subtree_control"), "utf8").trim().split(/\s+/);
      } catch {
        // no such file: not a usable v2 group
      }
      if (!delegated.includes("memory") || !delegated.includes("pids")) {
        return {
          unavailable: `this process's cgroup (${base}) does not delegate the memory and pids controllers to its children`,
        };
      }
      hierarchies.push({ base, controllers: ["memory", "pids"], version: 2 });
    }
    const parents: string[] = [];
    try {
      for (const hierarchy of hierarchies) {
        removeOrphans(hierarchy.base);
        const parent = join(hierarchy.base, `${GROUP_PREFIX}${process.pid}`);
        makeParent(parent, hierarchy);
        parents.push(parent);
      }
    } catch (error) {
      for (const parent of parents) tryRmdir(parent);
      return {
        unavailable: `cannot make cgroups (${(error as Error).message}): run as root or delegate a cgroup subtree`,
      };
    }
    return new RunCgroups(hierarchies, parents);
  }

  /** A new group for one sandbox: memory (resident, swap included where it is counted) and process limits. */
  create(limits: { memoryBytes: number; maxProcesses: number }): RunCgroup {
    const name = `s${made++}`;
    const dirs: { dir: string; hierarchy: Hierarchy }[] = [];
    try {
      this.hierarchies.forEach((hierarchy, index) => {
        const parent = this.parents[index] as string;
        // Another backend of this process may have removed the parent when it closed.
        if (!existsSync(parent)) makeParent(parent, hierarchy);
        const dir = join(parent, name);
        mkdirSync(dir);
        dirs.push({ dir, hierarchy });
      });
      const group = new RunCgroup(dirs);
      group.setMemory(limits.memoryBytes);
      group.setProcesses(limits.maxProcesses);
      return group;
    } catch (error) {
      for (const { dir } of dirs) tryRmdir(dir);
      throw error;
    }
  }

  /** Removes this process's parent groups if no sandbox's group is left in them. */
  close(): void {
    for (const parent of this.parents) tryRmdir(parent);
  }
}

/** The cgroup of one sandbox (in each hierarchy used). */
export class RunCgroup {
  constructor(readonly dirs: readonly { dir: string; hierarchy: Hierarchy }[]) {}

  /** The files a process writes its pid to, to join the group in every hierarchy. */
  get procsFiles(): string[] {
    return this.dirs.map(({ dir }) => join(dir, "cgroup.procs"));
  }

  /**
   * Sets the memory limit: resident memory of every process in the group together, tmpfs pages they
   * wrote included, and no swap on top.
   */
  setMemory(bytes: number): void {
    for (const { dir, hierarchy } of this.dirs) {
      if (!hierarchy.controllers.includes("memory")) continue;
      if (hierarchy.version === 2) {
        writeFileSync(join(dir, "memory.max"), String(bytes));
        if (existsSync(join(dir, "memory.swap.max"))) writeFileSync(join(dir, "memory.swap.max"), "0");
      } else {
        // v1 refuses memory+swap below memory: raise memory+swap first when raising, lower it last.
        const memsw = join(dir, "memory.memsw.limit_in_bytes");
        const hasSwap = existsSync(memsw);
        const current = Number(readFileSync(join(dir, "memory.limit_in_bytes"), "utf8"));
        if (hasSwap && bytes > current) writeFileSync(memsw, String(bytes));
        writeFileSync(join(dir, "memory.limit_in_bytes"), String(bytes));
        if (hasSwap && bytes <= current) writeFileSync(memsw, String(bytes));
      }
    }
  }

  /** Sets the limit on processes (and threads) alive in the group at once. */
  setProcesses(count: number): void {
    for (const { dir, hierarchy } of this.dirs) {
      if (hierarchy.controllers.includes("pids")) writeFileSync(join(dir, "pids.max"), String(count));
    }
  }

  /** How many processes the kernel killed in this group for want of memory so far. */
  oomKills(): number {
    for (const { dir, hierarchy } of this.dirs) {
      if (!hierarchy.controllers.includes("memory")) continue;
      const file = join(dir, hierarchy.version === 2 ? "memory.events" : "memory.oom_control");
      try {
        const match = /^oom_kill (\d+)$/m.exec(readFileSync(file, "utf8"));
        return match === null ? 0 : Number(match[1]);
      } catch {
        return 0;
      }
    }
    return 0;
  }

  /** Bytes of memory the group holds now (its processes' and their tmpfs files'). */
  memoryBytes(): number {
    for (const { dir, hierarchy } of this.dirs) {
      if (!hierarchy.controllers.includes("memory")) continue;
      try {
        const file = hierarchy.version === 2 ? "memory.current" : "memory.usage_in_bytes";
        return Number(readFileSync(join(dir, file), "utf8"));
      } catch {
        return 0;
      }
    }
    return 0;
  }

  /**
   * Whether no process is in the group any more, nor charged to it (in any hierarchy): what a group must
   * be to serve another sandbox. Membership alone is not enough: a kernel seen here (6.18, cgroup v1)
   * keeps one pid charged per sandbox that ran in a group after its last task is gone, so a reused group
   * gave each run fewer processes than its limit until forks failed at once.
   */
  empty(): boolean {
    try {
      return this.dirs.every(
        ({ dir, hierarchy }) =>
          readFileSync(join(dir, "cgroup.procs"), "utf8").trim() === "" &&
          (!hierarchy.controllers.includes("pids") ||
            readFileSync(join(dir, "pids.current"), "utf8").trim() === "0"),
      );
    } catch {
      return false;
    }
  }

  /** Removes the group once its processes are gone (a group with a process left is kept, and said so). */
  remove(): boolean {
    let removed = true;
    for (const { dir } of this.dirs) removed = tryRmdir(dir) && removed;
    return removed;
  }
}

function makeParent(parent: string, hierarchy: Hierarchy): void {
  mkdirSync(parent, { recursive: true });
  // v2: the sandboxes' groups get the controllers from this one.
  if (hierarchy.version === 2) writeFileSync(join(parent, "cgroup.subtree_control"), "+memory +pids");
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** Removes the groups of servers that are gone (`minedit-<pid>`, pid not running), with their sandboxes'. */
function removeOrphans(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(GROUP_PREFIX)) continue;
    const pid = Number(name.slice(GROUP_PREFIX.length));
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || running(pid)) continue;
    const dir = join(base, name);
    try {
      for (const child of readdirSync(dir, { withFileTypes: true })) {
        if (child.isDirectory()) tryRmdir(join(dir, child.name));
      }
    } catch {
      // gone meanwhile
    }
    tryRmdir(dir);
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
