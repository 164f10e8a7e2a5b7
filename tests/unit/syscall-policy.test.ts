/**
 * The syscall filter's policy (src/sandbox/syscall-policy.ts), offline: the deny list is well formed, and
 * each argument rule compiles to comparisons that refuse exactly the calls the kernel would treat as the
 * refused ones — checked against predicates written here from the kernel's own reading of the arguments
 * (an `int` argument is its register's low 32 bits), over edge values and random 64-bit ones. The real
 * filter, in a real sandbox: tests/sandbox/syscall-filter.test.ts.
 */
import { describe, expect, test } from "vitest";
import {
  ARGUMENT_RULES,
  argumentRuleFilter,
  type Comparison,
  DENIED_SYSCALLS,
  DENY_GROUPS,
  EPERM,
  type FilterRule,
  filterRules,
} from "../../src/sandbox/syscall-policy.js";

const LOW = (1n << 32n) - 1n;
const low32 = (v: bigint) => v & LOW;

/** What the kernel does with the call, from its own definitions (linux/prctl.h, socket.h, sched.h). */
const REFUSED: Record<string, (args: readonly bigint[]) => boolean> = {
  // prctl(int option, unsigned long arg2, …): PR_SET_DUMPABLE is 4; arg2 is read whole.
  prctl: ([option = 0n, arg2 = 0n]) => low32(option) === 4n && arg2 !== 0n,
  // socket(int family, …): AF_VSOCK is 40.
  socket: ([family = 0n]) => low32(family) === 40n,
  // clone(unsigned long flags, …): the kernel keeps the low 32 bits; any CLONE_NEW* but CLONE_NEWTIME.
  clone: ([flags = 0n]) => (low32(flags) & 0x7e020000n) !== 0n,
  // personality(unsigned int): Docker's five values.
  personality: ([persona = 0n]) => ![0n, 8n, 0x20000n, 0x20008n, 0xffffffffn].includes(low32(persona)),
};

/** Whether a comparison holds, as libseccomp compares (64-bit arguments). */
function holds(c: Comparison, args: readonly bigint[]): boolean {
  const arg = args[c.index] ?? 0n;
  const value = BigInt(c.value);
  if (c.op === "eq") return arg === value;
  if (c.op === "ne") return arg !== value;
  return (arg & value) === BigInt(c.valueTwo ?? 0);
}

/** The actions of the rules that match the call. */
function matching(rules: readonly FilterRule[], args: readonly bigint[]): Set<string> {
  return new Set(
    rules.filter((r) => r.args.every((c) => holds(c, args))).map((r) => JSON.stringify(r.action)),
  );
}

/** A reproducible 64-bit generator (xorshift64*). */
function randoms(seed: bigint): () => bigint {
  let x = seed;
  return () => {
    x ^= x >> 12n;
    x ^= (x << 25n) & ((1n << 64n) - 1n);
    x ^= x >> 27n;
    return (x * 0x2545f4914f6cdd1dn) & ((1n << 64n) - 1n);
  };
}

describe("the deny list", () => {
  test("each syscall once, with a reason, and never also argument-ruled", () => {
    const names = DENIED_SYSCALLS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    for (const d of DENIED_SYSCALLS) expect(d.why.trim(), d.name).not.toBe("");
    for (const r of ARGUMENT_RULES) {
      expect(names).not.toContain(r.syscall);
      expect(r.why.length).toBeGreaterThan(10);
    }
    expect(DENY_GROUPS.every((g) => g.syscalls.length > 0)).toBe(true);
  });

  test("the issue's list is in it: other processes, keyrings, and what runtimes refuse without capabilities", () => {
    const names = new Set(DENIED_SYSCALLS.map((d) => d.name));
    for (const name of [
      "ptrace",
      "pidfd_getfd",
      "pidfd_open",
      "process_vm_readv",
      "process_vm_writev",
      "keyctl",
      "add_key",
      "request_key",
      "bpf",
      "perf_event_open",
      "userfaultfd",
      "io_uring_setup",
      "mount",
      "unshare",
      "setns",
      "kexec_load",
      "init_module",
      "open_by_handle_at",
    ]) {
      expect(names.has(name), name).toBe(true);
    }
  });
});

describe("argument rules", () => {
  const edges = [
    0n,
    1n,
    3n,
    4n,
    8n,
    17n,
    40n,
    0x20000n,
    0x20008n,
    0x40000n,
    LOW,
    1n << 32n,
    (1n << 64n) - 1n,
  ];
  for (const rule of ARGUMENT_RULES) {
    test(`${rule.syscall}: EPERM exactly when the kernel would do the refused thing, allowed otherwise`, () => {
      const refused = REFUSED[rule.syscall] as (args: readonly bigint[]) => boolean;
      const rules = argumentRuleFilter(rule);
      expect(rules.every((r) => r.syscall === rule.syscall)).toBe(true);
      // Docker and gVisor OR the comparisons of one argument: each rule must test an argument once.
      for (const r of rules) expect(new Set(r.args.map((c) => c.index)).size).toBe(r.args.length);
      const next = randoms(0x9e3779b97f4a7c15n);
      const calls: bigint[][] = [];
      for (const a of edges) for (const b of edges) calls.push([a, b]);
      for (const a of edges) calls.push([a | (next() & ~LOW), next()]); // the kernel ignores these high bits
      for (let i = 0; i < 3000; i++) calls.push([next(), i % 3 === 0 ? 0n : next()]);
      // The refused values with noise in the bits the kernel drops.
      for (let i = 0; i < 300; i++) {
        const noise = next() & ~LOW;
        calls.push(
          [noise | 4n, next()],
          [noise | 40n, 0n],
          [noise | 0x10000000n, 0n],
          [noise | 0x40000n, 0n],
        );
      }
      for (const args of calls) {
        const actions = matching(rules, args);
        const want = refused(args) ? JSON.stringify({ errno: EPERM }) : JSON.stringify("allow");
        expect([...actions], `${rule.syscall}(${args.map((a) => `0x${a.toString(16)}`).join(", ")})`).toEqual(
          [want],
        );
      }
    });
  }
});

describe("the whole filter", () => {
  test("every known syscall has rules: denied ones their errno, conditioned ones their rules, others allowed; unknown names none", () => {
    const known = ["read", "write", "keyctl", "clone3", "prctl", "getpid", "some_future_call"];
    const rules = filterRules(known);
    expect(rules.map((r) => r.syscall)).toEqual([...rules.map((r) => r.syscall)].sort());
    expect(new Set(rules.map((r) => r.syscall))).toEqual(new Set(known));
    const one = (name: string) => rules.filter((r) => r.syscall === name);
    expect(one("read")).toEqual([{ syscall: "read", action: "allow", args: [] }]);
    expect(one("some_future_call")).toEqual([{ syscall: "some_future_call", action: "allow", args: [] }]);
    expect(one("keyctl")).toEqual([{ syscall: "keyctl", action: { errno: 1 }, args: [] }]);
    expect(one("clone3")).toEqual([{ syscall: "clone3", action: { errno: 38 }, args: [] }]);
    expect(one("prctl").every((r) => r.args.length > 0)).toBe(true);
    // A denied or conditioned name this host does not know gets no rule (it answers the default).
    expect(rules.some((r) => r.syscall === "vm86" || r.syscall === "socket")).toBe(false);
  });
});
