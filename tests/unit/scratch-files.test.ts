// sandbox/python/scratch_files.py, which the fork server and the Docker boot put before their own source
// (src/sandbox/python-source.ts): the last line of defence for a run's file paths, after the server's own
// check (checkRelativePath), so reached only if that one is bypassed.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { expect, test } from "vitest";
import { pythonSource } from "../../src/sandbox/python-source.js";

const SHARED = readFileSync(new URL("../../sandbox/python/scratch_files.py", import.meta.url), "utf8");

test("both -c sources start with the shared helpers", () => {
  for (const name of ["forkserver.py", "docker-boot.py"] as const) {
    expect(pythonSource(name).startsWith(SHARED)).toBe(true);
    expect(pythonSource(name)).toContain("write_scratch_file(");
  }
});

test("a path that could leave the scratch is refused before anything is written; a nested one is written", () => {
  const top = `minedit-scratch-test-${randomUUID()}`;
  const script = `${SHARED}
import json, sys
for path in json.loads(sys.argv[1]):
    try:
        write_scratch_file(path, b"x")
        print("wrote", path)
    except ValueError as e:
        print("refused", e)
`;
  const write = (paths: string[]) => {
    const run = spawnSync("/usr/bin/python3", ["-s", "-c", script, JSON.stringify(paths)], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    return run.stdout.trim().split("\n");
  };
  try {
    const refused = ["/etc/passwd", `${top}/../x`, `${top}//x`, `./${top}`, `${top}/`];
    expect(write(refused)).toEqual(refused.map((path) => `refused bad file path '${path}'`));
    expect(existsSync(`/tmp/${top}`)).toBe(false); // no directory made for a refused path
    expect(write([`${top}/a/b.txt`])).toEqual([`wrote ${top}/a/b.txt`]);
    expect(readFileSync(`/tmp/${top}/a/b.txt`, "utf8")).toBe("x");
  } finally {
    rmSync(`/tmp/${top}`, { recursive: true, force: true });
  }
});
