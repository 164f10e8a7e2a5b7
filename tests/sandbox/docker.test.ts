/**
 * The Docker backend (issue 16; src/sandbox/docker.ts) against a real dockerd and the stdlib image that
 * scripts/ensure-docker.sh builds: the containers' hardening as the daemon reports it and as a program
 * inside sees it, one fresh container per run, the reaper, and the faults — a container killed from
 * outside and the daemon itself going away mid-batch give INFRA_ERROR (never a verdict), and the pool
 * recovers once the daemon is back. The hostile, runner and reward-hack suites run on this backend too
 * (backends.ts); gVisor (runsc) runs the same programs where the daemon has it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { parseConfig } from "../../src/config.js";
import { type PythonTests, runPythonTests } from "../../src/runners/python.js";
import { runtimeProblem } from "../../src/sandbox/create.js";
import { DockerSandbox, imageTag } from "../../src/sandbox/docker.js";
import { OWNER_LABEL, ownerLabel, ROLE_LABEL } from "../../src/sandbox/docker-spec.js";
import { DEFAULT_LIMITS, type ExecutionLimits } from "../../src/sandbox/sandbox.js";
import { WarmPythonSandbox } from "../../src/sandbox/warm-python.js";
import { TaskStore } from "../../src/scoring/task-store.js";
import { skipFor } from "../setup/skip.js";
import { createDockerSandbox, DOCKER_SKIP_REASON, dockerStdlibImage } from "./backends.js";
import { GVISOR_SKIP_REASON } from "./gvisor.js";

const docker = new Docker();
const limits: ExecutionLimits = { ...DEFAULT_LIMITS, cpuTimeMs: 5000, wallTimeMs: 15_000 };
const TESTS: PythonTests = {
  style: "unittest",
  code: "import unittest\nclass TestCases(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(f(), 1)\n",
};
const PASSES = "def f():\n    return 1\n";
const mine = async () =>
  await docker.listContainers({
    all: true,
    filters: { label: [`${OWNER_LABEL}=${ownerLabel(hostname(), process.pid)}`] },
  });

describe("Docker backend", skipFor(DOCKER_SKIP_REASON), () => {
  let warm: WarmPythonSandbox;

  beforeAll(async () => {
    warm = await WarmPythonSandbox.create(await createDockerSandbox(), { slots: 2 });
  }, 120_000);

  afterAll(async () => {
    await warm?.close();
  });

  test("a slot's container is hardened: no network, read-only root, capped memory and processes, no capabilities, not root", async () => {
    const [listed] = (await mine()).filter((c) => c.Labels[ROLE_LABEL] === "fork-server");
    expect(listed, "a fork-server container of this process").toBeDefined();
    const info = await docker.getContainer(listed?.Id as string).inspect();
    const host = info.HostConfig;
    expect(host.NetworkMode).toBe("none");
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Memory).toBeGreaterThan(0);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.PidsLimit).toBeGreaterThan(0);
    expect(host.NanoCpus).toBe(1e9);
    expect(host.CapDrop).toEqual(["ALL"]);
    // And the sandbox's syscall filter as its seccomp profile (syscall-filter.test.ts runs calls against it).
    const [noNewPrivileges, seccomp] = host.SecurityOpt ?? [];
    expect(noNewPrivileges).toBe("no-new-privileges");
    expect(JSON.parse((seccomp ?? "").replace(/^seccomp=/, ""))).toMatchObject({
      defaultAction: "SCMP_ACT_ERRNO",
      defaultErrnoRet: 38,
    });
    expect(host.IpcMode).toBe("private");
    expect(host.LogConfig?.Type).toBe("none");
    expect(Object.keys(host.Tmpfs ?? {}).sort()).toEqual(["/dev/shm", "/tmp"]);
    expect(info.Config.User).toBe("65534:65534");
    expect(info.Image).toBe(dockerStdlibImage());
    // What a program inside sees.
    const probe = `import os, socket
print(os.getuid(), os.getgid())
print(sorted(os.listdir('/sys/class/net')))
for path in ('/x', '/usr/x'):
    try:
        open(path, 'w')
        print('wrote', path)
    except OSError as e:
        print(type(e).__name__)
try:
    socket.create_connection(('1.1.1.1', 53), timeout=1)
    print('network')
except OSError:
    print('no network')
print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])
try:
    socket.socket(socket.AF_UNIX).connect('/run/minedit/control.sock')
    print('reached the control socket')
except OSError:
    print('control socket refused')
`;
    const r = await warm.run({ files: {}, argv: ["python3", "-s", "-c", probe], limits });
    expect(r.stdout.split("\n")).toEqual([
      "65534 65534",
      "['lo']",
      "OSError",
      "OSError",
      "no network",
      "0000000000000000",
      // The fork server's control channel takes one connection, its own, and no other.
      "control socket refused",
      "",
    ]);
  });

  test("runs in warm containers: the same verdicts, CPU and idle time measured, output capped", async () => {
    const passed = await runPythonTests(warm, PASSES, TESTS, limits);
    expect(passed).toMatchObject({ verdict: "PASSED", testsPassed: 1 });
    expect(passed.cpuTimeMs).toBeGreaterThanOrEqual(0);
    const failed = await runPythonTests(warm, "def f():\n    return 2\n", TESTS, limits);
    expect(failed.verdict).toBe("FAILED_TESTS");
    const asleep = await runPythonTests(warm, "import time\ndef f():\n    time.sleep(600)\n", TESTS, {
      ...limits,
      idleTimeMs: 1000,
    });
    expect(asleep.verdict).toBe("TIMEOUT");
    expect(asleep.detail).toContain("idle");
    // Output beyond the cap: stopped, and the cap holds.
    const loud = await warm.run({
      files: {},
      argv: ["python3", "-s", "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"],
      limits: { ...limits, maxOutputBytes: 100_000 },
    });
    expect(loud.outputTruncated).toBe(true);
    expect(loud.stdout.length).toBeLessThanOrEqual(100_000);
  });

  test("one fresh container per run for what the fork servers do not run: files, stdin, status, limits", async () => {
    const fresh = warm.fresh();
    const r = await fresh.run({
      files: { "in/a.txt": "hello" },
      argv: ["python3", "-c", "import sys\nprint(open('in/a.txt').read(), input())\nsys.exit(3)"],
      stdin: "there\n",
      limits,
    });
    expect(r).toMatchObject({ exitCode: 3, signal: null, stdout: "hello there\n", timedOut: false });
    const killed = await fresh.run({ files: {}, argv: ["sh", "-c", "kill -SEGV $$"], limits });
    expect(killed).toMatchObject({ exitCode: null, signal: "SIGSEGV" });
    const slow = await fresh.run({
      files: {},
      argv: ["python3", "-c", "import time; time.sleep(60)"],
      limits: { ...limits, wallTimeMs: 3000 },
    });
    expect(slow).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    const hog = await fresh.run({
      files: {},
      argv: ["python3", "-c", "b = bytearray(1 << 34)"],
      limits: { ...limits, memoryBytes: 256 * 1024 * 1024 },
    });
    expect(hog.memoryExceeded).toBe(true);
    // Nothing of them is left in the daemon.
    expect((await mine()).filter((c) => c.Labels[ROLE_LABEL] === "run")).toEqual([]);
  }, 120_000);

  test("the wall-time limit counts from the container's start, not from asking the daemon to make it", async () => {
    // Making a container on vfs copies its image: here four at once take 3–4 s before any starts, and the
    // runs themselves ~1.3 s. Counting the making against the limit made correct programs TIMEOUTs (the
    // lint report's version probes, in CI).
    const asked = performance.now();
    const runs = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const r = await warm
          .fresh()
          .run({ files: {}, argv: ["true"], limits: { ...limits, wallTimeMs: 3000 } });
        return { ...r, elapsed: performance.now() - asked };
      }),
    );
    for (const r of runs) {
      expect(r).toMatchObject({ exitCode: 0, timedOut: false, signal: null });
      expect(r.wallTimeMs).toBeLessThan(r.elapsed);
    }
  }, 120_000);

  test("the reaper removes what a dead server of this host left, and only that", async () => {
    const dead = spawnSync("true").pid as number; // a pid that has just ended
    const make = (owner: string) =>
      docker.createContainer({
        Image: dockerStdlibImage(),
        Cmd: ["true"],
        Labels: { [OWNER_LABEL]: owner, [ROLE_LABEL]: "run" },
        HostConfig: { NetworkMode: "none" },
      });
    const orphan = await make(ownerLabel(hostname(), dead));
    const elsewhere = await make(ownerLabel("another-host", dead));
    const live = await make(ownerLabel(hostname(), process.pid));
    try {
      const sandbox = await createDockerSandbox(); // reaps at start
      await sandbox.close();
      const left = new Set((await docker.listContainers({ all: true })).map((c) => c.Id));
      expect(left.has(orphan.id)).toBe(false);
      expect(left.has(elsewhere.id)).toBe(true);
      expect(left.has(live.id)).toBe(true);
    } finally {
      for (const c of [orphan, elsewhere, live]) await c.remove({ force: true }).catch(() => undefined);
    }
  }, 60_000);

  test("a task whose runtime has no image is refused when the task store loads, saying what to build", async () => {
    const dir = mkdtempSync(join(tmpdir(), "minedit-docker-tasks-"));
    try {
      const file = join(dir, "tasks.jsonl");
      const row = (id: string, runtime?: string) =>
        JSON.stringify({
          task_id: id,
          gold: "def f():\n    return 1\n",
          corrupted: "def f():\n    return 2\n",
          entry_point: "f",
          tests: { style: "assert", code: "assert f() == 1\n" },
          ...(runtime === undefined ? {} : { runtime }),
        });
      writeFileSync(file, [row("plain"), row("bcb/1", "bigcodebench")].join("\n"));
      // Pinned: stdlib only; no bigcodebench image is pinned, and the socket's daemon has none tagged
      // (a private socket path with no daemon behind it answers "no image" for every tag).
      const config = parseConfig({
        sandbox: {
          backend: "docker",
          docker: { images: { stdlib: dockerStdlibImage() }, socketPath: join(dir, "no-daemon.sock") },
        },
      }).sandbox;
      const problem = runtimeProblem(config);
      expect(await problem("stdlib")).toBeNull();
      const lines: string[] = [];
      const store = await TaskStore.load([file], { unavailable: problem, log: (l) => lines.push(l) });
      expect(store.size).toBe(1);
      const sentence =
        'runtime "bigcodebench" has no Docker image: build it with `bash sandbox/docker/build-image.sh bigcodebench`' +
        " and pin the ID it prints in sandbox.docker.images.bigcodebench";
      expect(lines).toEqual([`1 task not served: ${sentence}`]);
      expect(store.refusal("bcb/1")).toBe(`its ${sentence}`);
      // The daemon's tagged image counts as the runtime's when nothing is pinned.
      const tagged = runtimeProblem(parseConfig({ sandbox: { backend: "docker" } }).sandbox);
      expect(await tagged("stdlib")).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a container killed from outside mid-run: INFRA_ERROR, never a verdict; the pool recovers", async () => {
    const sleeps = "import time\ndef f():\n    time.sleep(4)\n    return 1\n";
    // Kill every slot container of this process while the run (and its one retry) sleep in them.
    let killing = true;
    const killer = (async () => {
      while (killing) {
        for (const c of await mine()) {
          if (c.Labels[ROLE_LABEL] === "fork-server" && c.State === "running") {
            await docker
              .getContainer(c.Id)
              .kill()
              .catch(() => undefined);
          }
        }
        // Polls for slot containers to kill (the retry starts a new one) until the run is over.
        await sleep(100);
      }
    })();
    const hit = await runPythonTests(warm, sleeps, TESTS, limits);
    killing = false;
    await killer;
    expect(hit.verdict, hit.detail).toBe("INFRA_ERROR");
    expect(hit.detail).toMatch(/outside|killed|start/);
    const after = await runPythonTests(warm, PASSES, TESTS, limits);
    expect(after.verdict, after.detail).toBe("PASSED");
  }, 120_000);

  test("the Docker daemon going away mid-batch: INFRA_ERROR for the runs it hits, then recovery when it is back", async () => {
    // A daemon of this test's own (socket, data and exec roots in a temporary directory), so that killing
    // it cannot touch the suites running on the shared one.
    const daemon = await privateDaemon();
    let sandbox: WarmPythonSandbox | undefined;
    try {
      sandbox = await WarmPythonSandbox.create(
        await DockerSandbox.create({
          socketPath: daemon.socket,
          images: { stdlib: dockerStdlibImage() },
          containerMemoryBytes: 2 * 1024 ** 3,
          cpusPerContainer: 1,
          maxProcesses: 64,
        }),
        { slots: 2 },
      );
      const warmOnIt = sandbox;
      const sleepy = "import time\ndef f():\n    time.sleep(3)\n    return 1\n";
      const batch = () => Array.from({ length: 4 }, () => runPythonTests(warmOnIt, sleepy, TESTS, limits));
      const servers = async () => (await warmOnIt.forkServers()).reduce((n, p) => n + p.servers.length, 0);

      // 1. Gone while the runs wait for a server (create() waits for the first only, the second is still
      // starting): every waiting run is told, none waits for a release that will never come.
      const queued = batch();
      daemon.crash();
      for (const o of await Promise.all(queued)) expect(o.verdict, o.detail).toBe("INFRA_ERROR");
      await daemon.start();
      // Two at once: a failed start is made again when a run needs it, so this brings both slots back.
      const back = [PASSES, PASSES].map((program) => runPythonTests(warmOnIt, program, TESTS, limits));
      for (const o of await Promise.all(back)) expect(o.verdict, o.detail).toBe("PASSED");

      // 2. Gone while the runs execute, with both slots' servers up: crashed once a fork server has forked
      // a run (its container shows more processes than when idle), not after a guessed delay.
      await vi.waitFor(
        async () => {
          if ((await servers()) < 2) throw new Error("waited 10 s for both fork servers to be up");
        },
        { timeout: 10_000, interval: 100 },
      );
      const onIt = new Docker({ socketPath: daemon.socket });
      const processes = async () => {
        let count = 0;
        for (const c of await onIt.listContainers()) {
          count +=
            ((await onIt.getContainer(c.Id).top()) as { Processes?: unknown[] }).Processes?.length ?? 0;
        }
        return count;
      };
      const idle = await processes();
      const running = batch();
      await vi.waitFor(
        async () => {
          if ((await processes()) <= idle)
            throw new Error(`waited 30 s for a run of the batch to start (${idle} processes when idle)`);
        },
        { timeout: 30_000, interval: 50 },
      );
      daemon.crash();
      for (const o of await Promise.all(running)) expect(o.verdict, o.detail).toBe("INFRA_ERROR");
      // While it is down: INFRA_ERROR at once, not a hang and not a failure of the program.
      const down = await runPythonTests(warmOnIt, PASSES, TESTS, limits);
      expect(down.verdict).toBe("INFRA_ERROR");
      await daemon.start();
      const after = await runPythonTests(warmOnIt, PASSES, TESTS, limits);
      expect(after.verdict, after.detail).toBe("PASSED");
    } finally {
      await sandbox?.close();
      await daemon.stop();
    }
  }, 240_000);
});

/** A dockerd of the test's own, with the stdlib image loaded into it from the shared daemon. */
async function privateDaemon(): Promise<{
  socket: string;
  crash: () => void;
  start: () => Promise<void>;
  stop: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), "minedit-dockerd-"));
  const socket = join(dir, "docker.sock");
  const argv = [
    "--storage-driver=vfs",
    "--bridge=none",
    "--iptables=false",
    `--host=unix://${socket}`,
    `--data-root=${join(dir, "data")}`,
    `--exec-root=${join(dir, "exec")}`,
    `--pidfile=${join(dir, "docker.pid")}`,
  ];
  const client = new Docker({ socketPath: socket });
  let child: ChildProcess | null = null;
  const start = async () => {
    const log = openSync(join(dir, "dockerd.log"), "a");
    child = spawn("dockerd", argv, { stdio: ["ignore", log, log] });
    closeSync(log);
    const giveUp = Date.now() + 60_000;
    for (;;) {
      try {
        await client.ping();
        return;
      } catch {
        if (Date.now() > giveUp)
          throw new Error(
            `the test's dockerd did not start: ${readFileSync(join(dir, "dockerd.log"), "utf8").slice(-2000)}`,
          );
        await sleep(200);
      }
    }
  };
  await start();
  const load = spawnSync(
    "sh",
    ["-c", `docker save ${imageTag("stdlib")} | docker -H unix://${socket} load`],
    {
      encoding: "utf8",
    },
  );
  if (load.status !== 0) throw new Error(`loading the image into the test's dockerd failed: ${load.stderr}`);
  const ended = () =>
    new Promise<void>((resolve) => {
      if (child === null || child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
  return {
    socket,
    crash: () => child?.kill("SIGKILL"),
    start,
    stop: async () => {
      child?.kill("SIGTERM");
      await ended();
      // What the killed daemon's containerd left running (its shims hold the containers).
      spawnSync("sh", ["-c", `pkill -KILL -f -- '${join(dir, "exec")}' || true`]);
      // dockerd mounts under its roots (vfs layers, netns): unmount them before the directory goes.
      spawnSync("sh", ["-c", `grep -o ' ${dir}[^ ]*' /proc/mounts | sort -r | xargs -r -n1 umount -l`]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe("Docker backend under gVisor (runsc)", skipFor(GVISOR_SKIP_REASON), () => {
  test.each([
    ["fresh containers", async () => createDockerSandbox({ ociRuntime: "runsc" })],
    [
      "warm interpreters",
      async () => WarmPythonSandbox.create(await createDockerSandbox({ ociRuntime: "runsc" }), { slots: 1 }),
    ],
  ] as const)(
    "%s run under gVisor's kernel with the same verdicts",
    async (_how, create) => {
      const sandbox = await create();
      try {
        expect(sandbox.name).toMatch(/^docker\+runsc/);
        const kernel = await sandbox.run({
          files: {},
          argv: ["python3", "-s", "-c", "print(open('/proc/version').read())"],
          limits,
        });
        // gVisor reports its own, fixed kernel version rather than the host's.
        expect(kernel.stdout).not.toContain(readFileSync("/proc/sys/kernel/osrelease", "utf8").trim());
        expect((await runPythonTests(sandbox, PASSES, TESTS, limits)).verdict).toBe("PASSED");
        expect((await runPythonTests(sandbox, "def f():\n    return 2\n", TESTS, limits)).verdict).toBe(
          "FAILED_TESTS",
        );
        const loop = await runPythonTests(sandbox, "def f():\n    while True:\n        pass\n", TESTS, {
          ...limits,
          cpuTimeMs: 2000,
          wallTimeMs: 6000,
        });
        expect(loop.verdict).toBe("TIMEOUT");
        const bomb = await runPythonTests(
          sandbox,
          "b = bytearray(1 << 36)\ndef f():\n    return 1\n",
          TESTS,
          limits,
        );
        expect(bomb.verdict, bomb.detail).toBe("MEMORY_LIMIT");
        expect((await runPythonTests(sandbox, PASSES, TESTS, limits)).verdict).toBe("PASSED");
      } finally {
        await sandbox.close();
      }
    },
    120_000,
  );
});
