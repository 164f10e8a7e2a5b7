/**
 * What a runtime's bwrap sandbox sees of the library directories (src/sandbox/runtime-libraries.ts), from
 * dpkg's answers: the installed packages and their dependencies (`dpkg-query -W`, the formats dpkg writes:
 * versions, architecture qualifiers, alternatives, virtual packages), the owners of paths (`dpkg-query
 * -S`), and the plan of each directory — bound whole, shared with other packages, hidden — and of the
 * standard library's, where other packages' entries are covered. The sandbox itself is tested in
 * tests/sandbox/runtimes.test.ts.
 */
import { describe, expect, test } from "vitest";
import {
  bwrapLibraryArgs,
  type DirectoryChild,
  dependencyClosure,
  moduleOfEntry,
  outsideMostly,
  parseInstalledPackages,
  parseOwners,
  planDirectory,
  planOwnDirectory,
} from "../../src/sandbox/runtime-libraries.js";

const listing = [
  // Package, status, Provides, Pre-Depends, Depends (dpkg-query -W -f=PACKAGES_FORMAT)
  "python3-pandas\tii \t\t\tpython3-numpy (>= 1:1.16), python3-dateutil, python3:any, python3-tz | python3-zoneinfo",
  "python3-numpy\tii \tpython3-numpy-abi9, python3-numpy-api14 (= 1.24.2)\t\tpython3 (<< 3.12), libblas3 | libblas.so.3, libc6 (>= 2.34)",
  "python3-dateutil\tii \t\t\tpython3-six",
  "python3-six\tii \t\t\t",
  "python3-tz\tii \t\t\ttzdata",
  "python3-zoneinfo\tii \t\t\t",
  "libopenblas0-pthread\tii \tlibblas.so.3\t\tlibc6",
  "libc6\tii \t\tlibgcc-s1\t",
  "libc6\tii \t\t\tlibcrypt1",
  "python3\tii \tpython3-profiler\tpython3.11-minimal\tpython3.11",
  "python3.11\tii \t\t\t",
  "python3.11-minimal\tii \t\t\t",
  "tzdata\tii \t\t\t",
  "python3-wordcloud\trc \t\t\tpython3-matplotlib",
  "pylint\tii \t\t\tpython3-astroid",
  "python3-astroid\tii \t\t\t",
].join("\n");

describe("the installed packages", () => {
  const installed = parseInstalledPackages(listing);

  test("only installed ones (`ii`), with their relations' names and the packages they provide", () => {
    expect(installed.has("python3-wordcloud")).toBe(false);
    expect(installed.get("python3-pandas")?.depends).toEqual([
      ["python3-numpy"],
      ["python3-dateutil"],
      ["python3"],
      ["python3-tz", "python3-zoneinfo"],
    ]);
    expect(installed.get("python3-numpy")?.provides).toEqual(["python3-numpy-abi9", "python3-numpy-api14"]);
    // Pre-Depends count as Depends; a package listed for two architectures gets both lines' relations.
    expect(installed.get("python3")?.depends).toEqual([["python3.11-minimal"], ["python3.11"]]);
    expect(installed.get("libc6")?.depends).toEqual([["libgcc-s1"], ["libcrypt1"]]);
  });

  test("the closure: the first installed alternative, else a provider of it; roots not installed are named", () => {
    const { packages, missing } = dependencyClosure(["python3-pandas", "python3-gensim"], installed);
    expect(missing).toEqual(["python3-gensim"]);
    expect([...packages].sort()).toEqual([
      "libc6",
      "libopenblas0-pthread",
      "python3",
      "python3-dateutil",
      "python3-numpy",
      "python3-pandas",
      "python3-six",
      "python3-tz",
      "python3.11",
      "python3.11-minimal",
      "tzdata",
    ]);
    // python3-tz satisfies `python3-tz | python3-zoneinfo`: the second alternative is not pulled in.
    expect(packages.has("python3-zoneinfo")).toBe(false);
    expect(dependencyClosure([], installed).packages.size).toBe(0);
    expect([...dependencyClosure(["pylint"], installed).packages].sort()).toEqual([
      "pylint",
      "python3-astroid",
    ]);
  });
});

test("owners: one or more packages per path, architecture qualifiers dropped, diversions skipped", () => {
  const owners = parseOwners(
    [
      "python3-six: /usr/lib/python3/dist-packages/six.py",
      "python3-protobuf:amd64, python3-googleapi: /usr/lib/python3/dist-packages/google",
      "diversion by dash from: /bin/sh",
      "diversion by dash to: /bin/sh.distrib",
      "",
    ].join("\n"),
  );
  expect([...owners]).toEqual([
    ["/usr/lib/python3/dist-packages/six.py", ["python3-six"]],
    ["/usr/lib/python3/dist-packages/google", ["python3-protobuf", "python3-googleapi"]],
  ]);
});

describe("a directory's plan", () => {
  const dir = "/usr/lib/python3/dist-packages";
  const child = (name: string, directory = true, symlinkTarget: string | null = null): DirectoryChild => ({
    name,
    directory,
    symlinkTarget,
  });
  const at = (name: string) => `${dir}/${name}`;
  const owners = new Map<string, string[]>([
    [at("numpy"), ["python3-numpy"]],
    [at("numpy-1.24.2.egg-info"), ["python3-numpy"]],
    [at("six.py"), ["python3-six"]],
    [at("google"), ["python3-protobuf", "python3-googleapi"]],
    [at("grpc"), ["python3-grpcio"]],
    [at("pylab.py"), ["python3-matplotlib"]],
    [at("linked"), ["python3-numpy"]],
  ]);
  const children = [
    child("six.py", false),
    child("numpy"),
    child("numpy-1.24.2.egg-info"),
    child("google"),
    child("grpc"),
    child("pip"), // owned by no package: pip installed it
    child("__pycache__"),
    child("linked", false, "numpy"),
  ];

  test("entries of the runtime's packages are bound whole, shared ones recursed into, others hidden", () => {
    const packages = new Set(["python3-numpy", "python3-six", "python3-protobuf"]);
    expect(planDirectory(dir, children, owners, packages)).toEqual({
      entries: [
        { kind: "dir", path: at("google") },
        { kind: "symlink", path: at("linked"), target: "numpy" },
        { kind: "bind", path: at("numpy") },
        { kind: "bind", path: at("numpy-1.24.2.egg-info") },
        { kind: "bind", path: at("six.py") },
        { kind: "bind", path: at("__pycache__") },
      ],
      recurse: [at("google")],
    });
  });

  test("nothing of another runtime's packages: no entry, not even the cache directory", () => {
    expect(planDirectory(dir, children, owners, new Set(["pylint"]))).toEqual({ entries: [], recurse: [] });
  });

  test("the arguments: each directory hidden under a tmpfs, the entries bound back or covered, then read-only", () => {
    const args = bwrapLibraryArgs(
      {
        hidden: [dir, "/usr/local/lib/python3.11/dist-packages"],
        entries: [
          { kind: "dir", path: at("google") },
          { kind: "bind", path: at("google/protobuf") },
          { kind: "symlink", path: at("linked"), target: "numpy" },
          { kind: "cover", path: "/usr/lib/python3.11/tkinter", by: "package" },
          { kind: "cover", path: "/usr/lib/python3.11/x.py", by: "module" },
          { kind: "cover", path: "/usr/lib/python3.11/lib-dynload/_tkinter.so", by: "nothing" },
        ],
        modules: new Set(),
        missingPackages: [],
      },
      { package: "/repo/absent", module: "/repo/absent/__init__.py" },
    );
    expect(args).toEqual([
      "--tmpfs",
      dir,
      "--tmpfs",
      "/usr/local/lib/python3.11/dist-packages",
      "--dir",
      at("google"),
      "--ro-bind",
      at("google/protobuf"),
      at("google/protobuf"),
      "--symlink",
      "numpy",
      at("linked"),
      "--ro-bind",
      "/repo/absent",
      "/usr/lib/python3.11/tkinter",
      "--ro-bind",
      "/repo/absent/__init__.py",
      "/usr/lib/python3.11/x.py",
      "--ro-bind",
      "/dev/null",
      "/usr/lib/python3.11/lib-dynload/_tkinter.so",
      "--remount-ro",
      dir,
      "--remount-ro",
      "/usr/local/lib/python3.11/dist-packages",
    ]);
  });
});

describe("the standard library's directory: what packages outside the runtime put there is covered", () => {
  const dir = "/usr/lib/python3.11";
  const child = (name: string, directory = true): DirectoryChild => ({
    name,
    directory,
    symlinkTarget: null,
  });
  const stdlib = ["libpython3.11-stdlib", "libpython3.11-minimal"];
  const owners = new Map<string, string[]>([
    [`${dir}/json`, ["libpython3.11-stdlib"]],
    [`${dir}/os.py`, ["libpython3.11-minimal"]],
    [`${dir}/tkinter`, ["python3-tk"]],
    [`${dir}/lib2to3`, ["python3-lib2to3"]],
    [`${dir}/config-3.11-x86_64-linux-gnu`, ["libpython3.11-dev"]],
    [`${dir}/distutils`, ["python3-distutils", "libpython3.11-stdlib"]],
    [`${dir}/lib-dynload`, ["python3-tk", "libpython3.11-stdlib"]],
    [`${dir}/dist-packages`, ["python3-numpy"]],
    [`${dir}/idle_extra.py`, ["idle-python3.11"]],
    [`${dir}/_tk_extra.cpython-311-x86_64-linux-gnu.so`, ["python3-tk"]],
  ]);
  const children = [
    child("json"),
    child("os.py", false),
    child("tkinter"),
    child("lib2to3"),
    child("config-3.11-x86_64-linux-gnu"),
    child("distutils"),
    child("lib-dynload"),
    child("dist-packages"),
    child("idle_extra.py", false),
    child("_tk_extra.cpython-311-x86_64-linux-gnu.so", false),
    child("EXTERNALLY-MANAGED", false),
    child("__pycache__"),
  ];

  test("covered: other packages' modules, packages and extensions; shared directories planned apart; the rest left", () => {
    const plan = planOwnDirectory(dir, children, owners, new Set(stdlib), new Set([`${dir}/dist-packages`]));
    expect(plan).toEqual({
      entries: [
        { kind: "cover", path: `${dir}/_tk_extra.cpython-311-x86_64-linux-gnu.so`, by: "nothing" },
        { kind: "cover", path: `${dir}/idle_extra.py`, by: "module" },
        { kind: "cover", path: `${dir}/lib2to3`, by: "package" },
        { kind: "cover", path: `${dir}/tkinter`, by: "package" },
      ],
      shared: [`${dir}/distutils`, `${dir}/lib-dynload`],
    });
    // A runtime whose packages bring tkinter (as python3-tk would): nothing of it covered.
    const withTk = planOwnDirectory(dir, children, owners, new Set([...stdlib, "python3-tk"]));
    expect(withTk.entries.map((e) => e.path)).not.toContain(`${dir}/tkinter`);
  });

  test("a shared directory mostly of other packages' (distutils) is hidden and bound back; one mostly the runtime's is covered", () => {
    const d = `${dir}/distutils`;
    const distutils = ["__init__.py", "version.py", "core.py", "util.py", "spawn.py"].map((n) =>
      child(n, false),
    );
    const distOwners = new Map<string, string[]>([
      [`${d}/__init__.py`, ["libpython3.11-stdlib"]],
      [`${d}/version.py`, ["libpython3.11-stdlib"]],
      [`${d}/core.py`, ["python3-distutils"]],
      [`${d}/util.py`, ["python3-distutils"]],
      [`${d}/spawn.py`, ["python3-distutils"]],
    ]);
    expect(outsideMostly(d, distutils, distOwners, new Set(stdlib))).toBe(true);
    expect(outsideMostly(d, distutils, distOwners, new Set([...stdlib, "python3-distutils"]))).toBe(false);
  });
});

test("the module an entry gives: packages, modules and extensions; not metadata, .pth files or caches", () => {
  expect(moduleOfEntry("numpy")).toBe("numpy");
  expect(moduleOfEntry("six.py")).toBe("six");
  expect(moduleOfEntry("cv2.cpython-311-x86_64-linux-gnu.so")).toBe("cv2");
  expect(moduleOfEntry("_cffi_backend.abi3.so")).toBe("_cffi_backend");
  expect(moduleOfEntry("plain.so")).toBe("plain");
  expect(moduleOfEntry("numpy-1.24.2.egg-info")).toBeNull();
  expect(moduleOfEntry("PyYAML-6.0.dist-info")).toBeNull();
  expect(moduleOfEntry("matplotlib-3.6.3-nspkg.pth")).toBeNull();
  expect(moduleOfEntry("__pycache__")).toBeNull();
});
