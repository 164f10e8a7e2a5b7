"""minedit's syscall filter builder: libseccomp, through Debian's python3-seccomp, turns the rules
src/sandbox/syscall-policy.ts compiled into the classic BPF program `bwrap --seccomp FD` loads.
src/sandbox/syscall-filter.ts runs it on the host (never inside a sandbox), with the sandbox's interpreter.

Usage:  python3 -I build_filter.py filter
    A dialog, so that one interpreter start (~0.1 s, on the path of every `minedit serve` start-up) does
    both steps: it prints, as a JSON array on one line, every syscall name libseccomp knows for this
    machine's (native) architecture; then reads {"defaultErrno": N, "rules": [...]} on stdin (the rules
    the TypeScript side computes from those names) and writes the BPF program (struct sock_filter[],
    native byte order) on stdout after the names' line.
    a rule: {"syscall": NAME, "action": "allow" | {"errno": N},
             "args": [{"index": I, "op": "eq" | "ne" | "masked_eq", "value": V, "valueTwo": W}, ...]}
            (the args are ANDed; for masked_eq, value is the mask and valueTwo the datum, as in libseccomp's
            scmp_arg_cmp and Docker's profiles). Rules of one syscall are ORed; the TypeScript side makes
            those with different actions disjoint, since libseccomp lets a rule without args override them.
Exit status 2: libseccomp's Python bindings are missing (the message says what to install); 1: a bad
input (the message says which rule).

Why each choice:
- Native architecture only, and every other one (int 0x80's i386 entry, x32's 0x40000000 bit, which
  libseccomp routes to the same action for an x86-64 filter) kills the process: the sandbox's programs
  are 64-bit, and a filter that also answered the 32-bit tables would double what must be right.
- Syscalls the rules do not name, i.e. numbers newer than this libseccomp's table, return the default
  errno (ENOSYS), as a container runtime's allow-list does: a library probing a new syscall falls back.
- libseccomp's binary-tree layout (SCMP_FLTATR_CTL_OPTIMIZE = 2): ~370 allowed names cost O(log n)
  comparisons instead of a linear scan. The kernel's constant-action cache (Linux >= 5.11) skips the
  program entirely for every syscall whose answer depends on nothing but its number, which is all the
  unconditional ones (docs/sandbox.md, "The syscall filter", has the measurement).
"""

import json
import sys

# x86-64 and aarch64 number their syscalls below this; libseccomp's tables for them end well before it.
_MAX_SYSCALL = 1024


def _fail(status, message):
    sys.stderr.write("build_filter: " + message + "\n")
    sys.exit(status)


def _seccomp():
    try:
        import seccomp
    except ImportError as e:
        _fail(2, "cannot import libseccomp's Python bindings (%s): apt-get install -y python3-seccomp" % e)
    return seccomp


def _names(seccomp):
    names = []
    for number in range(_MAX_SYSCALL):
        try:
            name = seccomp.resolve_syscall(seccomp.Arch.NATIVE, number)
        except ValueError:
            continue
        names.append(name.decode() if isinstance(name, bytes) else name)
    return names


def _bpf(seccomp, spec):
    ops = {"eq": seccomp.EQ, "ne": seccomp.NE, "masked_eq": seccomp.MASKED_EQ}
    f = seccomp.SyscallFilter(seccomp.ERRNO(spec["defaultErrno"]))
    f.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    f.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    for rule in spec["rules"]:
        name = rule["syscall"]
        if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) < 0:
            _fail(1, "%r is not a syscall of this architecture" % name)
        action = rule["action"]
        if action != "allow" and action["errno"] == spec["defaultErrno"]:
            continue  # what the default does anyway; libseccomp refuses a rule that repeats it
        action = seccomp.ALLOW if action == "allow" else seccomp.ERRNO(action["errno"])
        args = [
            seccomp.Arg(a["index"], ops[a["op"]], a["value"], a.get("valueTwo", 0)) for a in rule["args"]
        ]
        try:
            f.add_rule(action, name, *args)
        except (OSError, RuntimeError, ValueError) as e:
            _fail(1, "libseccomp refused the rule %s: %s" % (json.dumps(rule), e))
    out = sys.stdout.buffer
    out.flush()
    f.export_bpf(out)


def main():
    if sys.argv[1:] != ["filter"]:
        _fail(1, "usage: build_filter.py filter")
    seccomp = _seccomp()
    sys.stdout.write(json.dumps(_names(seccomp)) + "\n")
    sys.stdout.flush()
    try:
        spec = json.load(sys.stdin)
    except ValueError as e:
        _fail(1, "the rules are not JSON: %s" % e)
    _bpf(seccomp, spec)


main()
