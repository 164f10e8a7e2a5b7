/**
 * Sandboxes whose start was cut short by their server's abrupt death: found and killed when a process
 * makes its first bwrap backend (bwrap.ts), so a server restarted after a crash does not keep its
 * predecessor's.
 *
 * Why they exist: bwrap's child, which becomes pid 1 of the sandbox's pid namespace, waits on an eventfd
 * for its launcher to write the uid and gid maps, and only after that sets its parent-death signal
 * (bubblewrap.c main(), `read (child_wait_fd, &val, 8)`: in 0.8.0, Debian bookworm's, and still in
 * 0.11.1, containers/bubblewrap 124c4cd). A launcher that dies in between — `minedit serve` SIGKILLed
 * while its sandboxes start, `--die-with-parent` taking the launcher along — never writes, and the child
 * blocks for ever: no parent-death signal yet, and an eventfd has no end of file. Seen as 1–3 such
 * processes after 5 kills of a server just listening (its fork servers were starting).
 *
 * How one is told from a live sandbox: a process named `bwrap` that is pid 1 of a pid namespace of its
 * own, with minedit's sandbox layout among its arguments (the interpreter's directory, SANDBOX_BIN), whose
 * parent is not a `bwrap` — a live sandbox's pid 1 is always its launcher's child, and an orphan has
 * been reparented to an init or a subreaper. Processes of another user are left alone (the kill fails).
 */
import { readdir, readFile } from "node:fs/promises";
import { SANDBOX_BIN } from "./sandbox-env.js";

/** What {@link isOrphanedSandbox} looks at, read from /proc. */
export type ProcessFacts = {
  /** /proc/PID/comm, without its newline. */
  comm: string;
  /** The NSpid line of /proc/PID/status: the pid in each pid namespace, outermost first. */
  nsPids: readonly number[];
  /** The parent's comm ("" when the parent could not be read). */
  parentComm: string;
  /** /proc/PID/cmdline, split at its NUL bytes. */
  argv: readonly string[];
};

/**
 * Where to look and what marks a sandbox as minedit's: `marker` is an argument every such bwrap has
 * (tests give their stand-ins one of their own, so no other suite's backend kills them).
 */
export type OrphanSearch = { proc?: string; marker?: string };

/** Whether a process with these facts is a minedit sandbox's pid 1 whose launcher is gone. */
export function isOrphanedSandbox(facts: ProcessFacts, marker: string = SANDBOX_BIN): boolean {
  return (
    facts.comm === "bwrap" &&
    facts.nsPids.length >= 2 &&
    facts.nsPids[facts.nsPids.length - 1] === 1 &&
    facts.parentComm !== "bwrap" &&
    facts.argv.includes(marker)
  );
}

/** The pids of the orphaned sandboxes (a process that ends while it is read is skipped). */
export async function orphanedSandboxPids({ proc = "/proc", marker }: OrphanSearch = {}): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir(proc)) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // comm first: every other process is passed over after one small read.
      if ((await readFile(`${proc}/${name}/comm`, "utf8")).trimEnd() !== "bwrap") continue;
      const status = await readFile(`${proc}/${name}/status`, "utf8");
      const nsPids = (/^NSpid:\s*(.*)$/m.exec(status)?.[1] ?? "").split(/\s+/).filter(Boolean).map(Number);
      const parent = /^PPid:\s*(\d+)$/m.exec(status)?.[1];
      const parentComm =
        parent === undefined
          ? ""
          : await readFile(`${proc}/${parent}/comm`, "utf8").then(
              (c) => c.trimEnd(),
              () => "",
            );
      const argv = (await readFile(`${proc}/${name}/cmdline`, "utf8")).split("\0");
      if (isOrphanedSandbox({ comm: "bwrap", nsPids, parentComm, argv }, marker)) found.push(Number(name));
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  }
  return found;
}

/**
 * Kills (SIGKILL) the orphaned sandboxes; the number killed. Never throws: this is housekeeping, and a
 * host whose /proc cannot be read has nothing it could do.
 */
export async function killOrphanedSandboxes(
  search: OrphanSearch = {},
  kill: (pid: number, signal: NodeJS.Signals) => void = (pid, signal) => process.kill(pid, signal),
): Promise<number> {
  let killed = 0;
  try {
    for (const pid of await orphanedSandboxPids(search)) {
      try {
        kill(pid, "SIGKILL");
        killed++;
      } catch {
        // Gone already, or another user's.
      }
    }
  } catch {
    // No /proc to read.
  }
  return killed;
}
