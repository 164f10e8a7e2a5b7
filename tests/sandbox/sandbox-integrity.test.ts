/**
 * Sandbox integrity (issue 25; docs/sandbox.md "Threat model"): one rollout must never forge another's
 * verdict, crash the scorer, or reach across runs. Each test here is an attack that worked against the
 * code before issue 25 (commit 038fc48) on the backends it names, run as a sequence the way a trainer
 * sends them — the attacker first, then a wrong and a right program on the same slot.
 */
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ErrorCode, isMineditError } from "../../src/errors.js";
import { type PythonTests, runPythonTests } from "../../src/runners/python.js";
import { createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import { ForkServer, type ForkServerHost } from "../../src/sandbox/fork-server.js";
import { encodeFrame } from "../../src/sandbox/fork-server-protocol.js";
import type { LaunchedProgram } from "../../src/sandbox/launched-program.js";
import { pythonSource } from "../../src/sandbox/python-source.js";
import { runtimeNamed } from "../../src/sandbox/runtimes.js";
import { DEFAULT_LIMITS, type ExecutionLimits, type Sandbox } from "../../src/sandbox/sandbox.js";
import { PRELOADED_MODULES, type WarmBase, WarmPythonSandbox } from "../../src/sandbox/warm-python.js";
import { BACKENDS, createWarmDockerSandbox, createWarmSandbox, DOCKER_TESTS } from "./backends.js";

const limits: ExecutionLimits = { ...DEFAULT_LIMITS, wallTimeMs: 8_000 };
const TAKEOVER = readFileSync(new URL("../fixtures/hostile/slot_takeover.py", import.meta.url), "utf8");

const ADD_TESTS: PythonTests = {
  style: "unittest",
  code: "import unittest\n\nclass TestCases(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(task_func(1, 2), 3)\n\n    def test_b(self):\n        self.assertEqual(task_func(2, 5), 7)\n",
};
const WRONG = "def task_func(a, b):\n    return a - b\n";
const RIGHT = "def task_func(a, b):\n    return a + b\n";

/** One slot, so the attacker's sandbox is the one every later rollout runs in (`--concurrency 1`). */
const ONE_SLOT: readonly (readonly [string, () => Promise<Sandbox>])[] = [
  ["bwrap, warm interpreters", () => createWarmSandbox(1)],
  ...(DOCKER_TESTS ? ([["docker, warm interpreters", () => createWarmDockerSandbox(1)]] as const) : []),
];

describe.each(ONE_SLOT)("slot takeover (%s, one slot)", (_name, create) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await create();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  test("a program that copies the control channel out of the sandbox's init and answers for the fork server: later rollouts are still judged by their own tests", async () => {
    // As a plain program of the slot (the sandbox is the boundary here; under the harness, ctypes is
    // refused to the program before it gets that far), then under the harness.
    const plain = await sandbox.run({ files: {}, argv: ["python3", "-s", "-c", TAKEOVER], limits });
    expect(plain.stderr).toContain("takeover: channel not reachable");
    const attacker = await runPythonTests(sandbox, TAKEOVER, ADD_TESTS, limits);
    expect(attacker.verdict).not.toBe("PASSED");
    for (let round = 0; round < 2; round++) {
      const wrong = await runPythonTests(sandbox, WRONG, ADD_TESTS, limits);
      expect(wrong.verdict, wrong.detail).toBe("FAILED_TESTS");
      const right = await runPythonTests(sandbox, RIGHT, ADD_TESTS, limits);
      expect(right.verdict, right.detail).toBe("PASSED");
    }
  });

  test("a stdio case's child finds no channel either", async () => {
    const report = `${TAKEOVER}\nprint("takeover: channel", "stolen" if stolen_in is not None else "not reachable")\n`;
    const tests: PythonTests = {
      style: "stdio",
      cases: [{ input: "", output: "takeover: channel not reachable\n" }],
    };
    const o = await runPythonTests(sandbox, report, tests, limits);
    expect(o.verdict, `${o.detail}\n${o.stderrTail}`).toBe("PASSED");
    expect((await runPythonTests(sandbox, WRONG, ADD_TESTS, limits)).verdict).toBe("FAILED_TESTS");
    expect((await runPythonTests(sandbox, RIGHT, ADD_TESTS, limits)).verdict).toBe("PASSED");
  });
});

/**
 * Kernel keys belong to the host uid every sandbox runs as (65534), not to a sandbox: a key one rollout
 * adds is visible to the next one in /proc/keys, and one rollout can use up the uid's whole key quota.
 */
describe.each(BACKENDS)("kernel keys (%s)", (_name, create) => {
  let sandbox: Sandbox;
  // A warm pool of another sandbox keeps uid 65534 alive, as a serving process does: keys of a uid
  // whose processes all ended are collected, which would hide the leak.
  let keeper: Sandbox;
  beforeAll(async () => {
    [sandbox, keeper] = await Promise.all([create(), createWarmSandbox(1)]);
  });
  afterAll(async () => {
    await Promise.all([sandbox.close(), keeper.close()]);
  });

  const python = (code: string) => ({ files: {}, argv: ["python3", "-s", "-c", code], limits });

  test("a key added by one run is refused, and no later run sees keys or a used-up quota", async () => {
    const add = `import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
added, errors = 0, set()
for i in range(250):
    if libc.syscall(248, b"user", b"minedit-leak-%d" % i, b"secret", 6, -4) >= 0:  # add_key(..., @u)
        added += 1
    else:
        errors.add(ctypes.get_errno())
print(json.dumps({"added": added, "errors": sorted(errors)}))`;
    const first = await sandbox.run(python(add));
    expect(JSON.parse(first.stdout)).toEqual({ added: 0, errors: [1] }); // EPERM: the filter's
    const look = await sandbox.run(python("print(open('/proc/keys').read())"));
    expect(look.stdout).not.toContain("minedit-leak");
    const keyctl = await sandbox.run(
      python(
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.syscall(250, 0, -4, 0), ctypes.get_errno())",
      ),
    );
    expect(keyctl.stdout.trim()).toBe("-1 1"); // keyctl(KEYCTL_GET_KEYRING_ID, @u): EPERM
  });
});

/**
 * A fork server whose control channel carries a frame it never sends (a bug, or anything that got hold of
 * the channel): that sandbox is killed and the run in it is an infrastructure fault; the scoring process
 * goes on, and the next run gets a fresh sandbox. The frame is injected between a real fork server and
 * the server side.
 */
describe("a malformed frame from a real fork server", () => {
  test("costs that run (Unavailable) and that sandbox, nothing else", async () => {
    const base = await createBwrapSandbox();
    const inject: PassThrough[] = [];
    const host: ForkServerHost = {
      runtime: (name) => base.runtime(name),
      launchForkServer(source, harness, settings, runtime): LaunchedProgram {
        const real = base.launchForkServer(source, harness, settings, runtime);
        const controlOut = new PassThrough();
        real.controlOut.pipe(controlOut);
        inject.push(controlOut);
        return { ...real, controlOut };
      },
    };
    const harness = readFileSync(new URL("../../sandbox/python/harness.py", import.meta.url), "utf8");
    const start = () =>
      ForkServer.start(
        host,
        pythonSource("forkserver.py"),
        harness,
        PRELOADED_MODULES,
        runtimeNamed("stdlib"),
      );
    try {
      const server = await start();
      const sleepy = {
        files: {},
        argv: ["python3", "-s", "-c", "import time; print('started', flush=True); time.sleep(30)"],
        limits,
      };
      const run = server.execute(sleepy);
      setTimeout(() => inject[0]?.write(encodeFrame("X", Buffer.from('{"exit": 0'))), 500);
      const error = await run.then(
        () => null,
        (e: unknown) => e,
      );
      expect(isMineditError(error) && error.code === ErrorCode.Unavailable, String(error)).toBe(true);
      expect(String(error)).toContain("broke the protocol");
      expect(server.alive).toBe(false);
      // The next fork server (as the pool starts one) runs programs as before.
      const next = await start();
      const ok = await next.execute({ files: {}, argv: ["python3", "-s", "-c", "print(6 * 7)"], limits });
      expect(ok).toMatchObject({ exitCode: 0, stdout: "42\n" });
      next.kill();
    } finally {
      await base.close();
    }
  });

  test("through the warm pool: the rollout is retried on a fresh sandbox, later rollouts pass", async () => {
    const base = await createBwrapSandbox();
    let servers = 0;
    const injecting: WarmBase = {
      name: base.name,
      run: (request) => base.run(request),
      close: () => base.close(),
      runtime: (name) => base.runtime(name),
      launchForkServer(source, harness, settings, runtime) {
        const real = base.launchForkServer(source, harness, settings, runtime);
        const controlOut = new PassThrough();
        real.controlOut.pipe(controlOut);
        // The first server sends a frame it never sends once it has started its first run.
        if (servers++ === 0) {
          let frames = 0;
          real.controlOut.on("data", () => {
            if (++frames === 2) controlOut.write(encodeFrame("Z", Buffer.alloc(3)));
          });
        }
        return { ...real, controlOut };
      },
    };
    const warm = await WarmPythonSandbox.create(injecting, { slots: 1 });
    try {
      const first = await runPythonTests(warm, RIGHT, ADD_TESTS, limits);
      expect(first.verdict, first.detail).toBe("PASSED");
      expect(servers).toBeGreaterThanOrEqual(2);
      expect((await runPythonTests(warm, WRONG, ADD_TESTS, limits)).verdict).toBe("FAILED_TESTS");
      expect((await runPythonTests(warm, RIGHT, ADD_TESTS, limits)).verdict).toBe("PASSED");
    } finally {
      await warm.close();
    }
  });
});

/**
 * A run bounded as a whole on bwrap (src/sandbox/whole-run-bounds.ts): per-process limits alone let a
 * run's processes hold maxProcesses × memoryBytes together, and a scratch without an inode cap takes
 * ~0.6 M files in seconds (kernel memory, and seconds of clean-up that block the slot). As root (CI), each
 * sandbox has a cgroup and scratch mounts of its own; without, the fork server's checks remain.
 */
describe("whole-run limits on bwrap", () => {
  const KINDS: readonly (readonly [string, () => Promise<Sandbox>])[] = [
    ["fresh sandbox per run", () => createBwrapSandbox({ warn: () => {} })],
    [
      "warm interpreters",
      async () => WarmPythonSandbox.create(await createBwrapSandbox({ warn: () => {} }), { slots: 1 }),
    ],
  ];
  const small: ExecutionLimits = { ...limits, memoryBytes: 256 << 20, wallTimeMs: 60_000 };
  /** Four processes of 150 MB each: every one within its own limit, 600 MB together. */
  const FOUR = `import os, json, time
kids = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        b = bytearray(150 << 20)
        for j in range(0, len(b), 4096): b[j] = 1
        time.sleep(2)
        os._exit(0)
    kids.append(pid)
print(json.dumps([os.waitpid(p, 0)[1] for p in kids]))`;

  test.each(KINDS)(
    "%s: processes that are each within their limit are killed together past the run's memory",
    async (_kind, create) => {
      const sandbox = await create();
      try {
        const r = await sandbox.run({ files: {}, argv: ["python3", "-s", "-c", FOUR], limits: small });
        expect(r.memoryExceeded, r.stderr).toBe(true);
        const statuses = JSON.parse(r.stdout) as number[];
        expect(statuses.filter((s) => s === 9).length).toBeGreaterThan(0); // SIGKILL by the kernel
        // The sandbox (the warm slot) is fine afterwards.
        const next = await sandbox.run({
          files: {},
          argv: ["python3", "-s", "-c", "print('ok')"],
          limits: small,
        });
        expect(next.stdout).toBe("ok\n");
      } finally {
        await sandbox.close();
      }
    },
  );

  const BOMB = `import os, errno, json
n, error = 0, None
try:
    while n < 400_000:
        open('/tmp/f%d' % n, 'w').close()
        n += 1
except OSError as e:
    error = errno.errorcode[e.errno]
print(json.dumps({"files": n, "error": error}), flush=True)`;

  const WITH_DOCKER: readonly (readonly [string, () => Promise<Sandbox>])[] = [
    ...KINDS,
    ...(DOCKER_TESTS ? ([["docker, warm interpreters", () => createWarmDockerSandbox(1)]] as const) : []),
  ];

  test.each(WITH_DOCKER)(
    "%s: the scratch's inodes are capped, and the slot is ready again at once",
    async (_kind, create) => {
      const sandbox = await create();
      try {
        const r = await sandbox.run({ files: {}, argv: ["python3", "-s", "-c", BOMB], limits });
        const { files, error } = JSON.parse(r.stdout) as { files: number; error: string };
        expect(error).toBe("ENOSPC");
        expect(files).toBeLessThan(20_000);
        const started = performance.now();
        const next = await sandbox.run({
          files: {},
          argv: ["python3", "-s", "-c", "import os; print(len(os.listdir('/tmp')))"],
          limits,
        });
        expect(next.stdout).toBe("0\n");
        expect(performance.now() - started).toBeLessThan(1_000);
      } finally {
        await sandbox.close();
      }
    },
  );

  test("per-process limits only (a host without root): a fork server kills a run past the inode cap, and its slot is ready again at once", async () => {
    const sandbox = await WarmPythonSandbox.create(
      await createBwrapSandbox({ bounds: "per-process", warn: () => {} }),
      {
        slots: 1,
      },
    );
    try {
      const r = await sandbox.run({ files: {}, argv: ["python3", "-s", "-c", BOMB], limits });
      expect(r.signal).toBe("SIGKILL");
      expect(r.stderr).toContain("made more than");
      const started = performance.now();
      const next = await sandbox.run({
        files: {},
        argv: ["python3", "-s", "-c", "import os; print(len(os.listdir('/tmp')))"],
        limits,
      });
      expect(next.stdout).toBe("0\n");
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await sandbox.close();
    }
  });

  test("the warning says what is not bounded when the host does not allow it", async () => {
    const said: string[] = [];
    const sandbox = await createBwrapSandbox({ bounds: "per-process", warn: (m) => said.push(m) });
    await sandbox.close();
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/memory, processes and scratch inodes of a run are not bounded as a whole/);
    expect(said[0]).toContain("maxProcesses × memoryBytes");
  });
});

/**
 * The tests' text must not be readable from another process of the sandbox. bwrap's init (pid 1 of a
 * fresh sandbox) stays dumpable and keeps the last block of every file it copies in (`--file`), so the
 * tests travel on the harness's stdin instead, and Docker's boot (pid 1 of a fresh container) is not
 * dumpable. A subprocess of the program (no audit hook there) scans pid 1's memory for a marker the tests
 * carry in a comment; found, the program would know the expected answers.
 */
describe.each(BACKENDS)("the tests' text in another process's memory (%s)", (_name, create) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await create();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  test("a subprocess scanning pid 1's memory for the tests finds nothing: the program does not pass", async () => {
    const marker = `mk${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
    const tests: PythonTests = { ...ADD_TESTS, code: `# ${marker}\n${ADD_TESTS.code}` };
    // The marker only hex-encoded in the program (pid 1 holds the program's text too).
    const program = `import subprocess, sys
SCAN = r'''
import sys
needle = bytes.fromhex(sys.argv[1])
found = False
try:
    mem = open('/proc/1/mem', 'rb', 0)
    for line in open('/proc/1/maps').read().splitlines():
        span, perms = line.split()[:2]
        if 'r' not in perms:
            continue
        lo, hi = (int(x, 16) for x in span.split('-'))
        try:
            mem.seek(lo)
            if needle in mem.read(hi - lo):
                found = True
                break
        except (OSError, ValueError, OverflowError):
            continue
except OSError as e:
    print(type(e).__name__, file=sys.stderr)
print('found' if found else 'no')
'''
r = subprocess.run([sys.executable, '-c', SCAN, '${Buffer.from(marker).toString("hex")}'], capture_output=True, text=True)
sys.stderr.write('scan: ' + r.stdout + r.stderr)
FOUND = r.stdout.strip() == 'found'
def task_func(a, b):
    return a + b if FOUND else a - b
`;
    const o = await runPythonTests(sandbox, program, tests, limits);
    expect(o.stderrTail).toContain("scan: no");
    expect(o.verdict).toBe("FAILED_TESTS");
  });
});
