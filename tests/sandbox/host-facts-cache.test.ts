/**
 * What the bwrap backend asks the host, remembered between processes (src/sandbox/host-facts-cache.ts):
 * a fact is asked once, read back while nothing it depends on changed, and asked again when the asked
 * binary, dpkg's database or the question changes, or when its file is not a fact. The stand-ins below
 * count their runs in a file, so "asked again" is read off the host, not off the cache's own word.
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { helpText } from "../../src/sandbox/bwrap.js";
import { type FactCodec, fileStamp, HostFactsCache } from "../../src/sandbox/host-facts-cache.js";
import { interpreterLibraryDirs } from "../../src/sandbox/runtime-libraries.js";

const TEXT: FactCodec<string> = { parse: (value) => (typeof value === "string" ? value : null) };

let dir: string;
let cacheDir: string;
let dpkg: string;
let binary: string;
let facts: HostFactsCache;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "minedit-host-facts-"));
  cacheDir = join(dir, "cache");
  dpkg = join(dir, "status");
  writeFileSync(dpkg, "Package: one\n");
  binary = join(dir, "tool");
  writeFileSync(binary, "v1");
  facts = new HostFactsCache(cacheDir, dpkg);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A file's mtime moved by `seconds`, as an upgrade in place would. */
function touch(path: string, seconds: number): void {
  const at = Date.now() / 1000 + seconds;
  utimesSync(path, at, at);
}

/** A script at `path` that appends a line to `count` each run, then runs `command "$@"`. */
function counting(path: string, count: string, command: string): void {
  writeFileSync(path, `#!/bin/sh\necho run >> ${count}\nexec ${command} "$@"\n`);
  chmodSync(path, 0o755);
}

const runs = (count: string): number =>
  existsSync(count) ? readFileSync(count, "utf8").split("\n").filter(Boolean).length : 0;

describe("HostFactsCache", () => {
  test("asks once, then reads back; a changed binary, dpkg database or question asks again", async () => {
    let asked = 0;
    const ask = async () => `answer ${++asked}`;
    const question = () => ["question", fileStamp(binary)];
    expect(await facts.remember(question(), ask, TEXT)).toBe("answer 1");
    expect(await facts.remember(question(), ask, TEXT)).toBe("answer 1");
    expect(await new HostFactsCache(cacheDir, dpkg).remember(question(), ask, TEXT)).toBe("answer 1");
    expect(asked).toBe(1);
    touch(binary, 60);
    expect(await facts.remember(question(), ask, TEXT)).toBe("answer 2");
    appendFileSync(dpkg, "Package: two\n");
    expect(await facts.remember(question(), ask, TEXT)).toBe("answer 3");
    expect(await facts.remember(["another question", fileStamp(binary)], ask, TEXT)).toBe("answer 4");
    expect(await facts.remember(question(), ask, TEXT)).toBe("answer 3");
    expect(asked).toBe(4);
  });

  test("a file that is not a fact is a miss, and is replaced", async () => {
    let asked = 0;
    const ask = async () => `answer ${++asked}`;
    await facts.remember(["q"], ask, TEXT);
    const [file] = readdirSync(cacheDir);
    for (const content of ["{", "null", '{"key":"other","value":"x"}', JSON.stringify({ value: 7 })]) {
      const stored = JSON.parse(readFileSync(join(cacheDir, file as string), "utf8")) as { key: string };
      writeFileSync(
        join(cacheDir, file as string),
        content.startsWith('{"value"') ? JSON.stringify({ key: stored.key, value: 7 }) : content,
      );
      const before = asked;
      expect(await facts.remember(["q"], ask, TEXT)).toBe(`answer ${before + 1}`);
      expect(await facts.remember(["q"], ask, TEXT)).toBe(`answer ${before + 1}`);
    }
    expect(asked).toBe(5);
  });

  test("remembers nothing without dpkg's database, for a file it cannot stamp, a rejection or an unkept answer", async () => {
    let asked = 0;
    const ask = async () => `answer ${++asked}`;
    const noDpkg = new HostFactsCache(cacheDir, join(dir, "no-status"));
    await noDpkg.remember(["q"], ask, TEXT);
    await noDpkg.remember(["q"], ask, TEXT);
    await facts.remember(["q", fileStamp(join(dir, "missing"))], ask, TEXT);
    await facts.remember(["q", fileStamp(join(dir, "missing"))], ask, TEXT);
    const unkept = { ...TEXT, keep: () => false };
    await facts.remember(["unkept"], ask, unkept);
    await facts.remember(["unkept"], ask, unkept);
    expect(asked).toBe(6);
    await expect(facts.remember(["fails"], () => Promise.reject(new Error("no")), TEXT)).rejects.toThrow(
      "no",
    );
    expect(await facts.remember(["fails"], ask, TEXT)).toBe("answer 7");
    expect(existsSync(cacheDir) ? readdirSync(cacheDir) : []).toHaveLength(1);
  });

  test("a cache it cannot write only costs the next call its question", async () => {
    writeFileSync(join(dir, "file"), "");
    const unwritable = new HostFactsCache(join(dir, "file", "cache"), dpkg);
    let asked = 0;
    const ask = async () => `answer ${++asked}`;
    expect(await unwritable.remember(["q"], ask, TEXT)).toBe("answer 1");
    expect(await unwritable.remember(["q"], ask, TEXT)).toBe("answer 2");
  });
});

describe("the bwrap backend's questions", () => {
  test("bwrap --help: bwrap's own text, asked once; an answer without --size is asked again", async () => {
    const count = join(dir, "count");
    const bwrap = join(dir, "bwrap");
    counting(bwrap, count, "/usr/bin/bwrap");
    let real: string;
    try {
      real = execFileSync("/usr/bin/bwrap", ["--help"], { encoding: "utf8" });
    } catch (error) {
      const { stdout, stderr } = error as { stdout: string; stderr: string };
      real = `${stdout}${stderr}`;
    }
    expect(real).toContain("--size");
    expect(await helpText(bwrap, facts)).toBe(real);
    expect(await helpText(bwrap, facts)).toBe(real);
    expect(runs(count)).toBe(1);
    // A stand-in that prints no --size (a bwrap that failed to run) is never remembered.
    const old = join(dir, "old-bwrap");
    counting(old, count, "echo usage: bwrap");
    expect(await helpText(old, facts)).toContain("usage: bwrap");
    expect(await helpText(old, facts)).toContain("usage: bwrap");
    expect(runs(count)).toBe(3);
  });

  test("the interpreter's library directories: its own answer, asked once; which exist is looked at each time", async () => {
    const count = join(dir, "count");
    const python = join(dir, "python3");
    counting(python, count, "/usr/bin/python3");
    const fresh = await interpreterLibraryDirs(
      "/usr/bin/python3",
      new HostFactsCache(join(dir, "other"), dpkg),
    );
    expect(fresh.site.length).toBeGreaterThan(0);
    expect(await interpreterLibraryDirs(python, facts)).toEqual(fresh);
    expect(await interpreterLibraryDirs(python, facts)).toEqual(fresh);
    expect(runs(count)).toBe(1);
    // A remembered directory that no longer exists is left out, without asking again.
    const [file] = readdirSync(cacheDir);
    const stored = JSON.parse(readFileSync(join(cacheDir, file as string), "utf8")) as {
      key: string;
      value: { site: string[]; stdlib: string };
    };
    const gone = join(dir, "gone");
    mkdirSync(gone);
    stored.value.site.push(gone);
    writeFileSync(join(cacheDir, file as string), JSON.stringify(stored));
    expect((await interpreterLibraryDirs(python, facts)).site).toContain(gone);
    rmSync(gone, { recursive: true });
    expect(await interpreterLibraryDirs(python, facts)).toEqual(fresh);
    expect(runs(count)).toBe(1);
  });
});
