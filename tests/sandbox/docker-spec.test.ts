/**
 * The Docker backend's container spec (src/sandbox/docker-spec.ts), offline: every container is created
 * hardened — the options the daemon is sent, the sandbox's syscall filter as its seccomp profile among
 * them — and the reaper's orphan test only picks this host's dead owners. (What the daemon makes of them,
 * and what a program inside sees: docker.test.ts and syscall-filter.test.ts.)
 */
import { describe, expect, test } from "vitest";
import {
  containerOptions,
  isOrphan,
  OWNER_LABEL,
  ownerLabel,
  ROLE_LABEL,
} from "../../src/sandbox/docker-spec.js";
import { SANDBOX_ENV } from "../../src/sandbox/sandbox-env.js";
import { type DockerSeccompProfile, dockerSeccompProfile } from "../../src/sandbox/syscall-filter.js";
import { DENIED_SYSCALLS } from "../../src/sandbox/syscall-policy.js";

/** Names a host's libseccomp might know: a few common ones, the conditioned ones, every denied one of x86-64. */
const KNOWN = [
  ...["read", "write", "openat", "futex", "getpid", "clone", "clone3", "prctl", "socket", "personality"],
  ...DENIED_SYSCALLS.map((d) => d.name).filter(
    (name) => name !== "vm86" && name !== "vm86old" && name !== "clone3",
  ),
];
const PROFILE = dockerSeccompProfile(KNOWN);

const spec = {
  image: `sha256:${"a".repeat(64)}`,
  cmd: ["python3", "-s", "-c", "pass"],
  role: "fork-server" as const,
  owner: ownerLabel("host-1", 4242),
  env: { MPLBACKEND: "Agg" },
  binds: [{ source: "/srv/nltk", target: "/opt/minedit/nltk_data" }],
  memoryBytes: 2 * 1024 ** 3,
  pidsLimit: 264,
  cpus: 1.5,
  scratchBytes: 128 * 1024 * 1024,
  seccompProfile: JSON.stringify(PROFILE),
};

/**
 * What runc makes of a profile for one call (libseccomp under it): a syscall with an entry without args
 * gets that entry's action (libseccomp lets it override conditional ones); otherwise the entries whose
 * comparisons all hold (ANDed: each entry here tests an argument once), which must agree; otherwise the
 * default. Comparisons are on 64-bit values; for SCMP_CMP_MASKED_EQ, `value` is the mask.
 */
function answer(profile: DockerSeccompProfile, name: string, args: readonly bigint[] = []): "allow" | number {
  const entries = profile.syscalls.filter((e) => e.names.includes(name));
  const action = (e: (typeof entries)[number]) =>
    e.action === "SCMP_ACT_ALLOW" ? "allow" : (e.errnoRet ?? -1);
  const unconditional = new Set(entries.filter((e) => (e.args ?? []).length === 0).map(action));
  const holds = (a: { index: number; value: number; valueTwo: number; op: string }) => {
    const arg = args[a.index] ?? 0n;
    if (a.op === "SCMP_CMP_EQ") return arg === BigInt(a.value);
    if (a.op === "SCMP_CMP_NE") return arg !== BigInt(a.value);
    if (a.op === "SCMP_CMP_MASKED_EQ") return (arg & BigInt(a.value)) === BigInt(a.valueTwo);
    throw new Error(`unexpected op ${a.op}`);
  };
  const matched = new Set(
    entries.filter((e) => (e.args ?? []).length > 0 && (e.args ?? []).every(holds)).map(action),
  );
  const found = unconditional.size > 0 ? unconditional : matched;
  expect(found.size, `${name}: entries that disagree`).toBeLessThanOrEqual(1);
  return found.size === 1 ? ([...found][0] as "allow" | number) : profile.defaultErrnoRet;
}

describe("container spec", () => {
  test("hardened: no network, read-only root with capped tmpfs, memory = memory + swap, pids, CPU, no capabilities, nobody", () => {
    const o = containerOptions(spec);
    expect(o).toMatchObject({
      Image: spec.image,
      Cmd: spec.cmd,
      User: "65534:65534",
      WorkingDir: "/tmp",
      Tty: false,
    });
    expect(o.NetworkDisabled).toBe(true);
    expect(o.HostConfig).toMatchObject({
      NetworkMode: "none",
      ReadonlyRootfs: true,
      Memory: spec.memoryBytes,
      MemorySwap: spec.memoryBytes,
      PidsLimit: 264,
      NanoCpus: 1.5e9,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges", `seccomp=${spec.seccompProfile}`],
      IpcMode: "private",
      LogConfig: { Type: "none", Config: {} },
      Init: false,
      Binds: ["/srv/nltk:/opt/minedit/nltk_data:ro"],
    });
    // Sizes and inode caps as bwrap's scratch mounts (16,384 and 1,024 files: whole-run-bounds.ts).
    expect(o.HostConfig?.Tmpfs?.["/tmp"]).toBe(
      "rw,exec,nosuid,nodev,size=134217728,nr_inodes=16384,mode=1777",
    );
    expect(o.HostConfig?.Tmpfs?.["/dev/shm"]).toBe(
      "rw,exec,nosuid,nodev,size=67108864,nr_inodes=1024,mode=1777",
    );
    expect(o.HostConfig?.Runtime).toBeUndefined();
    expect(containerOptions({ ...spec, ociRuntime: "runsc" }).HostConfig?.Runtime).toBe("runsc");
    expect(o.Labels).toEqual({ [OWNER_LABEL]: "host-1:4242", [ROLE_LABEL]: "fork-server" });
  });

  test("the environment is the bwrap sandbox's, with the runtime's on top", () => {
    const env = containerOptions(spec).Env ?? [];
    for (const [key, value] of Object.entries(SANDBOX_ENV)) expect(env).toContain(`${key}=${value}`);
    expect(env).toContain("MPLBACKEND=Agg");
    expect(env.filter((e) => e.startsWith("PATH="))).toHaveLength(1);
  });

  test("the seccomp profile: an allow-list whose default is ENOSYS, the denied syscalls EPERM, for the native architecture only", () => {
    expect(PROFILE).toMatchObject({ defaultAction: "SCMP_ACT_ERRNO", defaultErrnoRet: 38 });
    // No "architectures" or "archMap": libseccomp then filters the native architecture alone and kills a
    // process entering through another (int 0x80, x32) instead of answering the 32-bit table.
    expect(Object.keys(PROFILE).sort()).toEqual(["defaultAction", "defaultErrnoRet", "syscalls"]);
    for (const d of DENIED_SYSCALLS) {
      if (!KNOWN.includes(d.name)) continue;
      expect(answer(PROFILE, d.name), d.name).toBe(d.errno ?? 1);
    }
    expect(answer(PROFILE, "read")).toBe("allow");
    expect(answer(PROFILE, "futex")).toBe("allow");
    // Named with errnoRet 38 although the default says so: Docker 20.10 drops defaultErrnoRet (its
    // containers then answer EPERM to unnamed syscalls), and glibc falls back from clone3 on ENOSYS only.
    expect(PROFILE.syscalls).toContainEqual({ names: ["clone3"], action: "SCMP_ACT_ERRNO", errnoRet: 38 });
    expect(answer(PROFILE, "a_syscall_newer_than_libseccomp")).toBe(38);
    // runc (and gVisor) OR the comparisons of one entry that test the same argument: none does.
    for (const e of PROFILE.syscalls) {
      const indexes = (e.args ?? []).map((a) => a.index);
      expect(new Set(indexes).size, JSON.stringify(e)).toBe(indexes.length);
    }
  });

  test("the seccomp profile's argument rules, as the kernel reads the arguments (an int is the low 32 bits)", () => {
    const high = 1n << 32n;
    const cases: [string, bigint[], "allow" | number][] = [
      ["prctl", [4n, 0n], "allow"], // PR_SET_DUMPABLE 0: what the harness does
      ["prctl", [4n, 1n], 1],
      ["prctl", [high + 4n, 1n], 1], // still PR_SET_DUMPABLE for the kernel
      ["prctl", [4n, high], 1],
      ["prctl", [3n, 0n], "allow"], // PR_GET_DUMPABLE
      ["prctl", [15n, 12345n], "allow"], // PR_SET_NAME
      ["prctl", [36n, 1n], "allow"], // PR_SET_CHILD_SUBREAPER
      ["socket", [2n, 1n, 0n], "allow"], // AF_INET
      ["socket", [1n, 1n, 0n], "allow"], // AF_UNIX
      ["socket", [40n, 1n, 0n], 1], // AF_VSOCK
      ["socket", [high + 40n, 1n, 0n], 1],
      ["socket", [high + 2n, 1n, 0n], "allow"],
      ["clone", [17n], "allow"], // fork(): SIGCHLD
      ["clone", [0x3d0f00n], "allow"], // glibc's pthread_create flags
      ["clone", [0x10000000n | 17n], 1], // CLONE_NEWUSER
      ["clone", [0x40000000n], 1], // CLONE_NEWNET
      ["clone", [0x00020000n | 0x3d0f00n], 1], // CLONE_NEWNS with a thread's flags
      ["personality", [0xffffffffn], "allow"], // the query
      ["personality", [0n], "allow"],
      ["personality", [0x20008n], "allow"],
      ["personality", [0x40000n], 1], // ADDR_NO_RANDOMIZE
      ["personality", [high + 0x40000n], 1],
      ["personality", [high + 8n], "allow"],
    ];
    for (const [name, args, want] of cases) {
      expect(
        answer(PROFILE, name, args),
        `${name}(${args.map((a) => `0x${a.toString(16)}`).join(", ")})`,
      ).toBe(want);
    }
  });

  test("the gVisor profile: clone3 left to gVisor's kernel, since runsc answers EPERM for every errno action", () => {
    const gvisor = dockerSeccompProfile(KNOWN, { gvisor: true });
    expect(answer(gvisor, "clone3")).toBe("allow");
    expect(answer(gvisor, "keyctl")).toBe(1);
    expect(answer(gvisor, "clone", [0x10000000n | 17n])).toBe(1);
    expect(gvisor.syscalls.filter((e) => e.action === "SCMP_ACT_ERRNO").every((e) => e.errnoRet === 1)).toBe(
      true,
    );
    // Everything else as on runc.
    const withoutClone3 = (p: DockerSeccompProfile) =>
      p.syscalls
        .map((e) => ({ ...e, names: e.names.filter((n) => n !== "clone3") }))
        .filter((e) => e.names.length > 0);
    expect(withoutClone3(gvisor)).toEqual(withoutClone3(PROFILE));
  });

  test("orphans: containers of this host whose owner pid is gone; never another host's, never a live one's", () => {
    const alive = (pid: number) => pid === 7;
    expect(isOrphan("host-1:8", "host-1", alive)).toBe(true);
    expect(isOrphan("host-1:7", "host-1", alive)).toBe(false);
    expect(isOrphan("host-2:8", "host-1", alive)).toBe(false);
    expect(isOrphan("a:b:8", "a:b", alive)).toBe(true);
    for (const bad of [undefined, "", "host-1", "host-1:", "host-1:x", ":8", "host-1:-3"]) {
      expect(isOrphan(bad, "host-1", alive), String(bad)).toBe(false);
    }
  });
});
