/**
 * src/sandbox/orphaned-sandboxes.ts: a sandbox's pid 1 left blocked by a launcher that died is killed; a
 * live sandbox's, or any other bwrap, is not. The rule on facts written by hand, then on real processes
 * in a pid namespace of their own (unshare), named `bwrap` by the path they are started from: one whose
 * parent is not a bwrap (the orphan), one whose parent is (a live sandbox), and an orphan without
 * minedit's layout in its arguments (someone else's bwrap).
 *
 * The upstream behaviour this mirrors, read in containers/bubblewrap bubblewrap.c at v0.8.0 (Debian
 * bookworm's bwrap) and at 124c4cd (v0.11.1): in main(), the child reads `child_wait_fd` (an eventfd the
 * launcher writes once the uid maps are set) before any `handle_die_with_parent ()` of its own, so a
 * launcher killed in between leaves it blocked, pid 1 of its namespace, under whatever adopts it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  isOrphanedSandbox,
  killOrphanedSandboxes,
  orphanedSandboxPids,
  type ProcessFacts,
} from "../../src/sandbox/orphaned-sandboxes.js";
import { SANDBOX_BIN } from "../../src/sandbox/sandbox-env.js";

const ORPHAN: ProcessFacts = {
  comm: "bwrap",
  nsPids: [4242, 1],
  parentComm: "systemd",
  argv: ["/usr/bin/bwrap", "--unshare-all", "--dir", SANDBOX_BIN, "--chdir", "/tmp"],
};

describe("which processes are orphaned sandboxes", () => {
  test("a bwrap that is pid 1 of its own namespace, with minedit's layout, under anything but a bwrap", () => {
    expect(isOrphanedSandbox(ORPHAN)).toBe(true);
    expect(isOrphanedSandbox({ ...ORPHAN, parentComm: "" })).toBe(true);
    expect(isOrphanedSandbox({ ...ORPHAN, argv: ["--dir", "/opt/x"] }, "/opt/x")).toBe(true);
    expect(isOrphanedSandbox({ ...ORPHAN, nsPids: [10, 77, 1] })).toBe(true);
  });

  test("not a live sandbox, another pid of the namespace, the host's init, someone else's bwrap", () => {
    expect(isOrphanedSandbox({ ...ORPHAN, parentComm: "bwrap" })).toBe(false);
    expect(isOrphanedSandbox({ ...ORPHAN, nsPids: [4242, 2] })).toBe(false);
    expect(isOrphanedSandbox({ ...ORPHAN, nsPids: [1] })).toBe(false);
    expect(isOrphanedSandbox({ ...ORPHAN, argv: ["/usr/bin/bwrap", "--dir", "/app"] })).toBe(false);
    expect(isOrphanedSandbox(ORPHAN, "/opt/x")).toBe(false);
    expect(isOrphanedSandbox({ ...ORPHAN, argv: [`--dir=${SANDBOX_BIN}`] })).toBe(false);
    expect(isOrphanedSandbox({ ...ORPHAN, comm: "python3" })).toBe(false);
  });
});

describe("on real processes", () => {
  const dir = mkdtempSync(join(tmpdir(), "minedit-orphans-"));
  // The stand-ins carry a marker of their own instead of SANDBOX_BIN: the bwrap backends other suites
  // make meanwhile look for SANDBOX_BIN, and so neither kill them nor warn about them.
  const marker = `/opt/minedit-test-${randomBytes(6).toString("hex")}`;
  const search = { marker };
  const started: ChildProcess[] = [];
  const sandboxes: number[] = [];
  afterAll(() => {
    for (const pid of sandboxes) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Killed by the test itself.
      }
    }
    for (const child of started) {
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  });

  // The kernel names a process after the path it was started from: symlinks named bwrap to python3 (the
  // sandbox's pid 1 stand-in) and to unshare (a launcher stand-in).
  const fakeSandbox = join(dir, "bwrap");
  symlinkSync("/usr/bin/python3", fakeSandbox);
  mkdirSync(join(dir, "launcher"));
  const fakeLauncher = join(dir, "launcher", "bwrap");
  symlinkSync("/usr/bin/unshare", fakeLauncher);

  const commOf = (pid: string) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {
      return ""; // ended meanwhile
    }
  };

  /** Starts `launcher` making a user and pid namespace whose pid 1 is the fake sandbox; its host pid. */
  async function start(launcher: string, layout: string): Promise<number> {
    const child = spawn(
      launcher,
      [
        "--user",
        "--map-root-user",
        "--pid",
        "--fork",
        fakeSandbox,
        "-c",
        "import os, sys, time\nprint(open('/proc/self/stat').read().split()[0], flush=True)\ntime.sleep(120)",
        "--dir",
        layout,
      ],
      // stderr kept, not shown: unshare complains when the test kills its child ("sigprocmask unblock").
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    started.push(child);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // The namespace's own view says 1; the host pid is the launcher's child, found from /proc.
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once("data", () => resolve());
      child.once("exit", (code) => reject(new Error(`launcher exited with ${code}: ${stderr}`)));
    });
    // The launcher's child named bwrap (a helper unshare forks for the uid map may still be there).
    for (let attempt = 0; attempt < 200; attempt++) {
      const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter((pid) => pid !== "" && commOf(pid) === "bwrap");
      if (children.length === 1) {
        sandboxes.push(Number(children[0]));
        return Number(children[0]);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no single bwrap child under launcher ${child.pid}`);
  }

  test("the orphan is found and killed; the live sandbox and the stranger's are left alone", async () => {
    const orphan = await start("/usr/bin/unshare", marker);
    const live = await start(fakeLauncher, marker);
    const stranger = await start("/usr/bin/unshare", "/app");
    for (const pid of [orphan, live, stranger]) {
      expect(readFileSync(`/proc/${pid}/comm`, "utf8").trim()).toBe("bwrap");
      expect(readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(/^NSpid:\s+\d+\s+1$/m);
    }
    const gone = async (pid: number) => {
      for (let i = 0; i < 200 && existsSync(`/proc/${pid}/comm`); i++) {
        // A zombie until its parent (unshare) reaps it: gone once its state says so, or it is.
        const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
        if (state === "Z") return true;
        await new Promise((r) => setTimeout(r, 10));
      }
      return !existsSync(`/proc/${pid}/comm`);
    };
    const found = await orphanedSandboxPids(search);
    expect(found).toEqual([orphan]);
    // The default search (SANDBOX_BIN), which each process makes with its first bwrap backend, does not take it for minedit's.
    expect(await orphanedSandboxPids()).not.toContain(orphan);
    expect(found).not.toContain(live);
    expect(found).not.toContain(stranger);

    expect(await killOrphanedSandboxes(search)).toBe(1);
    expect(await gone(orphan)).toBe(true);
    expect(readFileSync(`/proc/${live}/stat`, "utf8").split(") ")[1]?.[0]).not.toBe("Z");
    expect(readFileSync(`/proc/${stranger}/stat`, "utf8").split(") ")[1]?.[0]).not.toBe("Z");
  });

  test("a /proc that cannot be read kills nothing and does not throw", async () => {
    const signals: number[] = [];
    expect(await killOrphanedSandboxes({ proc: join(dir, "no-proc") }, (pid) => signals.push(pid))).toBe(0);
    expect(signals).toEqual([]);
  });
});
