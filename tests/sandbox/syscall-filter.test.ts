/**
 * The sandbox's syscall filter (src/sandbox/syscall-filter.ts, syscall-policy.ts), built for this host and
 * run for real: loaded by a plain `bwrap --seccomp FD` spawned here (as the bwrap backend runs its
 * sandboxes: an unprivileged user, new namespaces), and as the seccomp profile of the Docker backend's
 * containers. The expected answers come from outside the code: errno values (asm-generic/errno*.h),
 * syscall numbers from libseccomp's own resolver (python3-seccomp, asked here), and the kernel itself —
 * each probe that shows the filter at work is also run without it, where the kernel answers differently.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isMineditError } from "../../src/errors.js";
import type { DockerSandbox } from "../../src/sandbox/docker.js";
import { HostFactsCache } from "../../src/sandbox/host-facts-cache.js";
import { DEFAULT_LIMITS } from "../../src/sandbox/sandbox.js";
import { loadSyscallFilter, rememberedFilter, type SyscallFilter } from "../../src/sandbox/syscall-filter.js";
import { ARGUMENT_RULES, DENIED_SYSCALLS } from "../../src/sandbox/syscall-policy.js";
import { WarmPythonSandbox } from "../../src/sandbox/warm-python.js";
import { skipFor } from "../setup/skip.js";
import { createDockerSandbox, DOCKER_SKIP_REASON } from "./backends.js";
import { GVISOR_SKIP_REASON } from "./gvisor.js";

const PYTHON = "/usr/bin/python3";
const EPERM = 1;
const EBADF = 9;
const EFAULT = 14;
const EINVAL = 22;
const ENOSYS = 38;
const EOPNOTSUPP = 95;
const SIGSEGV = 11;
const SIGSYS = 31;
const AT_FDCWD = -100;
/** The bad-architecture action of the program: SECCOMP_RET_KILL_PROCESS (linux/seccomp.h). */
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_I386 = 0x40000003;

/** Syscall numbers by name, from libseccomp's resolver (`arch`: "NATIVE" or "X86"); -1 for none. */
function resolve(names: readonly string[], arch: "NATIVE" | "X86" = "NATIVE"): Record<string, number> {
  const r = spawnSync(
    PYTHON,
    [
      "-c",
      "import json, seccomp, sys\n" +
        `a = seccomp.Arch.${arch}\n` +
        "print(json.dumps({n: seccomp.resolve_syscall(a, n) for n in json.loads(sys.argv[1])}))",
      JSON.stringify(names),
    ],
    { encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`libseccomp's resolver: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number>;
}

const root = process.getuid?.() === 0;
/**
 * A plain bwrap sandbox, as the backend makes one: as root, first drop to nobody (else the program would
 * keep root's capabilities, and the control runs without the filter would be unsafe); new namespaces;
 * only /usr. `--seccomp 3` when a filter is given (fd 3 of the spawned process).
 */
function bwrapArgv(withFilter: boolean, argv: readonly string[]): string[] {
  return [
    ...(root ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []),
    "bwrap",
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/usr",
    "/usr",
    ...["--symlink", "usr/lib64", "/lib64", "--symlink", "usr/lib", "/lib", "--symlink", "usr/bin", "/bin"],
    // Debian finds libraries such as numpy's BLAS through these.
    ...["--ro-bind-try", "/etc/alternatives", "/etc/alternatives"],
    ...["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"],
    ...["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--chdir", "/tmp"],
    ...(withFilter ? ["--seccomp", "3"] : []),
    ...argv,
  ];
}

type Ran = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs `python3 -c source args…` in a plain bwrap sandbox, with the filter or (`null`) without. */
function inSandbox(bpf: Buffer | null, source: string, args: readonly string[] = []): Promise<Ran> {
  const [command, ...rest] = bwrapArgv(bpf !== null, [PYTHON, "-c", source, ...args]);
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, rest, { stdio: ["ignore", "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const filterFd = child.stdio[3] as NodeJS.WritableStream;
    filterFd.on("error", () => {});
    filterFd.end(bpf ?? Buffer.alloc(0));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Each call made in a child of its own (so one that kills its process, or leaves it traced, touches no
 * other): `{id, nr, args, int80?}`, an arg "self" being the child's pid. Prints `{id: {ret, errno} |
 * {signal}}`. `int80`: through `int 0x80` (the i386 entry), by a few bytes of machine code on an
 * executable page: rax = nr, rbx/rcx/rdx = the first three args.
 */
const PROBE = `
import ctypes, json, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# push rbx; mov rax,rdi; mov rbx,rsi; mov r8,rcx; mov rcx,rdx; mov rdx,r8; int 0x80; pop rbx; ret
INT80 = bytes.fromhex("53" "4889f8" "4889f3" "4989c8" "4889d1" "4c89c2" "cd80" "5b" "c3")

def call(c):
    args = [os.getpid() if a == "self" else a for a in c["args"]]
    if c.get("int80"):
        page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        page.write(INT80)
        f = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_long] * 4)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
        r = f(c["nr"], *(args + [0, 0, 0])[:3])
        return {"ret": r, "errno": -r if -4096 < r < 0 else 0}
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(c["nr"]), *[ctypes.c_long(a) for a in args])
    return {"ret": r, "errno": ctypes.get_errno() if r == -1 else 0}

results = {}
for c in json.loads(sys.argv[1]):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = call(c)
        except BaseException as e:
            out = {"error": repr(e)}
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    results[c["id"]] = json.loads(data) if data else {"signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None}
print(json.dumps(results))
`;

type Call = { id: string; nr: number; args: (number | "self")[]; int80?: boolean };
type Answer = { ret?: number; errno?: number; signal?: number | null; error?: string };

async function probe(bpf: Buffer | null, calls: readonly Call[]): Promise<Record<string, Answer>> {
  const ran = await inSandbox(bpf, PROBE, [JSON.stringify(calls)]);
  if (ran.code !== 0) throw new Error(`probe failed (${ran.code ?? ran.signal}): ${ran.stderr}`);
  return JSON.parse(ran.stdout) as Record<string, Answer>;
}

/**
 * A classic BPF interpreter for seccomp programs (what the kernel runs on `struct seccomp_data`: nr at
 * offset 0, arch at 4, args from 16), enough for libseccomp's output: loads, jumps, AND, returns. With
 * `args` undefined it answers as the kernel's constant-action cache does (kernel/seccomp.c,
 * seccomp_is_const_allow): undefined as soon as the program reads anything but nr and arch.
 */
function runBpf(bpf: Buffer, arch: number, nr: number, args?: readonly bigint[]): number | undefined {
  let a = 0;
  for (let pc = 0; pc < bpf.length / 8; pc++) {
    const code = bpf.readUInt16LE(pc * 8);
    const jt = bpf.readUInt8(pc * 8 + 2);
    const jf = bpf.readUInt8(pc * 8 + 3);
    const k = bpf.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) {
      if (k === 0) a = nr;
      else if (k === 4) a = arch;
      else if (k >= 16 && k < 64 && args !== undefined) {
        const arg = args[Math.floor((k - 16) / 8)] ?? 0n;
        a = Number(k % 8 === 0 ? arg & 0xffffffffn : (arg >> 32n) & 0xffffffffn);
      } else return undefined;
    } else if (code === 0x06) return k;
    else if (code === 0x05) pc += k;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x25) pc += a > k ? jt : jf;
    else if (code === 0x45) pc += (a & k) !== 0 ? jt : jf;
    else if (code === 0x54) a = (a & k) >>> 0;
    else throw new Error(`unexpected BPF instruction ${code.toString(16)} at ${pc}`);
  }
  throw new Error("the program ran off its end");
}

const hasBwrap = spawnSync("bwrap", ["--version"]).status === 0;
const hasBindings = spawnSync(PYTHON, ["-c", "import seccomp"]).status === 0;
const x86_64 = process.arch === "x64";
/** Why the filter cannot be tested on this machine (the skip reporter lists it), or undefined. */
const FILTER_SKIP_REASON =
  hasBwrap && hasBindings && x86_64
    ? undefined
    : `the syscall filter needs bwrap, python3-seccomp for ${PYTHON} and x86-64 ` +
      `(here: bwrap ${hasBwrap}, python3-seccomp ${hasBindings}, x86-64 ${x86_64})`;

describe("the syscall filter under bwrap --seccomp", skipFor(FILTER_SKIP_REASON), () => {
  let filter: SyscallFilter;
  let bpf: Buffer;
  /** Every denied syscall of x86-64 (libseccomp's numbers), and the conditioned ones. */
  let nr: Record<string, number>;

  beforeAll(async () => {
    filter = await loadSyscallFilter(PYTHON);
    bpf = filter.bpf;
    const names = [
      ...DENIED_SYSCALLS.map((d) => d.name),
      ...ARGUMENT_RULES.map((r) => r.syscall),
      "getpid",
      "read",
      "futex",
    ];
    nr = resolve(names);
  });

  test("built once per process and interpreter, from every syscall libseccomp knows for x86-64", async () => {
    expect(await loadSyscallFilter(PYTHON)).toBe(filter);
    expect(bpf.length % 8).toBe(0);
    expect(bpf.length / 8).toBeLessThanOrEqual(4096); // BPF_MAXINSNS
    const known = resolve(filter.knownSyscalls);
    for (const name of filter.knownSyscalls) expect(known[name], name).toBeGreaterThanOrEqual(0);
    expect(filter.knownSyscalls).toEqual(
      expect.arrayContaining(["read", "write", "keyctl", "clone3", "rseq"]),
    );
  });

  test("every name of the policy is a syscall libseccomp knows, on x86-64 or i386 (a typo would deny nothing)", () => {
    const names = [...DENIED_SYSCALLS.map((d) => d.name), ...ARGUMENT_RULES.map((r) => r.syscall)];
    const i386 = resolve(names, "X86");
    for (const name of names)
      expect(Math.max(nr[name] ?? -1, i386[name] ?? -1), name).toBeGreaterThanOrEqual(0);
  });

  test("remembered between processes: the builder's own bytes, and a second start runs no interpreter", async () => {
    const dir = mkdtempSync(join(tmpdir(), "minedit-seccomp-"));
    try {
      const count = join(dir, "count");
      const python = join(dir, "python3");
      writeFileSync(python, `#!/bin/sh\necho run >> ${count}\nexec ${PYTHON} "$@"\n`);
      chmodSync(python, 0o755);
      const runs = () => readFileSync(count, "utf8").split("\n").filter(Boolean).length;
      const facts = new HostFactsCache(join(dir, "cache"));
      const built = await rememberedFilter(python, facts);
      expect(runs()).toBe(1);
      // A fresh build in its own empty cache: the same program, byte for byte, and the same names.
      const fresh = await rememberedFilter(PYTHON, new HostFactsCache(join(dir, "fresh")));
      expect(built.bpf.equals(fresh.bpf)).toBe(true);
      expect(built.knownSyscalls).toEqual(fresh.knownSyscalls);
      const again = await rememberedFilter(python, new HostFactsCache(join(dir, "cache")));
      expect(again.bpf.equals(built.bpf)).toBe(true);
      expect(again.knownSyscalls).toEqual(built.knownSyscalls);
      expect(runs()).toBe(1);
      // A program file that is not a BPF program (here: 7 bytes) is a miss: built again, and replaced.
      for (const file of readdirSync(join(dir, "cache"))) {
        const path = join(dir, "cache", file);
        const stored = JSON.parse(readFileSync(path, "utf8")) as { key: string; value: unknown };
        if (typeof stored.value === "string") {
          writeFileSync(
            path,
            JSON.stringify({ key: stored.key, value: Buffer.from("1234567").toString("base64") }),
          );
        }
      }
      expect((await rememberedFilter(python, facts)).bpf.equals(built.bpf)).toBe(true);
      expect(runs()).toBe(2);
      // The interpreter changed (an upgrade in place): built again.
      const later = Date.now() / 1000 + 60;
      utimesSync(python, later, later);
      expect((await rememberedFilter(python, facts)).bpf.equals(built.bpf)).toBe(true);
      expect(runs()).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("without libseccomp's bindings nothing is built: Unavailable, saying what to install", async () => {
    const dir = mkdtempSync(join(tmpdir(), "minedit-seccomp-"));
    try {
      // An interpreter without the system's site-packages, where Debian installs the bindings.
      const bare = join(dir, "python3");
      writeFileSync(bare, `#!/bin/sh\nexec ${PYTHON} -S "$@"\n`);
      chmodSync(bare, 0o755);
      const error = await loadSyscallFilter(bare).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isMineditError(error) && error.code).toBe("unavailable");
      expect(String((error as Error).message)).toContain("apt-get install -y python3-seccomp");
      const missing = await loadSyscallFilter(join(dir, "nowhere")).catch((e: unknown) => e);
      expect(isMineditError(missing) && missing.code).toBe("unavailable");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("bwrap applies it to the sandbox's init and to the program", async () => {
    const ran = await inSandbox(
      bpf,
      "import re\nfor p in ('1', 'self'):\n    print(re.search(r'Seccomp:\\s+(\\d)', open(f'/proc/{p}/status').read())[1])",
    );
    expect(ran.stderr).toBe("");
    expect(ran.stdout.split("\n").slice(0, 2)).toEqual(["2", "2"]); // SECCOMP_MODE_FILTER
  });

  test("every denied syscall answers EPERM (clone3: ENOSYS)", async () => {
    const native = DENIED_SYSCALLS.filter((d) => (nr[d.name] ?? -1) >= 0);
    expect(native.length).toBeGreaterThan(60);
    const answers = await probe(
      bpf,
      native.map((d) => ({ id: d.name, nr: nr[d.name] as number, args: [] })),
    );
    for (const d of native) {
      expect(answers[d.name], d.name).toEqual({ ret: -1, errno: d.name === "clone3" ? ENOSYS : EPERM });
    }
  });

  test("the refusals are the filter's: the same calls without it get the kernel's own answers", async () => {
    // Arguments the kernel answers without a capability check, so its answer differs from the filter's.
    const calls: [string, (number | "self")[], (a: Answer) => boolean][] = [
      ["ptrace", [0], (a) => a.ret === 0], // PTRACE_TRACEME
      ["process_vm_readv", ["self", 0, 0, 0, 0, 0], (a) => a.ret === 0],
      ["process_vm_writev", ["self", 0, 0, 0, 0, 0], (a) => a.ret === 0],
      ["pidfd_open", ["self", 0], (a) => (a.ret ?? -1) >= 0],
      ["pidfd_getfd", [-1, 0, 0], (a) => a.errno === EBADF],
      ["process_madvise", [-1, 0, 0, 0, 0], (a) => a.errno === EBADF],
      ["process_mrelease", [-1, 0], (a) => a.errno === EBADF],
      ["add_key", [0, 0, 0, 0, 0], (a) => a.errno === EFAULT],
      ["keyctl", [9999, 0, 0, 0, 0], (a) => a.errno === EOPNOTSUPP],
      ["request_key", [0, 0, 0, 0], (a) => a.errno === EFAULT],
      ["unshare", [0], (a) => a.ret === 0],
      ["setns", [-1, 0], (a) => a.errno === EBADF],
      ["name_to_handle_at", [AT_FDCWD, 0, 0, 0, 0], (a) => a.errno === EFAULT],
      ["get_mempolicy", [0, 0, 0, 0, 0], (a) => a.ret === 0],
      ["set_mempolicy", [0, 0, 0], (a) => a.ret === 0], // MPOL_DEFAULT
      ["move_pages", [0, 0, 0, 0, 0, 0], (a) => a.ret === 0],
      ["clone3", [0, 0], (a) => a.errno === EINVAL], // size 0 < CLONE_ARGS_SIZE_VER0
    ];
    const asked = calls.map(([name, args]) => ({ id: name, nr: nr[name] as number, args }));
    const [without, withFilter] = await Promise.all([probe(null, asked), probe(bpf, asked)]);
    for (const [name, , kernel] of calls) {
      expect(
        kernel(without[name] as Answer),
        `${name} without the filter: ${JSON.stringify(without[name])}`,
      ).toBe(true);
      expect(withFilter[name], name).toEqual({ ret: -1, errno: name === "clone3" ? ENOSYS : EPERM });
    }
  });

  test("a syscall the filter cannot name (newer than libseccomp's table) answers ENOSYS", async () => {
    const known = Object.values(resolve(filter.knownSyscalls));
    const newest = Math.max(...known);
    // Linux 6.x has syscalls past libseccomp 2.5.4's table (statmount, listmount, mseal…): without the
    // filter the kernel runs them (and refuses these null arguments with its own errno).
    const calls = [newest + 1, newest + 2, 1000].map((n) => ({ id: String(n), nr: n, args: [0, 0, 0, 0] }));
    const [without, withFilter] = await Promise.all([probe(null, calls), probe(bpf, calls)]);
    for (const c of calls) expect(withFilter[c.id], c.id).toEqual({ ret: -1, errno: ENOSYS });
    expect(without["1000"]).toEqual({ ret: -1, errno: ENOSYS });
    console.info(`without the filter, syscalls ${newest + 1} and ${newest + 2}: ${JSON.stringify(without)}`);
  });

  test("arguments: prctl(PR_SET_DUMPABLE, 0) yes, 1 no; AF_INET and AF_UNIX yes, AF_VSOCK no; namespaces no; Docker's personalities", async () => {
    const prctl = nr.prctl as number;
    const socket = nr.socket as number;
    const clone = nr.clone as number;
    const personality = nr.personality as number;
    const high = 2 ** 32; // a bit the kernel drops from an int argument
    const calls: (Call & { want: Answer | "success" })[] = [
      { id: "PR_SET_DUMPABLE 0", nr: prctl, args: [4, 0], want: { ret: 0, errno: 0 } },
      { id: "PR_SET_DUMPABLE 1", nr: prctl, args: [4, 1], want: { ret: -1, errno: EPERM } },
      { id: "PR_SET_DUMPABLE 2", nr: prctl, args: [4, 2], want: { ret: -1, errno: EPERM } },
      { id: "PR_SET_DUMPABLE 1, high bit", nr: prctl, args: [high + 4, 1], want: { ret: -1, errno: EPERM } },
      { id: "PR_GET_DUMPABLE", nr: prctl, args: [3], want: "success" },
      { id: "PR_GET_DUMPABLE, high bit", nr: prctl, args: [high + 3], want: "success" },
      { id: "PR_SET_NAME", nr: prctl, args: [15, 0], want: { ret: -1, errno: EFAULT } },
      { id: "PR_SET_CHILD_SUBREAPER", nr: prctl, args: [36, 1], want: { ret: 0, errno: 0 } },
      { id: "AF_UNIX", nr: socket, args: [1, 1, 0], want: "success" },
      { id: "AF_INET", nr: socket, args: [2, 1, 0], want: "success" },
      { id: "AF_INET6", nr: socket, args: [10, 2, 0], want: "success" },
      { id: "AF_VSOCK", nr: socket, args: [40, 1, 0], want: { ret: -1, errno: EPERM } },
      { id: "AF_VSOCK, high bit", nr: socket, args: [high + 40, 1, 0], want: { ret: -1, errno: EPERM } },
      {
        id: "clone CLONE_NEWUSER",
        nr: clone,
        args: [0x10000000 | 17, 0, 0, 0, 0],
        want: { ret: -1, errno: EPERM },
      },
      {
        id: "clone CLONE_NEWNET",
        nr: clone,
        args: [0x40000000 | 17, 0, 0, 0, 0],
        want: { ret: -1, errno: EPERM },
      },
      {
        id: "clone CLONE_NEWNS",
        nr: clone,
        args: [0x00020000 | 17, 0, 0, 0, 0],
        want: { ret: -1, errno: EPERM },
      },
      { id: "personality query", nr: personality, args: [0xffffffff], want: "success" },
      { id: "personality PER_LINUX", nr: personality, args: [0], want: "success" },
      {
        id: "personality ADDR_NO_RANDOMIZE",
        nr: personality,
        args: [0x0040000],
        want: { ret: -1, errno: EPERM },
      },
      {
        id: "personality READ_IMPLIES_EXEC",
        nr: personality,
        args: [0x0400000],
        want: { ret: -1, errno: EPERM },
      },
      {
        id: "personality ADDR_NO_RANDOMIZE, high bit",
        nr: personality,
        args: [high + 0x0040000],
        want: { ret: -1, errno: EPERM },
      },
    ];
    const answers = await probe(bpf, calls);
    for (const c of calls) {
      const a = answers[c.id] as Answer;
      if (c.want === "success")
        expect(a.ret ?? -1, `${c.id}: ${JSON.stringify(a)}`).toBeGreaterThanOrEqual(0);
      else expect(a, c.id).toEqual(c.want);
    }
    // The kernel reads only the low 32 bits of an int argument, which is why the filter does too.
    const without = await probe(null, [
      { id: "get", nr: prctl, args: [high + 3] },
      { id: "vsock", nr: socket, args: [high + 40, 1, 0] },
    ]);
    expect(without.get?.ret).toBe(1); // PR_GET_DUMPABLE, not EINVAL
    expect(without.vsock?.errno).not.toBe(EPERM); // a vsock socket, or no vsock in this kernel
  });

  test("x32 and int 0x80 cannot go around it", async () => {
    const getpid = nr.getpid as number;
    const i386 = resolve(["getpid", "keyctl", "ptrace"], "X86");
    const calls: Call[] = [
      { id: "x32 getpid", nr: 0x40000000 | getpid, args: [] },
      { id: "x32 keyctl", nr: 0x40000000 | (nr.keyctl as number), args: [0, 0] },
      { id: "int80 getpid", nr: i386.getpid as number, args: [], int80: true },
      { id: "int80 keyctl", nr: i386.keyctl as number, args: [0, 0], int80: true },
      { id: "int80 ptrace", nr: i386.ptrace as number, args: [0], int80: true },
    ];
    const [without, withFilter] = await Promise.all([probe(null, calls), probe(bpf, calls)]);
    // x32: the filter kills the process (its bad-architecture action); the kernel alone answers ENOSYS
    // (no x32 ABI) or runs the call.
    expect(withFilter["x32 getpid"]).toEqual({ signal: SIGSYS });
    expect(withFilter["x32 keyctl"]).toEqual({ signal: SIGSYS });
    expect(without["x32 getpid"]?.signal).toBeUndefined();
    // int 0x80 enters as i386, which the program sends to the same action. Where the kernel takes int 0x80
    // from 64-bit code, the filter kills the call; where it does not (this CI's VM: SIGSEGV even without
    // a filter), nothing runs either way.
    const int80Works = without["int80 getpid"]?.ret !== undefined && (without["int80 getpid"]?.ret ?? 0) > 0;
    for (const id of ["int80 getpid", "int80 keyctl", "int80 ptrace"]) {
      expect(withFilter[id], id).toEqual({ signal: int80Works ? SIGSYS : SIGSEGV });
    }
    if (!int80Works) console.info(`int 0x80 without the filter: ${JSON.stringify(without["int80 getpid"])}`);
    // What the program itself answers for the i386 and x32 entries, whatever this kernel supports.
    for (const n of [0, getpid, nr.keyctl as number, 287, 1000]) {
      expect(runBpf(bpf, AUDIT_ARCH_I386, n, [0n, 0n, 0n, 0n, 0n, 0n])).toBe(SECCOMP_RET_KILL_PROCESS);
      expect(runBpf(bpf, AUDIT_ARCH_X86_64, 0x40000000 | n, [0n, 0n, 0n, 0n, 0n, 0n])).toBe(
        SECCOMP_RET_KILL_PROCESS,
      );
    }
  });

  test("allowed syscalls are in the kernel's constant-action cache: the program never runs for them", () => {
    const conditioned = new Set(ARGUMENT_RULES.map((r) => r.syscall));
    const denied = new Set(DENIED_SYSCALLS.map((d) => d.name));
    const numbers = resolve(filter.knownSyscalls);
    for (const name of filter.knownSyscalls) {
      const answer = runBpf(bpf, AUDIT_ARCH_X86_64, numbers[name] as number);
      if (denied.has(name) || conditioned.has(name)) expect(answer, name).not.toBe(SECCOMP_RET_ALLOW);
      else expect(answer, name).toBe(SECCOMP_RET_ALLOW);
    }
  });

  test("ordinary Python runs: threads, fork, subprocess, multiprocessing, asyncio, loopback sockets, mmap, numpy and pandas", async () => {
    const program = String.raw`
import asyncio, importlib.util, mmap, multiprocessing, os, socket, subprocess, sys, tempfile, threading

async def main():
    async def echo(reader, writer):
        writer.write(await reader.read(5)); await writer.drain(); writer.close()
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"hello"); await writer.drain()
    got = await reader.read(5)
    writer.close(); server.close(); await server.wait_closed()
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "print(6 * 7)", stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    return got, int(out)

if __name__ == "__main__":
    done = []
    threads = [threading.Thread(target=done.append, args=(i,)) for i in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    assert sorted(done) == list(range(8))
    pid = os.fork()
    if pid == 0: os._exit(7)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 7
    assert subprocess.run(["sh", "-c", "echo ok"], capture_output=True, text=True).stdout == "ok\n"
    for method in ("fork", "spawn", "forkserver"):
        with multiprocessing.get_context(method).Pool(2) as pool:
            assert pool.map(abs, range(-2, 3)) == [2, 1, 0, 1, 2], method
    assert asyncio.run(main()) == (b"hello", 42)
    a, b = socket.socketpair(); a.sendall(b"x"); assert b.recv(1) == b"x"
    with socket.create_server(("::1", 0), family=socket.AF_INET6) as s6:
        c = socket.create_connection(s6.getsockname()[:2]); conn, _ = s6.accept(); c.sendall(b"y"); assert conn.recv(1) == b"y"
    with tempfile.TemporaryFile() as f:
        f.write(b"\0" * 4096); f.flush()
        m = mmap.mmap(f.fileno(), 4096); m[0:3] = b"abc"; assert m[0:3] == b"abc"; m.close()
    shared = mmap.mmap(-1, 4096)
    if os.fork() == 0:
        shared[0:1] = b"z"; os._exit(0)
    os.wait(); assert shared[0:1] == b"z"
    libs = [name for name in ("numpy", "pandas") if importlib.util.find_spec(name)]
    if "numpy" in libs:
        import numpy as np
        assert float((np.arange(12.0).reshape(3, 4) @ np.ones(4)).sum()) == 66.0
    if "pandas" in libs:
        import pandas as pd
        assert pd.DataFrame({"a": [1, 2, 3]}).a.sum() == 6
    print("ok", *libs)
`;
    const ran = await inSandbox(bpf, program);
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toMatch(/^ok\b/);
    console.info(`ordinary work under the filter: ${ran.stdout.trim()}`);
  });

  test("what the fork server does still works: prctl, subreaper, kill(-1), waitpid, rlimits, SysV IPC removal, /proc", async () => {
    const program = `
import ctypes, os, resource, signal, time
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(15, b"minedit-init", 0, 0, 0) == 0          # PR_SET_NAME
assert libc.prctl(4, 0, 0, 0, 0) == 0                         # PR_SET_DUMPABLE 0
assert libc.prctl(36, 1, 0, 0, 0) == 0                        # PR_SET_CHILD_SUBREAPER
assert libc.prctl(4, 1, 0, 0, 0) == -1 and ctypes.get_errno() == 1   # and not back
for which, value in ((resource.RLIMIT_AS, 1 << 32), (resource.RLIMIT_NPROC, 64), (resource.RLIMIT_FSIZE, 1 << 24),
                     (resource.RLIMIT_CORE, 0), (resource.RLIMIT_MSGQUEUE, 0), (resource.RLIMIT_CPU, 30)):
    resource.setrlimit(which, (value, value))
IPC_CREAT, IPC_RMID = 0o1000, 0
shm, sem, msg = libc.shmget(0, 4096, IPC_CREAT | 0o600), libc.semget(0, 1, IPC_CREAT | 0o600), libc.msgget(0, IPC_CREAT | 0o600)
assert min(shm, sem, msg) >= 0
for path, ident in (("shm", shm), ("sem", sem), ("msg", msg)):
    assert any(line.split()[1] == str(ident) for line in open("/proc/sysvipc/" + path).readlines()[1:]), path
assert libc.shmctl(shm, IPC_RMID, None) == 0 and libc.semctl(sem, 0, IPC_RMID) == 0 and libc.msgctl(msg, IPC_RMID, None) == 0
# An orphan comes to this subreaper; kill(-1) reaches it; waitpid reaps it.
child = os.fork()
if child == 0:
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)
os.waitpid(child, 0)
orphans = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
assert len(orphans) == 1, orphans
open(f"/proc/{orphans[0]}/stat").read()
for tid in os.listdir(f"/proc/{orphans[0]}/task"):
    open(f"/proc/{orphans[0]}/task/{tid}/schedstat").read()
os.kill(-1, signal.SIGKILL)
pid, status = os.waitpid(-1, 0)
assert pid == orphans[0] and os.WTERMSIG(status) == signal.SIGKILL
resource.getrusage(resource.RUSAGE_CHILDREN)
open("/proc/1/comm").read()
print("ok")
`;
    const ran = await inSandbox(bpf, program);
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toBe("ok\n");
  });
});

describe(
  "the syscall filter as the Docker backend's seccomp profile",
  skipFor(DOCKER_SKIP_REASON ?? (hasBindings && x86_64 ? undefined : FILTER_SKIP_REASON)),
  () => {
    const sandboxes: DockerSandbox[] = [];
    const warm: WarmPythonSandbox[] = [];
    let nr: Record<string, number>;
    /** A program that makes the calls and prints each errno, then does ordinary work. */
    let program: string;

    beforeAll(() => {
      nr = resolve([
        "keyctl",
        "add_key",
        "ptrace",
        "pidfd_open",
        "process_vm_readv",
        "prctl",
        "socket",
        "clone3",
      ]);
      program = `
import ctypes, json, os, subprocess, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def errno(nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return ctypes.get_errno() if r == -1 else 0
nr = json.loads(sys.argv[1])
out = {
    "keyctl": errno(nr["keyctl"], 0, -3, 0),
    "add_key": errno(nr["add_key"], 0, 0, 0, 0, 0),
    "ptrace": errno(nr["ptrace"], 0),
    "pidfd_open": errno(nr["pidfd_open"], os.getpid(), 0),
    "process_vm_readv": errno(nr["process_vm_readv"], os.getpid(), 0, 0, 0, 0, 0),
    "dumpable 1": errno(nr["prctl"], 4, 1),
    "dumpable 0": errno(nr["prctl"], 4, 0),
    "vsock": errno(nr["socket"], 40, 1, 0),
}
t = threading.Thread(target=lambda: None); t.start(); t.join()
out["subprocess"] = subprocess.run([sys.executable, "-c", "print(42)"], capture_output=True, text=True).stdout.strip()
print(json.dumps(out))
`;
    });

    afterAll(async () => {
      await Promise.all([...warm.map((w) => w.close()), ...sandboxes.map((s) => s.close())]);
    });

    const expected = {
      keyctl: EPERM,
      add_key: EPERM,
      ptrace: EPERM,
      pidfd_open: EPERM,
      process_vm_readv: EPERM,
      "dumpable 1": EPERM,
      "dumpable 0": 0,
      vsock: EPERM,
      subprocess: "42",
    };
    const limits = { ...DEFAULT_LIMITS, wallTimeMs: 120_000 };

    const runtimes = [
      ["runc", undefined],
      ["gVisor (runsc --oci-seccomp)", "runsc"],
    ] as const;
    for (const [label, ociRuntime] of runtimes) {
      const options = {
        ...skipFor(ociRuntime === "runsc" ? GVISOR_SKIP_REASON : undefined),
        timeout: 300_000,
      };
      test(
        `${label}: a fresh container refuses the denied syscalls, threads and subprocesses run`,
        options,
        async () => {
          const sandbox = await createDockerSandbox(ociRuntime === undefined ? {} : { ociRuntime });
          sandboxes.push(sandbox);
          const r = await sandbox.run({
            files: {},
            argv: ["python3", "-c", program, JSON.stringify(nr)],
            limits,
          });
          expect(r.stderr).toBe("");
          expect(JSON.parse(r.stdout)).toEqual(expected);
        },
      );

      test(`${label}: so does a program its warm fork server runs`, options, async () => {
        const base = await createDockerSandbox(ociRuntime === undefined ? {} : { ociRuntime });
        const pool = await WarmPythonSandbox.create(base, { slots: 1 });
        warm.push(pool);
        const r = await pool.run({
          files: {},
          argv: ["python3", "-s", "-c", program, JSON.stringify(nr)],
          limits,
        });
        expect(r.stderr).toBe("");
        expect(JSON.parse(r.stdout)).toEqual(expected);
      });
    }
  },
);
