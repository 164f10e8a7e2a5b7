/**
 * The syscall filter of every sandboxed run, as data (docs/sandbox.md, "The syscall filter"): which
 * syscalls a program may make and why the others are refused. Pure, so the rules are checked offline and
 * each backend turns the same rules into its own form: the BPF program `bwrap --seccomp` loads
 * (syscall-filter.ts, through libseccomp) and Docker's seccomp profile.
 *
 * The shape is a container runtime's: an allow-list of every syscall the host's libseccomp knows, less an
 * explicit deny list (each entry with its reason) and a few syscalls allowed only with some arguments.
 * Denied syscalls answer EPERM; syscalls the list cannot name (newer than libseccomp's table) answer
 * ENOSYS, so a library probing a new syscall falls back as it would on an older kernel. It is our own
 * list, checked entry by entry against Docker's default profile (moby's profiles/seccomp/default.json,
 * without capabilities) and the kernel: everything that profile refuses to a container without
 * capabilities is refused here too (the syscalls it predates, such as cachestat, fchmodat2 and
 * futex_wake, are ordinary ones and allowed), plus what it allows of reaching another process (ptrace,
 * process_vm_readv/writev, pidfd_open, process_mrelease), io_uring and name_to_handle_at.
 *
 * Arguments the kernel declares `int` are compared on their low 32 bits only, as the kernel reads them:
 * socket(1 << 32 | AF_VSOCK) makes a vsock socket, and prctl(1 << 32 | 4, 1) is PR_SET_DUMPABLE (tested
 * in tests/sandbox/syscall-filter.test.ts; moby's own `socket` rule compares all 64 bits).
 */

/** errno values (asm-generic/errno-base.h, errno.h): the same on every Linux architecture. */
export const EPERM = 1;
export const ENOSYS = 38;

/** A syscall every run is refused, with the one-line reason shown in the docs. */
export type DeniedSyscall = {
  readonly name: string;
  readonly why: string;
  /** ENOSYS instead of EPERM: for a syscall whose callers fall back only when it "does not exist". */
  readonly errno?: typeof ENOSYS;
};

export type DenyGroup = { readonly title: string; readonly syscalls: readonly DeniedSyscall[] };

/**
 * A test of one argument. `bits: 32` for an argument the kernel declares `int` or `unsigned int`: it reads
 * only the low half of the register, so the test must ignore the high half too (a 64-bit comparison with
 * 4 would let `prctl(0x1_0000_0004, 1)` through as PR_SET_DUMPABLE).
 */
export type ArgumentTest =
  | { readonly index: number; readonly bits: 32 | 64; readonly in: readonly number[] }
  | { readonly index: number; readonly bits: 32 | 64; readonly notIn: readonly number[] }
  | { readonly index: number; readonly anyBitOf: number }
  | { readonly index: number; readonly noBitOf: number };

/** A syscall allowed except when every test holds (then EPERM). The tests name different arguments. */
export type ArgumentRule = {
  readonly syscall: string;
  readonly deniedWhen: readonly ArgumentTest[];
  readonly why: string;
};

/** One comparison libseccomp (and Docker's profile) understands; for `masked_eq`, `value` is the mask. */
export type Comparison = {
  readonly index: number;
  readonly op: "eq" | "ne" | "masked_eq";
  readonly value: number;
  readonly valueTwo?: number;
};

/**
 * One rule of the compiled filter: the syscall's action when all `args` hold (none: always). A syscall's
 * rules with different actions never overlap: libseccomp lets an unconditional rule override conditional
 * ones and gVisor takes the first match, so only disjoint rules mean the same to both.
 */
export type FilterRule = {
  readonly syscall: string;
  readonly action: "allow" | { readonly errno: number };
  readonly args: readonly Comparison[];
};

/** Denied syscalls that share one reason, in the order given. */
function alike(why: string, ...names: string[]): DeniedSyscall[] {
  return names.map((name) => ({ name, why }));
}

/** The denied syscalls, grouped as the docs present them. */
export const DENY_GROUPS: readonly DenyGroup[] = [
  {
    title: "Reaching other processes",
    syscalls: [
      {
        name: "ptrace",
        why: "attaches to a process of the same uid (the harness, the fork server) and reads or writes its memory and registers",
      },
      { name: "process_vm_readv", why: "reads another process's memory" },
      { name: "process_vm_writev", why: "writes another process's memory" },
      {
        name: "pidfd_getfd",
        why: "copies another process's file descriptor: the attack that took the sandbox's control channel",
      },
      {
        name: "pidfd_open",
        why:
          "the first step of pidfd_getfd and process_madvise; a filter cannot tell the caller's own children from other processes, so it is refused for every pid " +
          "(CPython 3.11 and glibc 2.36 never call it on their own)",
      },
      {
        name: "kcmp",
        why: "compares two processes' kernel objects (files, memory): tells what another process holds",
      },
      { name: "process_madvise", why: "acts on another process's memory" },
      { name: "process_mrelease", why: "reclaims another (dying) process's memory" },
    ],
  },
  {
    title: "Kernel keyrings",
    syscalls: [
      {
        name: "add_key",
        why: "keyrings belong to the host uid, not to the sandbox: a key added in one run is seen by later runs (/proc/keys), and one rollout can exhaust the uid's key quota",
      },
      { name: "keyctl", why: "reads, links and revokes keys of the uid's shared keyrings (as add_key)" },
      {
        name: "request_key",
        why: "as add_key, and may make the kernel run the host's /sbin/request-key",
      },
    ],
  },
  {
    title: "Kernel attack surface",
    syscalls: [
      {
        name: "bpf",
        why: "loads programs into the kernel, a long CVE history (unprivileged BPF is off on most hosts, not all: it is on in this project's CI VM)",
      },
      {
        name: "perf_event_open",
        why: "kernel and hardware profiling: side channels on the host, a long CVE history",
      },
      {
        name: "userfaultfd",
        why: "lets a program stall the kernel inside a page fault at will, the staple of kernel race exploits",
      },
      {
        name: "io_uring_setup",
        why: "io_uring's operations are not syscalls, so no filter sees them; a long CVE history (recent Docker and containerd default profiles refuse it)",
      },
      ...alike("as io_uring_setup", "io_uring_enter", "io_uring_register"),
    ],
  },
  {
    title: "Namespaces and mounts",
    syscalls: [
      {
        name: "unshare",
        why: "a new user namespace gives back every capability inside it, and the others need one",
      },
      { name: "setns", why: "enters another namespace" },
      {
        name: "mount",
        why: "changes the filesystem view (needs a capability: only in a new user namespace)",
      },
      ...alike("as mount", "umount2", "pivot_root", "chroot"),
      ...alike(
        "the new mount API: as mount",
        "fsopen",
        "fsconfig",
        "fsmount",
        "fspick",
        "move_mount",
        "open_tree",
        "mount_setattr",
      ),
      {
        name: "clone3",
        errno: ENOSYS,
        why: "passes its flags in memory, where a filter cannot read them; ENOSYS, so glibc (>= 2.34) falls back to clone, whose CLONE_NEW* flags the filter sees",
      },
    ],
  },
  {
    title: "Privileged operations (a container runtime refuses them without the capability)",
    syscalls: [
      ...alike("loads a kernel module", "init_module", "finit_module"),
      { name: "delete_module", why: "unloads a kernel module" },
      ...alike("replaces the running kernel", "kexec_load", "kexec_file_load"),
      { name: "reboot", why: "restarts the host" },
      ...alike("the host's swap", "swapon", "swapoff"),
      ...alike("raw I/O port access", "iopl", "ioperm"),
      {
        name: "settimeofday",
        why: "sets the host clock (adjtimex and clock_adjtime stay: read-only without CAP_SYS_TIME)",
      },
      { name: "clock_settime", why: "sets the host clock" },
      { name: "acct", why: "process accounting to a host file" },
      { name: "syslog", why: "reads the kernel log: host addresses, other tenants' messages" },
      ...alike("filesystem quotas", "quotactl", "quotactl_fd"),
      {
        name: "open_by_handle_at",
        why: "opens any inode of a filesystem by number, around the directory tree (Docker's 'shocker' escape)",
      },
      { name: "name_to_handle_at", why: "makes the handles open_by_handle_at takes; nothing a test needs" },
      { name: "fanotify_init", why: "watches a whole filesystem's events (unprivileged since Linux 5.13)" },
      ...alike("the UTS names", "sethostname", "setdomainname"),
      { name: "vhangup", why: "hangs up the controlling terminal" },
      { name: "lookup_dcookie", why: "oprofile's path lookup, obsolete" },
    ],
  },
  {
    title: "NUMA placement (Docker refuses it without CAP_SYS_NICE; libraries fall back)",
    syscalls: [
      ...alike("pins memory to the host's NUMA nodes", "mbind", "set_mempolicy", "set_mempolicy_home_node"),
      { name: "get_mempolicy", why: "reveals the host's NUMA layout" },
      { name: "move_pages", why: "moves or queries the pages of any process of the uid" },
      { name: "migrate_pages", why: "moves another process's pages" },
    ],
  },
  {
    title:
      "Obsolete or never implemented (the kernel answers ENOSYS; a future use must not widen the sandbox)",
    syscalls: [
      { name: "uselib", why: "a.out shared libraries" },
      { name: "ustat", why: "superseded by statfs" },
      { name: "sysfs", why: "superseded by /proc/filesystems" },
      { name: "_sysctl", why: "removed in Linux 5.5" },
      { name: "nfsservctl", why: "removed in Linux 3.1" },
      ...alike("removed in Linux 2.6", "create_module", "get_kernel_syms", "query_module"),
      { name: "vm86", why: "i386 only (not in x86-64's table; the 32-bit entry is refused anyway)" },
      { name: "vm86old", why: "i386 only (as vm86)" },
      ...alike(
        "reserved, never implemented",
        "afs_syscall",
        "tuxcall",
        "security",
        "vserver",
        "getpmsg",
        "putpmsg",
      ),
    ],
  },
];

/** PR_SET_DUMPABLE (linux/prctl.h). */
const PR_SET_DUMPABLE = 4;
/** AF_VSOCK (linux/socket.h). */
const AF_VSOCK = 40;
/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET (linux/sched.h). */
const CLONE_NEW_NAMESPACES =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** The personalities Docker allows: PER_LINUX, PER_LINUX32, UNAME26, PER_LINUX32 | UNAME26, and 0xffffffff (a query). */
const ALLOWED_PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

/** The syscalls allowed only with some arguments. */
export const ARGUMENT_RULES: readonly ArgumentRule[] = [
  {
    syscall: "prctl",
    deniedWhen: [
      { index: 0, bits: 32, in: [PR_SET_DUMPABLE] },
      { index: 1, bits: 64, notIn: [0] },
    ],
    why:
      "prctl(PR_SET_DUMPABLE, 1): the harness, the compile driver and the fork server make themselves non-dumpable, so that a program of the same uid can neither ptrace them nor open their /proc/PID/mem or fds; " +
      "the program runs in (or is forked from) such a process and must not make it dumpable again",
  },
  {
    syscall: "socket",
    deniedWhen: [{ index: 0, bits: 32, in: [AF_VSOCK] }],
    why: "socket(AF_VSOCK): network namespaces do not isolate vsock, and in a VM it reaches the VM's host (this project's CI runs in a Firecracker microVM)",
  },
  {
    syscall: "clone",
    deniedWhen: [{ index: 0, anyBitOf: CLONE_NEW_NAMESPACES }],
    why: "clone with a CLONE_NEW* flag: a new namespace, as unshare (CLONE_NEWTIME is in clone's exit-signal byte, so only unshare and clone3 could ask for it)",
  },
  {
    syscall: "personality",
    deniedWhen: [{ index: 0, bits: 32, notIn: ALLOWED_PERSONALITIES }],
    why: "personality other than Docker's five values: the others change how the kernel treats the process (ADDR_NO_RANDOMIZE turns off ASLR, READ_IMPLIES_EXEC makes every readable page executable)",
  },
];

/** Every denied syscall, in the groups' order. */
export const DENIED_SYSCALLS: readonly DeniedSyscall[] = DENY_GROUPS.flatMap((group) => group.syscalls);

/** The errno syscalls the filter does not know by name answer (and the ones it has no rule for). */
export const UNKNOWN_SYSCALL_ERRNO = ENOSYS;

const LOW_32 = 0xffffffff;

/** 2 ** bit, for bits 0..31 (a shift would make bit 31 negative). */
const bitValue = (bit: number) => 2 ** bit;

/**
 * The masked comparisons whose union is "the argument's low 32 bits are none of `values`": the holes of
 * the binary trie of `values`, from the top bit down (one per missing branch, so 32 for one value).
 */
function notInLow32(index: number, values: readonly number[]): Comparison[] {
  const out: Comparison[] = [];
  const walk = (set: readonly number[], bit: number, mask: number, prefix: number) => {
    if (bit < 0) return;
    const b = bitValue(bit);
    const maskHere = mask + b;
    for (const side of [0, b]) {
      const branch = set.filter((v) => Math.floor(v / b) % 2 === side / b);
      if (branch.length === 0) out.push({ index, op: "masked_eq", value: maskHere, valueTwo: prefix + side });
      else walk(branch, bit - 1, maskHere, prefix + side);
    }
  };
  walk([...new Set(values)], 31, 0, 0);
  return out;
}

/** Bits set in a mask below 2 ** 53, low to high. */
function bitsOf(mask: number): number[] {
  const bits: number[] = [];
  for (let b = 1; b <= mask; b *= 2) if (Math.floor(mask / b) % 2 === 1) bits.push(b);
  return bits;
}

/** The comparisons whose union is the test (each a single comparison, so they AND with other arguments'). */
export function alternatives(test: ArgumentTest): Comparison[] {
  const { index } = test;
  if ("anyBitOf" in test)
    return bitsOf(test.anyBitOf).map((b) => ({ index, op: "masked_eq", value: b, valueTwo: b }));
  if ("noBitOf" in test) return [{ index, op: "masked_eq", value: test.noBitOf, valueTwo: 0 }];
  if ("in" in test) {
    return test.in.map((v) =>
      test.bits === 32
        ? { index, op: "masked_eq", value: LOW_32, valueTwo: v }
        : { index, op: "eq", value: v },
    );
  }
  if (test.bits === 32) return notInLow32(index, test.notIn);
  if (test.notIn.length !== 1) {
    throw new Error(
      `a 64-bit "notIn" test takes one value (argument ${index}): no single comparison says more`,
    );
  }
  return [{ index, op: "ne", value: test.notIn[0] as number }];
}

/** The test's complement. */
export function negation(test: ArgumentTest): ArgumentTest {
  const { index } = test;
  if ("anyBitOf" in test) return { index, noBitOf: test.anyBitOf };
  if ("noBitOf" in test) return { index, anyBitOf: test.noBitOf };
  if ("in" in test) return { index, bits: test.bits, notIn: test.in };
  return { index, bits: test.bits, in: test.notIn };
}

/**
 * An argument rule as filter rules: EPERM for every combination of the tests' alternatives (one
 * comparison per argument, ANDed), and allow for each alternative of each test's complement. The two
 * sets are disjoint and together cover every call.
 */
export function argumentRuleFilter(rule: ArgumentRule): FilterRule[] {
  const indexes = rule.deniedWhen.map((t) => t.index);
  if (new Set(indexes).size !== indexes.length) {
    // Docker (runc) and gVisor OR the comparisons of one entry that test the same argument.
    throw new Error(`${rule.syscall}: each test must name a different argument`);
  }
  let denied: Comparison[][] = [[]];
  for (const test of rule.deniedWhen) {
    denied = denied.flatMap((prefix) => alternatives(test).map((c) => [...prefix, c]));
  }
  const allowed = rule.deniedWhen.flatMap((test) => alternatives(negation(test)).map((c) => [c]));
  return [
    ...denied.map((args) => ({ syscall: rule.syscall, action: { errno: EPERM }, args })),
    ...allowed.map((args) => ({ syscall: rule.syscall, action: "allow" as const, args })),
  ];
}

/**
 * The whole filter for a host whose libseccomp knows `knownSyscalls` (its native architecture's names):
 * each denied one refused with its errno, each argument rule compiled, every other known one allowed.
 * Names of the policy the host does not know get no rule (they answer ENOSYS, as unknown ones do). A
 * denial whose errno is the default's (clone3) is kept: it says what the syscall must answer where the
 * default is not honoured (Docker 20.10 drops `defaultErrnoRet`). Sorted by syscall, so the same host
 * always gets the same program.
 */
export function filterRules(knownSyscalls: readonly string[]): FilterRule[] {
  const known = new Set(knownSyscalls);
  const denied = new Map(DENIED_SYSCALLS.map((d) => [d.name, d]));
  const conditioned = new Map(ARGUMENT_RULES.map((r) => [r.syscall, r]));
  const rules: FilterRule[] = [];
  for (const name of [...known].sort()) {
    const deny = denied.get(name);
    const conditional = conditioned.get(name);
    if (deny !== undefined) rules.push({ syscall: name, action: { errno: deny.errno ?? EPERM }, args: [] });
    else if (conditional !== undefined) rules.push(...argumentRuleFilter(conditional));
    else rules.push({ syscall: name, action: "allow", args: [] });
  }
  return rules;
}
