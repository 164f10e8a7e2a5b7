/**
 * Bind sources the sandbox's unprivileged uid can open. Run as root, the bwrap backend drops to uid 65534
 * before bwrap makes its mounts (bwrap.ts), so a bind source under a private directory — this checkout's
 * node_modules in a 0700 home or a `mktemp -d` — is out of bwrap's reach and the sandbox does not start.
 * Such a source is copied once into a world-readable directory under the system temp directory, named by
 * the source's path and modification time (a reinstalled package gets a new copy), and bound from there.
 */
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** Whether every directory from `/` down to `path` lets others through, and `path` itself lets them read. */
export function reachableByOthers(path: string): boolean {
  let current = resolve(path);
  try {
    if ((statSync(current).mode & 0o005) !== 0o005) return false;
    for (;;) {
      const parent = dirname(current);
      if (parent === current) return true;
      if ((statSync(parent).mode & 0o001) === 0) return false;
      current = parent;
    }
  } catch {
    return false;
  }
}

/** `source` itself when others can reach it, else its world-readable copy (made on first use). */
export function reachableSource(source: string): string {
  if (reachableByOthers(source)) return source;
  const key = createHash("sha256")
    .update(`${resolve(source)}\u0000${statSync(source).mtimeMs}`)
    .digest("hex");
  const root = join(tmpdir(), "minedit-sandbox-binds");
  const copy = join(root, key.slice(0, 24));
  if (existsSync(copy)) return copy;
  mkdirSync(root, { recursive: true });
  chmodSync(root, 0o755);
  // Copied beside, then renamed: a concurrent first use, or one cut short, never binds half a copy.
  const partial = `${copy}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(source, partial, { recursive: true });
  chmodSync(partial, 0o755);
  try {
    renameSync(partial, copy);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(copy)) throw error;
  }
  return copy;
}
