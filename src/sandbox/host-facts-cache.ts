/**
 * What the bwrap backend asks the host at each start, remembered on disk between processes: bwrap's
 * `--help` (which flags it has), the interpreter's library directories and the syscall filter's names and
 * program (bwrap.ts, runtime-libraries.ts, syscall-filter.ts). Each answer is a child process — the
 * filter's an interpreter importing libseccomp — and on 2 cores `minedit serve`'s start is CPU-bound:
 * they were ~0.15 s of its CPU and three of its process starts.
 *
 * A fact is filed under a key of everything its answer depends on: the asked binaries' identity (path,
 * size, mtime, ctime, inode: an upgrade or a reinstall changes them), dpkg's database (its size and mtime:
 * installing or removing any package — libseccomp's, bubblewrap's, Python's — changes them) and what was
 * asked (the question's text, the code that asks it). A host without dpkg's database remembers nothing:
 * every start asks again. Anything unreadable or unexpected in a file is a miss; the fact is asked again
 * and the file replaced. The files sit in the user's own cache directory, beside the library views
 * (library-view-cache.ts), which are as much a part of what a sandbox is given.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where facts are remembered unless told otherwise. */
export function defaultHostFactsCacheDir(): string {
  return join(homedir(), ".cache", "minedit", "host-facts");
}

/** dpkg's database: when it changes (a package installed or removed), every fact is asked again. */
export const DPKG_STATUS = "/var/lib/dpkg/status";

/** A file's identity as a stamp (path, size, mtime, ctime, inode), or null when it cannot be read. */
export function fileStamp(path: string): string | null {
  try {
    const s = statSync(path);
    return JSON.stringify([path, s.size, s.mtimeMs, s.ctimeMs, s.ino]);
  } catch {
    return null;
  }
}

/** How a fact is computed, read back from a file, and written to one. */
export type FactCodec<T> = {
  /** The fact from what a file holds, or null when that is not one (a miss). */
  parse: (value: unknown) => T | null;
  /** What the file holds (default: the fact itself, as JSON). */
  serialize?: (fact: T) => unknown;
  /** Whether a fact is worth remembering (default: all): an answer that may be a passing failure is not. */
  keep?: (fact: T) => boolean;
};

export class HostFactsCache {
  constructor(
    private readonly dir: string = defaultHostFactsCacheDir(),
    private readonly dpkgStatus: string = DPKG_STATUS,
  ) {}

  /**
   * The fact `parts` name, remembered or computed now by `compute`. `parts` are what the answer depends
   * on besides the host's packages (stamps of the files asked, the question); a part that is null (a file
   * that cannot be stamped) means nothing is remembered. A computation that rejects is not remembered.
   */
  async remember<T>(
    parts: readonly (string | null)[],
    compute: () => Promise<T>,
    codec: FactCodec<T>,
  ): Promise<T> {
    const remembered = this.lookup(parts, codec);
    if (remembered !== null) return remembered;
    const fact = await compute();
    this.store(parts, fact, codec);
    return fact;
  }

  /** The fact remembered under `parts`, or null (not remembered, unreadable, or not a fact). */
  lookup<T>(parts: readonly (string | null)[], codec: FactCodec<T>): T | null {
    const at = this.fileOf(parts);
    if (at === null) return null;
    try {
      const stored: unknown = JSON.parse(readFileSync(at.file, "utf8"));
      // The key is stored too: a hash collision, or a file copied from another key, is a miss.
      if (typeof stored !== "object" || stored === null || (stored as { key?: unknown }).key !== at.key) {
        return null;
      }
      return codec.parse((stored as { value?: unknown }).value);
    } catch {
      return null;
    }
  }

  /**
   * Remembers `fact` under `parts`: through a temporary file and a rename, so a reader never sees half a
   * file; a cache that cannot be written (a read-only home) only costs the next start its questions.
   */
  store<T>(parts: readonly (string | null)[], fact: T, codec: FactCodec<T>): void {
    const at = this.fileOf(parts);
    if (at === null || codec.keep?.(fact) === false) return;
    const value = codec.serialize === undefined ? fact : codec.serialize(fact);
    // Its own temporary name per writer (two threads of one process may write the same fact at once).
    const tmp = `${at.file}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(tmp, JSON.stringify({ key: at.key, value }));
      renameSync(tmp, at.file);
    } catch {
      // Not remembered: asked again next time.
    }
  }

  /** The key of `parts` with the host's packages, and its file; null when nothing is remembered. */
  private fileOf(parts: readonly (string | null)[]): { key: string; file: string } | null {
    const dpkg = fileStamp(this.dpkgStatus);
    if (dpkg === null || parts.some((part) => part === null)) return null;
    const key = JSON.stringify([dpkg, ...parts]);
    return { key, file: join(this.dir, `${createHash("sha256").update(key).digest("hex")}.json`) };
  }
}

/** A digest of a file's content (the code that asks a question), or null when it cannot be read. */
export function contentDigest(path: string): string | null {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return null;
  }
}
