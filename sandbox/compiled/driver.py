"""minedit's compile-then-test driver for C++ and Java. Runs inside the sandbox; src/runners/compiled.ts
writes it as driver.py.

Usage:  python3 -s driver.py SPEC
    SPEC  JSON {"compile": [argv], "env": {extra environment of the compiler}, "timeout_ms": int,
          "log_cap": int, "harness": [argv of the stdio harness, starting with "python3"]}
Stdin:  the stdio harness's (the nonce and the cases); this process never reads it.

1. Compiles: runs SPEC.compile in a session of its own, stdin /dev/null, stdout and stderr into one pipe
   of which the first `log_cap` bytes are kept; at `timeout_ms` (from this process's start) the whole
   session is killed.
2. Writes ONE line to stdout, always the first line of the run's output:

       @@minedit-compile:{"exit": int|null, "signal": int|null, "timed_out": bool,
                          "missing": str|null, "log": base64}

   "missing" is set when the compiler could not be started at all (not the candidate's doing).
   No nonce is needed: nothing but this process writes to stdout before the line (the compiler writes
   to its pipe; candidate code has not run yet), and whatever runs later writes behind it.
3. If the compiler exited with status 0: becomes the stdio harness (exec SPEC.harness, same stdin), which
   runs the binary once per case and reports in nonce-tagged records (sandbox/python/harness.py _stdio).
   Otherwise exits with status 0.

The compiler reads candidate source, so this process is made non-dumpable first (prctl PR_SET_DUMPABLE
0), as the harness is: an `#include "/proc/<pid>/fd/0"` cannot open its stdin and eat the nonce and the
inputs. (The sandbox's own stdio are sockets, which /proc does not open.)
"""

import sys


def _main():
    import ctypes
    import json
    import os
    import select
    import signal
    import subprocess
    import time
    from binascii import b2a_base64

    started = time.monotonic()
    spec = json.loads(sys.argv[1])
    deadline = started + spec["timeout_ms"] / 1000.0
    log_cap = spec["log_cap"]

    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 4
        os.write(2, b"driver: prctl(PR_SET_DUMPABLE, 0) failed\n")
        os._exit(3)

    def report(exit_code, signal_number, timed_out, missing, log):
        record = {
            "exit": exit_code,
            "signal": signal_number,
            "timed_out": timed_out,
            "missing": missing,
            "log": b2a_base64(log, newline=False).decode(),
        }
        line = b"@@minedit-compile:" + json.dumps(record).encode() + b"\n"
        while line:
            line = line[os.write(1, line) :]

    env = dict(os.environ)
    env.update(spec["env"])
    try:
        # restore_signals (the default) gives the compiler SIGPIPE and SIGXFSZ back, which Python ignores.
        proc = subprocess.Popen(
            spec["compile"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    except OSError as e:
        report(None, None, False, "%s: %s" % (spec["compile"][0], e.strerror or e), b"")
        os._exit(0)

    fd = proc.stdout.fileno()
    log = bytearray()
    timed_out = False
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        if len(log) < log_cap:
            log += chunk[: log_cap - len(log)]
    # Whatever is left of the compiler's session (all of it on a timeout) goes now.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    status = proc.wait()
    proc.stdout.close()
    if timed_out:
        report(None, signal.SIGKILL, True, None, bytes(log))
        os._exit(0)
    if status < 0:
        report(None, -status, False, None, bytes(log))
        os._exit(0)
    report(status, None, False, None, bytes(log))
    if status != 0:
        os._exit(0)
    harness = spec["harness"]
    os.execv(sys.executable, [sys.executable] + harness[1:])


if __name__ == "__main__":
    _main()
