/**
 * Library views (runtime-libraries.ts) remembered on disk between processes. Computing a view asks dpkg
 * who owns every entry of the library directories: about a second on 2 cores, most of what `minedit
 * serve` waited for before it listened. Checking a remembered one is a stat per directory it listed.
 *
 * A view is filed under a key of everything it was computed from but the directories' contents: its
 * packages, the directories, dpkg's database (size and mtime of /var/lib/dpkg/status: any install or
 * removal changes them) and the code that planned it. The directories' contents are checked at each use:
 * the view is used only while every directory it listed has the mtime it had when listed (adding,
 * removing or renaming an entry changes it, a pip install into /usr/local included). Anything unreadable
 * or unexpected in a file is a miss: the view is computed again and the file replaced.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { LibraryView } from "./library-view.js";

/** Where views are remembered unless told otherwise. */
export function defaultLibraryViewCacheDir(): string {
  return join(homedir(), ".cache", "minedit", "library-views");
}

/** A directory's mtime in milliseconds, or null when it cannot be read (then nothing is remembered of it). */
export function directoryStamp(dir: string): number | null {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return null;
  }
}

const EntrySchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("bind"), path: z.string() }),
  z.object({ kind: z.literal("symlink"), path: z.string(), target: z.string() }),
  z.object({ kind: z.literal("dir"), path: z.string() }),
  z.object({ kind: z.literal("cover"), path: z.string(), by: z.enum(["package", "module", "nothing"]) }),
]);

const RememberedSchema = z.object({
  key: z.string(),
  view: z.object({
    hidden: z.array(z.string()),
    entries: z.array(EntrySchema),
    modules: z.array(z.string()),
    missingPackages: z.array(z.string()),
  }),
  /** Each directory the computation listed, with its mtime then. */
  listed: z.array(z.tuple([z.string(), z.number()])),
});

export class LibraryViewCache {
  constructor(private readonly dir: string = defaultLibraryViewCacheDir()) {}

  /** The file key's view is kept in (the key is hashed: it holds paths). */
  private path(key: string): string {
    return join(this.dir, `${createHash("sha256").update(key).digest("hex")}.json`);
  }

  /** The view remembered under `key`, if every directory it listed is as it was; else null. */
  read(key: string): LibraryView | null {
    let remembered: z.infer<typeof RememberedSchema>;
    try {
      remembered = RememberedSchema.parse(JSON.parse(readFileSync(this.path(key), "utf8")));
    } catch {
      return null;
    }
    // The key is stored too: a hash collision, or a file copied from another key, is a miss.
    if (remembered.key !== key) return null;
    if (remembered.listed.some(([dir, stamp]) => directoryStamp(dir) !== stamp)) return null;
    const { view } = remembered;
    return { ...view, modules: new Set(view.modules) };
  }

  /**
   * Remembers `view` under `key`, with the mtimes its directories had when they were listed (taken
   * before listing, so a change made meanwhile is a miss next time). A directory that could not be
   * stamped is not remembered. Written through a temporary file and a rename, so a reader never sees
   * half a file; a cache that cannot be written (a read-only home) only costs the next start its second.
   */
  write(key: string, view: LibraryView, listed: ReadonlyMap<string, number | null>): void {
    const stamps = [...listed];
    if (stamps.some(([, stamp]) => stamp === null)) return;
    const file = this.path(key);
    const tmp = `${file}.tmp-${process.pid}`;
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(
        tmp,
        JSON.stringify({ key, view: { ...view, modules: [...view.modules] }, listed: stamps }),
      );
      renameSync(tmp, file);
    } catch {
      // Not remembered: the view is computed again next time.
    }
  }
}
