/**
 * Library views remembered on disk (src/sandbox/library-view-cache.ts): a view comes back as written
 * while every directory it listed keeps its mtime, and is a miss when one of them changes (an entry added
 * or removed), when the key differs, or when the file is not one the cache wrote. The last test computes
 * a real view from this machine's dpkg and checks the remembered copy is the same view.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { directoryStamp, LibraryViewCache } from "../../src/sandbox/library-view-cache.js";
import {
  interpreterLibraryDirs,
  type LibraryView,
  libraryView,
} from "../../src/sandbox/runtime-libraries.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "minedit-view-cache-"));
  made.push(dir);
  return dir;
}

const VIEW: LibraryView = {
  hidden: ["/usr/lib/python3/dist-packages"],
  entries: [
    { kind: "bind", path: "/usr/lib/python3/dist-packages/numpy" },
    { kind: "symlink", path: "/usr/lib/python3/dist-packages/six.py", target: "../six/six.py" },
    { kind: "dir", path: "/usr/lib/python3/dist-packages/google" },
    { kind: "cover", path: "/usr/lib/python3.11/tkinter", by: "package" },
  ],
  modules: new Set(["numpy", "six"]),
  missingPackages: ["python3-absent"],
};

/** A cache in a fresh directory, and a library directory it "listed", with its stamp. */
function setUp() {
  const cache = new LibraryViewCache(join(tempDir(), "views"));
  const library = tempDir();
  writeFileSync(join(library, "a.py"), "");
  const listed = new Map([[library, directoryStamp(library)]]);
  return { cache, library, listed };
}

describe("library views remembered on disk", () => {
  it("gives back the view written under the same key, modules as a set", () => {
    const { cache, listed } = setUp();
    expect(cache.read("k")).toBeNull();
    cache.write("k", VIEW, listed);
    const back = cache.read("k");
    expect(back).toEqual(VIEW);
    expect(back?.modules).toBeInstanceOf(Set);
  });

  it("misses under another key", () => {
    const { cache, listed } = setUp();
    cache.write("k", VIEW, listed);
    expect(cache.read("k2")).toBeNull();
  });

  it("misses once a listed directory gains or loses an entry (its mtime changes)", () => {
    const { cache, library, listed } = setUp();
    cache.write("k", VIEW, listed);
    // Set the mtime apart explicitly: two writes within a clock tick could keep the same mtime.
    writeFileSync(join(library, "b.py"), "");
    utimesSync(library, new Date(), new Date(Date.now() + 5000));
    expect(cache.read("k")).toBeNull();
  });

  it("misses once a listed directory is gone", () => {
    const { cache, library, listed } = setUp();
    cache.write("k", VIEW, listed);
    rmSync(library, { recursive: true });
    expect(cache.read("k")).toBeNull();
  });

  it("does not keep a view whose directories could not be stamped", () => {
    const { cache } = setUp();
    cache.write("k", VIEW, new Map([["/nonexistent/minedit-dir", null]]));
    expect(cache.read("k")).toBeNull();
  });

  it("treats a damaged or foreign file as a miss", () => {
    const { cache, listed } = setUp();
    cache.write("k", VIEW, listed);
    const dir = (cache as unknown as { dir: string }).dir;
    const [file] = readdirSync(dir);
    const path = join(dir, file as string);
    const written = JSON.parse(readFileSync(path, "utf8"));
    for (const damaged of [
      "{not json",
      JSON.stringify({ ...written, key: "another" }),
      JSON.stringify({ ...written, view: { ...written.view, entries: [{ kind: "mount", path: "/" }] } }),
    ]) {
      writeFileSync(path, damaged);
      expect(cache.read("k")).toBeNull();
    }
  });

  it("a write that cannot be made (the cache path is a file) is skipped without an error", () => {
    const parent = tempDir();
    writeFileSync(join(parent, "views"), "a file, not a directory");
    const cache = new LibraryViewCache(join(parent, "views"));
    const { listed } = setUp();
    expect(() => cache.write("k", VIEW, listed)).not.toThrow();
    expect(cache.read("k")).toBeNull();
  });

  it("remembers a view computed from dpkg, and gives back the same view", async () => {
    const dirs = await interpreterLibraryDirs("/usr/bin/python3");
    const dir = join(tempDir(), "views");
    const computed = await libraryView(["minedit-test-no-such-package"], dirs, new LibraryViewCache(dir));
    // The package is not installed: dpkg's answer says so, and the view binds none of it back.
    expect(computed.missingPackages).toEqual(["minedit-test-no-such-package"]);
    const [file] = readdirSync(dir);
    const remembered = JSON.parse(readFileSync(join(dir, file as string), "utf8"));
    const reread = new LibraryViewCache(dir).read(remembered.key);
    expect(reread).toEqual(computed);
    // What it listed, each with its mtime: the standard library's directory (its entries of packages
    // outside the runtime are covered). The site directories are hidden whole, since no package of the
    // runtime is installed, so their contents do not matter and they are not listed.
    const listed = new Map<string, number>(remembered.listed);
    expect(dirs.stdlib).not.toBeNull();
    expect(listed.get(dirs.stdlib as string)).toBe(directoryStamp(dirs.stdlib as string));
    for (const site of dirs.site) expect(listed.has(site)).toBe(false);
  });
});
