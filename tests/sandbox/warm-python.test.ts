/**
 * Warm interpreters (src/sandbox/warm-python.ts, sandbox/python/forkserver.py): each execution must see
 * what a fresh sandbox gives — the same interpreter state, nothing left by the run before (processes,
 * files, IPC), a fork server it cannot tamper with — and a fork server a program kills, stops or floods is
 * replaced without failing anything else. The hostile-program and runner suites also run on this backend
 * (tests/sandbox/hostile.test.ts, runners.test.ts).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseConfig } from "../../src/config.js";
import { ErrorCode } from "../../src/errors.js";
import { type PythonTests, runPythonTests } from "../../src/runners/python.js";
import { type BwrapSandbox, createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import {
  DEFAULT_LIMITS,
  type ExecutionLimits,
  type ExecutionResult,
  type Sandbox,
} from "../../src/sandbox/sandbox.js";
import { runsWarm, WarmPythonSandbox } from "../../src/sandbox/warm-python.js";
import { executionLimits } from "../../src/scoring/limits.js";
import { createWarmSandbox, OTHER_PROCESSES } from "./backends.js";

const limits: ExecutionLimits = { ...DEFAULT_LIMITS, wallTimeMs: 5_000 };
let warm: WarmPythonSandbox;
let fresh: BwrapSandbox;

beforeAll(async () => {
  warm = await createWarmSandbox(2);
  fresh = await createBwrapSandbox();
});

afterAll(async () => {
  await warm.close();
  await fresh.close();
});

const python = (code: string, files: Record<string, string> = {}, stdin = "", l = limits) =>
  warm.run({ files, argv: ["python3", "-s", "-c", code], stdin, limits: l });

/** Runs `code`, asserting it exits 0, and returns its stdout. */
async function output(code: string, files: Record<string, string> = {}): Promise<string> {
  const r = await python(code, files);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

describe("an execution sees what a fresh sandbox gives", () => {
  test("the same interpreter state as a fresh `python3 -s` (differential against the plain backend)", async () => {
    const probe = `import os, sys, signal, json
print(json.dumps({
  "argv": sys.argv, "name": __name__, "path0": sys.path[0], "path": sys.path, "cwd": os.getcwd(),
  "files": sorted(os.listdir('.')), "env": dict(os.environ), "flags": list(sys.flags), "uid": os.getuid(),
  "gid": os.getgid(), "stdin": sys.stdin.read(), "encodings": [sys.stdin.encoding, sys.stdout.encoding],
  "tty": [sys.stdin.isatty(), sys.stdout.isatty()], "umask": os.umask(0o22),
  "signals": [str(signal.getsignal(s)) for s in (signal.SIGINT, signal.SIGPIPE, signal.SIGCHLD, signal.SIGXFSZ)],
  "limits": [l for l in open('/proc/self/limits').read().splitlines() if l.startswith(('Max address', 'Max file size', 'Max core'))],
  "dumpable": open('/proc/self/status').read().count('\\n'),
  "hostname": os.uname().nodename, "main_keys": sorted(k for k in globals() if k not in ('os', 'sys', 'signal', 'json')),
  "tmp_mode": oct(os.stat('/tmp').st_mode), "shm": os.listdir('/dev/shm'),
}, sort_keys=True))
`;
    const request = {
      files: { "data.txt": "x" },
      argv: ["python3", "-s", "-c", probe, "a", "b c"],
      stdin: "input\n",
      limits,
    };
    const [w, f] = await Promise.all([warm.run(request), fresh.run(request)]);
    expect(w.stderr).toBe("");
    expect(JSON.parse(w.stdout)).toEqual(JSON.parse(f.stdout));
  });

  test("a script file runs as `python3 -s FILE ARGS` does", async () => {
    const script =
      "import os, sys\nprint(__name__, __file__, sys.argv, sys.path[0], os.path.basename(__file__))\n";
    const request = { files: { "main.py": script }, argv: ["python3", "-s", "main.py", "x"], limits };
    const [w, f] = await Promise.all([warm.run(request), fresh.run(request)]);
    expect(w.stdout).toBe(f.stdout);
    expect(w.stdout).toBe("__main__ /tmp/main.py ['main.py', 'x'] /tmp main.py\n");
  });

  test("the request's limits are hard limits of the program (the process budget counts the fork server)", async () => {
    const out = await output(
      "import resource as r\nprint([r.getrlimit(x) for x in (r.RLIMIT_AS, r.RLIMIT_NPROC, r.RLIMIT_FSIZE, r.RLIMIT_CORE, r.RLIMIT_MSGQUEUE)])",
    );
    const { memoryBytes: m, maxProcesses: n, maxFileBytes: f } = limits;
    expect(out.trim()).toBe(`[(${m}, ${m}), (${n + 1}, ${n + 1}), (${f}, ${f}), (0, 0), (0, 0)]`);
  });

  test("exit status, signals and SystemExit as the interpreter reports them", async () => {
    expect((await python("import sys; sys.exit(3)")).exitCode).toBe(3);
    expect((await python("raise ValueError('boom')")).stderr).toContain("ValueError: boom");
    expect((await python("import os, signal; os.kill(os.getpid(), signal.SIGTERM)")).signal).toBe("SIGTERM");
    expect((await python("import sys; sys.exit('message')")).exitCode).toBe(1);
  });

  // harness.py _run_as_main prints an uncaught exception's traceback from the program's own frame on, as
  // the interpreter does (the frame that caught it is the fork server's, not the program's), and a
  // program that does not compile gets no traceback at all: the same stderr as a fresh interpreter.
  test("tracebacks and syntax errors print exactly what a fresh interpreter prints", async () => {
    for (const code of [
      "def f():\n    raise ValueError('boom')\nf()\n",
      "print(1\n",
      "import sys\nsys.excepthook = lambda t, e, tb: print(tb.tb_frame.f_code.co_name, tb.tb_next is None)\n1/0\n",
    ]) {
      const request = { files: {}, argv: ["python3", "-s", "-c", code], limits };
      const [warmRun, freshRun] = await Promise.all([warm.run(request), fresh.run(request)]);
      expect(freshRun.exitCode, code).toBe(1);
      expect(warmRun.stderr, code).toBe(freshRun.stderr);
      expect(warmRun.stdout, code).toBe(freshRun.stdout);
    }
  });

  test("random state is not shared between executions", async () => {
    const draws = await Promise.all([1, 2, 3].map(() => output("import random; print(random.random())")));
    expect(new Set(draws).size).toBe(3);
  });

  // A module the harness imports that the fork server has not is loaded again by every run: `_hashlib`
  // (OpenSSL's HMAC, imported by name) cost 11 ms of a 76 ms unittest run where page faults are slow.
  test("a test run imports nothing the fork server did not: every module the harness uses is preloaded", async () => {
    const forkServer = new Set(
      (await output("import sys; print(' '.join(sorted(sys.modules)))")).split(/\s+/),
    );
    const spy = "import sys\nraise RuntimeError('MODULES ' + ' '.join(sorted(sys.modules)) + ' END')\n";
    const styles: PythonTests[] = [
      {
        style: "unittest",
        code: "import unittest\nclass TestCases(unittest.TestCase):\n  def test_a(self): pass\n",
      },
      { style: "assert", code: "def check(f):\n  assert f() is None\n", entryPoint: "f" },
      { style: "stdio", cases: [{ input: "", output: "" }] },
    ];
    for (const tests of styles) {
      const outcome = await runPythonTests(
        warm,
        `${spy}def f(): pass\n`,
        tests,
        executionLimits(parseConfig({})),
      );
      const loaded = /RuntimeError: MODULES (.*) END/.exec(outcome.stderrTail ?? "")?.[1];
      expect(loaded, `${tests.style}: ${JSON.stringify(outcome)}`).toBeDefined();
      // `__test__` is the unittest style's module of the tests themselves, made by the harness, not imported.
      const imported = (loaded ?? "")
        .split(" ")
        .filter((name) => !forkServer.has(name) && name !== "__test__");
      expect(imported, tests.style).toEqual([]);
    }
  });

  // forkserver.py, "The harness": a run of exactly the harness's loader executes the fork server's own
  // compiled copy instead of unmarshalling harness.b64 again (a tenth of a run's CPU where page faults
  // are slow). Seen from outside by a harness.b64 that is not the harness: a fresh interpreter, which
  // loads the file, cannot start the tests; a warm run does not read it, and the tests run.
  test("a test run executes the harness the fork server compiled, not harness.b64 again", async () => {
    const notTheHarness = Buffer.from("not the harness").toString("base64");
    const corrupting = (base: Sandbox): Sandbox => ({
      name: base.name,
      run: (request) =>
        base.run(
          Object.hasOwn(request.files, "harness.b64")
            ? { ...request, files: { ...request.files, "harness.b64": notTheHarness } }
            : request,
        ),
      close: () => Promise.resolve(),
    });
    const tests: PythonTests = {
      style: "assert",
      code: "def check(f):\n  assert f() == 1\n",
      entryPoint: "f",
    };
    const limits = executionLimits(parseConfig({}));
    const program = "def f():\n  return 1\n";
    const warmRun = await runPythonTests(corrupting(warm), program, tests, limits);
    expect(warmRun.verdict, JSON.stringify(warmRun)).toBe("PASSED");
    const freshRun = await runPythonTests(corrupting(fresh), program, tests, limits);
    expect(freshRun.verdict).toBe("INFRA_ERROR");
    expect(freshRun.stderrTail).toContain("marshal");
    // Any other program still runs as sent, even one that begins like the loader.
    const other = await python("import marshal,binascii;print('other')");
    expect(other.stdout).toBe("other\n");
  });

  // fork-server.ts withoutHarnessBytecode: what a warm run never reads is not sent either. The program
  // looks at its scratch: the bytecode file is there in a fresh sandbox (where the loader reads it), not
  // in a warm run; a file of the same name that is not the loader's (any other program) still arrives.
  test("a test run's request leaves harness.b64 out; the same file of any other program arrives", async () => {
    const tests: PythonTests = {
      style: "assert",
      code: "def check(f):\n  assert f() == ['program.py']\n",
      entryPoint: "f",
    };
    const program = "import os\ndef f():\n  return sorted(os.listdir('.'))\n";
    const runLimits = executionLimits(parseConfig({}));
    const warmRun = await runPythonTests(warm, program, tests, runLimits);
    expect(warmRun.verdict, JSON.stringify(warmRun)).toBe("PASSED");
    const freshRun = await runPythonTests(fresh, program, tests, runLimits);
    expect(freshRun.verdict, JSON.stringify(freshRun)).toBe("FAILED_TESTS");
    const listing = await output("import os;print(sorted(os.listdir('.')))", { "harness.b64": "aGk=" });
    expect(listing).toBe("['harness.b64']\n");
  });
});

describe("nothing of one execution reaches the next", () => {
  test("processes a program left behind are killed and reaped", async () => {
    const name = `mn${randomBytes(5).toString("hex")}`;
    await output(`import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        __import__('ctypes').CDLL(None).prctl(15, b'${name}', 0, 0, 0)  # PR_SET_NAME
        time.sleep(600)
    os._exit(0)
time.sleep(0.2)
`);
    // Both slots: whichever serves the next runs, none sees a leftover.
    const seen = await Promise.all([1, 2, 3, 4].map(() => output(`${OTHER_PROCESSES}\nprint(others)`)));
    expect(seen).toEqual(["[]\n", "[]\n", "[]\n", "[]\n"]);
    expect(spawnSync("pgrep", ["-a", name], { encoding: "utf8" }).stdout.trim()).toBe("");
  });

  test("files in the scratch and /dev/shm are gone, even behind a directory without permissions", async () => {
    const leave = `import os
os.makedirs('deep/locked/inner')
open('deep/locked/inner/secret', 'w').write('x')
open('json.py', 'w').write('raise SystemExit(9)')
open('/dev/shm/planted', 'w').write('x')
os.chmod('deep/locked', 0)
os.chmod('/tmp', 0o700)
`;
    await Promise.all([output(leave), output(leave)]);
    const after = await Promise.all(
      [1, 2, 3].map(() =>
        output(
          "import json, os\nprint(sorted(os.listdir('.')), os.listdir('/dev/shm'), oct(os.stat('/tmp').st_mode))",
          {
            "mine.txt": "y",
          },
        ),
      ),
    );
    const mode = (
      await fresh.run({
        files: {},
        argv: ["python3", "-c", "import os; print(oct(os.stat('/tmp').st_mode))"],
        limits,
      })
    ).stdout.trim();
    expect(after).toEqual(Array(3).fill(`['mine.txt'] [] ${mode}\n`));
  });

  test("SysV IPC objects are removed and POSIX message queues cannot be created", async () => {
    await output(`import ctypes
libc = ctypes.CDLL(None, use_errno=True)
assert libc.shmget(0, 4096, 0o1600) >= 0   # IPC_PRIVATE, IPC_CREAT | 0600
assert libc.semget(0, 1, 0o1600) >= 0
assert libc.msgget(0, 0o1600) >= 0
`);
    const tables = await Promise.all(
      [1, 2].map(() =>
        output(
          "print([len(open('/proc/sysvipc/' + t).read().splitlines()) - 1 for t in ('shm', 'sem', 'msg')])",
        ),
      ),
    );
    expect(tables).toEqual(["[0, 0, 0]\n", "[0, 0, 0]\n"]);
    const mq = await output(`import ctypes, os
rt = ctypes.CDLL('librt.so.1', use_errno=True)
rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
fd = rt.mq_open(b'/minedit-probe', os.O_CREAT | os.O_RDWR, 0o600, None)
print(fd, ctypes.get_errno() != 0)
`);
    expect(mq).toBe("-1 True\n");
  });
});

describe("the fork server cannot be used against the next execution", () => {
  test("a program cannot read the fork server's memory, fds or environment, nor ptrace it", async () => {
    const out = await output(`import ctypes, os
server = os.getppid()
results = []
for path in (f'/proc/{server}/mem', f'/proc/{server}/environ', f'/proc/{server}/fd/0'):
    try:
        open(path, 'rb').read(1)
        results.append('read ' + path)
    except OSError as e:
        results.append(type(e).__name__)
try:
    os.listdir(f'/proc/{server}/fd')
    results.append('listed fds')
except OSError as e:
    results.append(type(e).__name__)
libc = ctypes.CDLL(None, use_errno=True)
results.append(libc.ptrace(16, server, None, None))   # PTRACE_ATTACH
print(results)
`);
    expect(out).toBe("['PermissionError', 'PermissionError', 'PermissionError', 'PermissionError', -1]\n");
  });

  test("a program that kills the fork server ends its own run; the next run gets a new sandbox", async () => {
    const r = await python(
      "import os, time\nprint('before', flush=True)\nos.kill(os.getppid(), 9)\ntime.sleep(5)",
    );
    expect(r).toMatchObject({ exitCode: null, signal: "SIGKILL", stdout: "before\n", timedOut: false });
    expect(await output("print('fine')")).toBe("fine\n");
  });

  test("a program that stops the fork server is killed at the deadline; the next run gets a new sandbox", async () => {
    const started = performance.now();
    const r = await python(
      "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\nimport time; time.sleep(60)",
      {},
      "",
      {
        ...limits,
        wallTimeMs: 1_000,
      },
    );
    expect(r).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(await output("print('fine')")).toBe("fine\n");
  });
});

describe("output, concurrency, cancellation", () => {
  const cap = 4096;
  const capped = { ...limits, maxOutputBytes: cap };
  test("output up to the cap is kept whole; one byte more is cut and the run marked truncated", async () => {
    const exact = await python(
      `import sys\nsys.stdout.write('a' * ${cap - 10})\nsys.stderr.write('b' * 10)`,
      {},
      "",
      capped,
    );
    expect(exact).toMatchObject({ exitCode: 0, outputTruncated: false });
    expect(exact.stdout).toBe("a".repeat(cap - 10));
    expect(exact.stderr).toBe("b".repeat(10));
    const over = await python(
      `import sys\nsys.stdout.write('a' * ${cap - 10})\nsys.stderr.write('b' * 11)`,
      {},
      "",
      capped,
    );
    expect(over.outputTruncated).toBe(true);
    expect(over.stdout.length + over.stderr.length).toBe(cap);
  });

  test("a flood is stopped long before the deadline, and the slot serves the next run", async () => {
    const started = performance.now();
    const flood = await python("while True: print('x' * 1000)", {}, "", { ...capped, wallTimeMs: 20_000 });
    expect(flood).toMatchObject({ outputTruncated: true, signal: "SIGKILL" });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await output("print('fine')")).toBe("fine\n");
  });

  // `minedit serve` starts the other slots' fork servers once it listens (src/server/service.ts): on 2
  // cores they took 0.6 s of CPU from its start-up. Counted where they are launched, not by a clock.
  test("with fillAfter, the other slots' servers start once it settles; a run before then starts its own", async () => {
    const counting = async () => {
      const real = await createBwrapSandbox();
      const counter = { launches: 0 };
      const base = new Proxy(real, {
        get(target, key) {
          if (key === "launchForkServer") {
            return (...args: Parameters<BwrapSandbox["launchForkServer"]>) => {
              counter.launches += 1;
              return target.launchForkServer(...args);
            };
          }
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      return { base, counter };
    };
    const eager = await counting();
    const atOnce = await WarmPythonSandbox.create(eager.base, { slots: 3 });
    expect(eager.counter.launches).toBe(3);
    await atOnce.close();

    const deferred = await counting();
    let listening = () => {};
    const listened = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const later = await WarmPythonSandbox.create(deferred.base, { slots: 3, fillAfter: listened });
    try {
      expect(deferred.counter.launches).toBe(1);
      // Two runs at once before then: the idle server takes one, the other starts a server of its own.
      const runs = await Promise.all(
        [0, 1].map((i) => later.run({ files: {}, argv: ["python3", "-s", "-c", `print(${i})`], limits })),
      );
      expect(runs.map((r) => r.stdout)).toEqual(["0\n", "1\n"]);
      expect(deferred.counter.launches).toBe(2);
      listening();
      await listened;
      expect(deferred.counter.launches).toBe(3);
    } finally {
      await later.close();
    }
  });

  test("more runs than slots wait for a free one; each has its own scratch", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        output(`import os, time\ntime.sleep(0.1)\nprint(sorted(os.listdir('.')), open('id').read())`, {
          id: String(i),
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 6 }, (_, i) => `['id'] ${i}\n`));
  });

  test("aborting kills the run promptly; the next run is fine", async () => {
    const controller = new AbortController();
    const pending = warm.run({
      files: {},
      argv: ["python3", "-s", "-c", "import time; time.sleep(60)"],
      limits,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    const r: ExecutionResult = await pending;
    expect(r.cancelled).toBe(true);
    expect(r.wallTimeMs).toBeLessThan(2_000);
    expect(await output("print('fine')")).toBe("fine\n");
  });

  test("only `python3 -s -c …` and `python3 -s FILE …` run warm; anything else gets a fresh sandbox", async () => {
    const files = { "m.py": "" };
    expect(runsWarm({ files, argv: ["python3", "-s", "-c", "pass"], limits })).toBe(true);
    expect(runsWarm({ files, argv: ["python3", "-s", "m.py"], limits })).toBe(true);
    expect(runsWarm({ files, argv: ["python3", "-c", "pass"], limits })).toBe(false);
    expect(runsWarm({ files, argv: ["python3", "-s", "-u", "m.py"], limits })).toBe(false);
    expect(runsWarm({ files, argv: ["python3", "-s", "other.py"], limits })).toBe(false);
    expect(runsWarm({ files, argv: ["sh", "-c", "echo"], limits })).toBe(false);
    // A fresh sandbox runs its program as pid 2; a warm run is a child of the fork server.
    const cold = await warm.run({
      files: {},
      argv: ["python3", "-c", "import os; print(os.getpid())"],
      limits,
    });
    expect(cold.stdout).toBe("2\n");
    expect(await output("import os; print(os.getpid() > 2)")).toBe("True\n");
  });

  test("a closed pool refuses runs", async () => {
    const pool = await createWarmSandbox(1);
    await pool.close();
    await expect(
      pool.run({ files: {}, argv: ["python3", "-s", "-c", "pass"], limits }),
    ).rejects.toMatchObject({
      code: ErrorCode.Unavailable,
    });
  });
});

test("the fork server refuses to run outside a bwrap sandbox", () => {
  const source = readFileSync(new URL("../../sandbox/python/forkserver.py", import.meta.url), "utf8");
  const r = spawnSync("/usr/bin/python3", ["-s", "-c", source, "", "5", "6"], { encoding: "utf8" });
  expect(r.status).toBe(3);
  expect(r.stderr).toContain("refusing to run outside a bwrap sandbox");
});
